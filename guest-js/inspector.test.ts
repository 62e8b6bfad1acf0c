import { readFileSync } from "node:fs";

import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";

import { defineInspector, mountInspector } from "./inspector";
import { backend, job, lastList, until } from "./inspector-fixtures";
import { jobsEvent } from "./test-plugin";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

describe("inspector", () => {
  it("draws a chart per kind and per sync target over the last hour, and the last day by hour", async () => {
    const calls = backend([job(1)], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host, { view: "history" });
    await inspector.ready;
    const root = host.shadowRoot!;
    await until(() => !!root.querySelector('figure[data-kind="ingest"] svg'), "the kind's chart");
    const kind = root.querySelector('figure[data-kind="ingest"]')!;
    expect(kind.querySelector("figcaption")!.textContent).toContain("10 ended, 3 failed, 3 retried, 12 deferred offline, 1 asked to wait");
    expect(kind.querySelector("figcaption")!.textContent).toContain("a bar per minute");
    const bars = Array.from(kind.querySelectorAll("svg > g"));
    expect(bars.map((g) => (g as SVGElement).dataset.total)).toEqual(["4", "6"]);
    // The second minute's bar is its succeeded and failed parts, stacked, and says so.
    expect(Array.from(bars[1].querySelectorAll("rect")).map((r) => r.getAttribute("data-series"))).toEqual(["succeeded", "failed"]);
    expect(bars[1].querySelector("title")!.textContent).toContain("3 succeeded, 3 failed");
    expect(kind.querySelector("svg")!.getAttribute("aria-label")).toContain("run p95 up to");
    const target = root.querySelector('figure[data-target="gh/me/notes"]')!;
    expect(target.querySelector("figcaption")!.textContent).toContain("4 runs, 1 failed or offline, 9 items changed");
    // The last day, by hour: one bar of 10.
    const span = root.querySelector('select[aria-label="Span"]') as HTMLSelectElement;
    span.value = "lastDay";
    span.dispatchEvent(new Event("change"));
    await until(() => root.querySelector('figure[data-kind="ingest"] svg > g')?.getAttribute("data-total") === "10", "the day");
    expect(root.querySelector('figure[data-kind="ingest"] figcaption')!.textContent).toContain("a bar per hour");
    expect(calls.filter((c) => c.cmd === "plugin:jobs|job_history").map((c) => c.args.span)).toEqual(["lastHour", "lastDay"]);
    inspector.destroy();
  });

  it("draws the newest jobs in its own shadow root, with text never parsed as HTML", async () => {
    backend([job(1), job(2, { kind: "<img src=x onerror=alert(1)>" })], false);
    const host = document.createElement("div");
    document.body.append(host);
    const inspector = mountInspector(host);
    await inspector.ready;
    const rows = Array.from(host.shadowRoot!.querySelectorAll("#jobs tr"));
    expect(rows.map((r) => (r as HTMLElement).dataset.id)).toEqual(["2", "1"]);
    expect(host.shadowRoot!.querySelector("img")).toBeNull();
    expect(rows[0].textContent).toContain("<img src=x");
    // Nothing leaks into the page.
    expect(document.querySelectorAll("style").length).toBe(0);
    expect(inspector.firstRenderMs()).not.toBeNull();
    expect(host.dataset.firstRenderMs).toBeDefined();
    inspector.destroy();
    expect(host.shadowRoot!.childNodes.length).toBe(0);
  });

  it("is read-only, and says so, when the window lacks jobs:admin", async () => {
    backend([job(1, { status: "failed" })], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    expect(root.querySelector(".mode")!.textContent).toContain("read-only");
    (root.querySelector('button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-status"), "the detail");
    expect(root.querySelector('#detail button[data-action="retry"]')).toBeNull();
    inspector.destroy();
  });

  it("a state change reloads the first page without a reload of the page", async () => {
    const jobs = [job(1)];
    backend(jobs, false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    jobs.push(job(2));
    jobs[0].status = "running";
    await jobsEvent({ type: "jobStateChanged", id: 1, kind: "ingest", from: "queued", to: "running", attempt: 1, at: 2 });
    await until(() => root.querySelectorAll("#jobs tr").length === 2, "the new job");
    expect((root.querySelector('#jobs tr[data-id="1"]') as HTMLElement).dataset.status).toBe("running");
    inspector.destroy();
  });

  it("a burst of state changes reloads the page at most once every 100 ms", async () => {
    const jobs = [job(1)];
    const calls = backend(jobs, false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    vi.useFakeTimers();
    try {
      const lists = () => calls.filter((c) => c.cmd === "plugin:jobs|list_jobs").length;
      const before = lists();
      const change = (at: number) =>
        jobsEvent({ type: "jobStateChanged", id: 1, kind: "ingest", from: "queued", to: "running", attempt: 1, at });
      // Fifty changes within 90 ms: nothing yet, then one reload.
      for (let i = 0; i < 50; i++) {
        await change(i);
        await vi.advanceTimersByTimeAsync(1.8);
      }
      expect(lists()).toBe(before);
      await vi.advanceTimersByTimeAsync(20);
      expect(lists()).toBe(before + 1);
      // The next burst: one more, 100 ms after its first change.
      for (let i = 0; i < 20; i++) await change(100 + i);
      await vi.advanceTimersByTimeAsync(99);
      expect(lists()).toBe(before + 1);
      await vi.advanceTimersByTimeAsync(2);
      expect(lists()).toBe(before + 2);
      // Quiet: no reload at all.
      await vi.advanceTimersByTimeAsync(1000);
      expect(lists()).toBe(before + 2);
    } finally {
      vi.useRealTimers();
      inspector.destroy();
    }
  });

  it("an id in an event never becomes a selector", async () => {
    const jobs = [job(1), job(2)];
    backend(jobs, false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    const first = () => (root.querySelector('#jobs tr[data-id="1"] td') as HTMLElement).textContent;
    const before = first();
    // As a selector this would pick the first cell of job 1's row.
    const id = '1"] td, tr[data-id="2' as unknown as number;
    await jobsEvent({ type: "jobProgress", id, kind: "ingest", attempt: 1, done: 1, total: 2, percent: 50, at: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first()).toBe(before);
    inspector.destroy();
  });

  it("a short page of large payloads may have older jobs behind it", async () => {
    const big = "x".repeat(3 << 20);
    const jobs = [job(1), job(2, { payload: big })];
    backend(jobs, false);
    const host = document.createElement("div");
    const inspector = mountInspector(host, { pageSize: 50 });
    await inspector.ready;
    const root = host.shadowRoot!;
    expect((root.querySelector("#page-older") as HTMLButtonElement).disabled).toBe(false);
    inspector.destroy();
    const small = document.createElement("div");
    backend([job(1), job(2)], false);
    const other = mountInspector(small, { pageSize: 50 });
    await other.ready;
    expect((small.shadowRoot!.querySelector("#page-older") as HTMLButtonElement).disabled).toBe(true);
    other.destroy();
  });

  it("pages older and newer by the last id", async () => {
    const jobs = [1, 2, 3, 4, 5].map((id) => job(id));
    const calls = backend(jobs, false);
    const host = document.createElement("div");
    const inspector = mountInspector(host, { pageSize: 2 });
    await inspector.ready;
    // The first render reads the page once.
    expect(calls.filter((c) => c.cmd === "plugin:jobs|list_jobs").length).toBe(1);
    const root = host.shadowRoot!;
    (root.querySelector("#page-older") as HTMLElement).click();
    await until(() => (root.querySelector("#jobs tr") as HTMLElement)?.dataset.id === "3", "page 2");
    expect(lastList(calls).args.filter.before).toBe(4);
    (root.querySelector("#page-newer") as HTMLElement).click();
    await until(() => (root.querySelector("#jobs tr") as HTMLElement)?.dataset.id === "5", "page 1");
    inspector.destroy();
  });

  it("<jobs-inspector> mounts when connected and stops when removed", async () => {
    backend([job(1)], false);
    defineInspector();
    defineInspector();
    const element = document.createElement("jobs-inspector");
    document.body.append(element);
    await (element as any).handle.ready;
    expect(element.shadowRoot!.querySelectorAll("#jobs tr").length).toBe(1);
    // The attribute shows its tab whenever it changes, not only at first.
    element.setAttribute("view", "counts");
    const selected = () => element.shadowRoot!.querySelector('[role=tab][aria-selected="true"]')!.getAttribute("data-view");
    expect(selected()).toBe("counts");
    element.setAttribute("view", "schedules");
    expect(selected()).toBe("schedules");
    // The plugin's own troubles show above the tabs' panels: a refused config.toml.
    const health = element.shadowRoot!.querySelector("#plugin-health") as HTMLElement;
    expect(health.hidden).toBe(false);
    expect(health.textContent).toContain("did you mean `rate_limits`?");
    expect(health.querySelectorAll("div").length).toBe(1);
    // Jobs that keep the machine awake are named under it (not as a trouble).
    const awake = element.shadowRoot!.querySelector("#keep-awake") as HTMLElement;
    expect(awake.hidden).toBe(false);
    expect(awake.textContent).toBe("keeping the machine awake for ingest #1");
    // So is the work a quit waits for.
    const quitting = element.shadowRoot!.querySelector("#quitting") as HTMLElement;
    expect(quitting.hidden).toBe(false);
    expect(quitting.textContent).toBe("finishing 2 jobs before quitting: upload 2");
    element.remove();
    expect((element as any).handle).toBeNull();
  });

  it("counts, schedules, sync targets and local jobs each have a tab, with actions only for admins", async () => {
    for (const admin of [false, true]) {
      const calls = backend([job(1), job(2, { status: "failed" })], admin);
      const host = document.createElement("div");
      const inspector = mountInspector(host, { view: "counts" });
      await inspector.ready;
      const root = host.shadowRoot!;
      const tab = (view: string) => (root.querySelector(`[role=tab][data-view="${view}"]`) as HTMLElement).click();
      expect(root.querySelector('tr[data-kind="ingest"] td[data-status="queued"]')!.textContent).toBe("2");
      expect(!!root.querySelector('tr[data-kind="ingest"] button[data-action="pause"]')).toBe(admin);
      if (admin) {
        (root.querySelector('tr[data-kind="ingest"] button[data-action="pause"]') as HTMLElement).click();
        await until(() => calls.some((c) => c.cmd === "plugin:jobs|pause_kind"), "pause_kind");
      }
      tab("schedules");
      await until(() => !!root.querySelector('tr[data-name="digest"]'), "the schedule");
      expect(root.querySelector('tr[data-name="digest"]')!.textContent).toContain("cron 0 8 * * * (Europe/Berlin)");
      expect(!!root.querySelector('tr[data-name="digest"] button[data-action="run"]')).toBe(admin);
      tab("sync");
      await until(() => !!root.querySelector('tr[data-target="gh/me/notes"]'), "the target");
      expect(root.querySelector('tr[data-target="gh/me/notes"]')!.textContent).toContain("2 failure(s)");
      // Refresh needs only the default set.
      expect(root.querySelector('tr[data-target="gh/me/notes"] button[data-action="refresh"]')).not.toBeNull();
      tab("local");
      await until(() => !!root.querySelector('tr[data-id="local-1"] progress'), "the local job");
      expect((root.querySelector('tr[data-id="local-1"] progress') as HTMLProgressElement).value).toBe(50);
      inspector.destroy();
      clearMocks();
    }
  });

  it("arrow keys move between the tabs", async () => {
    backend([job(1)], false);
    const host = document.createElement("div");
    document.body.append(host);
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    const jobsTab = root.querySelector('[role=tab][data-view="jobs"]') as HTMLElement;
    jobsTab.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
    expect(root.querySelector('[role=tab][aria-selected="true"]')!.getAttribute("data-view")).toBe("counts");
    expect((root.querySelector("#panel-jobs") as HTMLElement).hidden).toBe(true);
    inspector.destroy();
  });

  it("Enter applies a filter, Escape closes the detail, no network request, a dark scheme", async () => {
    const fetches: unknown[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((...args: unknown[]) => {
      fetches.push(args);
      return Promise.reject(new Error("no network"));
    }) as typeof fetch;
    try {
      const calls = backend([job(1), job(2, { kind: "mail" })], false);
      const host = document.createElement("div");
      document.body.append(host);
      const inspector = mountInspector(host);
      await inspector.ready;
      const root = host.shadowRoot!;
      const kind = root.querySelector("#filter-kind") as HTMLInputElement;
      kind.value = "mail";
      kind.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
      await until(() => root.querySelectorAll("#jobs tr").length === 1, "the mail job alone");
      expect(lastList(calls).args.filter.kind).toBe("mail");
      (root.querySelector('button[data-action="open"]') as HTMLElement).click();
      await until(() => !!root.querySelector("#detail-status"), "the detail");
      const detail = root.querySelector("#detail") as HTMLElement;
      detail.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
      await until(() => detail.hidden, "the detail closed");
      expect(root.querySelector("style")!.textContent).toContain("prefers-color-scheme: dark");
      expect(fetches).toEqual([]);
      inspector.destroy();
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it("is left out of the script Tauri injects with withGlobalTauri", () => {
    const injected = readFileSync(`${process.cwd()}/api-iife.js`, "utf8");
    expect(injected).toContain("listJobs");
    expect(injected).not.toContain("mountInspector");
  });

  it("a dropped-events notice reloads the view shown", async () => {
    const calls = backend([job(1)], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const lists = () => calls.filter((c) => c.cmd === "plugin:jobs|list_jobs").length;
    const before = lists();
    await jobsEvent({ type: "kindPaused", kind: "other", paused: true, at: 1 }, 3);
    await until(() => lists() > before, "a reload after the drop");
    inspector.destroy();
  });
});
