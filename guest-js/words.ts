/**
 * What the plugin's codes say, in words a person reads: what a queued job waits for
 * (`waitingFor`: "waiting for a charger"), and a duration ("5 min"). The inspector
 * shows these; a page can show the same.
 */
import type { WaitingFor } from "./bindings";

/** A duration in the largest whole unit: "2 h", "5 min", "30 s", "250 ms". */
export function duration(ms: number): string {
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
    }
  });
  return `waiting for ${words.join(" and ")}`;
}
