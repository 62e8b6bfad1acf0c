/**
 * What the plugin's codes say, in words a person reads: what a queued job waits for
 * (`waitingFor`: "waiting for a charger"), why it has not started (`whyWaiting`), and a
 * duration ("5 min"). The inspector shows these; a page can show the same.
 */
import type { Job, WaitingFor } from "./bindings";
/** A duration in the largest whole unit: "2 h", "5 min", "30 s", "250 ms". */
export declare function duration(ms: number): string;
/** What a queued job waits for, as a person would say it ("waiting for a charger"). */
export declare function waitingText(waiting: readonly WaitingFor[] | null | undefined): string | null;
/**
 * Why a queued job has not started, each reason in words ("its kind is paused",
 * "backing off after 2 failed attempts: runs again at 14:03:07", "waiting for a free
 * slot (2 running, cap 2); a slot comes back by 14:05:00 at the latest"); `[]` when it
 * is not queued, and one reason that it is next in line when nothing holds it back.
 * `paused` are the paused kinds (`pausedKinds()`), `now` the time to compare with.
 */
export declare function whyWaiting(job: Pick<Job, "status" | "kind" | "runAt" | "attempts" | "handlerMissing" | "rateLimitedUntil" | "waitingFor"> & Partial<Pick<Job, "snoozedUntil" | "heldBecause" | "sleepingUntil" | "awaitsSignal">>, options?: {
    now?: number;
    paused?: Iterable<string>;
}): string[];
