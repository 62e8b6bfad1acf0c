/**
 * What every part of the webview API shares: the error it throws, the unwrapping of
 * a command's result into data or that error, and the full options of an enqueue.
 */
import type { CommandError, EnqueueArgs, ErrorCode, JobFilter } from "./bindings";
/** A command failed; `code` is one of a closed set, `message` is for people. */
export declare class JobsError extends Error {
    readonly code: ErrorCode;
    constructor(code: ErrorCode, message: string);
}
export type Result<T> = {
    status: "ok";
    data: T;
} | {
    status: "error";
    error: CommandError;
};
/** Returns the data or throws a {@link JobsError}. Tauri's own argument errors are strings. */
export declare function unwrap<T>(result: Result<T>): T;
/** A job filter with every field left out set to `null` (no filter on it). */
export declare function jobFilter(filter: Partial<JobFilter>): JobFilter;
export declare function enqueueArgs(options: Partial<EnqueueArgs>): EnqueueArgs;
