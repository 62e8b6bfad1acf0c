var __TAURI_PLUGIN_JOBS__ = (function (exports) {
    'use strict';

    /******************************************************************************
    Copyright (c) Microsoft Corporation.

    Permission to use, copy, modify, and/or distribute this software for any
    purpose with or without fee is hereby granted.

    THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
    REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY
    AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
    INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM
    LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR
    OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR
    PERFORMANCE OF THIS SOFTWARE.
    ***************************************************************************** */
    /* global Reflect, Promise, SuppressedError, Symbol, Iterator */


    function __classPrivateFieldGet(receiver, state, kind, f) {
        if (kind === "a" && !f) throw new TypeError("Private accessor was defined without a getter");
        if (typeof state === "function" ? receiver !== state || !f : !state.has(receiver)) throw new TypeError("Cannot read private member from an object whose class did not declare it");
        return kind === "m" ? f : kind === "a" ? f.call(receiver) : f ? f.value : state.get(receiver);
    }

    function __classPrivateFieldSet(receiver, state, value, kind, f) {
        if (typeof state === "function" ? receiver !== state || true : !state.has(receiver)) throw new TypeError("Cannot write private member to an object whose class did not declare it");
        return (state.set(receiver, value)), value;
    }

    typeof SuppressedError === "function" ? SuppressedError : function (error, suppressed, message) {
        var e = new Error(message);
        return e.name = "SuppressedError", e.error = error, e.suppressed = suppressed, e;
    };

    // Copyright 2019-2024 Tauri Programme within The Commons Conservancy
    // SPDX-License-Identifier: Apache-2.0
    // SPDX-License-Identifier: MIT
    var _Channel_instances, _Channel_onmessage, _Channel_nextMessageIndex, _Channel_pendingMessages, _Channel_messageEndIndex, _Channel_deliver;
    /**
     * Invoke your custom commands.
     *
     * This package is also accessible with `window.__TAURI__.core` when [`app.withGlobalTauri`](https://v2.tauri.app/reference/config/#withglobaltauri) in `tauri.conf.json` is set to `true`.
     * @module
     */
    /**
     * A key to be used to implement a special function
     * on your types that define how your type should be serialized
     * when passing across the IPC.
     * @example
     * Given a type in Rust that looks like this
     * ```rs
     * #[derive(serde::Serialize, serde::Deserialize)
     * enum UserId {
     *   String(String),
     *   Number(u32),
     * }
     * ```
     * `UserId::String("id")` would be serialized into `{ String: "id" }`
     * and so we need to pass the same structure back to Rust
     * ```ts
     * import { SERIALIZE_TO_IPC_FN } from "@tauri-apps/api/core"
     *
     * class UserIdString {
     *   id
     *   constructor(id) {
     *     this.id = id
     *   }
     *
     *   [SERIALIZE_TO_IPC_FN]() {
     *     return { String: this.id }
     *   }
     * }
     *
     * class UserIdNumber {
     *   id
     *   constructor(id) {
     *     this.id = id
     *   }
     *
     *   [SERIALIZE_TO_IPC_FN]() {
     *     return { Number: this.id }
     *   }
     * }
     *
     * type UserId = UserIdString | UserIdNumber
     * ```
     *
     */
    // if this value changes, make sure to update it in:
    // 1. ipc.js
    // 2. process-ipc-message-fn.js
    const SERIALIZE_TO_IPC_FN = '__TAURI_TO_IPC_KEY__';
    /**
     * Stores the callback in a known location, and returns an identifier that can be passed to the backend.
     * The backend uses the identifier to `eval()` the callback.
     *
     * @return An unique identifier associated with the callback function.
     *
     * @since 1.0.0
     */
    function transformCallback(
    // TODO: Make this not optional in v3
    callback, once = false) {
        return window.__TAURI_INTERNALS__.transformCallback(callback, once);
    }
    /**
     * A message channel used to stream values from Rust to the frontend.
     *
     * A `Channel` is the JavaScript counterpart of [`tauri::ipc::Channel`](https://docs.rs/tauri/2/tauri/ipc/struct.Channel.html).
     * Pass an instance as a command argument and the Rust command can declare a
     * `tauri::ipc::Channel<T>` parameter with the same name; every value sent from
     * Rust is then delivered to {@linkcode Channel.onmessage}. Messages are delivered
     * in the order they were sent, even when they arrive out of order.
     *
     * The channel stays alive until the Rust `Channel` is dropped, so it can be used
     * for long-running work such as download progress or log streaming.
     *
     * Raw byte payloads are delivered to the frontend as an `ArrayBuffer` rather than
     * a JSON value, so declare the channel as `Channel<ArrayBuffer>` when the Rust
     * side sends `tauri::ipc::InvokeResponseBody::Raw` — for example through a
     * `Channel<tauri::ipc::Response>` whose values are built with
     * `tauri::ipc::Response::new(bytes)`.
     *
     * @example
     * ```typescript
     * import { Channel, invoke } from '@tauri-apps/api/core';
     *
     * const onEvent = new Channel<string>();
     * onEvent.onmessage = (message) => {
     *   console.log(`got download event ${message}`);
     * };
     *
     * await invoke('download', { url: 'https://tauri.app', onEvent });
     * ```
     *
     * The matching Rust command:
     * ```rust
     * #[tauri::command]
     * async fn download(url: String, on_event: tauri::ipc::Channel<String>) -> tauri::Result<()> {
     *   on_event.send("started".to_string())?;
     *   on_event.send("finished".to_string())?;
     *   Ok(())
     * }
     * ```
     *
     * @since 2.0.0
     */
    class Channel {
        constructor(onmessage) {
            _Channel_instances.add(this);
            _Channel_onmessage.set(this, void 0);
            // the index is used as a mechanism to preserve message order
            _Channel_nextMessageIndex.set(this, 0);
            _Channel_pendingMessages.set(this, []);
            _Channel_messageEndIndex.set(this, void 0);
            __classPrivateFieldSet(this, _Channel_onmessage, onmessage || (() => { }));
            this.id = transformCallback((rawMessage) => {
                const index = rawMessage.index;
                if ('end' in rawMessage) {
                    if (index == __classPrivateFieldGet(this, _Channel_nextMessageIndex, "f")) {
                        this.cleanupCallback();
                    }
                    else {
                        __classPrivateFieldSet(this, _Channel_messageEndIndex, index);
                    }
                    return;
                }
                const message = rawMessage.message;
                // Process the message if we're at the right order
                if (index == __classPrivateFieldGet(this, _Channel_nextMessageIndex, "f")) {
                    __classPrivateFieldGet(this, _Channel_instances, "m", _Channel_deliver).call(this, message);
                    __classPrivateFieldSet(this, _Channel_nextMessageIndex, __classPrivateFieldGet(this, _Channel_nextMessageIndex, "f") + 1);
                    // process pending messages
                    while (__classPrivateFieldGet(this, _Channel_nextMessageIndex, "f") in __classPrivateFieldGet(this, _Channel_pendingMessages, "f")) {
                        const message = __classPrivateFieldGet(this, _Channel_pendingMessages, "f")[__classPrivateFieldGet(this, _Channel_nextMessageIndex, "f")];
                        __classPrivateFieldGet(this, _Channel_instances, "m", _Channel_deliver).call(this, message);
                        // eslint-disable-next-line @typescript-eslint/no-array-delete
                        delete __classPrivateFieldGet(this, _Channel_pendingMessages, "f")[__classPrivateFieldGet(this, _Channel_nextMessageIndex, "f")];
                        __classPrivateFieldSet(this, _Channel_nextMessageIndex, __classPrivateFieldGet(this, _Channel_nextMessageIndex, "f") + 1);
                    }
                    if (__classPrivateFieldGet(this, _Channel_nextMessageIndex, "f") === __classPrivateFieldGet(this, _Channel_messageEndIndex, "f")) {
                        this.cleanupCallback();
                    }
                }
                // Queue the message if we're not
                else {
                    // eslint-disable-next-line security/detect-object-injection
                    __classPrivateFieldGet(this, _Channel_pendingMessages, "f")[index] = message;
                }
            });
        }
        cleanupCallback() {
            window.__TAURI_INTERNALS__.unregisterCallback(this.id);
        }
        /**
         * The handler called for every message sent by the Rust side of this channel.
         *
         * Assigning a new handler replaces the previous one; messages that arrived
         * before a handler was set are not replayed, so set it (or pass it to the
         * constructor) before sending the channel to the backend.
         */
        set onmessage(handler) {
            __classPrivateFieldSet(this, _Channel_onmessage, handler);
        }
        get onmessage() {
            return __classPrivateFieldGet(this, _Channel_onmessage, "f");
        }
        [(_Channel_onmessage = new WeakMap(), _Channel_nextMessageIndex = new WeakMap(), _Channel_pendingMessages = new WeakMap(), _Channel_messageEndIndex = new WeakMap(), _Channel_instances = new WeakSet(), _Channel_deliver = function _Channel_deliver(message) {
            try {
                __classPrivateFieldGet(this, _Channel_onmessage, "f").call(this, message);
            }
            catch (error) {
                // A throwing handler must not stall the channel: the message index would
                // never advance and every later message would stay queued. Rethrow
                // asynchronously so the error is still reported as uncaught.
                queueMicrotask(() => {
                    throw error;
                });
            }
        }, SERIALIZE_TO_IPC_FN)]() {
            return `__CHANNEL__:${this.id}`;
        }
        toJSON() {
            // eslint-disable-next-line security/detect-object-injection
            return this[SERIALIZE_TO_IPC_FN]();
        }
    }
    /**
     * Sends a message to the backend.
     * @example
     * ```typescript
     * import { invoke } from '@tauri-apps/api/core';
     * await invoke('login', { user: 'tauri', password: 'poiwe3h4r5ip3yrhtew9ty' });
     * ```
     *
     * @param cmd The command name.
     * @param args The optional arguments to pass to the command.
     * @param options The request options.
     * @return A promise resolving or rejecting to the backend response.
     *
     * @since 1.0.0
     */
    async function invoke(cmd, args = {}, options) {
        return window.__TAURI_INTERNALS__.invoke(cmd, args, options);
    }

    // Generated by tauri-specta from the plugin's commands and events. Do not edit:
    // run `cargo test --test plugin` with UPDATE_BINDINGS=1 to refresh.
    // This file has been generated by Tauri Specta. Do not edit this file manually.
    /** Commands */
    const commands = {
        /**  Enqueues a durable job on behalf of the user. */
        enqueue: (kind, payload, options) => typedError(invoke("plugin:jobs|enqueue", { kind, payload, options })),
        /**  One durable job. */
        getJob: (id) => typedError(invoke("plugin:jobs|get_job", { id })),
        /**  A page of durable jobs, newest first. */
        listJobs: (filter) => typedError(invoke("plugin:jobs|list_jobs", { filter })),
        /**  Durable job counts by kind and status. */
        jobCounts: () => typedError(invoke("plugin:jobs|job_counts")),
        /**
         *  The history of `kind`, or of every kind with history in the span, leaving out the
         *  kinds outside the window's scope (a kind it may not read answers as one that never
         *  ran: `[]`). A span that ends before it starts or is longer than 31 days is refused
         *  (`invalidArgument`, naming `range`).
         */
        jobHistory: (kind, span) => typedError(invoke("plugin:jobs|job_history", { kind, span })),
        /**  Cancels a durable or local job. */
        cancel: (job) => typedError(invoke("plugin:jobs|cancel", { job })),
        /**
         *  Starts a local job kind the app registered for the webview; returns its id at once
         *  (watch it with job events).
         */
        spawnLocal: (kind, args) => typedError(invoke("plugin:jobs|spawn_local", { kind, args })),
        /**
         *  Starts a local job kind the app registered for the webview and returns what it
         *  returned.
         */
        spawnAwaitable: (kind, args) => typedError(invoke("plugin:jobs|spawn_awaitable", { kind, args })),
        /**
         *  Starts a local job kind the app registered for the webview and returns its id at
         *  once; `on_event` hears that job's progress and then its end (with what it
         *  returned), and nothing else.
         */
        runLocal: (kind, args, onEvent) => typedError(invoke("plugin:jobs|run_local", { kind, args, onEvent })),
        /**  One local job's record. */
        getLocalJob: (id) => typedError(invoke("plugin:jobs|get_local_job", { id })),
        /**  Every local job on record. */
        listLocalJobs: () => typedError(invoke("plugin:jobs|list_local_jobs")),
        /**
         *  Syncs one target now (the user pressed Refresh). A press while the target's run is
         *  in flight joins it; one within the refresh floor (2 s by default) of the previous
         *  press's outcome gets that outcome.
         */
        syncNow: (target) => typedError(invoke("plugin:jobs|sync_now", { target })),
        /**
         *  Syncs one target if an automatic trigger may (not within `min_interval`, not while
         *  backing off). `trigger` says what the page saw: `focus` by default; `networkBack`
         *  (the page's `online` event) retries an offline target at once.
         */
        syncIfDue: (target, trigger) => typedError(invoke("plugin:jobs|sync_if_due", { target, trigger })),
        /**  State and health of every registered sync target in the window's scope. */
        syncStatus: () => typedError(invoke("plugin:jobs|sync_status")),
        /**
         *  The history of `target` (`connector/account/name`), or of every target with
         *  history in the span, leaving out the targets outside the window's scope (one it
         *  may not read answers as one that never ran: `[]`). Spans as `job_history`'s.
         */
        syncHistory: (target, span) => typedError(invoke("plugin:jobs|sync_history", { target, span })),
        /**
         *  A hint from the webview's `online`/`offline` events. Coming online retries offline
         *  targets (those in the window's scope) at once, in one pass that later hints join;
         *  the attempt itself is the real probe.
         */
        networkHint: (online) => typedError(invoke("plugin:jobs|network_hint", { online })),
        /**  Every schedule with its next run, of the kinds in the window's scope. */
        listSchedules: () => typedError(invoke("plugin:jobs|list_schedules")),
        /**
         *  Removes everything stored for an account and stops its syncs. Both names are
         *  checked as a target's parts are; every target the account could have must be in
         *  the window's scope.
         */
        disconnectAccount: (connector, account) => typedError(invoke("plugin:jobs|disconnect_account", { connector, account })),
        /**  Deletes finished durable jobs older than `olderThanMs`. */
        pruneJobs: (olderThanMs) => typedError(invoke("plugin:jobs|prune_jobs", { olderThanMs })),
        /**
         *  Runs a durable job again now: a failed one goes back to the queue, a queued one
         *  waiting out its backoff becomes runnable at once. A running, succeeded or cancelled
         *  job is refused, naming its status.
         */
        retryJob: (id) => typedError(invoke("plugin:jobs|retry_job", { id })),
        /**  Deletes a finished durable job. A queued or running one is refused: cancel it first. */
        deleteJob: (id) => typedError(invoke("plugin:jobs|delete_job", { id })),
        /**  Pauses a job kind: claims in every process skip it until it is resumed. */
        pauseKind: (kind) => typedError(invoke("plugin:jobs|pause_kind", { kind })),
        /**  Resumes a paused job kind. */
        resumeKind: (kind) => typedError(invoke("plugin:jobs|resume_kind", { kind })),
        /**  The job kinds paused now (in every process), of the kinds in the window's scope. */
        pausedKinds: () => typedError(invoke("plugin:jobs|paused_kinds")),
        /**
         *  Runs a schedule's job now, without moving its next run; returns the job (or the
         *  one holding its dedupe key). A schedule of a kind outside the scope is not found.
         */
        runScheduleNow: (name) => typedError(invoke("plugin:jobs|run_schedule_now", { name })),
        /**  Pauses a schedule: it does not run until resumed. */
        pauseSchedule: (name) => typedError(invoke("plugin:jobs|pause_schedule", { name })),
        /**  Resumes a paused schedule, from its first slot after now. */
        resumeSchedule: (name) => typedError(invoke("plugin:jobs|resume_schedule", { name })),
        /**
         *  Enqueues a durable job on behalf of an external agent: as `enqueue`, with the
         *  actor `agent`.
         */
        agentEnqueue: (kind, payload, options) => typedError(invoke("plugin:jobs|agent_enqueue", { kind, payload, options })),
        /**
         *  Claims jobs for an external agent through the same protocol as the app's runner:
         *  caps, fencing and at-least-once hold exactly as for internal workers.
         */
        agentClaim: (request) => typedError(invoke("plugin:jobs|agent_claim", { request })),
        /**  Renews an agent's lease; with `progress`, stores and publishes how far it is. */
        agentHeartbeat: (lease, progress) => typedError(invoke("plugin:jobs|agent_heartbeat", { lease, progress })),
        /**  Records an agent's success; the result is checked against the kind's schema. */
        agentComplete: (lease, result) => typedError(invoke("plugin:jobs|agent_complete", { lease, result })),
        /**  Records an agent's failed attempt. */
        agentFail: (lease, error, permanent) => typedError(invoke("plugin:jobs|agent_fail", { lease, error, permanent })),
        /**
         *  Defers an agent's attempt without failing it: offline (the kind waits for the
         *  network), a snooze of this job, or a throttle of its whole kind. The attempt is
         *  not counted; waits are clamped from a second to a day.
         */
        agentDefer: (lease, deferral) => typedError(invoke("plugin:jobs|agent_defer", { lease, deferral })),
        /**
         *  Sends the plugin's events that this window may read to `on_event`, until
         *  `unsubscribe`, a new page in the webview, or the webview's end. Returns the
         *  subscription's id.
         */
        subscribe: (onEvent) => typedError(invoke("plugin:jobs|subscribe", { onEvent })),
        /**  Ends one of this webview's subscriptions. */
        unsubscribe: (id) => typedError(invoke("plugin:jobs|unsubscribe", { id })),
        /**
         *  Enqueues a workflow on behalf of the user, in one transaction: the parent, its
         *  pieces, and the jobs that run once every piece has ended (`then`). Every step's
         *  kind must be in the window's scope and registered; a step names no `parent` (the
         *  workflow does).
         */
        enqueueWorkflow: (workflow) => typedError(invoke("plugin:jobs|enqueue_workflow", { workflow })),
        /**
         *  The state of the workflow under `parent` (its pieces by status, its progress and
         *  outcome); `null` when there is none the window may read.
         */
        getWorkflow: (parent) => typedError(invoke("plugin:jobs|get_workflow", { parent })),
        /**
         *  Cancels what has not run of the workflow under `parent` (queued jobs cancelled,
         *  running ones asked to stop).
         */
        cancelWorkflow: (parent) => typedError(invoke("plugin:jobs|cancel_workflow", { parent })),
        /**
         *  Runs the failed jobs of the workflow under `parent` again, and makes the jobs a
         *  failure cancelled wait again (the `admin` set).
         */
        retryWorkflow: (parent) => typedError(invoke("plugin:jobs|retry_workflow", { parent })),
        /**
         *  What the job `id` waits for and what waits for it; `null` when there is no such
         *  job the window may read.
         */
        jobDependencies: (id) => typedError(invoke("plugin:jobs|job_dependencies", { id })),
        /**
         *  How the plugin's own components are doing: `config`, `raw.db`, `conditions`,
         *  `awake` (healthy, saying which jobs keep the machine awake while some do; a
         *  warning when the system would not keep it awake), `quit` (healthy, saying what is
         *  being finished while the app's quit waits for it) and `instances` (a warning while
         *  another instance of the app runs jobs on the same `raw.db`).
         */
        pluginHealth: () => typedError(invoke("plugin:jobs|plugin_health")),
        /**
         *  Sends signal `name` with `payload` to job `id`: a job waiting for it runs at once;
         *  one that will wait for it finds it kept. Refused with `signalRefused` when the job
         *  has ended, its handler waits for no such signal, or its wait for it timed out; the
         *  payload is bounded and checked as an enqueue's.
         */
        signalJob: (id, name, payload) => typedError(invoke("plugin:jobs|signal_job", { id, name, payload })),
        /**
         *  What job `id`'s handler logged, the lines after `after` (their `seq`; none or 0
         *  for every line kept), oldest first; `null` for a job the window may not read, as
         *  for one that does not exist.
         */
        getJobLogs: (id, after) => typedError(invoke("plugin:jobs|get_job_logs", { id, after })),
    };
    /* Tauri Specta runtime */
    async function typedError(result) {
        try {
            return { status: "ok", data: await result };
        }
        catch (e) {
            if (e instanceof Error)
                throw e;
            return { status: "error", error: e };
        }
    }

    /** A command failed; `code` is one of a closed set, `message` is for people. */
    class JobsError extends Error {
        constructor(code, message) {
            super(message);
            this.name = "JobsError";
            this.code = code;
        }
    }
    /** Returns the data or throws a {@link JobsError}. Tauri's own argument errors are strings. */
    function unwrap(result) {
        if (result.status === "ok") {
            return result.data;
        }
        const error = result.error;
        if (typeof error === "string") {
            throw new JobsError("invalidArgument", error);
        }
        throw new JobsError(error.code, error.message);
    }
    /** A job filter with every field left out set to `null` (no filter on it). */
    function jobFilter(filter) {
        return { status: null, kind: null, parent: null, actor: null, before: null, limit: null, ...filter };
    }
    function enqueueArgs(options) {
        return {
            priority: null,
            dedupeKey: null,
            delayMs: null,
            maxAttempts: null,
            maxOfflineMs: null,
            parent: null,
            onDuplicate: null,
            debounceMs: null,
            constraints: null,
            after: null,
            afterPiecesOf: null,
            onDependencyFailure: null,
            ...options,
        };
    }

    /**
     * The page's events: one subscription on a channel of its own (the `subscribe`
     * command), which only the plugin writes to and which carries only what this window
     * may read, shared by every listener while any is left; and listeners by type.
     */
    let subscription = null;
    function subscribed() {
        if (subscription !== null)
            return subscription;
        const handlers = new Set();
        const channel = new Channel((message) => {
            for (const handler of [...handlers])
                handler(message.event, message.dropped);
        });
        const state = { handlers, id: commands.subscribe(channel).then(unwrap) };
        subscription = state;
        state.id.catch(() => {
            if (subscription === state)
                subscription = null;
        });
        return state;
    }
    /**
     * Every plugin event this window may read (see the README's Permissions), with the
     * count of state changes the page's stream has dropped so far. Resolves once the
     * subscription is in place; rejects with a `JobsError` when the window may not
     * subscribe.
     */
    async function onJobsEvent(handler) {
        const state = subscribed();
        state.handlers.add(handler);
        try {
            await state.id;
        }
        catch (error) {
            state.handlers.delete(handler);
            throw error;
        }
        let listening = true;
        return () => {
            if (!listening)
                return;
            listening = false;
            state.handlers.delete(handler);
            if (state.handlers.size === 0 && subscription === state) {
                subscription = null;
                void state.id.then((id) => commands.unsubscribe(id)).catch(() => { });
            }
        };
    }
    /**
     * Calls `resync` whenever the plugin reports that it dropped state changes because
     * the page fell behind (the `dropped` count of its events grew): the page should then
     * reload the lists it shows. The first event only sets the baseline. Progress reports
     * replaced by newer ones are not counted as dropped.
     */
    async function onResync(resync) {
        let seen = null;
        return onJobsEvent((_event, dropped) => {
            if (seen !== null && dropped > seen) {
                resync(dropped);
            }
            seen = seen === null ? dropped : Math.max(seen, dropped);
        });
    }
    function onType(type, handler) {
        return onJobsEvent((event) => {
            if (event.type === type) {
                handler(event);
            }
        });
    }
    /**
     * Durable job state changes. Narrowed by `kind`, an event's `id` remembers the kind, so
     * `watchJob(event.id)` and `getJob` give that kind's result.
     */
    function onJobState(handler) {
        return onType("jobStateChanged", (event) => handler(event));
    }
    /** Durable job progress, about one event per percent. */
    function onDurableProgress(handler) {
        return onType("jobProgress", handler);
    }
    /** Local job progress, about one event per percent. */
    function onJobProgress(handler) {
        return onType("localJobProgress", handler);
    }
    /** Local job state changes. */
    function onLocalJobState(handler) {
        return onType("localJobChanged", handler);
    }
    /** Sync progress. */
    function onSyncProgress(handler) {
        return onType("syncProgress", handler);
    }
    /** The end of every sync run (skipped runs publish nothing), with its outcome. */
    function onSyncFinished(handler) {
        return onType("syncFinished", handler);
    }
    /** Health changes of sync targets and components. */
    function onHealth(handler) {
        return onType("pluginHealth", handler);
    }

    /**
     * Following work to its end: a local job (for a progress bar), a durable job whoever
     * runs it, and a workflow through its parent (one bar for the whole).
     */
    /**
     * Follows one local job to its end, calling `onProgress` with 0 to 100 (or `null`
     * when the total is unknown), and resolves with its final record.
     */
    async function watchLocalJob(id, onProgress = () => { }) {
        let finish = () => { };
        const ended = new Promise((resolve) => {
            finish = resolve;
        });
        const unlisten = await onJobsEvent((event) => {
            if (event.type === "localJobProgress" && event.id === id) {
                onProgress(event.percent, event);
            }
            else if (event.type === "localJobChanged" && event.id === id && event.status !== "running") {
                finish();
            }
        });
        try {
            // It may have ended before the listener was in place.
            const current = unwrap(await commands.getLocalJob(id));
            if (current === null) {
                throw new JobsError("notFound", `no local job ${id}`);
            }
            if (current.status === "running") {
                await ended;
            }
            const last = unwrap(await commands.getLocalJob(id));
            return last ?? current;
        }
        finally {
            unlisten();
        }
    }
    const FINISHED = ["succeeded", "failed", "cancelled"];
    /** What a finished job gave: its result, or a `JobsError` for a failure or a cancel. */
    function outcome(job) {
        if (job.status === "succeeded") {
            return job.result;
        }
        if (job.status === "cancelled") {
            throw new JobsError("cancelled", `job ${job.id} was cancelled`);
        }
        throw new JobsError("jobFailed", `job ${job.id} failed: ${job.lastError ?? "no error recorded"}`);
    }
    function percentOf(progress) {
        if (progress.total === null)
            return null;
        return progress.total === 0 ? 100 : Math.floor((Math.min(progress.done, progress.total) * 100) / progress.total);
    }
    /** After an event, how long a followed workflow waits before reading its state again. */
    const WORKFLOW_READ_MS = 100;
    /** How often a followed workflow is read anyway (an event dropped on a busy page). */
    const WORKFLOW_POLL_MS = 2000;
    /**
     * The workflow under `id`, when it has pieces; `null` when it has none (or the window
     * may not read it); `undefined` when the read failed.
     */
    async function workflowOf(id) {
        try {
            const result = await commands.getWorkflow(id);
            if (result.status !== "ok") {
                // Tauri's refusal of a command not granted is a string.
                const error = result.error;
                return typeof error === "string" || error.code === "forbidden" ? null : undefined;
            }
            if (result.data === null)
                return null;
            return (result.data.progress.total ?? 0) > 0 ? result.data : null;
        }
        catch {
            return undefined;
        }
    }
    async function readJob(id) {
        const job = unwrap(await commands.getJob(id));
        if (job === null)
            throw new JobsError("notFound", `no job ${id}`);
        return job;
    }
    /** Why a workflow failed, from its pieces' counts: "2 failed, 1 cancelled". */
    function failures(flow) {
        const parts = flow.pieces
            .filter(([status, n]) => (status === "failed" || status === "cancelled") && n > 0)
            .map(([status, n]) => `${n} ${status}`);
        return parts.length > 0 ? parts.join(", ") : "its parent did not succeed";
    }
    /**
     * Why a workflow failed, naming its first failed piece and that piece's error when the
     * window may read them: "embed #23 failed: message 0 does not exist (1 failed, 1
     * cancelled)"; the counts alone otherwise.
     */
    async function whyFailed(id, flow) {
        const counts = failures(flow);
        try {
            const listed = await commands.listJobs(jobFilter({ status: "failed", parent: id, limit: 1 }));
            const piece = listed.status === "ok" ? listed.data[0] : undefined;
            if (piece === undefined)
                return counts;
            return `${piece.kind} #${piece.id} failed: ${piece.lastError ?? "no error recorded"} (${counts})`;
        }
        catch {
            return counts;
        }
    }
    async function watchJob(id, options = {}) {
        const { onProgress: report = () => { }, signal, onStep = () => { }, onLog = () => { }, } = typeof options === "function" ? { onProgress: options } : options;
        // Each figure once: a read that finds the bar where it was says nothing.
        let last = null;
        const onProgress = (percent, done, total) => {
            if (last !== null && last[0] === percent && last[1] === done && last[2] === total)
                return;
            last = [percent, done, total];
            report(percent, done, total);
        };
        // Woken by an event that may change the answer; `dirty` keeps a wake that came
        // while nothing waited.
        let dirty = false;
        let waiting = null;
        const poke = () => {
            dirty = true;
            const resolve = waiting;
            waiting = null;
            resolve?.();
        };
        let following = false;
        const unlisten = await onJobsEvent((event) => {
            if (event.type === "jobProgress" && event.id === id) {
                if (!following)
                    onProgress(event.percent, event.done, event.total);
            }
            else if (event.type === "jobStep" && event.id === id) {
                onStep(event);
            }
            else if (event.type === "jobLogged" && event.id === id) {
                onLog(event.lines);
            }
            else if (event.type === "jobStateChanged" && FINISHED.includes(event.to)) {
                // A piece's end: the events name no parent, so any end may be one.
                if (event.id === id || following)
                    poke();
            }
            else if (event.type === "jobDeleted" && event.id === id) {
                poke();
            }
        });
        const timers = new Set();
        // Resolves after `ms`; its timer is forgotten once it fired or `drop` cleared it.
        const pause = (ms) => {
            let timer;
            const done = new Promise((resolve) => {
                timer = setTimeout(() => {
                    timers.delete(timer);
                    resolve();
                }, ms);
                timers.add(timer);
            });
            return { done, drop: () => (clearTimeout(timer), timers.delete(timer)) };
        };
        const changed = () => new Promise((resolve) => {
            if (dirty)
                resolve();
            else
                waiting = resolve;
        });
        let aborted = false;
        const abort = () => {
            aborted = true;
            // The whole workflow, whatever is known of it yet (for a job without pieces the
            // same as cancelling it); a window without the workflow command cancels the job.
            // Woken once the request is stored, so the job read next shows it.
            const stop = async () => {
                try {
                    if ((await commands.cancelWorkflow(id)).status === "ok")
                        return;
                }
                catch {
                    // Not granted: the job alone, below.
                }
                await commands.cancel({ durable: id });
            };
            stop().then(poke, poke);
        };
        signal?.addEventListener("abort", abort);
        try {
            if (signal?.aborted)
                abort();
            let job = await readJob(id);
            let flow = (await workflowOf(id)) ?? null;
            following = flow !== null;
            if (flow !== null) {
                onProgress(percentOf(flow.progress), flow.progress.done, flow.progress.total);
            }
            else if (job.progress !== null && !FINISHED.includes(job.status)) {
                onProgress(percentOf(job.progress), job.progress.done, job.progress.total);
            }
            // The job has ended, and so has its workflow if it has one.
            const ended = () => FINISHED.includes(job.status) && (flow === null || flow.ended);
            while (!ended()) {
                if (following) {
                    const poll = pause(WORKFLOW_POLL_MS);
                    await Promise.race([changed(), poll.done]);
                    poll.drop();
                    // Let the ends that come together be read once.
                    await pause(WORKFLOW_READ_MS).done;
                }
                else {
                    await changed();
                }
                dirty = false;
                const again = unwrap(await commands.getJob(id));
                if (again === null)
                    throw new JobsError("notFound", `job ${id} is gone`);
                job = again;
                const read = FINISHED.includes(job.status) || following ? await workflowOf(id) : null;
                if (read === undefined && following) {
                    // A failed read of a workflow followed: keep what was known, read again soon.
                    dirty = true;
                    continue;
                }
                // Pieces all gone (pruned) leave nothing to wait for.
                flow = read ?? null;
                if (flow !== null) {
                    following = true;
                    // A failed workflow's bar stays where it was: its cancelled jobs end it, not work.
                    if (!flow.failed)
                        onProgress(percentOf(flow.progress), flow.progress.done, flow.progress.total);
                }
                if (aborted && !ended()) {
                    throw new JobsError("cancelled", `job ${id} was cancelled; it stops when its handler notices`);
                }
            }
            const result = outcome(job);
            if (flow !== null && flow.failed) {
                throw new JobsError("jobFailed", `workflow ${id} failed: ${await whyFailed(id, flow)}`);
            }
            return result;
        }
        finally {
            signal?.removeEventListener("abort", abort);
            for (const timer of timers)
                clearTimeout(timer);
            timers.clear();
            unlisten();
        }
    }
    async function enqueueAndWait(kind, payload, options = {}) {
        const { onProgress, signal, ...enqueueOptions } = options;
        if (signal?.aborted)
            throw new JobsError("cancelled", "aborted before it was enqueued");
        const { id } = unwrap(await commands.enqueue(kind, payload, enqueueArgs(enqueueOptions)));
        return watchJob(id, { onProgress, signal });
    }

    /**
     * Workflows: a parent job, its pieces, and the jobs that run once every piece has
     * ended, enqueued in one transaction; their state as one (a parent's pieces by
     * status and one progress figure); what a job waits for; cancel and (`jobs:admin`)
     * retry as one. Follow one to its end with `watchJob(parent)`.
     */
    function step({ kind, payload, options = {} }) {
        return { kind, payload: (payload ?? null), options: enqueueArgs(options) };
    }
    /**
     * Enqueues a workflow for the user in one transaction: every step's kind must be in
     * the window's scope, and nothing is written when one is refused.
     *
     * ```ts
     * const ids = await enqueueWorkflow({
     *   parent: { kind: "import", payload: { mailbox: "inbox" } },
     *   pieces: messages.map((id) => ({ kind: "embed", payload: { id } })),
     *   then: [{ kind: "reindex" }],
     * });
     * await watchJob(ids.parent, (percent) => (bar.value = percent ?? 0));
     * ```
     */
    async function enqueueWorkflow(workflow) {
        return unwrap(await commands.enqueueWorkflow({
            parent: step(workflow.parent),
            pieces: (workflow.pieces ?? []).map(step),
            then: (workflow.then ?? []).map(step),
        }));
    }
    /** The workflow under `parent`: pieces by status, progress, outcome; `null` when there is none. */
    async function getWorkflow(parent) {
        return unwrap(await commands.getWorkflow(parent));
    }
    /** Cancels what has not run of the workflow under `parent`; running jobs are asked to stop. */
    async function cancelWorkflow(parent) {
        return unwrap(await commands.cancelWorkflow(parent));
    }
    /**
     * Runs the failed jobs of the workflow under `parent` again, and makes the jobs their
     * failure cancelled wait again (`jobs:admin`).
     */
    async function retryWorkflow(parent) {
        return unwrap(await commands.retryWorkflow(parent));
    }
    /** The most jobs one page of {@link workflowResults} reads. */
    const RESULTS_PAGE = 1000;
    /**
     * The results of the workflow under `parent`, piece by piece: each of its pieces (and
     * the jobs after them) the window may read, oldest first, with its status, result and
     * last error, typed by kind where the app declares its kinds (narrow on `kind`). Pieces
     * of kinds outside the window's scope are left out, as `listJobs` leaves them; a
     * piece not ended yet has no result. Read in pages of 1,000.
     *
     * ```ts
     * for (const piece of await workflowResults(ids.parent)) {
     *   if (piece.kind === "embed" && piece.status === "succeeded") sizes.push(piece.result);
     * }
     * ```
     */
    async function workflowResults(parent) {
        const pieces = [];
        let before = null;
        for (;;) {
            const page = unwrap(await commands.listJobs(jobFilter({ parent, before, limit: RESULTS_PAGE })));
            pieces.push(...page);
            if (page.length < RESULTS_PAGE)
                break;
            before = page[page.length - 1].id;
        }
        return pieces.reverse();
    }
    /** What a job waits for and what waits for it; `null` when there is no such job. */
    async function jobDependencies(id) {
        return unwrap(await commands.jobDependencies(id));
    }

    /** A duration in the largest whole unit: "2 h", "5 min", "30 s", "250 ms". */
    function duration(ms) {
        if (ms === 0)
            return "0 ms";
        if (ms % 86_400_000 === 0)
            return `${ms / 86_400_000} d`;
        if (ms % 3_600_000 === 0)
            return `${ms / 3_600_000} h`;
        if (ms % 60_000 === 0)
            return `${ms / 60_000} min`;
        if (ms % 1000 === 0)
            return `${ms / 1000} s`;
        return `${ms} ms`;
    }
    /** What a queued job waits for, as a person would say it ("waiting for a charger"). */
    function waitingText(waiting) {
        if (!waiting || waiting.length === 0)
            return null;
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
                case "network":
                    return "the network";
                case "service":
                    return "the service, which asked its kind to wait";
                case "signal":
                    return "a signal";
            }
        });
        return `waiting for ${words.join(" and ")}`;
    }
    /** A time of day as the inspector shows it ("14:03:07"), or the date too when not today. */
    function clock(ms, now) {
        const date = new Date(ms);
        const pad = (n) => String(n).padStart(2, "0");
        const hms = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
        return new Date(now).toDateString() === date.toDateString() ? hms : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${hms}`;
    }
    /**
     * Why a queued job has not started, each reason in words ("its kind is paused",
     * "backing off after 2 failed attempts: runs again at 14:03:07", "waiting for a free
     * slot (2 running, cap 2); a slot comes back by 14:05:00 at the latest"); `[]` when it
     * is not queued, and one reason that it is next in line when nothing holds it back.
     * `paused` are the paused kinds (`pausedKinds()`), `now` the time to compare with.
     */
    function whyWaiting(job, options = {}) {
        if (job.status !== "queued")
            return [];
        const now = options.now ?? Date.now();
        const reasons = [];
        if (new Set(options.paused ?? []).has(job.kind))
            reasons.push("its kind is paused: nothing claims it until it is resumed");
        if (job.handlerMissing)
            reasons.push("no handler for its kind is registered in this app");
        if (job.rateLimitedUntil != null && job.rateLimitedUntil > now) {
            reasons.push(`its kind is at its rate limit until ${clock(job.rateLimitedUntil, now)}`);
        }
        // A throttle of the kind moved the job that met it to the throttle's end: that wait
        // is the throttle's, said below, not a backoff after its earlier failures.
        const throttledTo = (job.waitingFor ?? []).find((waiting) => waiting.condition === "service");
        const throttled = throttledTo?.condition === "service" && job.runAt <= throttledTo.until;
        if (job.awaitsSignal != null && job.sleepingUntil != null && job.sleepingUntil === job.runAt) {
            reasons.push(`waiting for the signal "${job.awaitsSignal}" until ${clock(job.runAt, now)} (not a failed attempt)`);
        }
        else if (job.sleepingUntil != null && job.sleepingUntil === job.runAt && job.runAt > now) {
            reasons.push(`sleeping until ${clock(job.runAt, now)}: a durable sleep of its handler (not a failed attempt)`);
        }
        else if (job.snoozedUntil != null && job.snoozedUntil === job.runAt && job.runAt > now) {
            reasons.push(`the service asked it to wait: runs again at ${clock(job.runAt, now)} (not a failed attempt)`);
        }
        else if (job.runAt > now && !throttled) {
            reasons.push(job.attempts > 0
                ? `backing off after ${job.attempts} failed attempt${job.attempts === 1 ? "" : "s"}: runs again at ${clock(job.runAt, now)}`
                : `not due before ${clock(job.runAt, now)}`);
        }
        // What the handler or the service said when the kind was held ("HTTP 429").
        const because = job.heldBecause ? ` (${job.heldBecause})` : "";
        for (const waiting of job.waitingFor ?? []) {
            if (waiting.condition === "signal")
                continue; // said above, with its name
            const text = waitingText([waiting]);
            if (waiting.condition === "slot" && waiting.leaseEndsAt != null) {
                reasons.push(`${text}; a slot comes back by ${clock(waiting.leaseEndsAt, now)} at the latest`);
            }
            else if (waiting.condition === "network") {
                reasons.push((waiting.nextTry > now
                    ? `waiting for the network: its kind tries one job at ${clock(waiting.nextTry, now)}, or when the network comes back`
                    : "waiting for the network: its kind is trying one job now") + because);
            }
            else if (waiting.condition === "service") {
                reasons.push(`throttled by the service until ${clock(waiting.until, now)}${because}`);
            }
            else {
                reasons.push(text);
            }
        }
        return reasons.length > 0 ? reasons : ["nothing: it starts when a worker is free"];
    }

    /**
     * The webview side of tauri-plugin-jobs: thin async functions over the plugin's
     * commands (here), listeners that return an unlisten function (`./events`), helpers
     * that follow a job or a workflow to its end (`./watch`), workflows (`./workflows`),
     * and one that passes the browser's `online`/`offline` events to the plugin.
     *
     * The typed commands themselves are generated into `./bindings` by tauri-specta;
     * everything here is built on them.
     */
    /**
     * Enqueues a durable job for the user. Options left out take their defaults. With the
     * app's kinds declared ({@link JobKinds}), `kind` must be one of them and `payload`
     * what its handler takes.
     */
    async function enqueue(kind, payload, options = {}) {
        return unwrap(await commands.enqueue(kind, payload, enqueueArgs(options)));
    }
    /**
     * One durable job, or `null` (also for a job of a kind outside the window's scope).
     * Narrow it by `kind` to type its payload and result.
     */
    async function getJob(id) {
        return unwrap(await commands.getJob(id));
    }
    /** A page of durable jobs, newest first; pass the last id as `before` for the next page. */
    async function listJobs(filter = {}) {
        return unwrap(await commands.listJobs(jobFilter(filter)));
    }
    /** How many durable jobs there are of each kind in each status. */
    async function jobCounts() {
        return unwrap(await commands.jobCounts());
    }
    /**
     * What happened per kind: jobs that ended, retries, and how long attempts waited and
     * ran (p50, p95), a point per period that saw any. The last hour by minute unless
     * `span` says `"lastDay"` (by hour) or `{ range: { from, to, step } }`; only the kinds
     * the window's scope allows, or just `kind`.
     */
    async function jobHistory(options = {}) {
        return unwrap(await commands.jobHistory(options.kind ?? null, options.span ?? null));
    }
    /**
     * What happened per sync target: its runs by how they ended (updated, not modified,
     * failed, offline, throttled), the items changed and how long runs took, a point per
     * period that saw any; spans as {@link jobHistory}'s, targets as the scope allows.
     */
    async function syncHistory(options = {}) {
        return unwrap(await commands.syncHistory(options.target ?? null, options.span ?? null));
    }
    async function spawnAwaitable(kind, args = null) {
        return unwrap(await commands.spawnAwaitable(kind, args));
    }
    async function runLocal(kind, args = null, options = {}) {
        const { onProgress = () => { }, signal } = options;
        if (signal?.aborted)
            throw new JobsError("cancelled", `aborted before ${kind} started`);
        let settled = false;
        let resolve = () => { };
        let reject = () => { };
        const result = new Promise((ok, fail) => {
            resolve = (value) => {
                if (!settled)
                    ok(value);
                settled = true;
            };
            reject = (error) => {
                if (!settled)
                    fail(error);
                settled = true;
            };
        });
        const channel = new Channel((event) => {
            if (event.type === "progress") {
                onProgress(event.percent, event.done, event.total);
            }
            else if (event.status === "succeeded") {
                resolve(event.result);
            }
            else if (event.status === "cancelled") {
                reject(new JobsError("cancelled", `local job ${kind} was cancelled`));
            }
            else {
                reject(new JobsError("jobFailed", `local job ${kind} failed: ${event.error ?? "no error recorded"}`));
            }
        });
        const id = unwrap(await commands.runLocal(kind, args, channel));
        if (signal) {
            const abort = () => {
                void cancel(id).catch(() => { });
                reject(new JobsError("cancelled", `local job ${id} was cancelled`));
            };
            if (signal.aborted)
                abort();
            else
                signal.addEventListener("abort", abort, { once: true });
            const forget = () => signal.removeEventListener("abort", abort);
            result.then(forget, forget);
        }
        return { id, result };
    }
    async function spawnLocal(kind, args = null) {
        return unwrap(await commands.spawnLocal(kind, args));
    }
    /** One local job's record, or `null`. */
    async function getLocalJob(id) {
        return unwrap(await commands.getLocalJob(id));
    }
    /** Every local job still on record: running ones and the most recent finished. */
    async function listLocalJobs() {
        return unwrap(await commands.listLocalJobs());
    }
    /**
     * Cancels a job: a number is a durable job's id, a string such as `"local-3"` a
     * local job's.
     */
    async function cancel(job) {
        const ref = typeof job === "number" ? { durable: job } : typeof job === "string" ? { local: job } : job;
        return unwrap(await commands.cancel(ref));
    }
    /** Syncs a target (`connector/account/name`) now: the user pressed Refresh. */
    async function syncNow(target) {
        return unwrap(await commands.syncNow(target));
    }
    /**
     * Syncs a target if an automatic trigger may: not within its `minInterval`, not while
     * it backs off. `trigger` says what the page saw (`"focus"` by default); after the
     * browser's `online` event pass `"networkBack"`, which retries an offline target at once.
     */
    async function syncIfDue(target, trigger = "focus") {
        return unwrap(await commands.syncIfDue(target, trigger));
    }
    /** State and health of every sync target. */
    async function syncStatus() {
        return unwrap(await commands.syncStatus());
    }
    /**
     * How the plugin's own components are doing: `config` (whether `config.toml` was taken;
     * a refused file leaves the settings of the last file taken in force, or the built-in
     * ones when none was, and the reason names the file, the key and which settings
     * apply), `raw.db` (what its integrity check found), `conditions` (what the machine
     * cannot tell), `awake` (while jobs keep the machine from sleeping, its reason names
     * those this window may read; a warning while the system would not keep it awake),
     * `quit` (while the app's quit waits for work to finish, its reason says what is left)
     * and `instances` (a warning while another instance of the app runs jobs on the same
     * `raw.db`). A page can say what is wrong:
     *
     * ```ts
     * const refused = (await pluginHealth()).filter((c) => c.health.status !== "healthy");
     * for (const c of refused) banner.textContent += `${c.component}: ${c.health.reason}\n`;
     * ```
     */
    async function pluginHealth() {
        return unwrap(await commands.pluginHealth());
    }
    /** Tells the plugin the browser went online or offline (see {@link wireNetworkHint}). */
    async function networkHint(online) {
        unwrap(await commands.networkHint(online));
    }
    /** Every schedule with its next run. */
    async function listSchedules() {
        return unwrap(await commands.listSchedules());
    }
    /** The job kinds paused now, in every process. */
    async function pausedKinds() {
        return unwrap(await commands.pausedKinds());
    }
    // ===== signals (`jobs:signals`) and a job's log =====
    /**
     * Sends signal `name` with `payload` to job `id`, whose handler waits for it
     * (`ctx.wait_for_signal(name, ..)`): a job waiting runs at once; one that will wait
     * finds it kept. Resolves with whether it woke the job and whether one of that name
     * was sent before (the first stays). Rejects with `signalRefused` when the job has
     * ended, its handler waits for no such signal, or its wait timed out; `notFound` for a
     * job the window may not reach. Needs `jobs:signals` (or `jobs:agents`).
     *
     * ```ts
     * // The user approved the draft the job waits on.
     * await signalJob(id, "approval", { approved: true });
     * ```
     */
    async function signalJob(id, name, payload = null) {
        return unwrap(await commands.signalJob(id, name, payload));
    }
    /**
     * What job `id`'s handler logged (`ctx.log(..)`), oldest first: the lines after
     * `after` (a line's `seq`), or every line kept (the last 200 by default); `null` for a
     * job the window may not read. `watchJob(id, { onLog })` follows new lines.
     */
    async function getJobLogs(id, after) {
        return unwrap(await commands.getJobLogs(id, after ?? null));
    }
    // ===== admin actions (`jobs:admin`) =====
    /** Runs a failed job again now, or one waiting out its backoff. */
    async function retryJob(id) {
        return unwrap(await commands.retryJob(id));
    }
    /** Deletes a finished job. */
    async function deleteJob(id) {
        unwrap(await commands.deleteJob(id));
    }
    // Pausing and resuming take any name (a kind or schedule as a list shows it, a retired
    // kind's included); running a schedule, enqueueing and syncing take the declared ones.
    /** Pauses a job kind: no process claims it until it is resumed. */
    async function pauseKind(kind) {
        unwrap(await commands.pauseKind(kind));
    }
    /** Resumes a paused job kind. */
    async function resumeKind(kind) {
        unwrap(await commands.resumeKind(kind));
    }
    /** Runs a schedule's job now, without moving its next run. */
    async function runScheduleNow(name) {
        return unwrap(await commands.runScheduleNow(name));
    }
    /** Pauses a schedule. */
    async function pauseSchedule(name) {
        return unwrap(await commands.pauseSchedule(name));
    }
    /** Resumes a paused schedule, from its first slot after now. */
    async function resumeSchedule(name) {
        return unwrap(await commands.resumeSchedule(name));
    }
    /** Removes everything stored for an account and stops its syncs (`jobs:data-removal`). */
    async function disconnectAccount(connector, account) {
        return unwrap(await commands.disconnectAccount(connector, account));
    }
    /** Deletes finished durable jobs older than `olderThanMs` (`jobs:data-removal`). */
    async function pruneJobs(olderThanMs) {
        return unwrap(await commands.pruneJobs(olderThanMs));
    }
    // ===== external agents (`jobs:agents`) =====
    /** Enqueues a durable job as an external agent (actor `agent`). */
    async function agentEnqueue(kind, payload, options = {}) {
        return unwrap(await commands.agentEnqueue(kind, payload, enqueueArgs(options)));
    }
    /** Claims jobs as the agent `request.agent`, under the caps stored for their kinds. */
    async function agentClaim(request) {
        return unwrap(await commands.agentClaim({ limits: null, leaseMs: null, maxJobs: null, ...request }));
    }
    /** Renews an agent's lease, with its progress if given; stop and report `cancelled` when it says so. */
    async function agentHeartbeat(lease, progress = null) {
        return unwrap(await commands.agentHeartbeat(lease, progress));
    }
    /** Records an agent's success; the result is checked against the kind's schema. */
    async function agentComplete(lease, result = null) {
        return unwrap(await commands.agentComplete(lease, result));
    }
    /** Records an agent's failed attempt, retried after a backoff unless `permanent`. */
    async function agentFail(lease, error, permanent = false) {
        return unwrap(await commands.agentFail(lease, error, permanent));
    }
    /**
     * Defers an agent's attempt without failing it or counting it: `{ type: "offline",
     * message }` (the kind waits for the network), `{ type: "retryAfter", afterMs, reason }`
     * (this job, after a `Retry-After`) or `{ type: "throttleKind", afterMs, reason }` (every
     * job of the kind, in every process). Waits are clamped from a second to a day.
     */
    async function agentDefer(lease, deferral) {
        return unwrap(await commands.agentDefer(lease, deferral));
    }
    /**
     * Passes the browser's `online`/`offline` events to the plugin as a hint (coming
     * online retries offline syncs at once). Returns a function that stops it.
     */
    function wireNetworkHint(target = window) {
        const online = () => void commands.networkHint(true);
        const offline = () => void commands.networkHint(false);
        target.addEventListener("online", online);
        target.addEventListener("offline", offline);
        return () => {
            target.removeEventListener("online", online);
            target.removeEventListener("offline", offline);
        };
    }

    exports.JobsError = JobsError;
    exports.agentClaim = agentClaim;
    exports.agentComplete = agentComplete;
    exports.agentDefer = agentDefer;
    exports.agentEnqueue = agentEnqueue;
    exports.agentFail = agentFail;
    exports.agentHeartbeat = agentHeartbeat;
    exports.cancel = cancel;
    exports.cancelWorkflow = cancelWorkflow;
    exports.commands = commands;
    exports.deleteJob = deleteJob;
    exports.disconnectAccount = disconnectAccount;
    exports.duration = duration;
    exports.enqueue = enqueue;
    exports.enqueueAndWait = enqueueAndWait;
    exports.enqueueWorkflow = enqueueWorkflow;
    exports.getJob = getJob;
    exports.getJobLogs = getJobLogs;
    exports.getLocalJob = getLocalJob;
    exports.getWorkflow = getWorkflow;
    exports.jobCounts = jobCounts;
    exports.jobDependencies = jobDependencies;
    exports.jobHistory = jobHistory;
    exports.listJobs = listJobs;
    exports.listLocalJobs = listLocalJobs;
    exports.listSchedules = listSchedules;
    exports.networkHint = networkHint;
    exports.onDurableProgress = onDurableProgress;
    exports.onHealth = onHealth;
    exports.onJobProgress = onJobProgress;
    exports.onJobState = onJobState;
    exports.onJobsEvent = onJobsEvent;
    exports.onLocalJobState = onLocalJobState;
    exports.onResync = onResync;
    exports.onSyncFinished = onSyncFinished;
    exports.onSyncProgress = onSyncProgress;
    exports.pauseKind = pauseKind;
    exports.pauseSchedule = pauseSchedule;
    exports.pausedKinds = pausedKinds;
    exports.pluginHealth = pluginHealth;
    exports.pruneJobs = pruneJobs;
    exports.resumeKind = resumeKind;
    exports.resumeSchedule = resumeSchedule;
    exports.retryJob = retryJob;
    exports.retryWorkflow = retryWorkflow;
    exports.runLocal = runLocal;
    exports.runScheduleNow = runScheduleNow;
    exports.signalJob = signalJob;
    exports.spawnAwaitable = spawnAwaitable;
    exports.spawnLocal = spawnLocal;
    exports.syncHistory = syncHistory;
    exports.syncIfDue = syncIfDue;
    exports.syncNow = syncNow;
    exports.syncStatus = syncStatus;
    exports.waitingText = waitingText;
    exports.watchJob = watchJob;
    exports.watchLocalJob = watchLocalJob;
    exports.whyWaiting = whyWaiting;
    exports.wireNetworkHint = wireNetworkHint;
    exports.workflowResults = workflowResults;

    return exports;

})({});
if ('__TAURI__' in window) Object.defineProperty(window.__TAURI__, 'jobs', { value: __TAURI_PLUGIN_JOBS__ });
