/**
 * Following work to its end: a local job (for a progress bar), a durable job whoever
 * runs it, and a workflow through its parent (one bar for the whole).
 */
import { type EnqueueArgs, type JobLogLine, type JobStepChanged, type LocalJob, type LocalJobProgress, type Value } from "./bindings";
import type { DeclaredJobKind, JobIdOf, PayloadOf, ResultOf, UndeclaredJobKind } from "./kinds";
/**
 * Follows one local job to its end, calling `onProgress` with 0 to 100 (or `null`
 * when the total is unknown), and resolves with its final record.
 */
export declare function watchLocalJob(id: string, onProgress?: (percent: number | null, event: LocalJobProgress) => void): Promise<LocalJob>;
/** What {@link watchJob} and {@link enqueueAndWait} take. */
export type WatchOptions = {
    /** Called with 0 to 100 (`null` when the total is unknown) as the job reports progress. */
    onProgress?: (percent: number | null, done: number, total: number | null) => void;
    /** When it fires, the job is cancelled (and the promise rejects with `cancelled`). */
    signal?: AbortSignal;
    /**
     * Called as the job's handler begins a step (`finishedAt` is `null`: the step
     * running now), records one, or begins a durable sleep (`sleepUntil`). The steps
     * done before the call are in `getJob(id).steps`.
     */
    onStep?: (step: JobStepChanged) => void;
    /** Called with each batch of lines the job's handler logged (`ctx.log`), as they are stored. */
    onLog?: (lines: JobLogLine[]) => void;
};
/**
 * Follows a durable job to its end, whoever runs it: resolves with its result, or
 * rejects with a `JobsError` (`jobFailed`, `cancelled`, `notFound`). Progress comes
 * from the job's events, starting from what the job last stored (a window opened
 * mid-job shows the bar where it is). The job is read after the listener is in place,
 * so an end that came before is not missed. When `signal` fires, the job is cancelled
 * and the promise settles at once: `cancelled`, unless the job had already finished.
 * `watchJob(id, onProgress)` is short for `watchJob(id, { onProgress })`.
 *
 * A workflow's parent (a job with pieces, see {@link enqueueWorkflow}) is followed
 * as the whole workflow: the promise settles once the parent and every piece have
 * ended, resolving with the parent's result, or rejecting with `jobFailed` when the
 * workflow failed as its waiting jobs' policies say (a failed piece cancels the
 * final job by default; one enqueued with `onDependencyFailure: "run"` decides by
 * its own end; the message names the first failed piece and its error). Progress is
 * then the pieces ended of all of them (the jobs after the pieces count as pieces: ten
 * messages and an index rebuilt after them is 11), read again at most every 100 ms
 * while jobs end and every 2 s anyway; a failed workflow's bar stays where it was when
 * the failure was read. Each figure is reported once. `signal` cancels the whole
 * workflow. Pieces a
 * parent enqueues while it runs are followed once it has ended.
 */
export declare function watchJob<K extends DeclaredJobKind>(id: JobIdOf<K>, options?: WatchOptions | NonNullable<WatchOptions["onProgress"]>): Promise<ResultOf<K>>;
/** The same for an id that does not say its kind: the result's type is the caller's word. */
export declare function watchJob<T = Value>(id: number, options?: WatchOptions | NonNullable<WatchOptions["onProgress"]>): Promise<T>;
/**
 * Enqueues a durable job for the user and follows it to its end (see
 * {@link watchJob}): `enqueueAndWait("export", { path }, { onProgress, signal })`.
 * With a signal that already fired, nothing is enqueued. With the app's kinds declared
 * ({@link JobKinds}), the payload is checked against the kind's and the result typed.
 */
export declare function enqueueAndWait<K extends DeclaredJobKind>(kind: K, payload: PayloadOf<K>, options?: Partial<EnqueueArgs> & WatchOptions): Promise<ResultOf<K>>;
/** The same while the app declares no {@link JobKinds}: the result's type is the caller's word. */
export declare function enqueueAndWait<T = Value>(kind: UndeclaredJobKind, payload: Value, options?: Partial<EnqueueArgs> & WatchOptions): Promise<T>;
