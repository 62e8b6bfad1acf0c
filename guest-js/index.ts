/**
 * The webview side of tauri-plugin-jobs: thin async functions over the plugin's
 * commands, listeners that return an unlisten function, a helper that follows one
 * local job to its end (for a progress bar), and one that passes the browser's
 * `online`/`offline` events to the plugin.
 *
 * The typed commands themselves are generated into `./bindings` by tauri-specta;
 * everything here is built on them. Events arrive on a channel of the page's own
 * (the `subscribe` command), which only the plugin writes to and which carries only
 * what this window may read; every listener of a page shares one subscription.
 */
import { Channel } from "@tauri-apps/api/core";
import type { UnlistenFn } from "@tauri-apps/api/event";

import {
  commands,
  type AgentClaimArgs,
  type AgentFinished,
  type ClaimedJob,
  type CommandError,
  type EnqueueArgs,
  type Enqueued,
  type ErrorCode,
  type Heartbeat,
  type Job,
  type JobFilter,
  type JobProgress,
  type JobProgressValue,
  type JobStatus,
  type RetryOutcome,
  type KindCount,
  type Lease,
  type Schedule,
  type Event,
  type JobRef,
  type JobStateChanged,
  type JobsEvent,
  type Value,
  type LocalJob,
  type LocalJobChanged,
  type LocalJobProgress,
  type LocalRunEvent,
  type PluginHealth,
  type SyncOutcome,
  type SyncFinished,
  type SyncProgress,
  type SyncStatus,
  type Trigger,
} from "./bindings";

export * from "./bindings";

/** @deprecated Renamed {@link Enqueued}, after the Rust type it mirrors. */
export type EnqueueResult = Enqueued;

/** A command failed; `code` is one of a closed set, `message` is for people. */
export class JobsError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "JobsError";
    this.code = code;
  }
}

type Result<T> = { status: "ok"; data: T } | { status: "error"; error: CommandError };

/** Returns the data or throws a {@link JobsError}. Tauri's own argument errors are strings. */
function unwrap<T>(result: Result<T>): T {
  if (result.status === "ok") {
    return result.data;
  }
  const error = result.error as CommandError | string;
  if (typeof error === "string") {
    throw new JobsError("invalidArgument", error);
  }
  throw new JobsError(error.code, error.message);
}

function enqueueArgs(options: Partial<EnqueueArgs>): EnqueueArgs {
  return {
    priority: null,
    dedupeKey: null,
    delayMs: null,
    maxAttempts: null,
    parent: null,
    onDuplicate: null,
    debounceMs: null,
    constraints: null,
    ...options,
  };
}

/** Enqueues a durable job for the user. Options left out take their defaults. */
export async function enqueue(kind: string, payload: Value, options: Partial<EnqueueArgs> = {}): Promise<Enqueued> {
  return unwrap(await commands.enqueue(kind, payload, enqueueArgs(options)));
}

/** One durable job, or `null` (also for a job of a kind outside the window's scope). */
export async function getJob(id: number): Promise<Job | null> {
  return unwrap(await commands.getJob(id));
}

/** A page of durable jobs, newest first; pass the last id as `before` for the next page. */
export async function listJobs(filter: Partial<JobFilter> = {}): Promise<Job[]> {
  const full: JobFilter = { status: null, kind: null, parent: null, actor: null, before: null, limit: null, ...filter };
  return unwrap(await commands.listJobs(full));
}

/** How many durable jobs there are of each kind in each status. */
export async function jobCounts(): Promise<KindCount[]> {
  return unwrap(await commands.jobCounts());
}

/** Starts a local job kind the app registered and resolves with what it returned. */
export async function spawnAwaitable<T = Value>(kind: string, args: Value = null): Promise<T> {
  return unwrap(await commands.spawnAwaitable(kind, args)) as T;
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
 * const run = await runLocal<string>("export", 400, { onProgress: (p) => (bar.value = p ?? 0), signal });
 * shown.textContent = await run.result;
 * ```
 */
export async function runLocal<T = Value>(kind: string, args: Value = null, options: RunOptions = {}): Promise<LocalRun<T>> {
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
  const id = unwrap(await commands.runLocal(kind, args, channel));
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
export async function spawnLocal(kind: string, args: Value = null): Promise<string> {
  return unwrap(await commands.spawnLocal(kind, args));
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
export async function syncNow(target: string): Promise<SyncOutcome> {
  return unwrap(await commands.syncNow(target));
}

/**
 * Syncs a target if an automatic trigger may: not within its `minInterval`, not while
 * it backs off. `trigger` says what the page saw (`"focus"` by default); after the
 * browser's `online` event pass `"networkBack"`, which retries an offline target at once.
 */
export async function syncIfDue(target: string, trigger: Trigger = "focus"): Promise<SyncOutcome> {
  return unwrap(await commands.syncIfDue(target, trigger));
}

/** State and health of every sync target. */
export async function syncStatus(): Promise<SyncStatus[]> {
  return unwrap(await commands.syncStatus());
}

/** Tells the plugin the browser went online or offline (see {@link wireNetworkHint}). */
export async function networkHint(online: boolean): Promise<void> {
  unwrap(await commands.networkHint(online));
}

/** Every schedule with its next run. */
export async function listSchedules(): Promise<Schedule[]> {
  return unwrap(await commands.listSchedules());
}

/** The job kinds paused now, in every process. */
export async function pausedKinds(): Promise<string[]> {
  return unwrap(await commands.pausedKinds());
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

/** Pauses a job kind: no process claims it until it is resumed. */
export async function pauseKind(kind: string): Promise<void> {
  unwrap(await commands.pauseKind(kind));
}

/** Resumes a paused job kind. */
export async function resumeKind(kind: string): Promise<void> {
  unwrap(await commands.resumeKind(kind));
}

/** Runs a schedule's job now, without moving its next run. */
export async function runScheduleNow(name: string): Promise<Enqueued> {
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
export async function agentEnqueue(kind: string, payload: Value, options: Partial<EnqueueArgs> = {}): Promise<Enqueued> {
  return unwrap(await commands.agentEnqueue(kind, payload, enqueueArgs(options)));
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

type EventHandler = (event: Event, dropped: number) => void;

/** The page's one subscription, shared by every listener while any is left. */
type Subscription = { handlers: Set<EventHandler>; id: Promise<number> };
let subscription: Subscription | null = null;

function subscribed(): Subscription {
  if (subscription !== null) return subscription;
  const handlers = new Set<EventHandler>();
  const channel = new Channel<JobsEvent>((message) => {
    for (const handler of [...handlers]) handler(message.event, message.dropped);
  });
  const state: Subscription = { handlers, id: commands.subscribe(channel).then(unwrap) };
  subscription = state;
  state.id.catch(() => {
    if (subscription === state) subscription = null;
  });
  return state;
}

/**
 * Every plugin event this window may read (see the README's Permissions), with the
 * count of state changes the page's stream has dropped so far. Resolves once the
 * subscription is in place; rejects with a `JobsError` when the window may not
 * subscribe.
 */
export async function onJobsEvent(handler: EventHandler): Promise<UnlistenFn> {
  const state = subscribed();
  state.handlers.add(handler);
  try {
    await state.id;
  } catch (error) {
    state.handlers.delete(handler);
    throw error;
  }
  let listening = true;
  return () => {
    if (!listening) return;
    listening = false;
    state.handlers.delete(handler);
    if (state.handlers.size === 0 && subscription === state) {
      subscription = null;
      void state.id.then((id) => commands.unsubscribe(id)).catch(() => {});
    }
  };
}

/**
 * Calls `resync` whenever the plugin reports that it dropped state changes because
 * the page fell behind (the `dropped` count of its events grew): the page should then
 * reload the lists it shows. The first event only sets the baseline. Progress reports
 * replaced by newer ones are not counted as dropped.
 */
export async function onResync(resync: (dropped: number) => void): Promise<UnlistenFn> {
  let seen: number | null = null;
  return onJobsEvent((_event, dropped) => {
    if (seen !== null && dropped > seen) {
      resync(dropped);
    }
    seen = seen === null ? dropped : Math.max(seen, dropped);
  });
}

function onType<K extends Event["type"]>(
  type: K,
  handler: (event: Extract<Event, { type: K }>) => void,
): Promise<UnlistenFn> {
  return onJobsEvent((event) => {
    if (event.type === type) {
      handler(event as Extract<Event, { type: K }>);
    }
  });
}

/** Durable job state changes. */
export function onJobState(handler: (event: JobStateChanged) => void): Promise<UnlistenFn> {
  return onType("jobStateChanged", handler);
}

/** Durable job progress, about one event per percent. */
export function onDurableProgress(handler: (event: JobProgress) => void): Promise<UnlistenFn> {
  return onType("jobProgress", handler);
}

/** Local job progress, about one event per percent. */
export function onJobProgress(handler: (event: LocalJobProgress) => void): Promise<UnlistenFn> {
  return onType("localJobProgress", handler);
}

/** Local job state changes. */
export function onLocalJobState(handler: (event: LocalJobChanged) => void): Promise<UnlistenFn> {
  return onType("localJobChanged", handler);
}

/** Sync progress. */
export function onSyncProgress(handler: (event: SyncProgress) => void): Promise<UnlistenFn> {
  return onType("syncProgress", handler);
}

/** The end of every sync run (skipped runs publish nothing), with its outcome. */
export function onSyncFinished(handler: (event: SyncFinished) => void): Promise<UnlistenFn> {
  return onType("syncFinished", handler);
}

/** Health changes of sync targets and components. */
export function onHealth(handler: (event: PluginHealth) => void): Promise<UnlistenFn> {
  return onType("pluginHealth", handler);
}

/**
 * Follows one local job to its end, calling `onProgress` with 0 to 100 (or `null`
 * when the total is unknown), and resolves with its final record.
 */
export async function watchLocalJob(
  id: string,
  onProgress: (percent: number | null, event: LocalJobProgress) => void = () => {},
): Promise<LocalJob> {
  let finish: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const unlisten = await onJobsEvent((event) => {
    if (event.type === "localJobProgress" && event.id === id) {
      onProgress(event.percent, event);
    } else if (event.type === "localJobChanged" && event.id === id && event.status !== "running") {
      finish();
    }
  });
  try {
    // It may have ended before the listener was in place.
    const current = unwrap(await commands.getLocalJob(id));
    if (current === null) {
      throw new JobsError("notFound", `no local job ${id}`);
    }
    if (current.status === "running") {
      await ended;
    }
    const last = unwrap(await commands.getLocalJob(id));
    return last ?? current;
  } finally {
    unlisten();
  }
}

const FINISHED: JobStatus[] = ["succeeded", "failed", "cancelled"];

/** What a finished job gave: its result, or a `JobsError` for a failure or a cancel. */
function outcome<T>(job: Job): T {
  if (job.status === "succeeded") {
    return job.result as T;
  }
  if (job.status === "cancelled") {
    throw new JobsError("cancelled", `job ${job.id} was cancelled`);
  }
  throw new JobsError("jobFailed", `job ${job.id} failed: ${job.lastError ?? "no error recorded"}`);
}

function percentOf(progress: JobProgressValue): number | null {
  if (progress.total === null) return null;
  return progress.total === 0 ? 100 : Math.floor((Math.min(progress.done, progress.total) * 100) / progress.total);
}

/** What {@link watchJob} and {@link enqueueAndWait} take. */
export type WatchOptions = {
  /** Called with 0 to 100 (`null` when the total is unknown) as the job reports progress. */
  onProgress?: (percent: number | null, done: number, total: number | null) => void;
  /** When it fires, the job is cancelled (and the promise rejects with `cancelled`). */
  signal?: AbortSignal;
};

/**
 * Follows a durable job to its end, whoever runs it: resolves with its result, or
 * rejects with a `JobsError` (`jobFailed`, `cancelled`, `notFound`). Progress comes
 * from the job's events, starting from what the job last stored (a window opened
 * mid-job shows the bar where it is). The job is read after the listener is in place,
 * so an end that came before is not missed. When `signal` fires, the job is cancelled
 * and the promise settles at once: `cancelled`, unless the job had already finished.
 * `watchJob(id, onProgress)` is short for `watchJob(id, { onProgress })`.
 */
export async function watchJob<T = Value>(
  id: number,
  options: WatchOptions | NonNullable<WatchOptions["onProgress"]> = {},
): Promise<T> {
  const { onProgress = () => {}, signal } = typeof options === "function" ? { onProgress: options } : options;
  let wake: () => void = () => {};
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const unlisten = await onJobsEvent((event) => {
    if (event.type === "jobProgress" && event.id === id) {
      onProgress(event.percent, event.done, event.total);
    } else if (
      (event.type === "jobStateChanged" && event.id === id && FINISHED.includes(event.to)) ||
      (event.type === "jobDeleted" && event.id === id)
    ) {
      wake();
    }
  });
  let aborted = false;
  const abort = () => {
    aborted = true;
    // Woken once the request is stored, so the job read next shows it.
    cancel(id).then(wake, wake);
  };
  signal?.addEventListener("abort", abort);
  try {
    if (signal?.aborted) abort();
    let job = await getJob(id);
    if (job === null) throw new JobsError("notFound", `no job ${id}`);
    if (job.progress !== null && !FINISHED.includes(job.status)) {
      onProgress(percentOf(job.progress), job.progress.done, job.progress.total);
    }
    if (!FINISHED.includes(job.status)) {
      await woken;
      job = await getJob(id);
      if (job === null) throw new JobsError("notFound", `job ${id} is gone`);
      if (aborted && !FINISHED.includes(job.status)) {
        throw new JobsError("cancelled", `job ${id} was cancelled; it stops when its handler notices`);
      }
    }
    return outcome<T>(job);
  } finally {
    signal?.removeEventListener("abort", abort);
    unlisten();
  }
}

/**
 * Enqueues a durable job for the user and follows it to its end (see
 * {@link watchJob}): `enqueueAndWait("export", { path }, { onProgress, signal })`.
 * With a signal that already fired, nothing is enqueued.
 */
export async function enqueueAndWait<T = Value>(
  kind: string,
  payload: Value,
  options: Partial<EnqueueArgs> & WatchOptions = {},
): Promise<T> {
  const { onProgress, signal, ...enqueueOptions } = options;
  if (signal?.aborted) throw new JobsError("cancelled", "aborted before it was enqueued");
  const { id } = await enqueue(kind, payload, enqueueOptions);
  return watchJob<T>(id, { onProgress, signal });
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
