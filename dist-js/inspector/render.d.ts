/**
 * How the inspector draws: elements whose strings are always set as text, never
 * parsed as HTML, the cells its tables share (times, durations, JSON, progress), and
 * the row of a job found by its id, and what a waiting job waits for.
 */
/** Attributes; `on*` functions become listeners, `false` and empty values are left out. */
type Attrs = Record<string, unknown>;
/** An element with attributes and children (strings become text, never HTML). */
export declare function h(tag: string, attrs?: Attrs, ...children: (Node | string | null | undefined)[]): HTMLElement;
export declare function time(ms: number | null | undefined): string;
export declare function json(value: unknown): string;
export declare function percent(done: number, total: number | null): number | null;
export declare function progressCell(progress: {
    done: number;
    total: number | null;
} | null | undefined): Node | string;
/** The row of the job with `id`, found by comparing: data never becomes a selector. */
export declare function rowOf(tbody: Element, id: string | number): HTMLTableRowElement | undefined;
export { duration, waitingText, whyWaiting } from "../words";
/** What a job of a kind nobody runs here is waiting for. */
export declare const NO_HANDLER = "waiting for a handler that is not registered in this app (a kind an update removed?)";
/** A duration in words: "850 ms", "1.2 s", "3 min 5 s". */
export declare function seconds(ms: number): string;
