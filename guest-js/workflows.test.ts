import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";

import {
  JobsError,
  cancelWorkflow,
  enqueueWorkflow,
  getWorkflow,
  jobDependencies,
  retryWorkflow,
  watchJob,
  workflowResults,
} from "./index";
import type { JobStatus, WorkflowState } from "./bindings";
import { backend, jobRecord, jobsEvent, tick } from "./test-plugin";

afterEach(() => clearMocks());

function flow(pieces: [JobStatus, number][], fields: Partial<WorkflowState> = {}): WorkflowState {
  const total = pieces.reduce((sum, [, n]) => sum + n, 0);
  const done = pieces.filter(([s]) => s !== "queued" && s !== "running").reduce((sum, [, n]) => sum + n, 0);
  return { parent: 5, status: "running", pieces, progress: { done, total }, ended: false, failed: false, ...fields };
}

const ended = (to: JobStatus, id = 9) =>
  jobsEvent({ type: "jobStateChanged", id, kind: "embed", from: "running", to, attempt: 1, at: 3 });

/** Waits out the watch's pause before it reads a workflow again. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe("workflows", () => {
  it("enqueueWorkflow sends every step with its options filled, in one command", async () => {
    const calls = backend(() => ({ parent: 1, pieces: [2, 3], then: [4] }));
    const ids = await enqueueWorkflow({
      parent: { kind: "import", payload: { mailbox: "inbox" } },
      pieces: [{ kind: "embed", payload: 1 }, { kind: "embed", payload: 2, options: { priority: 10 } }],
      then: [{ kind: "reindex", options: { onDependencyFailure: "run" } }],
    });
    expect(ids).toEqual({ parent: 1, pieces: [2, 3], then: [4] });
    expect(calls).toHaveLength(1);
    expect(calls[0].cmd).toBe("plugin:jobs|enqueue_workflow");
    const sent = (calls[0].args as any).workflow;
    expect(sent.parent).toMatchObject({ kind: "import", payload: { mailbox: "inbox" }, options: { parent: null, after: null } });
    expect(sent.pieces[1].options).toMatchObject({ priority: 10, dedupeKey: null });
    expect(sent.then[0]).toMatchObject({ kind: "reindex", payload: null, options: { onDependencyFailure: "run" } });
  });

  it("workflowResults reads every piece the window may read, in pages, oldest first", async () => {
    // 2,500 pieces under parent 1, as list_jobs pages them: newest first, before a cursor.
    const pieces = Array.from({ length: 2500 }, (_, n) => jobRecord({ id: n + 2, parent: 1, status: "succeeded", result: n }));
    const calls = backend((_cmd, args) => {
      const f = args.filter;
      return pieces
        .filter((j) => j.parent === f.parent && (f.before === null || j.id < f.before))
        .sort((a, b) => b.id - a.id)
        .slice(0, f.limit);
    });
    const results = await workflowResults(1);
    expect(results).toHaveLength(2500);
    expect(results[0]).toMatchObject({ id: 2, result: 0 });
    expect(results[2499]).toMatchObject({ id: 2501, result: 2499 });
    expect(calls.map((c) => (c.args as any).filter.before)).toEqual([null, 1502, 502]);
  });

  it("the workflow commands pass the parent and return what the plugin says", async () => {
    const calls = backend((cmd) => {
      if (cmd === "plugin:jobs|get_workflow") return flow([["queued", 2]]);
      if (cmd === "plugin:jobs|cancel_workflow") return { cancelled: 2, askedToStop: 0 };
      if (cmd === "plugin:jobs|retry_workflow") return { requeued: 1, waitingAgain: 1 };
      return { id: 5, waited: true, waitsFor: [2], waitsForTotal: 1, waitedBy: [], waitedByTotal: 0 };
    });
    expect((await getWorkflow(5))?.progress).toEqual({ done: 0, total: 2 });
    expect(await cancelWorkflow(5)).toEqual({ cancelled: 2, askedToStop: 0 });
    expect(await retryWorkflow(5)).toEqual({ requeued: 1, waitingAgain: 1 });
    expect((await jobDependencies(5))?.waitsFor).toEqual([2]);
    expect(calls.map((c) => c.args)).toEqual([{ parent: 5 }, { parent: 5 }, { parent: 5 }, { id: 5 }]);
  });

  it("watchJob on a parent shows one bar for the pieces and resolves once every piece has ended", async () => {
    let state = flow([["queued", 2], ["succeeded", 1]]);
    let parent = jobRecord({ status: "succeeded", result: { imported: 3 } });
    backend((cmd) => (cmd === "plugin:jobs|get_workflow" ? state : cmd === "plugin:jobs|get_job" ? parent : null));
    const percents: (number | null)[] = [];
    let settled = false;
    const watching = watchJob(5, (percent) => percents.push(percent)).finally(() => (settled = true));
    await tick();
    state = flow([["queued", 1], ["succeeded", 2]]);
    await ended("succeeded");
    await settle();
    expect(settled).toBe(false);
    state = flow([["succeeded", 3]], { status: "succeeded", ended: true });
    await ended("succeeded");
    await expect(watching).resolves.toEqual({ imported: 3 });
    expect(percents).toEqual([33, 66, 100]);
    parent = jobRecord({});
  });

  it("watchJob on a parent rejects with jobFailed when the workflow failed, naming what ended badly", async () => {
    let state = flow([["running", 1], ["queued", 1]]);
    backend((cmd) =>
      cmd === "plugin:jobs|get_workflow" ? state : cmd === "plugin:jobs|get_job" ? jobRecord({ status: "succeeded" }) : null,
    );
    const watching = watchJob(5);
    await tick();
    state = flow([["failed", 1], ["cancelled", 1]], { status: "succeeded", ended: true, failed: true });
    await ended("failed");
    const error = (await watching.catch((e: unknown) => e)) as JobsError;
    expect(error).toBeInstanceOf(JobsError);
    expect(error.code).toBe("jobFailed");
    expect(error.message).toContain("1 failed, 1 cancelled");
  });

  it("a failed workflow names its first failed piece and that piece's error, and its bar stays where it was", async () => {
    let state = flow([["running", 1], ["queued", 3]]);
    backend((cmd) => {
      if (cmd === "plugin:jobs|get_workflow") return state;
      if (cmd === "plugin:jobs|list_jobs") {
        return [jobRecord({ id: 23, kind: "embed-message", status: "failed", lastError: "message 0 does not exist" })];
      }
      return cmd === "plugin:jobs|get_job" ? jobRecord({ status: "succeeded" }) : null;
    });
    const percents: (number | null)[] = [];
    const watching = watchJob(5, (percent) => percents.push(percent));
    await tick();
    state = flow([["succeeded", 1], ["failed", 1], ["queued", 2]]);
    await ended("failed");
    await settle();
    state = flow([["succeeded", 1], ["failed", 1], ["cancelled", 2]], { status: "succeeded", ended: true, failed: true });
    await ended("cancelled");
    const error = (await watching.catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("jobFailed");
    expect(error.message).toBe("workflow 5 failed: embed-message #23 failed: message 0 does not exist (1 failed, 2 cancelled)");
    // Once each, and never 100 % for a workflow that failed.
    expect(percents).toEqual([0, 50]);
  });

  it("the bar's first figure is reported once, however often it is read again", async () => {
    let state = flow([["queued", 4]]);
    let parent = jobRecord({ status: "running" });
    backend((cmd) => (cmd === "plugin:jobs|get_workflow" ? state : cmd === "plugin:jobs|get_job" ? parent : null));
    const percents: (number | null)[] = [];
    const watching = watchJob(5, (percent) => percents.push(percent));
    await tick();
    await jobsEvent({ type: "jobStateChanged", id: 5, kind: "import", from: "queued", to: "running", attempt: 1, at: 2 });
    await ended("running");
    await settle();
    expect(percents).toEqual([0]);
    parent = jobRecord({ status: "succeeded", result: "imported" });
    state = flow([["succeeded", 4]], { status: "succeeded", ended: true });
    await ended("succeeded");
    await expect(watching).resolves.toBe("imported");
    expect(percents).toEqual([0, 100]);
  });

  it("a parent that enqueues its pieces while it runs is followed through them once it ends", async () => {
    let state: WorkflowState | null = null;
    let parent = jobRecord({ progress: { done: 1, total: 2 } });
    backend((cmd) => (cmd === "plugin:jobs|get_workflow" ? state : cmd === "plugin:jobs|get_job" ? parent : null));
    const percents: (number | null)[] = [];
    const watching = watchJob(5, (percent) => percents.push(percent));
    await tick();
    parent = jobRecord({ status: "succeeded", result: "listed" });
    state = flow([["queued", 4]], { status: "succeeded" });
    await ended("succeeded", 5);
    await settle();
    state = flow([["succeeded", 4]], { status: "succeeded", ended: true });
    await ended("succeeded");
    await expect(watching).resolves.toBe("listed");
    expect(percents).toEqual([50, 0, 100]);
  });

  it("a failed read of a followed workflow is read again, not taken as its end", async () => {
    let failing = false;
    let state = flow([["running", 2]]);
    backend((cmd) => {
      if (cmd === "plugin:jobs|get_workflow") {
        if (failing) throw { code: "busy", message: "database is locked" };
        return state;
      }
      return cmd === "plugin:jobs|get_job" ? jobRecord({ status: "succeeded", result: 1 }) : null;
    });
    let settled = false;
    const watching = watchJob(5).finally(() => (settled = true));
    await tick();
    failing = true;
    await ended("succeeded");
    await settle();
    expect(settled).toBe(false);
    failing = false;
    state = flow([["succeeded", 2]], { status: "succeeded", ended: true });
    await expect(watching).resolves.toBe(1);
  });

  it("a window not granted the workflow read follows the job alone", async () => {
    let record = jobRecord({});
    backend((cmd) => {
      if (cmd === "plugin:jobs|get_workflow") throw "jobs.get_workflow not allowed";
      return cmd === "plugin:jobs|get_job" ? record : null;
    });
    const watching = watchJob(5);
    await tick();
    record = jobRecord({ status: "succeeded", result: "alone" });
    await ended("succeeded", 5);
    await expect(watching).resolves.toBe("alone");
  });

  it("aborting the watch of a parent cancels the whole workflow", async () => {
    const calls = backend((cmd) => {
      if (cmd === "plugin:jobs|get_workflow") return flow([["queued", 2]]);
      if (cmd === "plugin:jobs|get_job") return jobRecord({});
      if (cmd === "plugin:jobs|cancel_workflow") return { cancelled: 2, askedToStop: 1 };
      return null;
    });
    const controller = new AbortController();
    const watching = watchJob(5, { signal: controller.signal });
    await tick();
    controller.abort();
    const error = (await watching.catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("cancelled");
    expect(calls.map((c) => c.cmd)).toContain("plugin:jobs|cancel_workflow");
    expect(calls.map((c) => c.cmd)).not.toContain("plugin:jobs|cancel");
  });

  it("a signal that fired before the watch began cancels the whole workflow too", async () => {
    const calls = backend((cmd) => {
      if (cmd === "plugin:jobs|get_workflow") return flow([["queued", 2]]);
      if (cmd === "plugin:jobs|get_job") return jobRecord({ status: "queued" });
      if (cmd === "plugin:jobs|cancel_workflow") return { cancelled: 3, askedToStop: 0 };
      return null;
    });
    const controller = new AbortController();
    controller.abort();
    const error = (await watchJob(5, { signal: controller.signal }).catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("cancelled");
    expect(calls.map((c) => c.cmd)).toContain("plugin:jobs|cancel_workflow");
    expect(calls.map((c) => c.cmd)).not.toContain("plugin:jobs|cancel");
  });
});

describe("workflows, on a fake clock", () => {
  it("a followed workflow is read again every 2 s when no event comes", async () => {
    vi.useFakeTimers();
    try {
      let reads = 0;
      let state = flow([["running", 1]]);
      backend((cmd) => {
        if (cmd === "plugin:jobs|get_workflow") {
          reads += 1;
          return state;
        }
        return cmd === "plugin:jobs|get_job" ? jobRecord({ status: "succeeded", result: "late" }) : null;
      });
      const watching = watchJob(5);
      await vi.advanceTimersByTimeAsync(10);
      expect(reads).toBe(1);
      // An end the page never heard of (a dropped event): the poll finds it.
      state = flow([["succeeded", 1]], { status: "succeeded", ended: true });
      await vi.advanceTimersByTimeAsync(1900);
      expect(reads).toBe(1);
      await vi.advanceTimersByTimeAsync(300);
      await expect(watching).resolves.toBe("late");
      expect(reads).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
