/**
 * The inspector's types: what an app passes to it and gets back (`inspector.ts`
 * exports these), and, for its own files only, the state a drawn inspector keeps and
 * the shell its tabs share (the shadow root, the panels, the messages and timers).
 */
import type { UnlistenFn } from "@tauri-apps/api/event";
import type { Actor, Job, JobStatus, JobStepChanged } from "../bindings";
/** The inspector's tabs. */
export type InspectorView = "jobs" | "counts" | "history" | "schedules" | "sync" | "local";
/** How to draw the inspector. */
export type InspectorOptions = {
    /** The tab shown first; `jobs` by default. */
    view?: InspectorView;
    /** Jobs per page, 1 to 1000; 50 by default. */
    pageSize?: number;
    /**
     * Whether to show the actions. By default the inspector asks the plugin: it calls
     * an admin command that can do nothing (a retry of job 0) and shows the actions
     * only if the window was allowed to call it.
     */
    admin?: boolean;
};
/** A drawn inspector. */
export type Inspector = {
    /** Resolves once the first view is drawn with its data. */
    readonly ready: Promise<void>;
    /** Milliseconds from the call to the first view drawn with its data. */
    firstRenderMs(): number | null;
    /** Reads everything shown again. */
    refresh(): Promise<void>;
    /** Shows a tab (the `view` attribute of `<jobs-inspector>` calls it when it changes). */
    show(view: InspectorView): void;
    /** Stops listening and empties the element. */
    destroy(): void;
};
/** What a drawn inspector keeps between draws. */
export type State = {
    view: InspectorView;
    admin: boolean;
    filter: {
        status: JobStatus | null;
        kind: string;
        actor: Actor | null;
        parent: number | null;
    };
    cursors: (number | null)[];
    rows: Job[];
    selected: number | null;
    paused: Set<string>;
    destroyed: boolean;
    seenDropped: number;
    /** The step each job's handler began last, as its events said (the one running while `finishedAt` is null). */
    steps: Map<number, JobStepChanged>;
};
/** What the tabs use of the shell `mountInspector()` draws around them. */
export type Shell = {
    root: ShadowRoot;
    state: State;
    pageSize: number;
    panels: Map<InspectorView, HTMLElement>;
    unlisten: UnlistenFn[];
    failed(error: unknown): void;
    soon(key: string, ms: number, work: () => Promise<void>): void;
    act(work: () => Promise<unknown>, then: () => Promise<void>): Promise<void>;
    show(view: InspectorView, reload?: boolean): void;
    load(view: InspectorView): Promise<void>;
    /** Reads the plugin's own health again (a refused `config.toml`, `raw.db`, conditions). */
    loadHealth(): Promise<void>;
};
