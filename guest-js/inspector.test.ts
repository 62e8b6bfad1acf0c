import { readFileSync } from "node:fs";

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { Job, JobStatus } from "./bindings";
import { defineInspector, mountInspector } from "./inspector";
import { jobsEvent, subscribed, subscription } from "./test-plugin";

type Call = { cmd: string; args: any };

function job(id: number, fields: Partial<Job> = {}): Job {
  return {
    id,
    kind: "ingest",
    payload: { batch: id },
    status: "queued",
    priority: 50,
    runAt: 1,
    attempts: 0,
    maxAttempts: 5,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    dedupeKey: null,
    lastError: null,
    result: null,
    parent: null,
    actor: "user",
    createdAt: 1,
    updatedAt: 1,
    finishedAt: null,
    startedAt: null,
    timeoutMs: null,
    progress: null,
    unreadable: null,
    payloadVersion: 1,
    handlerMissing: false,
    rateLimitedUntil: null,
    ...fields,
  } as Job;
}


/** A plugin with `jobs` in it; `admin` says whether the window may use admin commands. */
function backend(jobs: Job[], admin: boolean): Call[] {
  const calls: Call[] = [];
  mockIPC(
    (cmd, args: any) => {
      if (subscription(cmd, args)) return subscribed.id;
      calls.push({ cmd, args });
      switch (cmd) {
        case "plugin:jobs|retry_job":
          if (!admin) throw "jobs.retry_job not allowed. Permissions associated with this command: jobs:allow-retry-job";
          if (args.id === 0) throw { code: "notFound", message: "no job 0" };
          jobs.find((j) => j.id === args.id)!.status = "queued";
          return "requeued";
        case "plugin:jobs|list_jobs": {
          const f = args.filter;
          return jobs
            .filter((j) => (f.status === null || j.status === f.status) && (f.kind === null || j.kind === f.kind))
            .filter((j) => (f.parent === null || j.parent === f.parent) && (f.actor === null || j.actor === f.actor))
            .filter((j) => f.before === null || j.id < f.before)
            .sort((a, b) => b.id - a.id)
            .slice(0, f.limit ?? 50);
        }
        case "plugin:jobs|get_job":
          return jobs.find((j) => j.id === args.id) ?? null;
        case "plugin:jobs|get_workflow": {
          const pieces = jobs.filter((j) => j.parent === args.parent);
          const counts: [JobStatus, number][] = [];
          for (const piece of pieces) {
            const found = counts.find(([status]) => status === piece.status);
            if (found) found[1] += 1;
            else counts.push([piece.status, 1]);
          }
          const done = pieces.filter((j) => ["succeeded", "failed", "cancelled"].includes(j.status)).length;
          const failed = pieces.some((j) => j.status === "failed" || j.status === "cancelled");
          return { parent: args.parent, status: "succeeded", pieces: counts, progress: { done, total: pieces.length },
            ended: done === pieces.length, failed };
        }
        case "plugin:jobs|job_dependencies": {
          // As the plugin answers: a reindex waited for the embeds; once freed to run
          // (here: once it has run) its rows are gone, and it only says it waited.
          const freed = (j: Job) => j.status === "running" || j.status === "succeeded";
          const asked = jobs.find((j) => j.id === args.id);
          const waited = asked?.kind === "reindex";
          const waitsFor = waited && !freed(asked) ? jobs.filter((j) => j.kind === "embed").map((j) => j.id) : [];
          const waitedBy = asked?.kind === "embed" ? jobs.filter((j) => j.kind === "reindex" && !freed(j)).map((j) => j.id) : [];
          return { id: args.id, waited, waitsFor, waitsForTotal: waitsFor.length, waitedBy, waitedByTotal: waitedBy.length };
        }
        case "plugin:jobs|retry_workflow":
          if (!admin) throw "jobs.retry_workflow not allowed";
          for (const j of jobs) if (j.parent === args.parent && j.status !== "succeeded") j.status = "queued";
          return { requeued: 1, waitingAgain: 1 };
        case "plugin:jobs|job_counts":
          return [{ kind: "ingest", status: "queued", count: jobs.length }];
        case "plugin:jobs|paused_kinds":
          return [];
        case "plugin:jobs|job_history": {
          // Two minutes of "ingest" ending 10 min before now, by the test's own clock.
          const at = Math.floor(Date.now() / 60_000) * 60_000 - 600_000;
          const point = (at: number, succeeded: number, failed: number) => ({
            at, spanMs: 60_000, succeeded, failed, cancelled: 0, retries: failed,
            waitP50Ms: 3, waitP95Ms: 7, runP50Ms: 120, runP95Ms: 1400 + failed,
          });
          if (args.span === "lastDay") return [{ kind: "ingest", points: [{ ...point(Math.floor(at / 3_600_000) * 3_600_000, 7, 3), spanMs: 3_600_000 }] }];
          return [{ kind: "ingest", points: [point(at, 4, 0), point(at + 60_000, 3, 3)] }];
        }
        case "plugin:jobs|sync_history":
          return [{ target: "gh/me/notes", points: [{ at: Math.floor(Date.now() / 60_000) * 60_000, spanMs: 60_000, updated: 1,
            notModified: 2, failed: 1, offline: 0, throttled: 0, changed: 9, tookP50Ms: 80, tookP95Ms: 250 }] }];
        case "plugin:jobs|list_schedules":
          return [
            { name: "digest", kind: "mail", payload: null, priority: 50, dedupeKey: null, actor: "system", intervalMs: null,
              cron: "0 8 * * *", zone: "Europe/Berlin", nextRun: 10, paused: false, lastRun: null, lastJob: 1, createdAt: 1, updatedAt: 1 },
          ];
        case "plugin:jobs|sync_status":
          return [{ target: "gh/me/notes", state: { lastSuccess: 5, consecutiveFailures: 2, nextDue: 9, throttledUntil: null },
            health: { status: "warning", reason: "2 failures" } }];
        case "plugin:jobs|list_local_jobs":
          return [{ id: "local-1", kind: "export", status: "running", done: 5, total: 10, cancelRequested: false, error: null,
            startedAt: 1, finishedAt: null, result: null }];
        default:
          return null;
      }
    },
  );
  return calls;
}

function lastList(calls: Call[]): Call {
  const lists = calls.filter((c) => c.cmd === "plugin:jobs|list_jobs");
  return lists[lists.length - 1];
}


const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out: ${what}`);
};

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

/** Mounts a read-only inspector on `jobs` and opens job 1's detail, with its graph. */
async function graphOf(jobs: Job[]) {
  backend(jobs, false);
  const host = document.createElement("div");
  const inspector = mountInspector(host);
  await inspector.ready;
  const root = host.shadowRoot!;
  (root.querySelector('tr[data-id="1"] button[data-action="open"]') as HTMLElement).click();
  await until(() => !!root.querySelector("#detail-graph svg"), "the graph");
  return { inspector, root };
}

describe("inspector", () => {
  it("draws a workflow's graph in its parent's detail, and a failed piece opens with its error", async () => {
    const { inspector, root } = await graphOf([
      job(1, { kind: "import", status: "succeeded" }),
      job(2, { kind: "embed", parent: 1, status: "succeeded" }),
      job(3, { kind: "embed", parent: 1, status: "failed", lastError: "HTTP 502" }),
      job(4, { kind: "reindex", parent: 1, status: "cancelled" }),
    ]);
    const nodes = Array.from(root.querySelectorAll("#detail-graph .node")) as SVGElement[];
    expect(nodes.map((n) => [n.dataset.id, n.dataset.status])).toEqual([
      ["1", "succeeded"],
      ["2", "succeeded"],
      ["3", "failed"],
      ["4", "cancelled"],
    ]);
    // The parent to each piece, each piece to the job after them.
    expect(root.querySelectorAll("#detail-graph line.edge").length).toBe(4);
    expect(nodes[2].querySelector("title")!.textContent).toBe("#3 embed: failed — HTTP 502");
    nodes[2].dispatchEvent(new MouseEvent("click"));
    await until(() => root.querySelector("#detail-status")?.textContent === "failed", "the failed piece");
    expect(root.querySelector("#detail-error")!.textContent).toBe("HTTP 502");
    inspector.destroy();
  });
  it("draws a finished workflow's job after the pieces after them, though its rows went when it was freed", async () => {
    const { inspector, root } = await graphOf([
      job(1, { kind: "import", status: "succeeded" }),
      job(2, { kind: "embed", parent: 1, status: "succeeded" }),
      job(3, { kind: "embed", parent: 1, status: "succeeded" }),
      job(4, { kind: "reindex", parent: 1, status: "succeeded" }),
    ]);
    expect(root.querySelector("#detail-graph svg.graph")!.getAttribute("aria-label")).toBe("Workflow #1: 2 pieces, 1 after them");
    expect(root.querySelectorAll("#detail-graph line.edge").length).toBe(4);
    inspector.destroy();
  });
  it("says why a queued job waits and which jobs hold the slots it waits for", async () => {
    const slot = { condition: "slot", cap: 1, running: 1, stale: 0, leaseEndsAt: Date.now() + 30_000 } as const;
    backend([job(1, { status: "running" }), job(2, { waitingFor: [slot] } as Partial<Job>)], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    (root.querySelector('tr[data-id="2"] button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-why"), "why it waits");
    expect(root.querySelector("#detail-why")!.textContent).toContain("waiting for a free slot (1 running, cap 1); a slot comes back by");
    expect(root.querySelector("#detail-holders")!.textContent).toBe("#1");
    // One click to the holder.
    (root.querySelector("#detail-holders button") as HTMLElement).click();
    await until(() => root.querySelector("#detail-status")?.textContent === "running", "the holder's detail");
    expect(root.querySelector("#detail-why")).toBeNull();
    inspector.destroy();
  });

  it("draws a chart per kind and per sync target over the last hour, and the last day by hour", async () => {
    const calls = backend([job(1)], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host, { view: "history" });
    await inspector.ready;
    const root = host.shadowRoot!;
    await until(() => !!root.querySelector('figure[data-kind="ingest"] svg'), "the kind's chart");
    const kind = root.querySelector('figure[data-kind="ingest"]')!;
    expect(kind.querySelector("figcaption")!.textContent).toContain("10 ended, 3 failed, 3 retried");
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

  it("filters narrow the page and a failed job is retried from its detail", async () => {
    const jobs = [job(1, { status: "failed", lastError: "boom" }), job(2), job(3, { kind: "mail" })];
    const calls = backend(jobs, true);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    expect(root.querySelector(".mode")!.textContent).toContain("admin");
    const status = root.querySelector("#filter-status") as HTMLSelectElement;
    status.value = "failed";
    status.dispatchEvent(new Event("change"));
    await until(() => root.querySelectorAll("#jobs tr").length === 1, "the filtered page");
    expect(lastList(calls).args.filter.status).toBe("failed");
    (root.querySelector('button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector('#detail button[data-action="retry"]'), "a retry button");
    expect(root.querySelector("#detail-error")!.textContent).toBe("boom");
    (root.querySelector('#detail button[data-action="retry"]') as HTMLElement).click();
    await until(() => root.querySelector("#detail-status")?.textContent === "queued", "the retried job");
    inspector.destroy();
  });

  it("a workflow's parent shows its counts, a job what it waits for, and a failed workflow is retried", async () => {
    const jobs = [
      job(1, { kind: "import", status: "succeeded" }),
      job(2, { kind: "embed", parent: 1, status: "succeeded" }),
      job(3, { kind: "embed", parent: 1, status: "failed" }),
      job(4, { kind: "reindex", parent: 1, status: "cancelled" }),
    ];
    const calls = backend(jobs, true);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    (root.querySelector('tr[data-id="4"] button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-waits-for"), "what the final job waits for");
    expect(root.querySelector("#detail-waits-for")!.textContent).toBe("#2#3");
    (root.querySelector('#detail-waits-for button') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-waited-by"), "what waits for a piece");
    expect(root.querySelector("#detail-waited-by")!.textContent).toBe("#4");
    (root.querySelector('tr[data-id="1"] button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-workflow"), "the workflow's counts");
    expect(root.querySelector("#detail-workflow")!.textContent).toBe("3 of 3 ended · 1 succeeded, 1 failed, 1 cancelled · failed");
    (root.querySelector('#detail button[data-action="retry-workflow"]') as HTMLElement).click();
    await until(() => calls.some((c) => c.cmd === "plugin:jobs|retry_workflow"), "the retry");
    await until(() => root.querySelector("#detail-workflow")?.textContent?.startsWith("1 of 3 ended") ?? false, "the retried workflow");
    expect(root.querySelector('#detail button[data-action="cancel-workflow"]')).not.toBeNull();
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

  it("a job of a kind nobody runs here says so", async () => {
    backend([job(1, { kind: "resize", handlerMissing: true }), job(2)], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    const status = (id: number) => (root.querySelector(`#jobs tr[data-id="${id}"] td.status`) as HTMLElement).textContent;
    expect(status(1)).toContain("no handler here");
    expect(status(2)).not.toContain("no handler");
    inspector.destroy();
  });

  it("a job of a kind at its rate limit says until when", async () => {
    backend([job(1, { kind: "mail", rateLimitedUntil: 1_800_000_060_000 }), job(2)], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    const status = (id: number) => (root.querySelector(`#jobs tr[data-id="${id}"] td.status`) as HTMLElement).textContent;
    expect(status(1)).toContain("rate limited until");
    expect(status(2)).not.toContain("rate limited");
    inspector.destroy();
  });

  it("a job that waits for the machine or a slot says what for", async () => {
    backend(
      [
        job(1, { kind: "embed", waitingFor: [{ condition: "acPower" }, { condition: "userIdle", secs: 300 }] }),
        job(2),
        job(3, { kind: "gpu", waitingFor: [{ condition: "slot", cap: 2, running: 2, stale: 1, leaseEndsAt: 1_000 }] }),
      ],
      false,
    );
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    const status = (id: number) => (root.querySelector(`#jobs tr[data-id="${id}"] td.status`) as HTMLElement).textContent;
    expect(status(1)).toContain("waiting for a charger and you to be away for 5 min");
    expect(status(2)).not.toContain("waiting");
    expect(status(3)).toContain("waiting for a free slot (2 running, cap 2; 1 held by a worker that stopped answering)");
    inspector.destroy();
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
