/**
 * How the inspector draws: elements whose strings are always set as text, never
 * parsed as HTML, the cells its tables share (times, durations, JSON, progress), and
 * the row of a job found by its id, and what a waiting job waits for.
 */

import type { WaitingFor } from "../bindings";

/** Attributes; `on*` functions become listeners, `false` and empty values are left out. */
type Attrs = Record<string, unknown>;

/** An element with attributes and children (strings become text, never HTML). */
export function h(tag: string, attrs: Attrs = {}, ...children: (Node | string | null | undefined)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value as EventListener);
    } else if (name === "class") {
      element.className = String(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined) element.append(child);
  }
  return element;
}

export function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function duration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

export function json(value: unknown): string {
  return value === null || value === undefined ? "—" : JSON.stringify(value, null, 2);
}

export function percent(done: number, total: number | null): number | null {
  return total ? Math.min(100, Math.round((done / total) * 100)) : null;
}

export function progressCell(progress: { done: number; total: number | null } | null | undefined): Node | string {
  if (!progress) return "";
  const value = percent(progress.done, progress.total);
  if (value === null) return `${progress.done} done`;
  return h("progress", { max: 100, value, "aria-label": `${value} percent` });
}

/** The row of the job with `id`, found by comparing: data never becomes a selector. */
export function rowOf(tbody: Element, id: string | number): HTMLTableRowElement | undefined {
  return Array.from(tbody.querySelectorAll("tr")).find((row) => row.dataset.id === String(id));
}

/** What a job of a kind nobody runs here is waiting for. */
export const NO_HANDLER = "waiting for a handler that is not registered in this app (a kind an update removed?)";

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
