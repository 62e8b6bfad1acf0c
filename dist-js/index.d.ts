import { type AgentClaimArgs, type AgentDeferral, type AgentFinished, type ClaimedJob, type ComponentHealth, type EnqueueArgs, type Enqueued, type Heartbeat, type JobFilter, type JobLogLine, type JobProgressValue, type SignalSent, type RetryOutcome, type KindCount, type KindHistory, type TargetHistory, type HistorySpan, type Lease, type Schedule, type JobRef, type Value, type LocalJob, type SyncOutcome, type SyncStatus, type Trigger } from "./bindings";
import type { ArgsOf, DeclaredLocalKind, JobIdOf, JobKindName, LocalResultOf, PayloadOf, ScheduleName, SyncTargetName, TypedJob, UndeclaredLocalKind } from "./kinds";
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
export type EnqueuedOf<K> = Omit<Enqueued, "id"> & {
    id: JobIdOf<K>;
};
/**
 * Enqueues a durable job for the user. Options left out take their defaults. With the
 * app's kinds declared ({@link JobKinds}), `kind` must be one of them and `payload`
 * what its handler takes.
 */
export declare function enqueue<K extends JobKindName>(kind: K, payload: PayloadOf<K>, options?: Partial<EnqueueArgs>): Promise<EnqueuedOf<K>>;
/**
 * One durable job, or `null` (also for a job of a kind outside the window's scope).
 * Narrow it by `kind` to type its payload and result.
 */
export declare function getJob(id: number): Promise<TypedJob | null>;
/** A page of durable jobs, newest first; pass the last id as `before` for the next page. */
export declare function listJobs(filter?: Partial<JobFilter>): Promise<TypedJob[]>;
/** How many durable jobs there are of each kind in each status. */
export declare function jobCounts(): Promise<KindCount[]>;
/**
 * What happened per kind: jobs that ended, retries, and how long attempts waited and
 * ran (p50, p95), a point per period that saw any. The last hour by minute unless
 * `span` says `"lastDay"` (by hour) or `{ range: { from, to, step } }`; only the kinds
 * the window's scope allows, or just `kind`.
 */
export declare function jobHistory(options?: {
    kind?: JobKindName;
    span?: HistorySpan;
}): Promise<KindHistory[]>;
/**
 * What happened per sync target: its runs by how they ended (updated, not modified,
 * failed, offline, throttled), the items changed and how long runs took, a point per
 * period that saw any; spans as {@link jobHistory}'s, targets as the scope allows.
 */
export declare function syncHistory(options?: {
    target?: SyncTargetName;
    span?: HistorySpan;
}): Promise<TargetHistory[]>;
/** Starts a local job kind the app registered and resolves with what it returned. */
export declare function spawnAwaitable<K extends DeclaredLocalKind>(kind: K, args: ArgsOf<K>): Promise<LocalResultOf<K>>;
/** The same while the app declares no {@link LocalKinds}: the result's type is the caller's word. */
export declare function spawnAwaitable<T = Value>(kind: UndeclaredLocalKind, args?: Value): Promise<T>;
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
export declare function runLocal<K extends DeclaredLocalKind>(kind: K, args: ArgsOf<K>, options?: RunOptions): Promise<LocalRun<LocalResultOf<K>>>;
/** The same while the app declares no {@link LocalKinds}: the result's type is the caller's word. */
export declare function runLocal<T = Value>(kind: UndeclaredLocalKind, args?: Value, options?: RunOptions): Promise<LocalRun<T>>;
/** Starts a local job kind the app registered; resolves with its id at once. */
export declare function spawnLocal<K extends DeclaredLocalKind>(kind: K, args: ArgsOf<K>): Promise<string>;
/** The same while the app declares no {@link LocalKinds}. */
export declare function spawnLocal(kind: UndeclaredLocalKind, args?: Value): Promise<string>;
/** One local job's record, or `null`. */
export declare function getLocalJob(id: string): Promise<LocalJob | null>;
/** Every local job still on record: running ones and the most recent finished. */
export declare function listLocalJobs(): Promise<LocalJob[]>;
/**
 * Cancels a job: a number is a durable job's id, a string such as `"local-3"` a
 * local job's.
 */
export declare function cancel(job: number | string | JobRef): Promise<"cancelled" | "requested" | "alreadyFinished">;
/** Syncs a target (`connector/account/name`) now: the user pressed Refresh. */
export declare function syncNow(target: SyncTargetName): Promise<SyncOutcome>;
/**
 * Syncs a target if an automatic trigger may: not within its `minInterval`, not while
 * it backs off. `trigger` says what the page saw (`"focus"` by default); after the
 * browser's `online` event pass `"networkBack"`, which retries an offline target at once.
 */
export declare function syncIfDue(target: SyncTargetName, trigger?: Trigger): Promise<SyncOutcome>;
/** A sync target's status, its `target` one the app declares ({@link SyncTargets}). */
export type TypedSyncStatus = Omit<SyncStatus, "target"> & {
    target: SyncTargetName;
};
/** State and health of every sync target. */
export declare function syncStatus(): Promise<TypedSyncStatus[]>;
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
export declare function pluginHealth(): Promise<ComponentHealth[]>;
/** Tells the plugin the browser went online or offline (see {@link wireNetworkHint}). */
export declare function networkHint(online: boolean): Promise<void>;
/** A schedule, its `name` one the app declares ({@link Schedules}). */
export type TypedSchedule = Omit<Schedule, "name"> & {
    name: ScheduleName;
};
/** Every schedule with its next run. */
export declare function listSchedules(): Promise<TypedSchedule[]>;
/** The job kinds paused now, in every process. */
export declare function pausedKinds(): Promise<string[]>;
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
export declare function signalJob(id: number, name: string, payload?: Value): Promise<SignalSent>;
/**
 * What job `id`'s handler logged (`ctx.log(..)`), oldest first: the lines after
 * `after` (a line's `seq`), or every line kept (the last 200 by default); `null` for a
 * job the window may not read. `watchJob(id, { onLog })` follows new lines.
 */
export declare function getJobLogs(id: number, after?: number): Promise<JobLogLine[] | null>;
/** Runs a failed job again now, or one waiting out its backoff. */
export declare function retryJob(id: number): Promise<RetryOutcome>;
/** Deletes a finished job. */
export declare function deleteJob(id: number): Promise<void>;
/** Pauses a job kind: no process claims it until it is resumed. */
export declare function pauseKind(kind: string): Promise<void>;
/** Resumes a paused job kind. */
export declare function resumeKind(kind: string): Promise<void>;
/** Runs a schedule's job now, without moving its next run. */
export declare function runScheduleNow(name: ScheduleName): Promise<Enqueued>;
/** Pauses a schedule. */
export declare function pauseSchedule(name: string): Promise<Schedule>;
/** Resumes a paused schedule, from its first slot after now. */
export declare function resumeSchedule(name: string): Promise<Schedule>;
/** Removes everything stored for an account and stops its syncs (`jobs:data-removal`). */
export declare function disconnectAccount(connector: string, account: string): Promise<number>;
/** Deletes finished durable jobs older than `olderThanMs` (`jobs:data-removal`). */
export declare function pruneJobs(olderThanMs: number): Promise<number>;
/** Enqueues a durable job as an external agent (actor `agent`). */
export declare function agentEnqueue<K extends JobKindName>(kind: K, payload: PayloadOf<K>, options?: Partial<EnqueueArgs>): Promise<EnqueuedOf<K>>;
/** Claims jobs as the agent `request.agent`, under the caps stored for their kinds. */
export declare function agentClaim(request: Pick<AgentClaimArgs, "agent" | "kinds"> & Partial<AgentClaimArgs>): Promise<ClaimedJob[]>;
/** Renews an agent's lease, with its progress if given; stop and report `cancelled` when it says so. */
export declare function agentHeartbeat(lease: Lease, progress?: JobProgressValue | null): Promise<Heartbeat>;
/** Records an agent's success; the result is checked against the kind's schema. */
export declare function agentComplete(lease: Lease, result?: Value): Promise<AgentFinished>;
/** Records an agent's failed attempt, retried after a backoff unless `permanent`. */
export declare function agentFail(lease: Lease, error: string, permanent?: boolean): Promise<AgentFinished>;
/**
 * Defers an agent's attempt without failing it or counting it: `{ type: "offline",
 * message }` (the kind waits for the network), `{ type: "retryAfter", afterMs, reason }`
 * (this job, after a `Retry-After`) or `{ type: "throttleKind", afterMs, reason }` (every
 * job of the kind, in every process). Waits are clamped from a second to a day.
 */
export declare function agentDefer(lease: Lease, deferral: AgentDeferral): Promise<AgentFinished>;
/**
 * Passes the browser's `online`/`offline` events to the plugin as a hint (coming
 * online retries offline syncs at once). Returns a function that stops it.
 */
export declare function wireNetworkHint(target?: Pick<Window, "addEventListener" | "removeEventListener">): () => void;
