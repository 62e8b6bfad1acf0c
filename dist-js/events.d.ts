import type { UnlistenFn } from "@tauri-apps/api/event";
import { type Event, type JobProgress, type LocalJobChanged, type LocalJobProgress, type PluginHealth, type SyncFinished, type SyncProgress } from "./bindings";
import type { TypedJobStateChanged } from "./kinds";
/** A listener of the plugin's events: the event, and how many the page's subscription dropped so far. */
export type EventHandler = (event: Event, dropped: number) => void;
/**
 * Every plugin event this window may read (see the README's Permissions), with the
 * count of state changes the page's stream has dropped so far. Resolves once the
 * subscription is in place; rejects with a `JobsError` when the window may not
 * subscribe.
 */
export declare function onJobsEvent(handler: EventHandler): Promise<UnlistenFn>;
/**
 * Calls `resync` whenever the plugin reports that it dropped state changes because
 * the page fell behind (the `dropped` count of its events grew): the page should then
 * reload the lists it shows. The first event only sets the baseline. Progress reports
 * replaced by newer ones are not counted as dropped.
 */
export declare function onResync(resync: (dropped: number) => void): Promise<UnlistenFn>;
/**
 * Durable job state changes. Narrowed by `kind`, an event's `id` remembers the kind, so
 * `watchJob(event.id)` and `getJob` give that kind's result.
 */
export declare function onJobState(handler: (event: TypedJobStateChanged) => void): Promise<UnlistenFn>;
/** Durable job progress, about one event per percent. */
export declare function onDurableProgress(handler: (event: JobProgress) => void): Promise<UnlistenFn>;
/** Local job progress, about one event per percent. */
export declare function onJobProgress(handler: (event: LocalJobProgress) => void): Promise<UnlistenFn>;
/** Local job state changes. */
export declare function onLocalJobState(handler: (event: LocalJobChanged) => void): Promise<UnlistenFn>;
/** Sync progress. */
export declare function onSyncProgress(handler: (event: SyncProgress) => void): Promise<UnlistenFn>;
/** The end of every sync run (skipped runs publish nothing), with its outcome. */
export declare function onSyncFinished(handler: (event: SyncFinished) => void): Promise<UnlistenFn>;
/** Health changes of sync targets and components. */
export declare function onHealth(handler: (event: PluginHealth) => void): Promise<UnlistenFn>;
