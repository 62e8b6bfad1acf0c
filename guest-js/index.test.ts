import { emit } from "@tauri-apps/api/event";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";

import * as api from "./index";
import {
  JobsError,
  cancel,
  enqueue,
  enqueueAndWait,
  runLocal,
  onJobProgress,
  onJobState,
  onResync,
  spawnAwaitable,
  syncIfDue,
  syncNow,
  watchJob,
  watchLocalJob,
  wireNetworkHint,
} from "./index";
import { backend, jobRecord, jobsEvent, subscribed, subscription, tick } from "./test-plugin";

afterEach(() => clearMocks());

describe("commands", () => {
  it("spawnAwaitable resolves with the job's value", async () => {
    const calls = backend(() => 42);
    await expect(spawnAwaitable<number>("double", 21)).resolves.toBe(42);
    expect(calls).toEqual([{ cmd: "plugin:jobs|spawn_awaitable", args: { kind: "double", args: 21 } }]);
  });

  it("a command error becomes a JobsError with its code", async () => {
    backend(() => {
      throw { code: "jobFailed", message: "job failed: disk full" };
    });
    const error = await spawnAwaitable("export").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobsError);
    expect((error as JobsError).code).toBe("jobFailed");
    expect((error as JobsError).message).toBe("job failed: disk full");
  });

  it("Tauri's own argument errors are JobsErrors too", async () => {
    backend(() => {
      throw "invalid args `target` for command `sync_now`";
    });
    const error = (await syncNow("x").catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("invalidArgument");
    expect(error.message).toContain("`target`");
  });

  it("enqueue fills the options it was not given", async () => {
    const calls = backend(() => ({ id: 7, created: true, outcome: "created" }));
    await expect(enqueue("echo", "hi", { priority: 100 })).resolves.toEqual({ id: 7, created: true, outcome: "created" });
    expect(calls[0].args).toEqual({
      kind: "echo",
      payload: "hi",
      options: {
        priority: 100,
        dedupeKey: null,
        delayMs: null,
        maxAttempts: null,
        maxOfflineMs: null,
        parent: null,
        onDuplicate: null,
        debounceMs: null,
        constraints: null,
        after: null,
        afterPiecesOf: null,
        onDependencyFailure: null,
      },
    });
  });

  it("syncIfDue names its trigger, focus by default", async () => {
    const calls = backend(() => ({ outcome: "notModified" }));
    await syncIfDue("a/b/c");
    await syncIfDue("a/b/c", "networkBack");
    expect(calls.map((c) => c.args)).toEqual([
      { target: "a/b/c", trigger: "focus" },
      { target: "a/b/c", trigger: "networkBack" },
    ]);
  });

  it("cancel tells durable ids from local ones", async () => {
    const calls = backend(() => "requested");
    await cancel(12);
    await cancel("local-3");
    expect(calls.map((c) => c.args)).toEqual([{ job: { durable: 12 } }, { job: { local: "local-3" } }]);
  });
});

describe("events", () => {
  it("come only on the page's channel: a forged plugin event changes nothing", async () => {
    let record = jobRecord({});
    backend((cmd) => (cmd === "plugin:jobs|get_job" ? record : null), { tauriEvents: true });
    const watching = watchJob<string>(5);
    await tick();
    // Any window with core:event:allow-emit can emit this name; nothing listens to it.
    await emit("plugin:jobs:jobs-event", {
      event: { type: "jobStateChanged", id: 5, kind: "ingest", from: "running", to: "failed", attempt: 1, at: 2 },
      dropped: 1_000_000,
    });
    record = jobRecord({ status: "succeeded", result: "done" });
    await jobsEvent({ type: "jobStateChanged", id: 5, kind: "ingest", from: "running", to: "succeeded", attempt: 1, at: 3 });
    await expect(watching).resolves.toBe("done");
  });

  it("every listener of a page shares one subscription, ended with the last", async () => {
    const calls: string[] = [];
    mockIPC((cmd, args: any) => {
      calls.push(cmd);
      return subscription(cmd, args) ? subscribed.id : null;
    });
    const first = await onJobState(() => {});
    const second = await onJobProgress(() => {});
    expect(calls).toEqual(["plugin:jobs|subscribe"]);
    first();
    first();
    expect(calls).toEqual(["plugin:jobs|subscribe"]);
    second();
    await tick();
    expect(calls).toEqual(["plugin:jobs|subscribe", "plugin:jobs|unsubscribe"]);
  });

  it("onJobProgress sees only progress events and stops when unlistened", async () => {
    backend(() => null);
    const seen: number[] = [];
    const unlisten = await onJobProgress((event) => seen.push(event.done));
    const states = vi.fn();
    const unlistenStates = await onJobState(states);
    await jobsEvent({ type: "localJobProgress", id: "local-1", kind: "export", done: 5, total: 10, percent: 50, at: 1 });
    await jobsEvent({ type: "jobStateChanged", id: 3, kind: "echo", from: null, to: "queued", attempt: 0, at: 1 });
    unlisten();
    await jobsEvent({ type: "localJobProgress", id: "local-1", kind: "export", done: 6, total: 10, percent: 60, at: 2 });
    expect(seen).toEqual([5]);
    expect(states).toHaveBeenCalledTimes(1);
    unlistenStates();
  });

  it("watchLocalJob reports percents and resolves with the final record", async () => {
    let status = "running";
    backend((cmd) =>
      cmd === "plugin:jobs|get_local_job"
        ? { id: "local-2", kind: "export", status, done: status === "running" ? 0 : 10, total: 10, cancelRequested: false, error: null, startedAt: 1, finishedAt: null }
        : null,
    );
    const percents: (number | null)[] = [];
    const watching = watchLocalJob("local-2", (percent) => percents.push(percent));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await jobsEvent({ type: "localJobProgress", id: "local-2", kind: "export", done: 5, total: 10, percent: 50, at: 1 });
    await jobsEvent({ type: "localJobProgress", id: "other", kind: "export", done: 1, total: 10, percent: 10, at: 1 });
    status = "succeeded";
    await jobsEvent({ type: "localJobProgress", id: "local-2", kind: "export", done: 10, total: 10, percent: 100, at: 2 });
    await jobsEvent({ type: "localJobChanged", id: "local-2", kind: "export", status: "succeeded", error: null, at: 2 });
    const last = await watching;
    expect(percents).toEqual([50, 100]);
    expect(last.status).toBe("succeeded");
    expect(last.done).toBe(10);
  });
});

describe("every command", () => {
  it("has a hand wrapper named after it (subscribing is what every listener does)", () => {
    const missing = Object.keys(api.commands).filter(
      (name) => typeof (api as Record<string, unknown>)[name] !== "function" || (api as Record<string, unknown>)[name] === (api.commands as Record<string, unknown>)[name],
    );
    expect(missing).toEqual(["subscribe", "unsubscribe"]);
  });

  it("wrappers resolve with the data or throw a JobsError with its code", async () => {
    backend((cmd) => {
      if (cmd === "plugin:jobs|prune_jobs") throw { code: "forbidden", message: "job kind \"x\" is outside this window's scope" };
      if (cmd === "plugin:jobs|job_counts") return [{ kind: "k", status: "queued", count: 2 }];
      return null;
    });
    await expect(api.jobCounts()).resolves.toEqual([{ kind: "k", status: "queued", count: 2 }]);
    await expect(api.getJob(1)).resolves.toBeNull();
    const error = (await api.pruneJobs(0).catch((e: unknown) => e)) as JobsError;
    expect(error).toBeInstanceOf(JobsError);
    expect(error.code).toBe("forbidden");
  });

  it("fills the arguments a wrapper was not given", async () => {
    const calls = backend(() => []);
    await api.listJobs({ kind: "echo" });
    await api.agentClaim({ agent: "a", kinds: ["k"] });
    await api.jobHistory();
    await api.jobHistory({ kind: "echo", span: "lastDay" });
    await api.syncHistory({ span: { range: { from: 0, to: 60_000 } } });
    const lease = { jobId: 1, kind: "k", worker: "agent:a", attempt: 1, expiresAt: 0, lengthMs: 1, token: "t" };
    await api.agentDefer(lease, { type: "retryAfter", afterMs: 60_000, reason: "HTTP 429" });
    expect(calls.map((c) => c.args)).toEqual([
      { filter: { status: null, kind: "echo", parent: null, actor: null, before: null, limit: null } },
      { request: { agent: "a", kinds: ["k"], limits: null, leaseMs: null, maxJobs: null } },
      { kind: null, span: null },
      { kind: "echo", span: "lastDay" },
      { target: null, span: { range: { from: 0, to: 60_000 } } },
      { lease, deferral: { type: "retryAfter", afterMs: 60_000, reason: "HTTP 429" } },
    ]);
  });
});

describe("resync", () => {
  it("onResync fires when the dropped count grows past its first value", async () => {
    backend(() => null);
    const resyncs: number[] = [];
    const unlisten = await onResync((dropped) => resyncs.push(dropped));
    const change = { type: "jobStateChanged", id: 3, kind: "echo", from: null, to: "queued", attempt: 0, at: 1 } as const;
    await jobsEvent(change, 4);
    await jobsEvent(change, 4);
    await jobsEvent(change, 9);
    await jobsEvent(change, 9);
    unlisten();
    expect(resyncs).toEqual([9]);
  });
});

describe("network hint", () => {
  it("passes online and offline to the plugin until stopped", async () => {
    const calls = backend(() => null);
    const target = new EventTarget();
    const stop = wireNetworkHint(target);
    target.dispatchEvent(new Event("offline"));
    target.dispatchEvent(new Event("online"));
    stop();
    target.dispatchEvent(new Event("online"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls.map((c) => c.args)).toEqual([{ online: false }, { online: true }]);
  });
});


describe("durable jobs", () => {
  it("watchJob starts from the stored progress, follows events and resolves with the result", async () => {
    let record = jobRecord({ progress: { done: 30, total: 100 } });
    backend((cmd) => (cmd === "plugin:jobs|get_job" ? record : null));
    const percents: (number | null)[] = [];
    const watching = watchJob<{ rows: number }>(5, (percent) => percents.push(percent));
    await tick();
    await jobsEvent({ type: "jobProgress", id: 5, kind: "ingest", attempt: 1, done: 60, total: 100, percent: 60, at: 2 });
    await jobsEvent({ type: "jobProgress", id: 6, kind: "ingest", attempt: 1, done: 1, total: 100, percent: 1, at: 2 });
    record = jobRecord({ status: "succeeded", result: { rows: 100 }, progress: { done: 100, total: 100 } });
    await jobsEvent({ type: "jobStateChanged", id: 5, kind: "ingest", from: "running", to: "succeeded", attempt: 1, at: 3 });
    await expect(watching).resolves.toEqual({ rows: 100 });
    expect(percents).toEqual([30, 60]);
  });

  it("watchJob tells of the job's steps as its handler begins and records them", async () => {
    let record = jobRecord({ status: "running" });
    backend((cmd) => (cmd === "plugin:jobs|get_job" ? record : null));
    const steps: [string, number | null][] = [];
    const watching = watchJob(5, { onStep: (step) => steps.push([step.name, step.finishedAt]) });
    await tick();
    const step = { type: "jobStep" as const, kind: "ingest", attempt: 1, startedAt: 1, sleepUntil: null };
    await jobsEvent({ ...step, id: 5, name: "download", finishedAt: null });
    await jobsEvent({ ...step, id: 5, name: "download", finishedAt: 2 });
    await jobsEvent({ ...step, id: 6, name: "another job's", finishedAt: null });
    record = jobRecord({ status: "succeeded", result: "done" });
    await jobsEvent({ type: "jobStateChanged", id: 5, kind: "ingest", from: "running", to: "succeeded", attempt: 1, at: 3 });
    await expect(watching).resolves.toBe("done");
    expect(steps).toEqual([
      ["download", null],
      ["download", 2],
    ]);
  });

  it("signalJob and getJobLogs pass what they are given; watchJob follows a job's log", async () => {
    let record = jobRecord({ status: "running" });
    const line = { seq: 3, at: 1, attempt: 1, level: "info", text: "drafted" };
    const calls = backend((cmd) => {
      if (cmd === "plugin:jobs|signal_job") return { woke: true, alreadySent: false };
      if (cmd === "plugin:jobs|get_job_logs") return [line];
      return cmd === "plugin:jobs|get_job" ? record : null;
    });
    expect(await api.signalJob(5, "approval", { approved: true })).toEqual({ woke: true, alreadySent: false });
    expect(await api.getJobLogs(5, 2)).toEqual([line]);
    expect(calls.map((c) => c.args)).toEqual([
      { id: 5, name: "approval", payload: { approved: true } },
      { id: 5, after: 2 },
    ]);
    const logged: string[] = [];
    const watching = watchJob(5, { onLog: (lines) => logged.push(...lines.map((l) => l.text)) });
    await tick();
    await jobsEvent({ type: "jobLogged", id: 5, kind: "ingest", lines: [line], at: 2 });
    await jobsEvent({ type: "jobLogged", id: 6, kind: "ingest", lines: [{ ...line, text: "another's" }], at: 2 });
    record = jobRecord({ status: "succeeded", result: 1 });
    await jobsEvent({ type: "jobStateChanged", id: 5, kind: "ingest", from: "running", to: "succeeded", attempt: 1, at: 3 });
    await watching;
    expect(logged).toEqual(["drafted"]);
  });

  it("watchJob rejects with jobFailed, naming the last error, and notFound for no job", async () => {
    backend((cmd, args) =>
      cmd === "plugin:jobs|get_job" && args.id === 5 ? jobRecord({ status: "failed", lastError: "disk full" }) : null,
    );
    const failed = (await watchJob(5).catch((e: unknown) => e)) as JobsError;
    expect(failed).toBeInstanceOf(JobsError);
    expect(failed.code).toBe("jobFailed");
    expect(failed.message).toContain("disk full");
    const missing = (await watchJob(9).catch((e: unknown) => e)) as JobsError;
    expect(missing.code).toBe("notFound");
  });

  it("enqueueAndWait cancels the job when its signal fires and rejects with cancelled", async () => {
    const calls = backend((cmd) => {
      if (cmd === "plugin:jobs|enqueue") return { id: 5, created: true };
      if (cmd === "plugin:jobs|get_job") return jobRecord({ cancelRequested: calls.some((c) => c.cmd === "plugin:jobs|cancel") });
      if (cmd === "plugin:jobs|cancel") return "requested";
      // A window granted `cancel` but not the workflow commands.
      if (cmd === "plugin:jobs|cancel_workflow") throw "jobs.cancel_workflow not allowed";
      return null;
    });
    const controller = new AbortController();
    const waiting = enqueueAndWait("ingest", { path: "/x" }, { priority: 10, signal: controller.signal });
    await tick();
    controller.abort();
    const error = (await waiting.catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("cancelled");
    // Whether it is a workflow's parent is asked once (it has no pieces); the abort
    // cancels its workflow, or, not granted that, the job.
    expect(calls.map((c) => c.cmd)).toEqual([
      "plugin:jobs|enqueue",
      "plugin:jobs|get_job",
      "plugin:jobs|get_workflow",
      "plugin:jobs|cancel_workflow",
      "plugin:jobs|cancel",
      "plugin:jobs|get_job",
    ]);
    expect(calls[0].args).toMatchObject({ kind: "ingest", payload: { path: "/x" }, options: { priority: 10 } });
    expect(calls[4].args).toEqual({ job: { durable: 5 } });
  });

  it("enqueueAndWait with a signal that already fired enqueues nothing", async () => {
    const calls = backend(() => null);
    const controller = new AbortController();
    controller.abort();
    const error = (await enqueueAndWait("ingest", null, { signal: controller.signal }).catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("cancelled");
    expect(calls).toEqual([]);
  });

  it("a job that finished before the abort keeps its result", async () => {
    let record = jobRecord({});
    backend((cmd) => {
      if (cmd === "plugin:jobs|get_job") return record;
      if (cmd === "plugin:jobs|cancel") return "alreadyFinished";
      return null;
    });
    const controller = new AbortController();
    const watching = watchJob<string>(5, { signal: controller.signal });
    await tick();
    record = jobRecord({ status: "succeeded", result: "done" });
    controller.abort();
    await expect(watching).resolves.toBe("done");
  });
});

/** Sends `message` to a channel the code under test passed to a command. */
function toChannel(channel: { id: number }, index: number, message: unknown) {
  (window as any).__TAURI_INTERNALS__.runCallback(channel.id, { index, message });
}

describe("runLocal", () => {
  it("gives the id at once, this job's progress, then its result", async () => {
    let channel: { id: number } | null = null;
    const calls = backend((cmd, args) => {
      if (cmd === "plugin:jobs|run_local") {
        channel = args.onEvent;
        return "local-4";
      }
      return null;
    });
    const percents: (number | null)[] = [];
    const run = await runLocal<string>("export", 400, { onProgress: (percent) => percents.push(percent) });
    expect(run.id).toBe("local-4");
    expect(calls[0].args).toMatchObject({ kind: "export", args: 400 });
    toChannel(channel!, 0, { type: "progress", done: 200, total: 400, percent: 50 });
    toChannel(channel!, 1, { type: "progress", done: 400, total: 400, percent: 100 });
    toChannel(channel!, 2, { type: "finished", status: "succeeded", result: "exported 400 rows", error: null });
    await expect(run.result).resolves.toBe("exported 400 rows");
    expect(percents).toEqual([50, 100]);
  });

  it("rejects with jobFailed naming the error, or cancelled", async () => {
    const channels: { id: number }[] = [];
    backend((cmd, args) => {
      if (cmd === "plugin:jobs|run_local") {
        channels.push(args.onEvent);
        return `local-${channels.length}`;
      }
      return null;
    });
    const failing = await runLocal("export");
    toChannel(channels[0], 0, { type: "finished", status: "failed", result: null, error: "disk full" });
    const failed = (await failing.result.catch((e: unknown) => e)) as JobsError;
    expect(failed.code).toBe("jobFailed");
    expect(failed.message).toContain("disk full");
    const stopped = await runLocal("export");
    toChannel(channels[1], 0, { type: "finished", status: "cancelled", result: null, error: null });
    expect(((await stopped.result.catch((e: unknown) => e)) as JobsError).code).toBe("cancelled");
  });

  it("cancels the job when the signal fires, and starts nothing if it already had", async () => {
    const calls = backend((cmd) => (cmd === "plugin:jobs|run_local" ? "local-9" : "requested"));
    const controller = new AbortController();
    const run = await runLocal("export", 5, { signal: controller.signal });
    controller.abort();
    expect(((await run.result.catch((e: unknown) => e)) as JobsError).code).toBe("cancelled");
    await tick();
    expect(calls.map((c) => c.cmd)).toEqual(["plugin:jobs|run_local", "plugin:jobs|cancel"]);
    expect(calls[1].args).toEqual({ job: { local: "local-9" } });

    const before = calls.length;
    const error = (await runLocal("export", 5, { signal: controller.signal }).catch((e: unknown) => e)) as JobsError;
    expect(error.code).toBe("cancelled");
    expect(calls.length).toBe(before);
  });
});

describe("words", () => {
  it("say what a queued job waits for, as the inspector does", () => {
    expect(api.waitingText([])).toBeNull();
    expect(api.waitingText(null)).toBeNull();
    expect(
      api.waitingText([
        { condition: "acPower" },
        { condition: "userIdle", secs: 300 },
      ]),
    ).toBe("waiting for a charger and you to be away for 5 min");
    expect(api.duration(7_200_000)).toBe("2 h");
    expect(api.duration(250)).toBe("250 ms");
    expect(api.duration(0)).toBe("0 ms"); // a run of about 0 ms, never "0 d"
  });

  it("say why a queued job has not started, every reason at once", () => {
    const now = new Date(2027, 0, 15, 8, 0, 0).getTime();
    const queued: Parameters<typeof api.whyWaiting>[0] = {
      status: "queued", kind: "mail", runAt: now - 1, attempts: 0, handlerMissing: false, rateLimitedUntil: null, waitingFor: [],
    };
    expect(api.whyWaiting(queued, { now })).toEqual(["nothing: it starts when a worker is free"]);
    expect(api.whyWaiting({ ...queued, status: "running" }, { now })).toEqual([]);
    expect(
      api.whyWaiting(
        {
          ...queued,
          runAt: now + 90_000,
          attempts: 2,
          rateLimitedUntil: now + 30_000,
          waitingFor: [{ condition: "slot", cap: 2, running: 2, stale: 1, leaseEndsAt: now + 300_000 }],
        },
        { now, paused: ["mail"] },
      ),
    ).toEqual([
      "its kind is paused: nothing claims it until it is resumed",
      "its kind is at its rate limit until 08:00:30",
      "backing off after 2 failed attempts: runs again at 08:01:30",
      "waiting for a free slot (2 running, cap 2; 1 held by a worker that stopped answering); a slot comes back by 08:05:00 at the latest",
    ]);
    expect(api.whyWaiting({ ...queued, runAt: now + 60_000, handlerMissing: true }, { now })).toEqual([
      "no handler for its kind is registered in this app",
      "not due before 08:01:00",
    ]);
    // Held for the network (a probe later, or now) and for the service.
    expect(api.whyWaiting({ ...queued, waitingFor: [{ condition: "network", nextTry: now + 15_000 }] }, { now })).toEqual([
      "waiting for the network: its kind tries one job at 08:00:15, or when the network comes back",
    ]);
    expect(api.whyWaiting({ ...queued, waitingFor: [{ condition: "network", nextTry: now }] }, { now })).toEqual([
      "waiting for the network: its kind is trying one job now",
    ]);
    expect(api.whyWaiting({ ...queued, waitingFor: [{ condition: "service", until: now + 300_000 }] }, { now })).toEqual([
      "throttled by the service until 08:05:00",
    ]);
    expect(
      api.whyWaiting({ ...queued, waitingFor: [{ condition: "service", until: now + 300_000 }], heldBecause: "HTTP 429" }, { now }),
    ).toEqual(["throttled by the service until 08:05:00 (HTTP 429)"]);
    // A 429 that throttled the kind, met by a job that had failed twice before: the
    // throttle is the reason, not a backoff; a backoff that ends after it still shows.
    const throttle = [{ condition: "service" as const, until: now + 300_000 }];
    expect(
      api.whyWaiting({ ...queued, runAt: now + 300_000, attempts: 2, waitingFor: throttle, heldBecause: "HTTP 429" }, { now }),
    ).toEqual(["throttled by the service until 08:05:00 (HTTP 429)"]);
    expect(api.whyWaiting({ ...queued, runAt: now + 600_000, attempts: 2, waitingFor: throttle }, { now })).toEqual([
      "backing off after 2 failed attempts: runs again at 08:10:00",
      "throttled by the service until 08:05:00",
    ]);
    // A snooze after two real failures is the service's wait, not a backoff; once a
    // retry moved runAt past it, it is a backoff again.
    expect(api.whyWaiting({ ...queued, runAt: now + 600_000, attempts: 2, snoozedUntil: now + 600_000 }, { now })).toEqual([
      "the service asked it to wait: runs again at 08:10:00 (not a failed attempt)",
    ]);
    expect(api.whyWaiting({ ...queued, runAt: now + 30_000, attempts: 3, snoozedUntil: now + 600_000 }, { now })).toEqual([
      "backing off after 3 failed attempts: runs again at 08:00:30",
    ]);
    // Waiting for a signal: its name and deadline, not a sleep.
    expect(
      api.whyWaiting(
        { ...queued, runAt: now + 3_600_000, sleepingUntil: now + 3_600_000, awaitsSignal: "approval",
          waitingFor: [{ condition: "signal", until: now + 3_600_000 }] },
        { now },
      ),
    ).toEqual(['waiting for the signal "approval" until 09:00:00 (not a failed attempt)']);
    // A durable sleep of its handler, while its runAt is the sleep's end.
    expect(api.whyWaiting({ ...queued, runAt: now + 3_600_000, attempts: 1, sleepingUntil: now + 3_600_000 }, { now })).toEqual([
      "sleeping until 09:00:00: a durable sleep of its handler (not a failed attempt)",
    ]);
    expect(api.waitingText([{ condition: "network", nextTry: now }])).toBe("waiting for the network");
  });
});
