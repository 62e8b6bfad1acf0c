/**
 * What every part of the webview API shares: the error it throws, the unwrapping of
 * a command's result into data or that error, and the full options of an enqueue.
 */
import type { CommandError, EnqueueArgs, ErrorCode, JobFilter } from "./bindings";

/** A command failed; `code` is one of a closed set, `message` is for people. */
export class JobsError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "JobsError";
    this.code = code;
  }
}

export type Result<T> = { status: "ok"; data: T } | { status: "error"; error: CommandError };

/** Returns the data or throws a {@link JobsError}. Tauri's own argument errors are strings. */
export function unwrap<T>(result: Result<T>): T {
  if (result.status === "ok") {
    return result.data;
  }
  const error = result.error as CommandError | string;
  if (typeof error === "string") {
    throw new JobsError("invalidArgument", error);
  }
  throw new JobsError(error.code, error.message);
}

/** A job filter with every field left out set to `null` (no filter on it). */
export function jobFilter(filter: Partial<JobFilter>): JobFilter {
  return { status: null, kind: null, parent: null, actor: null, before: null, limit: null, ...filter };
}

export function enqueueArgs(options: Partial<EnqueueArgs>): EnqueueArgs {
  return {
    priority: null,
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
    ...options,
  };
}
