// The inspector's detail of a job: its graph, why it waits, its attempts, and the
// actions on it and its workflow. The shell, tabs and live updates: inspector.test.ts.
import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";

import type { Job } from "./bindings";
import { mountInspector } from "./inspector";
import { backend, graphOf, job, lastList, until } from "./inspector-fixtures";
import { jobsEvent } from "./test-plugin";

afterEach(() => {
  clearMocks();
  document.body.replaceChildren();
});

describe("inspector: a job's detail", () => {
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

  it("a job that succeeded on its third attempt shows its attempts, not a last error", async () => {
    const errors = [
      { attempt: 1, at: 1_000, error: "HTTP 502" },
      { attempt: 2, at: 2_000, error: "timed out" },
    ];
    backend([job(1, { status: "succeeded", attempts: 3, errors, finishedAt: 3_000 })], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    (root.querySelector('button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-attempts"), "the attempts");
    expect(root.querySelector("#detail-error")).toBeNull();
    const lines = Array.from(root.querySelectorAll("#detail-attempts li"), (li) => [li.className, li.textContent]);
    expect(lines).toEqual([
      ["attempt-failed", expect.stringMatching(/^Attempt 1 failed .*: HTTP 502$/)],
      ["attempt-failed", expect.stringMatching(/^Attempt 2 failed .*: timed out$/)],
      ["attempt-succeeded", expect.stringMatching(/^Attempt 3 succeeded /)],
    ]);
    inspector.destroy();
  });

  it("deferred attempts are in the timeline beside the failures: offline probes as one line, a snooze, a throttle", async () => {
    const errors = [
      { attempt: 1, at: 1_000, error: "HTTP 502", outcome: "failed" as const },
      { attempt: 2, at: 46_000, error: "connection refused", outcome: "offline" as const, until: 61_000, probes: 4 },
      { attempt: 2, at: 62_000, error: "HTTP 429", outcome: "throttled" as const, until: 122_000 },
      { attempt: 2, at: 123_000, error: "HTTP 503", outcome: "snoozed" as const, until: 183_000 },
    ];
    backend([job(1, { status: "succeeded", attempts: 2, errors, finishedAt: 184_000 })], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    (root.querySelector('button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-attempts"), "the attempts");
    const lines = Array.from(root.querySelectorAll("#detail-attempts li"), (li) => [li.className, li.textContent]);
    expect(lines).toEqual([
      ["attempt-failed", expect.stringMatching(/^Attempt 1 failed .*: HTTP 502$/)],
      ["attempt-offline", expect.stringMatching(/^Attempt 2 found the network gone 4 times, the last .*: connection refused \(not counted; the kind's next probe .*\)$/)],
      ["attempt-throttled", expect.stringMatching(/^Attempt 2 met a throttle of its kind .*, until .*: HTTP 429 \(not counted\)$/)],
      ["attempt-snoozed", expect.stringMatching(/^Attempt 2 snoozed .* until .*: HTTP 503 \(not counted\)$/)],
      ["attempt-succeeded", expect.stringMatching(/^Attempt 2 succeeded /)],
    ]);
    inspector.destroy();
  });

  it("a job's steps show what was done, a durable sleep, and the step running now", async () => {
    const steps = [
      { name: "download", attempt: 1, startedAt: 1_000, finishedAt: 3_500, sleepUntil: null },
      { name: "cool-down", attempt: 1, startedAt: 4_000, finishedAt: 4_000, sleepUntil: 90_000 },
    ];
    const errors = [{ attempt: 1, at: 4_000, error: "sleeping: step \"cool-down\"", outcome: "slept" as const, until: 90_000 }];
    backend([job(1, { status: "running", attempts: 1, steps, errors, startedAt: 90_000 })], false);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    (root.querySelector('button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-steps"), "the steps");
    const lines = () => Array.from(root.querySelectorAll("#detail-steps li"), (li) => [li.className, li.textContent]);
    expect(lines()).toEqual([
      ["step-done", expect.stringMatching(/^download done .* by attempt 1, in 2\.5 s$/)],
      ["step-sleep", expect.stringMatching(/^cool-down sleeps until .* \(begun .*\)$/)],
    ]);
    expect(Array.from(root.querySelectorAll("#detail-attempts li"), (li) => li.className)).toContain("attempt-slept");
    // The handler begins its next step: the detail says it runs.
    await jobsEvent({
      type: "jobStep", id: 1, kind: "ingest", attempt: 1, name: "summarise", startedAt: 91_000, finishedAt: null, sleepUntil: null,
    });
    await until(() => lines().length === 3, "the running step");
    expect(lines()[2]).toEqual(["step-running", expect.stringMatching(/^summarise running since /)]);
    inspector.destroy();
  });

  it("a job's log is in its detail, and a job waiting for a signal can be sent one", async () => {
    const deadline = Date.now() + 3_600_000;
    const waiting = job(1, { status: "queued", runAt: deadline, sleepingUntil: deadline, awaitsSignal: "approval" } as Partial<Job>);
    const calls = backend([waiting], true);
    const host = document.createElement("div");
    const inspector = mountInspector(host);
    await inspector.ready;
    const root = host.shadowRoot!;
    (root.querySelector('button[data-action="open"]') as HTMLElement).click();
    await until(() => !!root.querySelector("#detail-signal"), "the signal form");
    expect(root.querySelector("#detail-signal")!.textContent).toContain('"approval" until');
    expect(root.querySelector("#detail-log")!.textContent).toContain("drafted, waiting");
    (root.querySelector("#detail-signal-payload") as HTMLInputElement).value = '{"approved": true}';
    const lists = () => calls.filter((c) => c.cmd === "plugin:jobs|list_jobs").length;
    const listed = lists();
    (root.querySelector('#detail-signal button[data-action="signal"]') as HTMLElement).click();
    await until(() => calls.some((c) => c.cmd === "plugin:jobs|signal_job"), "the signal sent");
    // The detail and the table are read again after it.
    await until(() => lists() > listed, "the table read again");
    expect(calls.find((c) => c.cmd === "plugin:jobs|signal_job")!.args).toEqual({
      id: 1,
      name: "approval",
      payload: { approved: true },
    });
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
});
