/**
 * Following work to its end: a local job (for a progress bar), a durable job whoever
 * runs it, and a workflow through its parent (one bar for the whole).
 */
import {
  commands,
  type EnqueueArgs,
  type Job,
  type JobProgressValue,
  type JobStatus,
  type JobLogLine,
  type JobStepChanged,
  type LocalJob,
  type LocalJobProgress,
  type Value,
  type WorkflowState,
} from "./bindings";
import { JobsError, enqueueArgs, jobFilter, unwrap } from "./core";
import { onJobsEvent } from "./events";
import type { DeclaredJobKind, JobIdOf, PayloadOf, ResultOf, UndeclaredJobKind } from "./kinds";

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
  /**
   * Called as the job's handler begins a step (`finishedAt` is `null`: the step
   * running now), records one, or begins a durable sleep (`sleepUntil`). The steps
   * done before the call are in `getJob(id).steps`.
   */
  onStep?: (step: JobStepChanged) => void;
  /** Called with each batch of lines the job's handler logged (`ctx.log`), as they are stored. */
  onLog?: (lines: JobLogLine[]) => void;
};

/** After an event, how long a followed workflow waits before reading its state again. */
const WORKFLOW_READ_MS = 100;
/** How often a followed workflow is read anyway (an event dropped on a busy page). */
const WORKFLOW_POLL_MS = 2000;

/**
 * The workflow under `id`, when it has pieces; `null` when it has none (or the window
 * may not read it); `undefined` when the read failed.
 */
async function workflowOf(id: number): Promise<WorkflowState | null | undefined> {
  try {
    const result = await commands.getWorkflow(id);
    if (result.status !== "ok") {
      // Tauri's refusal of a command not granted is a string.
      const error = result.error as { code?: string } | string;
      return typeof error === "string" || error.code === "forbidden" ? null : undefined;
    }
    if (result.data === null) return null;
    return (result.data.progress.total ?? 0) > 0 ? result.data : null;
  } catch {
    return undefined;
  }
}

async function readJob(id: number): Promise<Job> {
  const job = unwrap(await commands.getJob(id));
  if (job === null) throw new JobsError("notFound", `no job ${id}`);
  return job;
}

/** Why a workflow failed, from its pieces' counts: "2 failed, 1 cancelled". */
function failures(flow: WorkflowState): string {
  const parts = flow.pieces
    .filter(([status, n]) => (status === "failed" || status === "cancelled") && n > 0)
    .map(([status, n]) => `${n} ${status}`);
  return parts.length > 0 ? parts.join(", ") : "its parent did not succeed";
}

/**
 * Why a workflow failed, naming its first failed piece and that piece's error when the
 * window may read them: "embed #23 failed: message 0 does not exist (1 failed, 1
 * cancelled)"; the counts alone otherwise.
 */
async function whyFailed(id: number, flow: WorkflowState): Promise<string> {
  const counts = failures(flow);
  try {
    const listed = await commands.listJobs(jobFilter({ status: "failed", parent: id, limit: 1 }));
    const piece = listed.status === "ok" ? listed.data[0] : undefined;
    if (piece === undefined) return counts;
    return `${piece.kind} #${piece.id} failed: ${piece.lastError ?? "no error recorded"} (${counts})`;
  } catch {
    return counts;
  }
}

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
export async function watchJob<K extends DeclaredJobKind>(
  id: JobIdOf<K>,
  options?: WatchOptions | NonNullable<WatchOptions["onProgress"]>,
): Promise<ResultOf<K>>;
/** The same for an id that does not say its kind: the result's type is the caller's word. */
export async function watchJob<T = Value>(
  id: number,
  options?: WatchOptions | NonNullable<WatchOptions["onProgress"]>,
): Promise<T>;
export async function watchJob<T>(
  id: number,
  options: WatchOptions | NonNullable<WatchOptions["onProgress"]> = {},
): Promise<T> {
  const {
    onProgress: report = () => {},
    signal,
    onStep = () => {},
    onLog = () => {},
  } = typeof options === "function" ? { onProgress: options } : options;
  // Each figure once: a read that finds the bar where it was says nothing.
  let last: [number | null, number, number | null] | null = null;
  const onProgress = (percent: number | null, done: number, total: number | null) => {
    if (last !== null && last[0] === percent && last[1] === done && last[2] === total) return;
    last = [percent, done, total];
    report(percent, done, total);
  };
  // Woken by an event that may change the answer; `dirty` keeps a wake that came
  // while nothing waited.
  let dirty = false;
  let waiting: (() => void) | null = null;
  const poke = () => {
    dirty = true;
    const resolve = waiting;
    waiting = null;
    resolve?.();
  };
  let following = false;
  const unlisten = await onJobsEvent((event) => {
    if (event.type === "jobProgress" && event.id === id) {
      if (!following) onProgress(event.percent, event.done, event.total);
    } else if (event.type === "jobStep" && event.id === id) {
      onStep(event);
    } else if (event.type === "jobLogged" && event.id === id) {
      onLog(event.lines);
    } else if (event.type === "jobStateChanged" && FINISHED.includes(event.to)) {
      // A piece's end: the events name no parent, so any end may be one.
      if (event.id === id || following) poke();
    } else if (event.type === "jobDeleted" && event.id === id) {
      poke();
    }
  });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  // Resolves after `ms`; its timer is forgotten once it fired or `drop` cleared it.
  const pause = (ms: number) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        timers.delete(timer!);
        resolve();
      }, ms);
      timers.add(timer);
    });
    return { done, drop: () => (clearTimeout(timer), timers.delete(timer!)) };
  };
  const changed = () =>
    new Promise<void>((resolve) => {
      if (dirty) resolve();
      else waiting = resolve;
    });
  let aborted = false;
  const abort = () => {
    aborted = true;
    // The whole workflow, whatever is known of it yet (for a job without pieces the
    // same as cancelling it); a window without the workflow command cancels the job.
    // Woken once the request is stored, so the job read next shows it.
    const stop = async () => {
      try {
        if ((await commands.cancelWorkflow(id)).status === "ok") return;
      } catch {
        // Not granted: the job alone, below.
      }
      await commands.cancel({ durable: id });
    };
    stop().then(poke, poke);
  };
  signal?.addEventListener("abort", abort);
  try {
    if (signal?.aborted) abort();
    let job = await readJob(id);
    let flow = (await workflowOf(id)) ?? null;
    following = flow !== null;
    if (flow !== null) {
      onProgress(percentOf(flow.progress), flow.progress.done, flow.progress.total);
    } else if (job.progress !== null && !FINISHED.includes(job.status)) {
      onProgress(percentOf(job.progress), job.progress.done, job.progress.total);
    }
    // The job has ended, and so has its workflow if it has one.
    const ended = () => FINISHED.includes(job.status) && (flow === null || flow.ended);
    while (!ended()) {
      if (following) {
        const poll = pause(WORKFLOW_POLL_MS);
        await Promise.race([changed(), poll.done]);
        poll.drop();
        // Let the ends that come together be read once.
        await pause(WORKFLOW_READ_MS).done;
      } else {
        await changed();
      }
      dirty = false;
      const again = unwrap(await commands.getJob(id));
      if (again === null) throw new JobsError("notFound", `job ${id} is gone`);
      job = again;
      const read = FINISHED.includes(job.status) || following ? await workflowOf(id) : null;
      if (read === undefined && following) {
        // A failed read of a workflow followed: keep what was known, read again soon.
        dirty = true;
        continue;
      }
      // Pieces all gone (pruned) leave nothing to wait for.
      flow = read ?? null;
      if (flow !== null) {
        following = true;
        // A failed workflow's bar stays where it was: its cancelled jobs end it, not work.
        if (!flow.failed) onProgress(percentOf(flow.progress), flow.progress.done, flow.progress.total);
      }
      if (aborted && !ended()) {
        throw new JobsError("cancelled", `job ${id} was cancelled; it stops when its handler notices`);
      }
    }
    const result = outcome<T>(job);
    if (flow !== null && flow.failed) {
      throw new JobsError("jobFailed", `workflow ${id} failed: ${await whyFailed(id, flow)}`);
    }
    return result;
  } finally {
    signal?.removeEventListener("abort", abort);
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    unlisten();
  }
}

/**
 * Enqueues a durable job for the user and follows it to its end (see
 * {@link watchJob}): `enqueueAndWait("export", { path }, { onProgress, signal })`.
 * With a signal that already fired, nothing is enqueued. With the app's kinds declared
 * ({@link JobKinds}), the payload is checked against the kind's and the result typed.
 */
export async function enqueueAndWait<K extends DeclaredJobKind>(
  kind: K,
  payload: PayloadOf<K>,
  options?: Partial<EnqueueArgs> & WatchOptions,
): Promise<ResultOf<K>>;
/** The same while the app declares no {@link JobKinds}: the result's type is the caller's word. */
export async function enqueueAndWait<T = Value>(
  kind: UndeclaredJobKind,
  payload: Value,
  options?: Partial<EnqueueArgs> & WatchOptions,
): Promise<T>;
export async function enqueueAndWait<T>(
  kind: string,
  payload: unknown,
  options: Partial<EnqueueArgs> & WatchOptions = {},
): Promise<T> {
  const { onProgress, signal, ...enqueueOptions } = options;
  if (signal?.aborted) throw new JobsError("cancelled", "aborted before it was enqueued");
  const { id } = unwrap(await commands.enqueue(kind, payload as Value, enqueueArgs(enqueueOptions)));
  return watchJob<T>(id, { onProgress, signal });
}
