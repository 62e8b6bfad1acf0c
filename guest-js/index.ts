/**
 * The webview side of tauri-plugin-jobs: thin async functions over the plugin's
 * commands (here), listeners that return an unlisten function (`./events`), helpers
 * that follow a job or a workflow to its end (`./watch`), workflows (`./workflows`),
 * and one that passes the browser's `online`/`offline` events to the plugin.
 *
 * The typed commands themselves are generated into `./bindings` by tauri-specta;
 * everything here is built on them.
 */
import { Channel } from "@tauri-apps/api/core";

import {
  commands,
  type AgentClaimArgs,
  type AgentDeferral,
  type AgentFinished,
  type ClaimedJob,
  type ComponentHealth,
  type EnqueueArgs,
  type Enqueued,
  type Heartbeat,
  type JobFilter,
  type JobLogLine,
  type JobProgressValue,
  type SignalSent,
  type RetryOutcome,
  type KindCount,
  type KindHistory,
  type TargetHistory,
  type HistorySpan,
  type Lease,
  type Schedule,
  type JobRef,
  type Value,
  type LocalJob,
  type LocalRunEvent,
  type SyncOutcome,
  type SyncStatus,
  type Trigger,
} from "./bindings";
import { JobsError, enqueueArgs, jobFilter, unwrap } from "./core";
import type {
  ArgsOf,
  DeclaredLocalKind,
  JobIdOf,
  JobKindName,
  LocalResultOf,
  PayloadOf,
  ScheduleName,
  SyncTargetName,
  TypedJob,
  UndeclaredLocalKind,
} from "./kinds";

export * from "./bindings";
export { JobsError } from "./core";
export * from "./events";
export * from "./kinds";
export * from "./watch";
export * from "./workflows";
export { duration, waitingText, whyWaiting } from "./words";

/** @deprecated Renamed {@link Enqueued}, after the Rust type it mirrors. */
export type EnqueueResult = Enqueued;

/** What {@link enqueue} resolves with: its `id` remembers the job's kind. */
export type EnqueuedOf<K> = Omit<Enqueued, "id"> & { id: JobIdOf<K> };

/**
 * Enqueues a durable job for the user. Options left out take their defaults. With the
 * app's kinds declared ({@link JobKinds}), `kind` must be one of them and `payload`
 * what its handler takes.
 */
export async function enqueue<K extends JobKindName>(
  kind: K,
  payload: PayloadOf<K>,
  options: Partial<EnqueueArgs> = {},
): Promise<EnqueuedOf<K>> {
  return unwrap(await commands.enqueue(kind, payload as Value, enqueueArgs(options)));
}

/**
 * One durable job, or `null` (also for a job of a kind outside the window's scope).
 * Narrow it by `kind` to type its payload and result.
 */
export async function getJob(id: number): Promise<TypedJob | null> {
  return unwrap(await commands.getJob(id)) as TypedJob | null;
}

/** A page of durable jobs, newest first; pass the last id as `before` for the next page. */
export async function listJobs(filter: Partial<JobFilter> = {}): Promise<TypedJob[]> {
  return unwrap(await commands.listJobs(jobFilter(filter))) as TypedJob[];
}

/** How many durable jobs there are of each kind in each status. */
export async function jobCounts(): Promise<KindCount[]> {
  return unwrap(await commands.jobCounts());
}

/**
 * What happened per kind: jobs that ended, retries, and how long attempts waited and
 * ran (p50, p95), a point per period that saw any. The last hour by minute unless
 * `span` says `"lastDay"` (by hour) or `{ range: { from, to, step } }`; only the kinds
 * the window's scope allows, or just `kind`.
 */
export async function jobHistory(options: { kind?: JobKindName; span?: HistorySpan } = {}): Promise<KindHistory[]> {
  return unwrap(await commands.jobHistory(options.kind ?? null, options.span ?? null));
}

/**
 * What happened per sync target: its runs by how they ended (updated, not modified,
 * failed, offline, throttled), the items changed and how long runs took, a point per
 * period that saw any; spans as {@link jobHistory}'s, targets as the scope allows.
 */
export async function syncHistory(options: { target?: SyncTargetName; span?: HistorySpan } = {}): Promise<TargetHistory[]> {
  return unwrap(await commands.syncHistory(options.target ?? null, options.span ?? null));
}

/** Starts a local job kind the app registered and resolves with what it returned. */
export async function spawnAwaitable<K extends DeclaredLocalKind>(kind: K, args: ArgsOf<K>): Promise<LocalResultOf<K>>;
/** The same while the app declares no {@link LocalKinds}: the result's type is the caller's word. */
export async function spawnAwaitable<T = Value>(kind: UndeclaredLocalKind, args?: Value): Promise<T>;
export async function spawnAwaitable(kind: string, args: unknown = null): Promise<unknown> {
  return unwrap(await commands.spawnAwaitable(kind, args as Value));
}

/** What {@link runLocal} takes. */
export type RunOptions = {
  /** Called with 0 to 100 (`null` when the total is unknown) as the job reports progress. */
  onProgress?: (percent: number | null, done: number, total: number | null) => void;
  /** When it fires, the job is cancelled and `result` rejects with `cancelled`. */
  signal?: AbortSignal;
};

/** A local job {@link runLocal} started: its id now, what it returns later. */
export type LocalRun<T> = {
  /** The job's id, for `cancel` or `getLocalJob`. */
  id: string;
  /** Resolves with what the job returned; rejects with a `JobsError` (`jobFailed`, `cancelled`). */
  result: Promise<T>;
};

/**
 * Starts a local job kind the app registered, in one call: resolves at once with its
 * id and a `result` promise. Progress for this job only (none of any other) reaches
 * `onProgress` through a channel of the call's own, so it cannot be confused with
 * another job of the same kind and cannot arrive before the page has the id's
 * promise. When `signal` fires, the job is cancelled and `result` rejects with
 * `cancelled` at once (unless it had already ended). A signal that fired before the
 * call starts nothing.
 *
 * ```ts
 * const run = await runLocal("export", 400, { onProgress: (p) => (bar.value = p ?? 0), signal });
 * shown.textContent = await run.result; // typed by the kind's declaration in LocalKinds
 * ```
 */
export async function runLocal<K extends DeclaredLocalKind>(
  kind: K,
  args: ArgsOf<K>,
  options?: RunOptions,
): Promise<LocalRun<LocalResultOf<K>>>;
/** The same while the app declares no {@link LocalKinds}: the result's type is the caller's word. */
export async function runLocal<T = Value>(kind: UndeclaredLocalKind, args?: Value, options?: RunOptions): Promise<LocalRun<T>>;
export async function runLocal<T>(kind: string, args: unknown = null, options: RunOptions = {}): Promise<LocalRun<T>> {
  const { onProgress = () => {}, signal } = options;
  if (signal?.aborted) throw new JobsError("cancelled", `aborted before ${kind} started`);
  let settled = false;
  let resolve: (value: T) => void = () => {};
  let reject: (error: JobsError) => void = () => {};
  const result = new Promise<T>((ok, fail) => {
    resolve = (value) => {
      if (!settled) ok(value);
      settled = true;
    };
    reject = (error) => {
      if (!settled) fail(error);
      settled = true;
    };
  });
  const channel = new Channel<LocalRunEvent>((event) => {
    if (event.type === "progress") {
      onProgress(event.percent, event.done, event.total);
    } else if (event.status === "succeeded") {
      resolve(event.result as T);
    } else if (event.status === "cancelled") {
      reject(new JobsError("cancelled", `local job ${kind} was cancelled`));
    } else {
      reject(new JobsError("jobFailed", `local job ${kind} failed: ${event.error ?? "no error recorded"}`));
    }
  });
  const id = unwrap(await commands.runLocal(kind, args as Value, channel));
  if (signal) {
    const abort = () => {
      void cancel(id).catch(() => {});
      reject(new JobsError("cancelled", `local job ${id} was cancelled`));
    };
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
    const forget = () => signal.removeEventListener("abort", abort);
    result.then(forget, forget);
  }
  return { id, result };
}

/** Starts a local job kind the app registered; resolves with its id at once. */
export async function spawnLocal<K extends DeclaredLocalKind>(kind: K, args: ArgsOf<K>): Promise<string>;
/** The same while the app declares no {@link LocalKinds}. */
export async function spawnLocal(kind: UndeclaredLocalKind, args?: Value): Promise<string>;
export async function spawnLocal(kind: string, args: unknown = null): Promise<string> {
  return unwrap(await commands.spawnLocal(kind, args as Value));
}

/** One local job's record, or `null`. */
export async function getLocalJob(id: string): Promise<LocalJob | null> {
  return unwrap(await commands.getLocalJob(id));
}

/** Every local job still on record: running ones and the most recent finished. */
export async function listLocalJobs(): Promise<LocalJob[]> {
  return unwrap(await commands.listLocalJobs());
}

/**
 * Cancels a job: a number is a durable job's id, a string such as `"local-3"` a
 * local job's.
 */
export async function cancel(job: number | string | JobRef): Promise<"cancelled" | "requested" | "alreadyFinished"> {
  const ref: JobRef = typeof job === "number" ? { durable: job } : typeof job === "string" ? { local: job } : job;
  return unwrap(await commands.cancel(ref));
}

/** Syncs a target (`connector/account/name`) now: the user pressed Refresh. */
export async function syncNow(target: SyncTargetName): Promise<SyncOutcome> {
  return unwrap(await commands.syncNow(target));
}

/**
 * Syncs a target if an automatic trigger may: not within its `minInterval`, not while
 * it backs off. `trigger` says what the page saw (`"focus"` by default); after the
 * browser's `online` event pass `"networkBack"`, which retries an offline target at once.
 */
export async function syncIfDue(target: SyncTargetName, trigger: Trigger = "focus"): Promise<SyncOutcome> {
  return unwrap(await commands.syncIfDue(target, trigger));
}

/** A sync target's status, its `target` one the app declares ({@link SyncTargets}). */
export type TypedSyncStatus = Omit<SyncStatus, "target"> & { target: SyncTargetName };

/** State and health of every sync target. */
export async function syncStatus(): Promise<TypedSyncStatus[]> {
  return unwrap(await commands.syncStatus()) as TypedSyncStatus[];
}

/**
 * How the plugin's own components are doing: `config` (whether `config.toml` was taken;
 * a refused file leaves the settings of the last file taken in force, or the built-in
 * ones when none was, and the reason names the file, the key and which settings
 * apply), `raw.db` (what its integrity check found), `conditions` (what the machine
 * cannot tell), `awake` (while jobs keep the machine from sleeping, its reason names
 * those this window may read; a warning while the system would not keep it awake),
 * `quit` (while the app's quit waits for work to finish, its reason says what is left)
 * and `instances` (a warning while another instance of the app runs jobs on the same
 * `raw.db`). A page can say what is wrong:
 *
 * ```ts
 * const refused = (await pluginHealth()).filter((c) => c.health.status !== "healthy");
 * for (const c of refused) banner.textContent += `${c.component}: ${c.health.reason}\n`;
 * ```
 */
export async function pluginHealth(): Promise<ComponentHealth[]> {
  return unwrap(await commands.pluginHealth());
}

/** Tells the plugin the browser went online or offline (see {@link wireNetworkHint}). */
export async function networkHint(online: boolean): Promise<void> {
  unwrap(await commands.networkHint(online));
}

/** A schedule, its `name` one the app declares ({@link Schedules}). */
export type TypedSchedule = Omit<Schedule, "name"> & { name: ScheduleName };

/** Every schedule with its next run. */
export async function listSchedules(): Promise<TypedSchedule[]> {
  return unwrap(await commands.listSchedules()) as TypedSchedule[];
}

/** The job kinds paused now, in every process. */
export async function pausedKinds(): Promise<string[]> {
  return unwrap(await commands.pausedKinds());
}

// ===== signals (`jobs:signals`) and a job's log =====

/**
 * Sends signal `name` with `payload` to job `id`, whose handler waits for it
 * (`ctx.wait_for_signal(name, ..)`): a job waiting runs at once; one that will wait
 * finds it kept. Resolves with whether it woke the job and whether one of that name
 * was sent before (the first stays). Rejects with `signalRefused` when the job has
 * ended, its handler waits for no such signal, or its wait timed out; `notFound` for a
 * job the window may not reach. Needs `jobs:signals` (or `jobs:agents`).
 *
 * ```ts
 * // The user approved the draft the job waits on.
 * await signalJob(id, "approval", { approved: true });
 * ```
 */
export async function signalJob(id: number, name: string, payload: Value = null): Promise<SignalSent> {
  return unwrap(await commands.signalJob(id, name, payload));
}

/**
 * What job `id`'s handler logged (`ctx.log(..)`), oldest first: the lines after
 * `after` (a line's `seq`), or every line kept (the last 200 by default); `null` for a
 * job the window may not read. `watchJob(id, { onLog })` follows new lines.
 */
export async function getJobLogs(id: number, after?: number): Promise<JobLogLine[] | null> {
  return unwrap(await commands.getJobLogs(id, after ?? null));
}

// ===== admin actions (`jobs:admin`) =====

/** Runs a failed job again now, or one waiting out its backoff. */
export async function retryJob(id: number): Promise<RetryOutcome> {
  return unwrap(await commands.retryJob(id));
}

/** Deletes a finished job. */
export async function deleteJob(id: number): Promise<void> {
  unwrap(await commands.deleteJob(id));
}

// Pausing and resuming take any name (a kind or schedule as a list shows it, a retired
// kind's included); running a schedule, enqueueing and syncing take the declared ones.

/** Pauses a job kind: no process claims it until it is resumed. */
export async function pauseKind(kind: string): Promise<void> {
  unwrap(await commands.pauseKind(kind));
}

/** Resumes a paused job kind. */
export async function resumeKind(kind: string): Promise<void> {
  unwrap(await commands.resumeKind(kind));
}

/** Runs a schedule's job now, without moving its next run. */
export async function runScheduleNow(name: ScheduleName): Promise<Enqueued> {
  return unwrap(await commands.runScheduleNow(name));
}

/** Pauses a schedule. */
export async function pauseSchedule(name: string): Promise<Schedule> {
  return unwrap(await commands.pauseSchedule(name));
}

/** Resumes a paused schedule, from its first slot after now. */
export async function resumeSchedule(name: string): Promise<Schedule> {
  return unwrap(await commands.resumeSchedule(name));
}

/** Removes everything stored for an account and stops its syncs (`jobs:data-removal`). */
export async function disconnectAccount(connector: string, account: string): Promise<number> {
  return unwrap(await commands.disconnectAccount(connector, account));
}

/** Deletes finished durable jobs older than `olderThanMs` (`jobs:data-removal`). */
export async function pruneJobs(olderThanMs: number): Promise<number> {
  return unwrap(await commands.pruneJobs(olderThanMs));
}

// ===== external agents (`jobs:agents`) =====

/** Enqueues a durable job as an external agent (actor `agent`). */
export async function agentEnqueue<K extends JobKindName>(
  kind: K,
  payload: PayloadOf<K>,
  options: Partial<EnqueueArgs> = {},
): Promise<EnqueuedOf<K>> {
  return unwrap(await commands.agentEnqueue(kind, payload as Value, enqueueArgs(options)));
}

/** Claims jobs as the agent `request.agent`, under the caps stored for their kinds. */
export async function agentClaim(request: Pick<AgentClaimArgs, "agent" | "kinds"> & Partial<AgentClaimArgs>): Promise<ClaimedJob[]> {
  return unwrap(await commands.agentClaim({ limits: null, leaseMs: null, maxJobs: null, ...request }));
}

/** Renews an agent's lease, with its progress if given; stop and report `cancelled` when it says so. */
export async function agentHeartbeat(lease: Lease, progress: JobProgressValue | null = null): Promise<Heartbeat> {
  return unwrap(await commands.agentHeartbeat(lease, progress));
}

/** Records an agent's success; the result is checked against the kind's schema. */
export async function agentComplete(lease: Lease, result: Value = null): Promise<AgentFinished> {
  return unwrap(await commands.agentComplete(lease, result));
}

/** Records an agent's failed attempt, retried after a backoff unless `permanent`. */
export async function agentFail(lease: Lease, error: string, permanent = false): Promise<AgentFinished> {
  return unwrap(await commands.agentFail(lease, error, permanent));
}

/**
 * Defers an agent's attempt without failing it or counting it: `{ type: "offline",
 * message }` (the kind waits for the network), `{ type: "retryAfter", afterMs, reason }`
 * (this job, after a `Retry-After`) or `{ type: "throttleKind", afterMs, reason }` (every
 * job of the kind, in every process). Waits are clamped from a second to a day.
 */
export async function agentDefer(lease: Lease, deferral: AgentDeferral): Promise<AgentFinished> {
  return unwrap(await commands.agentDefer(lease, deferral));
}
/**
 * Passes the browser's `online`/`offline` events to the plugin as a hint (coming
 * online retries offline syncs at once). Returns a function that stops it.
 */
export function wireNetworkHint(target: Pick<Window, "addEventListener" | "removeEventListener"> = window): () => void {
  const online = () => void commands.networkHint(true);
  const offline = () => void commands.networkHint(false);
  target.addEventListener("online", online);
  target.addEventListener("offline", offline);
  return () => {
    target.removeEventListener("online", online);
    target.removeEventListener("offline", offline);
  };
}
