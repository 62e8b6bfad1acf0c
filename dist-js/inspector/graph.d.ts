/**
 * A workflow's graph, in the detail of its parent: the parent, its pieces and the jobs
 * after them (the pieces that wait for others), coloured by status, as SVG drawn here.
 * Each node opens its job's detail (click, Enter or Space); a failed one shows its
 * error in its tooltip. The first {@link MAX_NODES} pieces are drawn, and the count of
 * the rest said.
 */
import type { Job } from "../bindings";
/** The most pieces a graph draws. */
export declare const MAX_NODES = 40;
/** The graph of the workflow whose parent is `parent`, or null when it has no pieces. */
export declare function workflowGraph(parent: Job, open: (id: number) => void): Promise<HTMLElement | SVGElement | null>;
