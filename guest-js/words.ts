/**
 * What the plugin's codes say, in words a person reads: what a queued job waits for
 * (`waitingFor`: "waiting for a charger"), why it has not started (`whyWaiting`), and a
 * duration ("5 min"). The inspector shows these; a page can show the same.
 */
import type { Job, WaitingFor } from "./bindings";

/** A duration in the largest whole unit: "2 h", "5 min", "30 s", "250 ms". */
export function duration(ms: number): string {
  if (ms === 0) return "0 ms";
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** What a queued job waits for, as a person would say it ("waiting for a charger"). */
export function waitingText(waiting: readonly WaitingFor[] | null | undefined): string | null {
  if (!waiting || waiting.length === 0) return null;
  const words = waiting.map((w) => {
    switch (w.condition) {
      case "acPower":
        return "a charger";
      case "battery":
        return `a charger or ${w.atLeast}% battery`;
      case "unmeteredNetwork":
        return "an unmetered network";
      case "userIdle":
        return `you to be away for ${duration(w.secs * 1000)}`;
      case "jobs":
        return `${w.left} more job${w.left === 1 ? "" : "s"} to end`;
      case "slot":
        return w.stale === 0
          ? `a free slot (${w.running} running, cap ${w.cap})`
          : `a free slot (${w.running} running, cap ${w.cap}; ${w.stale} held by a worker that stopped answering)`;
      case "network":
        return "the network";
      case "service":
        return "the service, which asked its kind to wait";
      case "signal":
        return "a signal";
    }
  });
  return `waiting for ${words.join(" and ")}`;
}

/** A time of day as the inspector shows it ("14:03:07"), or the date too when not today. */
function clock(ms: number, now: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  const hms = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return new Date(now).toDateString() === date.toDateString() ? hms : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${hms}`;
}

/**
 * Why a queued job has not started, each reason in words ("its kind is paused",
 * "backing off after 2 failed attempts: runs again at 14:03:07", "waiting for a free
 * slot (2 running, cap 2); a slot comes back by 14:05:00 at the latest"); `[]` when it
 * is not queued, and one reason that it is next in line when nothing holds it back.
 * `paused` are the paused kinds (`pausedKinds()`), `now` the time to compare with.
 */
export function whyWaiting(
  job: Pick<Job, "status" | "kind" | "runAt" | "attempts" | "handlerMissing" | "rateLimitedUntil" | "waitingFor"> &
    Partial<Pick<Job, "snoozedUntil" | "heldBecause" | "sleepingUntil" | "awaitsSignal">>,
  options: { now?: number; paused?: Iterable<string> } = {},
): string[] {
  if (job.status !== "queued") return [];
  const now = options.now ?? Date.now();
  const reasons: string[] = [];
  if (new Set(options.paused ?? []).has(job.kind)) reasons.push("its kind is paused: nothing claims it until it is resumed");
  if (job.handlerMissing) reasons.push("no handler for its kind is registered in this app");
  if (job.rateLimitedUntil != null && job.rateLimitedUntil > now) {
    reasons.push(`its kind is at its rate limit until ${clock(job.rateLimitedUntil, now)}`);
  }
  // A throttle of the kind moved the job that met it to the throttle's end: that wait
  // is the throttle's, said below, not a backoff after its earlier failures.
  const throttledTo = (job.waitingFor ?? []).find((waiting) => waiting.condition === "service");
  const throttled = throttledTo?.condition === "service" && job.runAt <= throttledTo.until;
  if (job.awaitsSignal != null && job.sleepingUntil != null && job.sleepingUntil === job.runAt) {
    reasons.push(`waiting for the signal "${job.awaitsSignal}" until ${clock(job.runAt, now)} (not a failed attempt)`);
  } else if (job.sleepingUntil != null && job.sleepingUntil === job.runAt && job.runAt > now) {
    reasons.push(`sleeping until ${clock(job.runAt, now)}: a durable sleep of its handler (not a failed attempt)`);
  } else if (job.snoozedUntil != null && job.snoozedUntil === job.runAt && job.runAt > now) {
    reasons.push(`the service asked it to wait: runs again at ${clock(job.runAt, now)} (not a failed attempt)`);
  } else if (job.runAt > now && !throttled) {
    reasons.push(
      job.attempts > 0
        ? `backing off after ${job.attempts} failed attempt${job.attempts === 1 ? "" : "s"}: runs again at ${clock(job.runAt, now)}`
        : `not due before ${clock(job.runAt, now)}`,
    );
  }
  // What the handler or the service said when the kind was held ("HTTP 429").
  const because = job.heldBecause ? ` (${job.heldBecause})` : "";
  for (const waiting of job.waitingFor ?? []) {
    if (waiting.condition === "signal") continue; // said above, with its name
    const text = waitingText([waiting])!;
    if (waiting.condition === "slot" && waiting.leaseEndsAt != null) {
      reasons.push(`${text}; a slot comes back by ${clock(waiting.leaseEndsAt, now)} at the latest`);
    } else if (waiting.condition === "network") {
      reasons.push(
        (waiting.nextTry > now
          ? `waiting for the network: its kind tries one job at ${clock(waiting.nextTry, now)}, or when the network comes back`
          : "waiting for the network: its kind is trying one job now") + because,
      );
    } else if (waiting.condition === "service") {
      reasons.push(`throttled by the service until ${clock(waiting.until, now)}${because}`);
    } else {
      reasons.push(text);
    }
  }
  return reasons.length > 0 ? reasons : ["nothing: it starts when a worker is free"];
}
