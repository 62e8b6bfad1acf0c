/**
 * The page's events: one subscription on a channel of its own (the `subscribe`
 * command), which only the plugin writes to and which carries only what this window
 * may read, shared by every listener while any is left; and listeners by type.
 */
import { Channel } from "@tauri-apps/api/core";
import type { UnlistenFn } from "@tauri-apps/api/event";

import {
  commands,
  type Event,
  type JobProgress,
  type JobStateChanged,
  type JobsEvent,
  type LocalJobChanged,
  type LocalJobProgress,
  type PluginHealth,
  type SyncFinished,
  type SyncProgress,
} from "./bindings";
import { unwrap } from "./core";
import type { TypedJobStateChanged } from "./kinds";

/** A listener of the plugin's events: the event, and how many the page's subscription dropped so far. */
export type EventHandler = (event: Event, dropped: number) => void;

/** The page's one subscription, shared by every listener while any is left. */
type Subscription = { handlers: Set<EventHandler>; id: Promise<number> };
let subscription: Subscription | null = null;

function subscribed(): Subscription {
  if (subscription !== null) return subscription;
  const handlers = new Set<EventHandler>();
  const channel = new Channel<JobsEvent>((message) => {
    for (const handler of [...handlers]) handler(message.event, message.dropped);
  });
  const state: Subscription = { handlers, id: commands.subscribe(channel).then(unwrap) };
  subscription = state;
  state.id.catch(() => {
    if (subscription === state) subscription = null;
  });
  return state;
}

/**
 * Every plugin event this window may read (see the README's Permissions), with the
 * count of state changes the page's stream has dropped so far. Resolves once the
 * subscription is in place; rejects with a `JobsError` when the window may not
 * subscribe.
 */
export async function onJobsEvent(handler: EventHandler): Promise<UnlistenFn> {
  const state = subscribed();
  state.handlers.add(handler);
  try {
    await state.id;
  } catch (error) {
    state.handlers.delete(handler);
    throw error;
  }
  let listening = true;
  return () => {
    if (!listening) return;
    listening = false;
    state.handlers.delete(handler);
    if (state.handlers.size === 0 && subscription === state) {
      subscription = null;
      void state.id.then((id) => commands.unsubscribe(id)).catch(() => {});
    }
  };
}

/**
 * Calls `resync` whenever the plugin reports that it dropped state changes because
 * the page fell behind (the `dropped` count of its events grew): the page should then
 * reload the lists it shows. The first event only sets the baseline. Progress reports
 * replaced by newer ones are not counted as dropped.
 */
export async function onResync(resync: (dropped: number) => void): Promise<UnlistenFn> {
  let seen: number | null = null;
  return onJobsEvent((_event, dropped) => {
    if (seen !== null && dropped > seen) {
      resync(dropped);
    }
    seen = seen === null ? dropped : Math.max(seen, dropped);
  });
}

function onType<K extends Event["type"]>(
  type: K,
  handler: (event: Extract<Event, { type: K }>) => void,
): Promise<UnlistenFn> {
  return onJobsEvent((event) => {
    if (event.type === type) {
      handler(event as Extract<Event, { type: K }>);
    }
  });
}

/**
 * Durable job state changes. Narrowed by `kind`, an event's `id` remembers the kind, so
 * `watchJob(event.id)` and `getJob` give that kind's result.
 */
export function onJobState(handler: (event: TypedJobStateChanged) => void): Promise<UnlistenFn> {
  return onType("jobStateChanged", (event: JobStateChanged) => handler(event as TypedJobStateChanged));
}

/** Durable job progress, about one event per percent. */
export function onDurableProgress(handler: (event: JobProgress) => void): Promise<UnlistenFn> {
  return onType("jobProgress", handler);
}

/** Local job progress, about one event per percent. */
export function onJobProgress(handler: (event: LocalJobProgress) => void): Promise<UnlistenFn> {
  return onType("localJobProgress", handler);
}

/** Local job state changes. */
export function onLocalJobState(handler: (event: LocalJobChanged) => void): Promise<UnlistenFn> {
  return onType("localJobChanged", handler);
}

/** Sync progress. */
export function onSyncProgress(handler: (event: SyncProgress) => void): Promise<UnlistenFn> {
  return onType("syncProgress", handler);
}

/** The end of every sync run (skipped runs publish nothing), with its outcome. */
export function onSyncFinished(handler: (event: SyncFinished) => void): Promise<UnlistenFn> {
  return onType("syncFinished", handler);
}

/** Health changes of sync targets and components. */
export function onHealth(handler: (event: PluginHealth) => void): Promise<UnlistenFn> {
  return onType("pluginHealth", handler);
}
