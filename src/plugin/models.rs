//! What the commands take and return that is not a type of the engine itself: their
//! argument structs, and answers shaped for the webview (a cancel of either sort of
//! job, a sync target's status, where an agent's attempt went). Engine types that
//! cross IPC as they are (`Job`, `Lease`, `Enqueued`, `Heartbeat`, ...) are not
//! repeated here.

use serde::{Deserialize, Serialize};

use crate::local::LocalJobId;
use crate::model::{Constraints, DependencyFailure, Health, JobId};
use crate::queue::Finished;
use crate::sync::SyncState;

/// Options of the `enqueue` command (actor `user`: the webview speaks for a person)
/// and of `agent_enqueue` (actor `agent`).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnqueueArgs {
    /// Priority; 50 by default, 100 for work a person waits for.
    pub priority: Option<i32>,
    /// While a job of the same kind with this key is queued or running, enqueueing
    /// returns that job instead of adding one.
    pub dedupe_key: Option<String>,
    /// Delay before it may run, in milliseconds.
    pub delay_ms: Option<f64>,
    /// Attempts allowed; the kind's default, else the queue's.
    pub max_attempts: Option<u32>,
    /// How long it may wait for the network, in milliseconds, from its first attempt
    /// that found the network gone: an attempt that finds it gone this long or more
    /// after fails it (the kind's limit by default; without one, as long as it
    /// takes). At least 1, at most a year.
    pub max_offline_ms: Option<f64>,
    /// The job this one is a piece of; it must exist.
    pub parent: Option<JobId>,
    /// With a dedupe key a job of the kind holds: `keep` it (the default), `replace`
    /// its payload and priority, or `debounce` (replace, and start `debounceMs` from
    /// now). A running job is never changed: the new payload runs after it.
    pub on_duplicate: Option<DuplicateArg>,
    /// The wait of a debounce, in milliseconds; only with `onDuplicate: "debounce"`.
    pub debounce_ms: Option<f64>,
    /// What the job needs of the machine before it starts (beside its kind's): a
    /// charger, a battery level (1 to 100), an unmetered network, the user idle for
    /// some seconds (1 to a day).
    pub constraints: Option<Constraints>,
    /// Jobs it waits for: it runs once they have ended (each must exist, and be of a
    /// kind this window may read). At most 10,000.
    pub after: Option<Vec<JobId>>,
    /// Waits for every piece of this job enqueued before it, too.
    pub after_pieces_of: Option<JobId>,
    /// When a job it waits for fails or is cancelled: `cancel` it too (the default),
    /// or `run` it anyway once the others have ended.
    pub on_dependency_failure: Option<DependencyFailure>,
}

/// One job of a workflow the `enqueue_workflow` command adds: its kind, payload and
/// options (without `parent`: the workflow sets it).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowStep {
    /// Its kind; in the window's scope.
    pub kind: String,
    /// Its payload.
    pub payload: serde_json::Value,
    /// Its options, as `enqueue` takes them.
    pub options: Option<EnqueueArgs>,
}

/// A workflow for the `enqueue_workflow` command: the parent, its pieces, and the
/// jobs that run once every piece has ended.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowArgs {
    /// The parent job.
    pub parent: WorkflowStep,
    /// Its pieces; with `then`, at most 10,000 jobs.
    pub pieces: Vec<WorkflowStep>,
    /// The jobs that run once every piece has ended.
    #[serde(default)]
    pub then: Vec<WorkflowStep>,
}

/// What an enqueue does when a job of the same kind already holds the dedupe key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum DuplicateArg {
    /// The job holding the key stays; nothing is added.
    Keep,
    /// A queued job takes the new payload and priority.
    Replace,
    /// As `replace`, and its start moves to `debounceMs` from now.
    Debounce,
}

/// A job of either sort: `{ "durable": 12 }` or `{ "local": "local-3" }`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum JobRef {
    /// A durable job.
    Durable(JobId),
    /// A process-local job.
    Local(LocalJobId),
}

/// What `cancel` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum CancelResult {
    /// It was queued and is now cancelled.
    Cancelled,
    /// It is running and was asked to stop.
    Requested,
    /// It had already finished.
    AlreadyFinished,
}

/// A sync target's state and health.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    /// `connector/account/name`.
    pub target: String,
    /// Its bookkeeping.
    pub state: SyncState,
    /// Its health now.
    pub health: Health,
}

/// How one of the plugin's own components is doing: `config` (whether `config.toml`
/// was taken), `raw.db` (what the integrity check found) or `conditions` (what the
/// machine cannot tell about power, network and idle time).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ComponentHealth {
    /// The component.
    pub component: String,
    /// Its health now.
    pub health: Health,
}

/// What an agent asks for in `agent_claim`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentClaimArgs {
    /// The agent's name; its leases are held by `agent:<name>`.
    pub agent: String,
    /// The kinds it can run.
    pub kinds: Vec<String>,
    /// Caps per kind, across every worker and process.
    pub limits: Option<std::collections::HashMap<String, u32>>,
    /// Lease length in milliseconds; 30 s by default.
    pub lease_ms: Option<u64>,
    /// Jobs to claim at most; 1 by default.
    pub max_jobs: Option<u32>,
}

/// Where a job went after an agent finished an attempt.
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum AgentFinished {
    /// Succeeded.
    Succeeded,
    /// Failed for good.
    Failed,
    /// Queued again after a backoff.
    Retrying,
    /// Cancelled.
    Cancelled,
    /// Given back.
    Released,
    /// Deferred (`agent_defer`): queued again for later, the attempt not counted.
    Deferred,
}

/// Why an agent defers its attempt (`agent_defer`): none is a failure, and none
/// counts against the job's attempts. Waits are clamped from a second to a day.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum AgentDeferral {
    /// The service could not be reached: the kind waits for the network, trying one
    /// job every `offline_retry`, or at once when the network comes back.
    Offline {
        /// What the agent saw.
        message: String,
    },
    /// This job runs again after `afterMs` (a `Retry-After` for it alone).
    RetryAfter {
        /// How long to wait, in milliseconds.
        after_ms: f64,
        /// Why, as the inspector shows it.
        reason: String,
    },
    /// Every job of the kind waits `afterMs`, in every process (the service throttles
    /// all of them); this one runs again then.
    ThrottleKind {
        /// How long to wait, in milliseconds.
        after_ms: f64,
        /// Why, as the inspector shows it.
        reason: String,
    },
}

impl From<Finished> for AgentFinished {
    fn from(finished: Finished) -> Self {
        match finished {
            Finished::Succeeded => AgentFinished::Succeeded,
            Finished::Retrying { .. } => AgentFinished::Retrying,
            Finished::Cancelled => AgentFinished::Cancelled,
            // Queued again, the attempt not counted, as a release is.
            Finished::Released => AgentFinished::Released,
            Finished::Deferred { .. } => AgentFinished::Deferred,
            _ => AgentFinished::Failed,
        }
    }
}
