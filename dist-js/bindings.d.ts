import { Channel } from "@tauri-apps/api/core";
/** Commands */
export declare const commands: {
    /**  Enqueues a durable job on behalf of the user. */
    enqueue: (kind: string, payload: Value, options: EnqueueArgs | null) => Promise<{
        status: "ok";
        data: Enqueued;
    } | {
        status: "error";
        error: CommandError;
    }>;
    /**  One durable job. */
    getJob: (id: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Job | null;
    }>;
    /**  A page of durable jobs, newest first. */
    listJobs: (filter: JobFilter | null) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Job[];
    }>;
    /**  Durable job counts by kind and status. */
    jobCounts: () => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: KindCount[];
    }>;
    /**
     *  The history of `kind`, or of every kind with history in the span, leaving out the
     *  kinds outside the window's scope (a kind it may not read answers as one that never
     *  ran: `[]`). A span that ends before it starts or is longer than 31 days is refused
     *  (`invalidArgument`, naming `range`).
     */
    jobHistory: (kind: string | null, span: HistorySpan | null) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: KindHistory[];
    }>;
    /**  Cancels a durable or local job. */
    cancel: (job: JobRef) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: CancelResult;
    }>;
    /**
     *  Starts a local job kind the app registered for the webview; returns its id at once
     *  (watch it with job events).
     */
    spawnLocal: (kind: string, args: Value) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: string;
    }>;
    /**
     *  Starts a local job kind the app registered for the webview and returns what it
     *  returned.
     */
    spawnAwaitable: (kind: string, args: Value) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Value;
    }>;
    /**
     *  Starts a local job kind the app registered for the webview and returns its id at
     *  once; `on_event` hears that job's progress and then its end (with what it
     *  returned), and nothing else.
     */
    runLocal: (kind: string, args: Value, onEvent: Channel<LocalRunEvent>) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: string;
    }>;
    /**  One local job's record. */
    getLocalJob: (id: LocalJobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: LocalJob | null;
    }>;
    /**  Every local job on record. */
    listLocalJobs: () => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: LocalJob[];
    }>;
    /**
     *  Syncs one target now (the user pressed Refresh). A press while the target's run is
     *  in flight joins it; one within the refresh floor (2 s by default) of the previous
     *  press's outcome gets that outcome.
     */
    syncNow: (target: string) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: SyncOutcome;
    }>;
    /**
     *  Syncs one target if an automatic trigger may (not within `min_interval`, not while
     *  backing off). `trigger` says what the page saw: `focus` by default; `networkBack`
     *  (the page's `online` event) retries an offline target at once.
     */
    syncIfDue: (target: string, trigger: Trigger | null) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: SyncOutcome;
    }>;
    /**  State and health of every registered sync target in the window's scope. */
    syncStatus: () => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: SyncStatus[];
    }>;
    /**
     *  The history of `target` (`connector/account/name`), or of every target with
     *  history in the span, leaving out the targets outside the window's scope (one it
     *  may not read answers as one that never ran: `[]`). Spans as `job_history`'s.
     */
    syncHistory: (target: string | null, span: HistorySpan | null) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: TargetHistory[];
    }>;
    /**
     *  A hint from the webview's `online`/`offline` events. Coming online retries offline
     *  targets (those in the window's scope) at once, in one pass that later hints join;
     *  the attempt itself is the real probe.
     */
    networkHint: (online: boolean) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: null;
    }>;
    /**  Every schedule with its next run, of the kinds in the window's scope. */
    listSchedules: () => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Schedule[];
    }>;
    /**
     *  Removes everything stored for an account and stops its syncs. Both names are
     *  checked as a target's parts are; every target the account could have must be in
     *  the window's scope.
     */
    disconnectAccount: (connector: string, account: string) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: number;
    }>;
    /**  Deletes finished durable jobs older than `olderThanMs`. */
    pruneJobs: (olderThanMs: number) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: number;
    }>;
    /**
     *  Runs a durable job again now: a failed one goes back to the queue, a queued one
     *  waiting out its backoff becomes runnable at once. A running, succeeded or cancelled
     *  job is refused, naming its status.
     */
    retryJob: (id: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: RetryOutcome;
    }>;
    /**  Deletes a finished durable job. A queued or running one is refused: cancel it first. */
    deleteJob: (id: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: null;
    }>;
    /**  Pauses a job kind: claims in every process skip it until it is resumed. */
    pauseKind: (kind: string) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: null;
    }>;
    /**  Resumes a paused job kind. */
    resumeKind: (kind: string) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: null;
    }>;
    /**  The job kinds paused now (in every process), of the kinds in the window's scope. */
    pausedKinds: () => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: string[];
    }>;
    /**
     *  Runs a schedule's job now, without moving its next run; returns the job (or the
     *  one holding its dedupe key). A schedule of a kind outside the scope is not found.
     */
    runScheduleNow: (name: string) => Promise<{
        status: "ok";
        data: Enqueued;
    } | {
        status: "error";
        error: CommandError;
    }>;
    /**  Pauses a schedule: it does not run until resumed. */
    pauseSchedule: (name: string) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Schedule;
    }>;
    /**  Resumes a paused schedule, from its first slot after now. */
    resumeSchedule: (name: string) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Schedule;
    }>;
    /**
     *  Enqueues a durable job on behalf of an external agent: as `enqueue`, with the
     *  actor `agent`.
     */
    agentEnqueue: (kind: string, payload: Value, options: EnqueueArgs | null) => Promise<{
        status: "ok";
        data: Enqueued;
    } | {
        status: "error";
        error: CommandError;
    }>;
    /**
     *  Claims jobs for an external agent through the same protocol as the app's runner:
     *  caps, fencing and at-least-once hold exactly as for internal workers.
     */
    agentClaim: (request: AgentClaimArgs) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: ClaimedJob[];
    }>;
    /**  Renews an agent's lease; with `progress`, stores and publishes how far it is. */
    agentHeartbeat: (lease: Lease, progress: JobProgressValue | null) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: Heartbeat;
    }>;
    /**  Records an agent's success; the result is checked against the kind's schema. */
    agentComplete: (lease: Lease, result: Value) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: AgentFinished;
    }>;
    /**  Records an agent's failed attempt. */
    agentFail: (lease: Lease, error: string, permanent: boolean) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: AgentFinished;
    }>;
    /**
     *  Defers an agent's attempt without failing it: offline (the kind waits for the
     *  network), a snooze of this job, or a throttle of its whole kind. The attempt is
     *  not counted; waits are clamped from a second to a day.
     */
    agentDefer: (lease: Lease, deferral: AgentDeferral) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: AgentFinished;
    }>;
    /**
     *  Sends the plugin's events that this window may read to `on_event`, until
     *  `unsubscribe`, a new page in the webview, or the webview's end. Returns the
     *  subscription's id.
     */
    subscribe: (onEvent: Channel<JobsEvent>) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: number;
    }>;
    /**  Ends one of this webview's subscriptions. */
    unsubscribe: (id: number) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: null;
    }>;
    /**
     *  Enqueues a workflow on behalf of the user, in one transaction: the parent, its
     *  pieces, and the jobs that run once every piece has ended (`then`). Every step's
     *  kind must be in the window's scope and registered; a step names no `parent` (the
     *  workflow does).
     */
    enqueueWorkflow: (workflow: WorkflowArgs) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: WorkflowIds;
    }>;
    /**
     *  The state of the workflow under `parent` (its pieces by status, its progress and
     *  outcome); `null` when there is none the window may read.
     */
    getWorkflow: (parent: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: WorkflowState | null;
    }>;
    /**
     *  Cancels what has not run of the workflow under `parent` (queued jobs cancelled,
     *  running ones asked to stop).
     */
    cancelWorkflow: (parent: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: WorkflowCancelled;
    }>;
    /**
     *  Runs the failed jobs of the workflow under `parent` again, and makes the jobs a
     *  failure cancelled wait again (the `admin` set).
     */
    retryWorkflow: (parent: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: WorkflowRetried;
    }>;
    /**
     *  What the job `id` waits for and what waits for it; `null` when there is no such
     *  job the window may read.
     */
    jobDependencies: (id: JobId) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: JobDependencies | null;
    }>;
    /**
     *  How the plugin's own components are doing: `config`, `raw.db`, `conditions`,
     *  `awake` (healthy, saying which jobs keep the machine awake while some do; a
     *  warning when the system would not keep it awake), `quit` (healthy, saying what is
     *  being finished while the app's quit waits for it) and `instances` (a warning while
     *  another instance of the app runs jobs on the same `raw.db`).
     */
    pluginHealth: () => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: ComponentHealth[];
    }>;
    /**
     *  Sends signal `name` with `payload` to job `id`: a job waiting for it runs at once;
     *  one that will wait for it finds it kept. Refused with `signalRefused` when the job
     *  has ended, its handler waits for no such signal, or its wait for it timed out; the
     *  payload is bounded and checked as an enqueue's.
     */
    signalJob: (id: JobId, name: string, payload: Value) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: SignalSent;
    }>;
    /**
     *  What job `id`'s handler logged, the lines after `after` (their `seq`; none or 0
     *  for every line kept), oldest first; `null` for a job the window may not read, as
     *  for one that does not exist.
     */
    getJobLogs: (id: JobId, after: number | null) => Promise<{
        status: "error";
        error: CommandError;
    } | {
        status: "ok";
        data: JobLogLine[] | null;
    }>;
};
/**
 *  An account was disconnected: everything stored under it removed, its sync targets
 *  unregistered (they leave `sync_status`).
 */
export type AccountDisconnected = {
    /**  The account, as `connector/account`. */
    account: string;
    /**  The targets it had, as `connector/account/name`. */
    targets: string[];
    /**  When. */
    at: Timestamp;
};
/**  Who asked for a job. */
export type Actor = 
/**  A person, through the UI. */
"user" | 
/**  An external agent. */
"agent" | 
/**  The app itself: schedules, syncs, follow-up work. */
"system";
/**  What an agent asks for in `agent_claim`. */
export type AgentClaimArgs = {
    /**  The agent's name; its leases are held by `agent:<name>`. */
    agent: string;
    /**  The kinds it can run. */
    kinds: string[];
    /**  Caps per kind, across every worker and process. */
    limits: {
        [key in string]: number;
    } | null;
    /**  Lease length in milliseconds; 30 s by default. */
    leaseMs: number | null;
    /**  Jobs to claim at most; 1 by default. */
    maxJobs: number | null;
};
/**
 *  Why an agent defers its attempt (`agent_defer`): none is a failure, and none
 *  counts against the job's attempts. Waits are clamped from a second to a day.
 */
export type AgentDeferral = 
/**
 *  The service could not be reached: the kind waits for the network, trying one
 *  job every `offline_retry`, or at once when the network comes back.
 */
{
    type: "offline";
    /**  What the agent saw. */
    message: string;
} | 
/**  This job runs again after `afterMs` (a `Retry-After` for it alone). */
{
    type: "retryAfter";
    /**  How long to wait, in milliseconds. */
    afterMs: number | null;
    /**  Why, as the inspector shows it. */
    reason: string;
} | 
/**
 *  Every job of the kind waits `afterMs`, in every process (the service throttles
 *  all of them); this one runs again then.
 */
{
    type: "throttleKind";
    /**  How long to wait, in milliseconds. */
    afterMs: number | null;
    /**  Why, as the inspector shows it. */
    reason: string;
};
/**  Where a job went after an agent finished an attempt. */
export type AgentFinished = 
/**  Succeeded. */
"succeeded" | 
/**  Failed for good. */
"failed" | 
/**  Queued again after a backoff. */
"retrying" | 
/**  Cancelled. */
"cancelled" | 
/**  Given back. */
"released" | 
/**  Deferred (`agent_defer`): queued again for later, the attempt not counted. */
"deferred";
/**
 *  An attempt of a durable job that did not succeed: one that failed, or one its
 *  handler deferred (offline, a snooze, a throttle of its kind), which counted no
 *  attempt. Which, when it ended, what it said (redacted, cut to 500 characters), and
 *  for a deferral until when the job waited.
 */
export type AttemptError = {
    /**
     *  The attempt, from 1. An attempt whose worker vanished (its lease ran out) is
     *  here too, saying so; it does not count against the job's attempts, nor does a
     *  deferral (the next attempt has the same number).
     */
    attempt: number;
    /**  When it ended (the last probe of a run of offline ones). */
    at: Timestamp;
    /**  What it said. */
    error: string;
    /**
     *  How it ended: `failed` (entries written before deferrals were kept say
     *  nothing, and are failures).
     */
    outcome?: AttemptOutcome;
    /**
     *  A deferral's end: when the job could run again (a snooze's or a throttle's
     *  end, the kind's next probe while offline).
     */
    until?: Timestamp | null;
    /**
     *  Offline: how many probes in a row found the network gone (one entry for the
     *  run of them, `at` the last).
     */
    probes?: number | null;
};
/**  How an attempt that did not succeed ended ([`AttemptError::outcome`]). */
export type AttemptOutcome = 
/**
 *  It failed (retried while attempts remain): `JobError::retryable` or
 *  `::permanent`, a panic, a time limit, a vanished worker.
 */
"failed" | 
/**  It found the network gone (`JobError::offline`): the kind waited for it. */
"offline" | 
/**  The service asked this job to wait (`JobError::retry_after`). */
"snoozed" | 
/**  The service throttled the whole kind (`JobError::throttle_kind`). */
"throttled" | 
/**  Its handler began a durable sleep (`JobContext::sleep`): it went on after it. */
"slept" | 
/**  Its handler waited for a signal (`JobContext::wait_for_signal`). */
"signal";
/**  What `cancel` did. */
export type CancelResult = 
/**  It was queued and is now cancelled. */
"cancelled" | 
/**  It is running and was asked to stop. */
"requested" | 
/**  It had already finished. */
"alreadyFinished";
/**  A job a worker now holds. */
export type ClaimedJob = {
    /**  The job, as it is after the claim. */
    job: Job;
    /**  The lease to fence every later write with. */
    lease: Lease;
};
/**  A command's error, as the webview sees it: `{ code, message }`. */
export type CommandError = {
    /**  A stable, machine-readable code. */
    code: ErrorCode;
    /**  What went wrong, for people; names the argument, kind or target when one was. */
    message: string;
};
/**
 *  How one of the plugin's own components is doing: `config` (whether `config.toml`
 *  was taken), `raw.db` (what the integrity check found) or `conditions` (what the
 *  machine cannot tell about power, network and idle time).
 */
export type ComponentHealth = {
    /**  The component. */
    component: string;
    /**  Its health now. */
    health: Health;
};
/**
 *  What a job needs of the machine before it may start: a charger, a battery not
 *  below a level, an unmetered network, a user away from the keyboard. A job whose
 *  constraints are not met is claimed by no runner, agent or process; it starts once
 *  they are (a change of the condition wakes the runner; waiting costs nothing).
 *
 *  Set for a kind ([`Queue::set_constraints`](crate::queue::Queue::set_constraints),
 *  [`Handler::constraints`](crate::runner::Handler::constraints)) or for one job at
 *  enqueue ([`EnqueueOptions::constraints`](crate::queue::EnqueueOptions::constraints));
 *  a job needs both. What the machine cannot tell (no battery, no NetworkManager, no
 *  idle time from the desktop) counts as met.
 *
 *  ```
 *  use std::time::Duration;
 *  use tauri_plugin_jobs::queue::Constraints;
 *
 *  // Re-embed the mailbox on a charger, over Wi-Fi at home, while the user is away.
 *  let needs = Constraints::none()
 *      .ac_power()
 *      .unmetered_network()
 *      .user_idle_for(Duration::from_secs(300));
 *  assert!(needs.ac_power && needs.unmetered_network);
 *  assert_eq!(needs.user_idle_secs, Some(300));
 *  ```
 */
export type Constraints = {
    /**  Plugged in to a charger (or no battery at all). */
    acPower?: boolean;
    /**  On a charger, or the battery at least this many percent (1 to 100). */
    batteryAtLeast?: number | null;
    /**
     *  On a network the system does not mark as metered (a phone's hotspot, a
     *  capped plan).
     */
    unmeteredNetwork?: boolean;
    /**  The user has not touched the keyboard or mouse for at least this many seconds. */
    userIdleSecs?: number | null;
};
/**
 *  What a job that waits for others ([`EnqueueOptions::after`](crate::queue::EnqueueOptions::after))
 *  does when one of them fails or is cancelled.
 */
export type DependencyFailure = 
/**
 *  It is cancelled too, its error naming the job that failed (the default), and
 *  so are the jobs waiting for it.
 */
"cancel" | 
/**  It counts the failed job as ended, and runs once the others have ended. */
"run";
/**  What an enqueue does when a job of the same kind already holds the dedupe key. */
export type DuplicateArg = 
/**  The job holding the key stays; nothing is added. */
"keep" | 
/**  A queued job takes the new payload and priority. */
"replace" | 
/**  As `replace`, and its start moves to `debounceMs` from now. */
"debounce";
/**
 *  Options of the `enqueue` command (actor `user`: the webview speaks for a person)
 *  and of `agent_enqueue` (actor `agent`).
 */
export type EnqueueArgs = {
    /**  Priority; 50 by default, 100 for work a person waits for. */
    priority: number | null;
    /**
     *  While a job of the same kind with this key is queued or running, enqueueing
     *  returns that job instead of adding one.
     */
    dedupeKey: string | null;
    /**  Delay before it may run, in milliseconds. */
    delayMs: number | null;
    /**  Attempts allowed; the kind's default, else the queue's. */
    maxAttempts: number | null;
    /**
     *  How long it may wait for the network, in milliseconds, from its first attempt
     *  that found the network gone: an attempt that finds it gone this long or more
     *  after fails it (the kind's limit by default; without one, as long as it
     *  takes). At least 1, at most a year.
     */
    maxOfflineMs: number | null;
    /**  The job this one is a piece of; it must exist. */
    parent: JobId | null;
    /**
     *  With a dedupe key a job of the kind holds: `keep` it (the default), `replace`
     *  its payload and priority, or `debounce` (replace, and start `debounceMs` from
     *  now). A running job is never changed: the new payload runs after it.
     */
    onDuplicate: DuplicateArg | null;
    /**  The wait of a debounce, in milliseconds; only with `onDuplicate: "debounce"`. */
    debounceMs: number | null;
    /**
     *  What the job needs of the machine before it starts (beside its kind's): a
     *  charger, a battery level (1 to 100), an unmetered network, the user idle for
     *  some seconds (1 to a day).
     */
    constraints: Constraints | null;
    /**
     *  Jobs it waits for: it runs once they have ended (each must exist, and be of a
     *  kind this window may read). At most 10,000.
     */
    after: JobId[] | null;
    /**  Waits for every piece of this job enqueued before it, too. */
    afterPiecesOf: JobId | null;
    /**
     *  When a job it waits for fails or is cancelled: `cancel` it too (the default),
     *  or `run` it anyway once the others have ended.
     */
    onDependencyFailure: DependencyFailure | null;
};
/**  What an enqueue did. */
export type EnqueueOutcome = 
/**  A new job was added. */
"created" | 
/**  A job held the dedupe key and stays as it was (`OnDuplicate::Keep`). */
"kept" | 
/**
 *  The queued job holding the key took the new payload (and, debounced, its new
 *  start).
 */
"replaced" | 
/**
 *  The job holding the key is running, and is never changed: the new payload
 *  runs after it, as one follow-up job under the same key, queued in the
 *  transaction that ends the running one (a later replace or debounce while it
 *  still runs changes that follow-up). The id is the running job's.
 */
"followUp";
/**  What an enqueue did. */
export type Enqueued = {
    /**  The new job, or the existing one holding the dedupe key. */
    id: JobId;
    /**
     *  `false` when a job with the same dedupe key was already queued or running and
     *  no job was added.
     */
    created: boolean;
    /**  What happened: created, kept, replaced, or a follow-up after a running job. */
    outcome: EnqueueOutcome;
};
/**  What kind of failure a command reports: a closed set the webview can switch on. */
export type ErrorCode = 
/**  An argument is out of range or malformed; the message names it. */
"invalidArgument" | 
/**  No job (or local job) with that id, or no schedule with that name. */
"notFound" | 
/**  An exclusive local kind already has a job running. */
"alreadyRunning" | 
/**  An agent's lease is no longer held: write nothing more for that attempt. */
"lostLease" | 
/**  A payload does not fit its kind's schema or limits. */
"invalidPayload" | 
/**  A result does not fit its kind's schema or limits. */
"invalidResult" | 
/**  The database stayed locked by another program past the busy deadline. */
"busy" | 
/**  The disk (or the database's size cap) is full. */
"full" | 
/**  The database cannot be written. */
"readOnly" | 
/**  The file is damaged, or a stored value cannot be read. */
"corrupt" | 
/**  The file is another program's database. */
"foreign" | 
/**  Any other database failure. */
"database" | 
/**  `config.toml` is wrong. */
"config" | 
/**  A file could not be read or created, or the system refused a watch. */
"io" | 
/**  A job failed (a local job's body, or a durable job a wrapper waited for). */
"jobFailed" | 
/**  A job was cancelled (local, or durable when a wrapper waited for it). */
"cancelled" | 
/**  Outside the window's scope: the message names the kind or target. */
"forbidden" | 
/**
 *  A limit on what one window may hold or start at once was reached; the message
 *  names it.
 */
"limitReached" | 
/**
 *  An enqueue named a job kind no handler of this app runs and the builder did not
 *  declare as run by agents (`Builder::agent_kind`): it would wait forever.
 */
"unknownKind" | 
/**
 *  A job would not take a signal: it has ended, its handler waits for none of that
 *  name, or its wait for it timed out; the message says which.
 */
"signalRefused";
/**
 *  Everything published on the [`EventBus`](super::EventBus).
 *
 *  Serialised with a `type` tag, so the webview can switch on `event.type`.
 */
export type Event = 
/**  A durable job moved from one state to another. */
{
    type: "jobStateChanged";
} & JobStateChanged | 
/**
 *  A durable job's attempt reported progress (throttled to about one event a
 *  percent).
 */
{
    type: "jobProgress";
} & JobProgress | 
/**  A durable job's handler began a step, or recorded one (or a durable sleep). */
{
    type: "jobStep";
} & JobStepChanged | 
/**  Lines a durable job's handler logged were stored. */
{
    type: "jobLogged";
} & JobLogged | 
/**  A finished durable job was deleted. */
{
    type: "jobDeleted";
} & JobDeleted | 
/**  A job kind was paused or resumed. */
{
    type: "kindPaused";
} & KindPaused | 
/**
 *  A schedule was added, changed, paused, resumed, removed or ran (its next and
 *  last run moved).
 */
{
    type: "scheduleChanged";
} & ScheduleChanged | 
/**  Finished jobs of a kind were deleted past retention (`prune`). */
{
    type: "jobsPruned";
} & JobsPruned | 
/**  An account was disconnected: its stored state removed, its targets gone. */
{
    type: "accountDisconnected";
} & AccountDisconnected | 
/**  A sync run reported progress. */
{
    type: "syncProgress";
} & SyncProgress | 
/**  A sync run ended. */
{
    type: "syncFinished";
} & SyncFinished | 
/**  A message was stored. */
{
    type: "messageStored";
} & MessageEvent | 
/**  A stored message was parsed. */
{
    type: "messageParsed";
} & MessageEvent | 
/**  A parsed message was indexed for search. */
{
    type: "messageIndexed";
} & MessageEvent | 
/**  A message's embedding was computed. */
{
    type: "messageEmbedded";
} & MessageEvent | 
/**  A message was enriched (summaries, labels, links). */
{
    type: "messageEnriched";
} & MessageEvent | 
/**  A message was marked read or unread. */
{
    type: "readStateChanged";
} & ReadStateChanged | 
/**  A component's health changed. */
{
    type: "pluginHealth";
} & PluginHealth | 
/**  A process-local job started or ended. */
{
    type: "localJobChanged";
} & LocalJobChanged | 
/**
 *  A process-local job reported progress (throttled to about one event a
 *  percent).
 */
{
    type: "localJobProgress";
} & LocalJobProgress;
/**  A health verdict and why. */
export type Health = {
    /**  The verdict. */
    status: HealthStatus;
    /**  Why, for anything but healthy. */
    reason: string | null;
};
/**  How healthy something is. */
export type HealthStatus = 
/**  Working as expected. */
"healthy" | 
/**  Working, but something needs a look (stale, slow, recovering). */
"warning" | 
/**  Not working. */
"error";
/**  What a heartbeat learned. */
export type Heartbeat = {
    /**  When the renewed lease runs out unless renewed again. */
    expiresAt: Timestamp;
    /**  Whether someone asked to cancel the job: stop and report it cancelled. */
    cancelRequested: boolean;
};
/**
 *  One period of a kind's history.
 *
 *  Times are read from half-octave histograms: each figure is the top of the bucket its
 *  percentile falls in, so it is never under the true one and at most √2 (41 %) over it.
 */
export type HistoryPoint = {
    /**  When the period starts. */
    at: Timestamp;
    /**  How long it is: 60,000 (a minute) or 3,600,000 (an hour). */
    spanMs: number;
    /**  Jobs that succeeded in it. */
    succeeded: number;
    /**  Jobs that failed for good in it. */
    failed: number;
    /**  Jobs cancelled in it, queued or running. */
    cancelled: number;
    /**
     *  Attempts that failed and were queued again (a lease taken back from a dead
     *  worker is not one: it does not count as an attempt either).
     */
    retries: number;
    /**
     *  Attempts that found the network gone and were deferred until it is back
     *  (`JobError::offline`): not retries, and not counted as attempts.
     */
    offline: number;
    /**
     *  Attempts a service asked to wait (`JobError::retry_after`,
     *  `JobError::throttle_kind`): not retries, and not counted as attempts.
     */
    throttled: number;
    /**
     *  Attempts that began a durable sleep of their handler
     *  ([`JobContext::sleep`](crate::runner::JobContext::sleep)): not retries, and not
     *  counted as attempts.
     */
    slept?: number;
    /**  The time from runnable to start of the attempts that ended in it, median. */
    waitP50Ms: number | null;
    /**  The same, 95th percentile. */
    waitP95Ms: number | null;
    /**  The run time of the attempts that ended in it, median. */
    runP50Ms: number | null;
    /**  The same, 95th percentile. */
    runP95Ms: number | null;
};
/**  The span of a kind's history to read: periods that start in `[from, to)`. */
export type HistoryRange = {
    /**  The first instant included. */
    from: Timestamp;
    /**  The first instant past the span. */
    to: Timestamp;
    /**  A point per minute or per hour. */
    step?: HistoryStep;
};
/**
 *  The span `job_history` reads: the last hour by minute, the last day by hour (both
 *  by the plugin's clock), or a range of its own.
 */
export type HistorySpan = 
/**  The 60 minutes up to now, a point per minute. */
"lastHour" | 
/**  The 24 hours up to now, a point per hour. */
"lastDay" | 
/**  Any span up to 31 days. */
{
    range: HistoryRange;
};
/**  How finely [`Queue::history`] returns a span. */
export type HistoryStep = 
/**
 *  A point per minute while minutes are kept (older periods come as the hours
 *  they were folded into).
 */
"minute" | 
/**  A point per hour. */
"hour";
/**  A durable job as stored in `raw.db`. */
export type Job = {
    /**  Its row id in `raw.db`; ids count up from 1. */
    id: JobId;
    /**  Picks the handler; 1 to 128 bytes. */
    kind: string;
    /**  The handler's input, as enqueued. */
    payload: Value;
    /**  Where it is in its life; see [`JobStatus`] for the moves. */
    status: JobStatus;
    /**  Higher is claimed first. */
    priority: Priority;
    /**  When it became, or becomes, runnable. */
    runAt: Timestamp;
    /**
     *  Attempts started so far, the running one included; a release at shutdown does
     *  not count.
     */
    attempts: number;
    /**  Attempts allowed in all, at least 1. */
    maxAttempts: number;
    /**  The worker holding the lease, while running. */
    leaseOwner: string | null;
    /**  When the lease runs out unless renewed, while running. */
    leaseExpiresAt: Timestamp | null;
    /**  Whether cancellation was asked for while it ran. */
    cancelRequested: boolean;
    /**
     *  While the job is queued or running, enqueueing another job of the same kind with
     *  this key returns this one.
     */
    dedupeKey: string | null;
    /**
     *  The error of its last failed attempt, redacted and cut to 500 characters;
     *  cleared when an attempt succeeds (the attempts' errors stay in `errors`).
     */
    lastError: string | null;
    /**  What the handler returned, once succeeded; empty when it returned nothing. */
    result: Value | null;
    /**  The job this one is a piece of. */
    parent: JobId | null;
    /**  Who asked for it: a person, an agent or the app. */
    actor: Actor;
    /**  When it was enqueued. */
    createdAt: Timestamp;
    /**  When any column last changed (a lease renewal included). */
    updatedAt: Timestamp;
    /**  When it reached `succeeded`, `failed` or `cancelled`. */
    finishedAt: Timestamp | null;
    /**
     *  When the current attempt started (the last one, once finished); empty before
     *  the first claim. With `finished_at` or the clock, a UI shows durations.
     */
    startedAt: Timestamp | null;
    /**
     *  The time limit of each attempt, in milliseconds, when the job set its own;
     *  otherwise the handler's applies.
     */
    timeoutMs: number | null;
    /**
     *  How long it may wait for the network before it fails, in milliseconds, when the
     *  job set its own ([`EnqueueOptions::max_offline`](crate::queue::EnqueueOptions::max_offline));
     *  otherwise its kind's applies.
     */
    maxOfflineMs: number | null;
    /**
     *  Set while a queued job waits out a snooze its handler asked for
     *  ([`JobError::retry_after`](crate::runner::JobError::retry_after), a
     *  `Retry-After`): when it runs again (its `run_at`). Not a failed attempt:
     *  `whyWaiting` says "the service asked it to wait", not "backing off".
     */
    snoozedUntil: Timestamp | null;
    /**
     *  Set while a queued job waits out a durable sleep of its handler
     *  ([`JobContext::sleep`](crate::runner::JobContext::sleep)): when it ends. Its
     *  steps say which ([`Job::steps`]). While it waits for a signal
     *  ([`awaits_signal`](Job::awaits_signal)), the wait's deadline.
     */
    sleepingUntil?: Timestamp | null;
    /**
     *  Set while a queued job waits for a signal
     *  ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)):
     *  its name. It runs when the signal comes, or at `sleeping_until`.
     */
    awaitsSignal?: string | null;
    /**
     *  The steps its handler finished and the durable sleeps it began, in the order
     *  they ended ([`JobContext::step`](crate::runner::JobContext::step)): names,
     *  when, how long; what they returned stays in `raw.db` for the next attempts.
     *  Read by `get` (the webview's `getJob`), empty in lists.
     */
    steps?: JobStep[];
    /**
     *  The current (or last) attempt's latest progress as the handler reported it,
     *  stored at most once a second while it runs and with its outcome; empty until it
     *  reports any, and again when a new attempt starts.
     */
    progress: JobProgressValue | null;
    /**
     *  Why the stored payload or result could not be read (a row another program
     *  wrote); that field is then empty. A list shows such a row instead of failing.
     */
    unreadable: string | null;
    /**  The version of its payload (1 unless its kind declares versions). */
    payloadVersion: number;
    /**
     *  Queued, and this process registers nothing for its kind (no handler, and not
     *  declared as run by agents): it waits for a build that has a handler, or for
     *  its kind to be retired.
     */
    handlerMissing: boolean;
    /**
     *  Queued, and its kind is at its rate limit ([`RateLimit`](super::RateLimit)): no job of it starts
     *  before this time.
     */
    rateLimitedUntil?: Timestamp | null;
    /**  What the job itself needs of the machine (its kind may need more). */
    constraints?: Constraints;
    /**
     *  Queued, and the machine does not meet what it (or its kind) needs, or other
     *  jobs have to end first: what it waits for ("a charger"). Empty otherwise.
     */
    waitingFor?: WaitingFor[];
    /**
     *  What the handler or the service said when it held the kind (`waiting_for`
     *  holds `network` or `service`): "connection refused", "HTTP 429". Redacted and
     *  cut like an error.
     */
    heldBecause?: string | null;
    /**
     *  How many of the jobs it waits for ([`EnqueueOptions::after`](crate::queue::EnqueueOptions::after))
     *  have not ended yet.
     */
    waitingOnJobs?: number;
    /**
     *  What each attempt that did not succeed said, oldest first (the last 20): a job
     *  that succeeded on its third attempt keeps the first two's errors here, and its
     *  detail shows them as a timeline, with its deferrals (offline probes, snoozes,
     *  throttles: [`AttemptError::outcome`]), which counted no attempt.
     */
    errors?: AttemptError[];
};
/**  A finished durable job was deleted (by an operator, not by retention). */
export type JobDeleted = {
    /**  The job that is gone. */
    id: JobId;
    /**  Its kind. */
    kind: string;
    /**  When it was deleted. */
    at: Timestamp;
};
/**  A job's dependencies: what it waits for and what waits for it. */
export type JobDependencies = {
    /**  The job. */
    id: JobId;
    /**
     *  It was enqueued to wait for other jobs (`after`, `then`, `after_pieces_of`);
     *  still true once it was freed and `waits_for` is empty, so a finished
     *  workflow's graph can tell the jobs after its pieces from the pieces.
     */
    waited: boolean;
    /**
     *  The jobs it waits for (ended ones included), oldest first, at most
     *  [`MAX_LISTED_DEPENDENCIES`]; none once it was freed to run, since those rows go
     *  then. A job cancelled because one of them failed keeps them.
     */
    waitsFor: JobId[];
    /**  How many it waits for in all. */
    waitsForTotal: number;
    /**
     *  The jobs waiting for it (or cancelled because it failed), oldest first, at
     *  most [`MAX_LISTED_DEPENDENCIES`].
     */
    waitedBy: JobId[];
    /**  How many wait for it in all. */
    waitedByTotal: number;
};
/**
 *  Which jobs [`Queue::list`](crate::queue::Queue::list) returns: newest first, a page at a
 *  time.
 */
export type JobFilter = {
    /**  Only this status. */
    status?: JobStatus | null;
    /**  Only this kind. */
    kind?: string | null;
    /**  Only pieces of this job. */
    parent?: JobId | null;
    /**  Only jobs enqueued by this actor. */
    actor?: Actor | null;
    /**  Only jobs older than this one: pass the last id of the previous page. */
    before?: JobId | null;
    /**
     *  Page size; 50 by default, at most 1000. A page also ends early (after at least
     *  one job) once its payloads and results pass about 4 MiB: a short page is not
     *  the end of the list, an empty one is.
     */
    limit?: number | null;
};
/**
 *  A durable job's id: the row id in `raw.db`.
 *
 *  Ids count up from 1 and stay far below 2^53, so they cross IPC as plain JavaScript
 *  numbers without loss.
 */
export type JobId = number;
/**
 *  A line a durable job's handler logged
 *  ([`JobContext::log`](crate::runner::JobContext::log)), as stored: redacted and cut
 *  like an error, the last few of each job kept.
 */
export type JobLogLine = {
    /**  Its number in the job's log, from 1, in the order logged. */
    seq: number;
    /**  When it was logged. */
    at: Timestamp;
    /**  The attempt that logged it. */
    attempt: number;
    /**  `error`, `warn`, `info` or `debug`. */
    level: string;
    /**  What it said. */
    text: string;
};
/**  Lines a durable job's handler logged were stored: the new lines, in order. */
export type JobLogged = {
    /**  The job. */
    id: JobId;
    /**  Its kind. */
    kind: string;
    /**  The lines stored. */
    lines: JobLogLine[];
    /**  When they were stored. */
    at: Timestamp;
};
/**  A durable job's progress. */
export type JobProgress = {
    /**  The job reporting. */
    id: JobId;
    /**  Its kind, so listeners can filter by it. */
    kind: string;
    /**  The attempt reporting, from 1. */
    attempt: number;
    /**  Steps done. */
    done: number;
    /**  Steps in all, when known. */
    total: number | null;
    /**  Whole percent done, when the total is known. */
    percent: number | null;
    /**  When it was reported. */
    at: Timestamp;
};
/**  How far a durable job's attempt is, as its handler reported. */
export type JobProgressValue = {
    /**  Steps done. */
    done: number;
    /**  Steps in all, when known. */
    total: number | null;
};
/**  A job of either sort: `{ "durable": 12 }` or `{ "local": "local-3" }`. */
export type JobRef = 
/**  A durable job. */
({
    durable: JobId;
}) & {
    local?: never;
} | 
/**  A process-local job. */
({
    local: LocalJobId;
}) & {
    durable?: never;
};
/**  A durable job changed state. Published after the change is committed. */
export type JobStateChanged = {
    /**  The job that moved. */
    id: JobId;
    /**  Its kind, so listeners can filter without reading the job. */
    kind: string;
    /**  The state before; `None` when the job was just enqueued. */
    from: JobStatus | null;
    /**  The state it moved to. */
    to: JobStatus;
    /**  Attempts started so far, this one included. */
    attempt: number;
    /**  When the change happened. */
    at: Timestamp;
};
/**
 *  Where a durable job is in its life.
 *
 *  `queued -> running -> succeeded | failed | cancelled`, and `running -> queued` on a
 *  retry, an expired lease or a release at shutdown.
 */
export type JobStatus = 
/**  Waiting to be claimed (perhaps not before its `run_at`). */
"queued" | 
/**  Claimed by a worker that holds its lease. */
"running" | 
/**  Finished well. */
"succeeded" | 
/**  Finished with an error, out of attempts or with a permanent error. */
"failed" | 
/**  Cancelled before it finished. */
"cancelled";
/**
 *  A step a durable job's handler finished
 *  ([`JobContext::step`](crate::runner::JobContext::step)), or a durable sleep it began
 *  ([`JobContext::sleep`](crate::runner::JobContext::sleep)): what the inspector and
 *  `getJob` show. What a step returned is not here: it stays in `raw.db` for the
 *  job's next attempts.
 */
export type JobStep = {
    /**  Its name, unique within the job. */
    name: string;
    /**  The attempt that finished it, from 1. */
    attempt: number;
    /**  When its body started (a sleep: when it began). */
    startedAt: Timestamp;
    /**  When it was recorded. */
    finishedAt: Timestamp;
    /**  A durable sleep: when it ends. */
    sleepUntil: Timestamp | null;
};
/**
 *  A durable job's handler began a step (`finished_at` is `None`: the step running
 *  now), or recorded one, or began a durable sleep (`sleep_until`). A step begun is
 *  heard from the process that runs it; a step recorded, once it is committed.
 */
export type JobStepChanged = {
    /**  The job. */
    id: JobId;
    /**  Its kind. */
    kind: string;
    /**  The attempt running it, from 1. */
    attempt: number;
    /**  The step's name. */
    name: string;
    /**  When its body started. */
    startedAt: Timestamp;
    /**  When it was recorded; `None` while it runs. */
    finishedAt: Timestamp | null;
    /**  A durable sleep: when it ends. */
    sleepUntil: Timestamp | null;
};
/**
 *  One bus event for the webview, as a subscription's channel carries it.
 *
 *  Ids and times are JavaScript numbers: durable job ids count up from 1 and
 *  timestamps are milliseconds since the epoch, both far below 2^53. Process-local
 *  job ids are strings such as `"local-7"`.
 */
export type JobsEvent = {
    /**  What happened. */
    event: Event;
    /**
     *  State changes this subscription has dropped so far because the webview fell
     *  behind (progress reports replaced by newer ones are not counted). When it
     *  grows, reload what the page shows.
     */
    dropped: number;
};
/**
 *  Finished jobs of one kind were deleted past retention: counts and lists of
 *  finished jobs of the kind changed.
 */
export type JobsPruned = {
    /**  The kind. */
    kind: string;
    /**  How many of its finished jobs went. */
    count: number;
    /**  When. */
    at: Timestamp;
};
/**  How many jobs of one kind are in one status. */
export type KindCount = {
    /**  The kind counted. */
    kind: string;
    /**  The status counted. */
    status: JobStatus;
    /**  Jobs of that kind in that status. */
    count: number;
    /**
     *  The count is of queued jobs whose kind this process registers nothing for (no
     *  handler, not declared as run by agents): they wait for a build that has one.
     */
    handlerMissing?: boolean;
    /**
     *  The count is of queued jobs whose kind is at its rate limit: none starts
     *  before this time.
     */
    rateLimitedUntil?: Timestamp | null;
    /**
     *  The count is of queued jobs whose kind needs what the machine does not offer
     *  now (jobs' own constraints are on each job).
     */
    waitingFor?: WaitingFor[];
    /**
     *  What the handler or the service said when it held the kind (`waiting_for`
     *  holds `network` or `service`): "connection refused", "HTTP 429". Redacted and
     *  cut like an error.
     */
    heldBecause?: string | null;
};
/**  One kind's history. */
export type KindHistory = {
    /**  The kind. */
    kind: string;
    /**  Its periods that saw an end or a retry, oldest first. */
    points: HistoryPoint[];
};
/**  Claims of a job kind were paused or resumed, in every process. */
export type KindPaused = {
    /**  The kind. */
    kind: string;
    /**  Whether it is paused now. */
    paused: boolean;
    /**  When it changed. */
    at: Timestamp;
};
/**  Proof that a worker holds a job: every later write is fenced by it. */
export type Lease = {
    /**  The job held; with `worker` and `attempt`, what fences every write. */
    jobId: JobId;
    /**  The job's kind as it was claimed, for the holder's convenience. */
    kind: string;
    /**
     *  The worker's id: `runner-<pid>-<n>` for the app's runner, `agent:<name>` for
     *  agents.
     */
    worker: string;
    /**  The attempt this lease is for. */
    attempt: number;
    /**  When it runs out unless renewed. */
    expiresAt: Timestamp;
    /**  How long each renewal extends it, in milliseconds. */
    lengthMs: number;
    /**
     *  A secret drawn at the claim and handed only to the claimer: every write of
     *  the attempt must present it. The other fields can be read by anyone who may
     *  read the job; this one never is.
     */
    token: string;
};
/**  A process-local job's record: kind-agnostic and safe to send to the webview. */
export type LocalJob = {
    /**  Unique in this process, counting up from `local-1`. */
    id: LocalJobId;
    /**  What the app called the work when it spawned it. */
    kind: string;
    /**  Running, or how it ended. */
    status: LocalJobStatus;
    /**  Steps done, as last reported. */
    done: number;
    /**  Steps in all, when known. */
    total: number | null;
    /**  Whether cancellation was asked for. */
    cancelRequested: boolean;
    /**  Why it failed (redacted), when it did. */
    error: string | null;
    /**  When it started. */
    startedAt: Timestamp;
    /**  When it ended. */
    finishedAt: Timestamp | null;
    /**
     *  What it returned, once it succeeded: for jobs whose value is JSON (the kinds
     *  the webview starts by name) and at most [`MAX_LOCAL_RESULT_BYTES`] of it, 64
     *  levels deep at most. A larger one still reaches whoever awaits the job.
     */
    result: Value | null;
};
/**  A process-local job started or ended. */
export type LocalJobChanged = {
    /**  The local job that started or ended. */
    id: LocalJobId;
    /**  Its kind, so listeners can filter by it. */
    kind: string;
    /**  `running` when it started, else how it ended. */
    status: LocalJobStatus;
    /**  Why it failed, when it did. */
    error: string | null;
    /**  When it changed. */
    at: Timestamp;
};
/**
 *  A process-local job's id. Crosses IPC as a string such as `"local-7"`, so it can
 *  never be mistaken for a durable job's numeric id.
 */
export type LocalJobId = string;
/**  A process-local job's progress. */
export type LocalJobProgress = {
    /**  The local job reporting. */
    id: LocalJobId;
    /**  Its kind, so listeners can filter by it. */
    kind: string;
    /**  Steps done. */
    done: number;
    /**  Steps in all, when known. */
    total: number | null;
    /**  Whole percent done, when the total is known. */
    percent: number | null;
    /**  When it was reported. */
    at: Timestamp;
};
/**  Where a process-local job is. */
export type LocalJobStatus = 
/**  Running. */
"running" | 
/**  Returned well. */
"succeeded" | 
/**  Returned an error or panicked. */
"failed" | 
/**  Stopped after cancellation was asked for. */
"cancelled";
/**
 *  What the caller that started a local job hears of it, and nobody else: its
 *  progress (throttled like the bus events) and its end, in order.
 */
export type LocalRunEvent = 
/**  How far it is. */
{
    type: "progress";
    /**  Steps done. */
    done: number;
    /**  Steps in all, when known. */
    total: number | null;
    /**  Whole percent, when the total is known. */
    percent: number | null;
} | 
/**  It ended; the last message. */
{
    type: "finished";
    /**  How. */
    status: LocalJobStatus;
    /**  What it returned, when it succeeded (whatever its size). */
    result: Value | null;
    /**  Why it failed (redacted), when it did. */
    error: string | null;
};
/**  Something happened to one message. */
export type MessageEvent = {
    /**  The account, as `connector/account`. */
    account: string;
    /**  The message's id within the account. */
    messageId: string;
    /**  When it happened. */
    at: Timestamp;
};
/**  A component's health changed. */
export type PluginHealth = {
    /**  The component, such as a sync target `connector/account/name` or `runner`. */
    component: string;
    /**  Its health now. */
    health: Health;
    /**  When it changed. */
    at: Timestamp;
};
/**  Higher runs first. Within a priority, the job that became runnable first goes first. */
export type Priority = number;
/**  A message was marked read or unread. */
export type ReadStateChanged = {
    /**  The account, as `connector/account`. */
    account: string;
    /**  The message's id within the account. */
    messageId: string;
    /**  Whether it is now read. */
    read: boolean;
    /**  When it happened. */
    at: Timestamp;
};
/**  What [`Queue::retry_now`] did. */
export type RetryOutcome = 
/**
 *  The job had failed; it is queued again, runnable now, with one attempt more
 *  than it had used if it had used them all.
 */
"requeued" | 
/**  The job was waiting out a backoff; it is runnable now. */
"rescheduled" | 
/**  The job was already runnable; nothing changed. */
"alreadyDue";
/**  A stored schedule. */
export type Schedule = {
    /**  Unique name. */
    name: string;
    /**  The job kind it enqueues. */
    kind: string;
    /**  The job's payload. */
    payload: Value;
    /**  The job's priority. */
    priority: Priority;
    /**  The job's dedupe key. */
    dedupeKey: string | null;
    /**  The job's actor. */
    actor: Actor;
    /**  The interval in milliseconds, for interval schedules. */
    intervalMs: number | null;
    /**  The cron expression, for cron schedules. */
    cron: string | null;
    /**
     *  The wall clock the expression reads: `None` for UTC, `"local"`, or an IANA
     *  name.
     */
    zone: string | null;
    /**  When it runs next. */
    nextRun: Timestamp;
    /**  Whether it is paused. */
    paused: boolean;
    /**  When it last ran. */
    lastRun: Timestamp | null;
    /**  The job its last run enqueued (or found holding the dedupe key). */
    lastJob: JobId | null;
    /**  When it was added. */
    createdAt: Timestamp;
    /**  When it last changed. */
    updatedAt: Timestamp;
};
/**  A schedule changed: read it again (or find it gone). */
export type ScheduleChanged = {
    /**  The schedule's name. */
    name: string;
    /**  The job kind it enqueues, so listeners (and scopes) can filter by it. */
    kind: string;
    /**  When it changed. */
    at: Timestamp;
};
/**  What [`Queue::signal`] did. */
export type SignalSent = {
    /**  The job was waiting for it: it runs now. */
    woke: boolean;
    /**
     *  A signal of that name was sent before: that first one stays, this one is
     *  dropped (sending again is harmless).
     */
    alreadySent: boolean;
};
/**  Why a run did not happen. */
export type SkipReason = 
/**  Not due before this time. */
{
    reason: "notDue";
    /**  When it is due. */
    until: Timestamp;
} | 
/**  An automatic trigger came within `min_interval` of the last run. */
{
    reason: "minInterval";
    /**  When triggers may start a run again. */
    until: Timestamp;
} | 
/**  Backing off after failures. */
{
    reason: "backingOff";
    /**  When the next attempt is due. */
    until: Timestamp;
} | 
/**  The server asked to wait. */
{
    reason: "throttled";
    /**  Until when. */
    until: Timestamp;
};
/**
 *  What started a sync run, as its `syncFinished` event says: a page can say "synced
 *  when you came back" (`wake`) or "refreshed" (`refresh`).
 */
export type StartedBy = 
/**  The policy's own cadence (the engine's loop, `run_due`). */
"schedule" | 
/**  The user pressed Refresh (`sync_now`). */
"refresh" | 
/**  A window gained focus. */
"focus" | 
/**  The network came back. */
"networkBack" | 
/**  The machine woke from sleep. */
"wake";
/**
 *  A sync run ended (a run that was skipped publishes nothing). With its outcome a
 *  page can show the last sync without polling.
 */
export type SyncFinished = {
    /**  The target, as `connector/account/name`. */
    target: string;
    /**  How the run ended. */
    outcome: SyncOutcome;
    /**
     *  What started it. A caller that joined a run in flight (a Refresh pressed while
     *  the loop's run went on) gets that run's outcome: this says what started it.
     */
    startedBy: StartedBy;
    /**  When it ended. */
    at: Timestamp;
};
/**
 *  One period of a sync target's history. Runs that did not happen (skipped: not due,
 *  joined one in flight) or were cancelled are not counted.
 */
export type SyncHistoryPoint = {
    /**  When the period starts. */
    at: Timestamp;
    /**  How long it is: 60,000 (a minute) or 3,600,000 (an hour). */
    spanMs: number;
    /**  Runs that fetched data. */
    updated: number;
    /**  Runs the server answered with nothing new. */
    notModified: number;
    /**  Runs that failed with the service reachable. */
    failed: number;
    /**  Runs that could not reach the service. */
    offline: number;
    /**  Runs the server asked to wait. */
    throttled: number;
    /**  Items the runs that fetched data changed, in all. */
    changed: number;
    /**
     *  How long runs took, median (the top of its half-octave bucket, as
     *  [`HistoryPoint`](crate::queue::HistoryPoint)'s times).
     */
    tookP50Ms: number | null;
    /**  The same, 95th percentile. */
    tookP95Ms: number | null;
};
/**  How a run ended, as every caller waiting on it sees it. */
export type SyncOutcome = 
/**  Data was fetched. */
({
    outcome: "updated";
    /**  Items changed. */
    changed: number;
}) & {
    error?: never;
    offline?: never;
    retryAt?: never;
    until?: never;
} | 
/**  Nothing changed. */
({
    outcome: "notModified";
}) & {
    changed?: never;
    error?: never;
    offline?: never;
    retryAt?: never;
    until?: never;
} | 
/**  The server asked to wait; the next run is deferred. */
({
    outcome: "throttled";
    /**  Until when. */
    until: Timestamp;
}) & {
    changed?: never;
    error?: never;
    offline?: never;
    retryAt?: never;
} | 
/**  The run failed. */
({
    outcome: "failed";
    /**  Whether the service could not be reached. */
    offline: boolean;
    /**  What happened (redacted). */
    error: string;
    /**  When the engine tries again. */
    retryAt: Timestamp;
}) & {
    changed?: never;
    until?: never;
} | 
/**  No run happened. */
{
    outcome: "skipped";
} & SkipReason | 
/**  The run was cancelled (its account was disconnected). */
({
    outcome: "cancelled";
}) & {
    changed?: never;
    error?: never;
    offline?: never;
    retryAt?: never;
    until?: never;
};
/**  A sync run's progress. */
export type SyncProgress = {
    /**  The target, as `connector/account/name`. */
    target: string;
    /**  Items done so far. */
    done: number;
    /**  Items in all, when known. */
    total: number | null;
    /**  When it was reported. */
    at: Timestamp;
};
/**
 *  What the engine remembers about a target, stored as JSON under
 *  `acct.<connector>.<account>.sync.<name>` in `raw.db`.
 */
export type SyncState = {
    /**  When the target was first registered. */
    registeredAt?: Timestamp | null;
    /**  When a run last started. */
    lastAttempt?: Timestamp | null;
    /**  When a run last succeeded (updated or not modified). */
    lastSuccess?: Timestamp | null;
    /**  The last failure's message, cleared by a success. */
    lastError?: string | null;
    /**  Failures since the last success (offline ones included). */
    consecutiveFailures?: number;
    /**  Whether the last run could not reach the service. */
    offline?: boolean;
    /**  When `run_due` runs it next. */
    nextDue?: Timestamp | null;
    /**  Until when the service asked to be left alone. */
    throttledUntil?: Timestamp | null;
    /**  Why it asked. */
    throttleReason?: ThrottleReason | null;
    /**  The stored ETag. */
    etag?: string | null;
    /**  The stored Last-Modified. */
    lastModified?: string | null;
    /**  The stored cursor. */
    cursor?: string | null;
    /**  Items the last updating run changed. */
    lastChanged?: number;
    /**  Runs that reached the source, in all. */
    runs?: number;
};
/**  A sync target's state and health. */
export type SyncStatus = {
    /**  `connector/account/name`. */
    target: string;
    /**  Its bookkeeping. */
    state: SyncState;
    /**  Its health now. */
    health: Health;
};
/**  One sync target's history. */
export type TargetHistory = {
    /**  The target, `connector/account/name`. */
    target: string;
    /**  Its periods that saw a run end, oldest first. */
    points: SyncHistoryPoint[];
};
/**  Why a service asked to slow down. */
export type ThrottleReason = 
/**
 *  A consumed quota or rate limit (a `429` with `Retry-After`, a cost budget the
 *  body reports): every run waits, Refresh too, which answers at once that it is
 *  throttled and until when.
 */
"quota" | 
/**
 *  How often the service wants to be polled (`X-Poll-Interval`, a `Retry-After`
 *  on a success): it shapes automatic runs only; Refresh runs through it.
 */
"serverInterval";
/**
 *  A point in time: milliseconds since the Unix epoch, UTC.
 *
 *  Stored as an integer in `raw.db`. Milliseconds fit a JavaScript number exactly until
 *  the year 287,396, so timestamps cross IPC as plain numbers.
 */
export type Timestamp = number;
/**  What started an automatic sync. */
export type Trigger = 
/**  A window gained focus. */
"focus" | 
/**  The network came back: offline targets retry at once. */
"networkBack" | 
/**  The machine woke from sleep. */
"wake";
export type Value = null | boolean | number | string | Value[] | {
    [key in string]: Value;
};
/**
 *  A constraint a queued job waits for ([`Job::waiting_for`](crate::queue::Job)), for
 *  the UI to say why ("waiting for a charger").
 */
export type WaitingFor = 
/**  A charger. */
{
    condition: "acPower";
} | 
/**  A charger or the battery at `atLeast` percent. */
{
    condition: "battery";
    /**  The level asked for. */
    atLeast: number;
} | 
/**  A network that is not metered. */
{
    condition: "unmeteredNetwork";
} | 
/**  The user idle for `secs` seconds. */
{
    condition: "userIdle";
    /**  The idle time asked for. */
    secs: number;
} | 
/**  Other jobs to end first ([`EnqueueOptions::after`](crate::queue::EnqueueOptions::after)). */
{
    condition: "jobs";
    /**  How many have not ended yet. */
    left: number;
} | 
/**  A free slot: the kind's cap on running jobs, across every process, is full. */
{
    condition: "slot";
    /**  The cap. */
    cap: number;
    /**
     *  How many run now, in every process (more than the cap when it was lowered
     *  under them).
     */
    running: number;
    /**
     *  How many of the running jobs are held by a worker that stopped answering:
     *  its lease ran out, or its process on this machine is gone. Their slots come
     *  back at the next sweep (within a second).
     */
    stale: number;
    /**
     *  The earliest end of the running jobs' leases: a holder that is frozen or
     *  died unseen gives its slot back by then, a live one renews first.
     */
    leaseEndsAt: Timestamp | null;
} | 
/**
 *  The network: a job of the kind found its service unreachable
 *  ([`JobError::Offline`](crate::runner::JobError::Offline)). The kind tries one
 *  job at `nextTry` (one at a time, every `offline_retry`), or at once when the
 *  network comes back; when one gets through, every job of the kind may start.
 */
{
    condition: "network";
    /**  When the kind tries one job (now or earlier: trying now). */
    nextTry: Timestamp;
} | 
/**
 *  The service: a handler said it throttles the whole kind
 *  ([`JobError::ThrottleKind`](crate::runner::JobError::ThrottleKind)); no job of
 *  it starts before `until`, in any process.
 */
{
    condition: "service";
    /**  When the kind may start jobs again. */
    until: Timestamp;
} | 
/**
 *  A signal its handler waits for
 *  ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal);
 *  the job's `awaitsSignal` names it): it runs when the signal comes, or at
 *  `until`, the wait's deadline.
 */
{
    condition: "signal";
    /**  The deadline. */
    until: Timestamp;
};
/**
 *  A workflow for the `enqueue_workflow` command: the parent, its pieces, and the
 *  jobs that run once every piece has ended.
 */
export type WorkflowArgs = {
    /**  The parent job. */
    parent: WorkflowStep;
    /**  Its pieces; with `then`, at most 10,000 jobs. */
    pieces: WorkflowStep[];
    /**  The jobs that run once every piece has ended. */
    then?: WorkflowStep[];
};
/**  What [`Queue::cancel_workflow`] did. */
export type WorkflowCancelled = {
    /**  Queued jobs cancelled (the parent, pieces and the jobs waiting for them). */
    cancelled: number;
    /**  Running ones asked to stop. */
    askedToStop: number;
};
/**  The ids a workflow's jobs got. */
export type WorkflowIds = {
    /**  The parent. */
    parent: JobId;
    /**  The pieces, in the order given. */
    pieces: JobId[];
    /**  The jobs that run after the pieces, in the order given. */
    then: JobId[];
};
/**  What [`Queue::retry_workflow`] did. */
export type WorkflowRetried = {
    /**  Failed jobs (the parent, pieces) queued again. */
    requeued: number;
    /**  Jobs that a failure had cancelled, waiting again for what has not succeeded. */
    waitingAgain: number;
};
/**
 *  A workflow's state: its jobs (the parent and every piece of it) by status, and one
 *  progress figure for the whole.
 */
export type WorkflowState = {
    /**  The parent. */
    parent: JobId;
    /**  The parent's own status. */
    status: JobStatus;
    /**
     *  Its pieces (the jobs after them included) by status, in life order; statuses
     *  with none are left out.
     */
    pieces: ([JobStatus, number])[];
    /**  Pieces that have ended, of all of them: the workflow's progress bar. */
    progress: JobProgressValue;
    /**  Whether the parent and every piece have ended. */
    ended: boolean;
    /**
     *  Whether the workflow failed, as its waiting jobs' policies say: the parent
     *  failed or was cancelled, or a job of it that waited for others (the `then`
     *  jobs) failed or was cancelled, a failed piece cancelling it by default
     *  ([`DependencyFailure::Cancel`](crate::queue::DependencyFailure)). A workflow
     *  without such jobs fails when a piece fails or is cancelled.
     */
    failed: boolean;
};
/**
 *  One job of a workflow the `enqueue_workflow` command adds: its kind, payload and
 *  options (without `parent`: the workflow sets it).
 */
export type WorkflowStep = {
    /**  Its kind; in the window's scope. */
    kind: string;
    /**  Its payload. */
    payload: Value;
    /**  Its options, as `enqueue` takes them. */
    options: EnqueueArgs | null;
};
