/**
 * What the inspector knows of the plugin's data apart from drawing it: the statuses
 * and actors jobs have, whether older jobs may follow a page, and whether this window
 * may call the admin commands.
 */
import { type Actor, type Job, type JobStatus } from "../bindings";
export declare const STATUSES: JobStatus[];
export declare const ACTORS: Actor[];
/**
 * Whether older jobs may follow a page: a full page, or one the plugin may have cut
 * short at its byte budget (a page of large payloads ends early, with more behind it).
 */
export declare function mayHaveMore(rows: Job[], pageSize: number): boolean;
/** Whether this window may call the admin commands: a retry of job 0 does nothing. */
export declare function probeAdmin(): Promise<boolean>;
