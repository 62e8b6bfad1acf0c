/**
 * What the inspector knows of the plugin's data apart from drawing it: the statuses
 * and actors jobs have, whether older jobs may follow a page, and whether this window
 * may call the admin commands.
 */
import { commands, type Actor, type Job, type JobStatus } from "../bindings";

export const STATUSES: JobStatus[] = ["queued", "running", "succeeded", "failed", "cancelled"];
export const ACTORS: Actor[] = ["user", "agent", "system"];

/** About the most bytes of payloads and results the plugin puts in one page. */
const PAGE_BYTES = 4 << 20;

/**
 * Whether older jobs may follow a page: a full page, or one the plugin may have cut
 * short at its byte budget (a page of large payloads ends early, with more behind it).
 */
export function mayHaveMore(rows: Job[], pageSize: number): boolean {
  if (rows.length === 0) return false;
  if (rows.length >= pageSize) return true;
  const bytes = rows.reduce((sum, job) => sum + JSON.stringify(job.payload ?? null).length + JSON.stringify(job.result ?? null).length, 0);
  return bytes > PAGE_BYTES / 2;
}

/** Whether this window may call the admin commands: a retry of job 0 does nothing. */
export async function probeAdmin(): Promise<boolean> {
  try {
    const result = await commands.retryJob(0);
    if (result.status === "ok") return true;
    const error = result.error as unknown;
    // Tauri refuses a command the window lacks with a plain string; the plugin's own
    // errors (job 0 not found) are objects.
    return typeof error !== "string";
  } catch {
    return false;
  }
}
