/**
 * How the inspector draws: elements whose strings are always set as text, never
 * parsed as HTML, the cells its tables share (times, durations, JSON, progress), and
 * the row of a job found by its id, and what a waiting job waits for.
 */

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

export { duration, waitingText, whyWaiting } from "../words";

/** What a job of a kind nobody runs here is waiting for. */
export const NO_HANDLER = "waiting for a handler that is not registered in this app (a kind an update removed?)";


/** A duration in words: "850 ms", "1.2 s", "3 min 5 s". */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
