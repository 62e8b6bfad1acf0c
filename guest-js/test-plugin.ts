/**
 * The plugin as the webview tests see it: commands answered by a function of the
 * test's, the page's event subscription, and events sent on it as the plugin does.
 * Used by the `*.test.ts` files only (left out of the build).
 */
import { mockIPC } from "@tauri-apps/api/mocks";

import type { Job, JobsEvent } from "./bindings";

type Call = { cmd: string; args: unknown };

/** The page's event subscription, as the mocked plugin holds it. */
export const subscribed: { channel: { id: number } | null; index: number; id: number } = { channel: null, index: 0, id: 0 };

/** Answers `subscribe` and `unsubscribe` as the plugin would; whether `cmd` was one. */
export function subscription(cmd: string, args: any): boolean {
  if (cmd === "plugin:jobs|subscribe") {
    subscribed.channel = args.onEvent;
    subscribed.index = 0;
    subscribed.id += 1;
    return true;
  }
  if (cmd === "plugin:jobs|unsubscribe") {
    if (args.id === subscribed.id) subscribed.channel = null;
    return true;
  }
  return false;
}

/** Mocks the plugin's commands with `answer`; records every call. */
export function backend(answer: (cmd: string, args: any) => unknown, options: { tauriEvents?: boolean } = {}): Call[] {
  const calls: Call[] = [];
  mockIPC(
    (cmd, args: any) => {
      if (subscription(cmd, args)) return subscribed.id;
      calls.push({ cmd, args });
      return answer(cmd, args);
    },
    { shouldMockEvents: options.tauriEvents ?? false },
  );
  return calls;
}

/**
 * Sends `event` on the page's subscription channel, as the plugin does: only what
 * comes this way reaches the page's listeners.
 */
export function jobsEvent(event: JobsEvent["event"], dropped = 0): Promise<void> {
  if (subscribed.channel === null) throw new Error("the page has no event subscription");
  (window as any).__TAURI_INTERNALS__.runCallback(subscribed.channel.id, {
    index: subscribed.index++,
    message: { event, dropped } satisfies JobsEvent,
  });
  return Promise.resolve();
}

/** A durable job record as `get_job` returns it. */
export function jobRecord(fields: Partial<Job>): Job {
  return {
    id: 5,
    kind: "ingest",
    payload: null,
    status: "running",
    priority: 0,
    runAt: 1,
    attempts: 1,
    maxAttempts: 3,
    leaseOwner: "w",
    leaseExpiresAt: 2,
    cancelRequested: false,
    dedupeKey: null,
    lastError: null,
    result: null,
    parent: null,
    actor: "system",
    createdAt: 1,
    updatedAt: 1,
    finishedAt: null,
    startedAt: 1,
    timeoutMs: null,
    maxOfflineMs: null,
    snoozedUntil: null,
    heldBecause: null,
    progress: null,
    unreadable: null,
    ...fields,
  } as Job;
}

export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
