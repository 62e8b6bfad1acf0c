import type { Shell } from "./types";
/** A segment of a stacked bar: what it counts, and its colour (a class: `s-good`, ...). */
type Series<P> = {
    name: string;
    color: string;
    of: (point: P) => number;
};
/** The periods a span shows, oldest first: 60 minutes or 24 hours up to the current one. */
export declare function slots(span: "lastHour" | "lastDay", now: number, points: {
    at: number;
}[]): number[];
/** A stacked bar chart of `points` over `starts`; a point in no slot is left out. */
export declare function barChart<P extends {
    at: number;
}>(label: string, starts: number[], points: P[], series: Series<P>[]): SVGElement;
/** Sets up the History tab. */
export declare function mountHistory(shell: Shell): {
    loadHistory: () => Promise<void>;
};
export type HistoryTab = ReturnType<typeof mountHistory>;
export {};
