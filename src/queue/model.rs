//! The records of the durable queue: jobs, their states, and what callers pass in.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Timestamp;

// ===== JobId =====

/// A durable job's id: the row id in `raw.db`.
///
/// Ids count up from 1 and stay far below 2^53, so they cross IPC as plain JavaScript
/// numbers without loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, specta::Type)]
pub struct JobId(i64);

/// Accepts an integer, or a float with no fraction (JavaScript has only numbers).
impl<'de> Deserialize<'de> for JobId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = JobId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a job id (a whole number)")
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<JobId, E> {
                Ok(JobId(v))
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<JobId, E> {
                i64::try_from(v)
                    .map(JobId)
                    .map_err(|_| E::custom("job id out of range"))
            }

            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<JobId, E> {
                if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
                    Ok(JobId(v as i64))
                } else {
                    Err(E::custom(format!("{v} is not a whole number")))
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl JobId {
    /// Wraps a raw row id.
    #[must_use]
    pub const fn from_raw(raw: i64) -> Self {
        JobId(raw)
    }

    /// The raw row id.
    #[must_use]
    pub const fn raw(self) -> i64 {
        self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

// ===== JobStatus =====

/// Where a durable job is in its life.
///
/// `queued -> running -> succeeded | failed | cancelled`, and `running -> queued` on a
/// retry, an expired lease or a release at shutdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum JobStatus {
    /// Waiting to be claimed (perhaps not before its `run_at`).
    Queued,
    /// Claimed by a worker that holds its lease.
    Running,
    /// Finished well.
    Succeeded,
    /// Finished with an error, out of attempts or with a permanent error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl JobStatus {
    /// Every status, in life order.
    pub const ALL: [JobStatus; 5] = [
        JobStatus::Queued,
        JobStatus::Running,
        JobStatus::Succeeded,
        JobStatus::Failed,
        JobStatus::Cancelled,
    ];

    /// The text stored in `raw.db`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Succeeded => "succeeded",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the job is done for good.
    #[must_use]
    pub const fn is_finished(self) -> bool {
        matches!(
            self,
            JobStatus::Succeeded | JobStatus::Failed | JobStatus::Cancelled
        )
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for JobStatus {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        JobStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
            .ok_or_else(|| format!("unknown job status {text:?}"))
    }
}

// ===== Actor =====

/// Who asked for a job.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, specta::Type,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Actor {
    /// A person, through the UI.
    User,
    /// An external agent.
    Agent,
    /// The app itself: schedules, syncs, follow-up work.
    #[default]
    System,
}

impl Actor {
    /// The text stored in `raw.db`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Actor::User => "user",
            Actor::Agent => "agent",
            Actor::System => "system",
        }
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Actor {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "user" => Ok(Actor::User),
            "agent" => Ok(Actor::Agent),
            "system" => Ok(Actor::System),
            other => Err(format!("unknown actor {other:?}")),
        }
    }
}

// ===== Priority =====

/// Higher runs first. Within a priority, the job that became runnable first goes first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, specta::Type,
)]
pub struct Priority(pub i32);

impl Priority {
    /// Work a person is waiting for.
    pub const USER: Priority = Priority(100);
    /// Bringing new data in. The default.
    pub const INGEST: Priority = Priority(50);
    /// Catching up on old data.
    pub const BACKFILL: Priority = Priority(10);
}

impl Default for Priority {
    fn default() -> Self {
        Priority::INGEST
    }
}

// ===== Job =====

/// A durable job as stored in `raw.db`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Job {
    /// The id.
    pub id: JobId,
    /// What kind of work; picks the handler.
    pub kind: String,
    /// The handler's input.
    pub payload: Value,
    /// Where it is in its life.
    pub status: JobStatus,
    /// Higher runs first.
    pub priority: Priority,
    /// When it became, or becomes, runnable.
    pub run_at: Timestamp,
    /// Attempts started so far.
    pub attempts: u32,
    /// Attempts allowed in all.
    pub max_attempts: u32,
    /// The worker holding the lease, while running.
    pub lease_owner: Option<String>,
    /// When the lease runs out unless renewed, while running.
    pub lease_expires_at: Option<Timestamp>,
    /// Whether cancellation was asked for while it ran.
    pub cancel_requested: bool,
    /// The dedupe key, if any.
    pub dedupe_key: Option<String>,
    /// The last error, redacted and cut to 500 characters.
    pub last_error: Option<String>,
    /// What the handler returned, once succeeded.
    pub result: Option<Value>,
    /// The job this one is a piece of.
    pub parent: Option<JobId>,
    /// Who asked for it.
    pub actor: Actor,
    /// When it was enqueued.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// When it finished.
    pub finished_at: Option<Timestamp>,
}

impl Job {
    /// The payload as a typed value.
    pub fn payload_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&self.payload)
    }
}

// ===== EnqueueOptions =====

/// How to enqueue a job. Every field has a default.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::{Actor, EnqueueOptions, Priority};
///
/// let options = EnqueueOptions::new()
///     .priority(Priority::USER)
///     .dedupe_key("refresh:inbox")
///     .delay(Duration::from_secs(30))
///     .actor(Actor::User);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct EnqueueOptions {
    /// Priority; [`Priority::INGEST`] by default.
    pub priority: Priority,
    /// While a job of the same kind with this key is queued or running, enqueueing
    /// again returns that job instead of adding one.
    pub dedupe_key: Option<String>,
    /// When it may run; now by default.
    pub run_at: Option<Timestamp>,
    /// Delay from now; ignored when `run_at` is set.
    pub delay: Option<Duration>,
    /// Attempts allowed; the kind's default, else the queue's.
    pub max_attempts: Option<u32>,
    /// The job this one is a piece of.
    pub parent: Option<crate::queue::JobId>,
    /// Who asked; [`Actor::System`] by default.
    pub actor: Actor,
}

impl EnqueueOptions {
    /// The defaults.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the priority.
    #[must_use]
    pub fn priority(mut self, priority: Priority) -> Self {
        self.priority = priority;
        self
    }

    /// Sets the dedupe key.
    #[must_use]
    pub fn dedupe_key(mut self, key: impl Into<String>) -> Self {
        self.dedupe_key = Some(key.into());
        self
    }

    /// Runs no earlier than `at`.
    #[must_use]
    pub fn run_at(mut self, at: Timestamp) -> Self {
        self.run_at = Some(at);
        self
    }

    /// Runs no earlier than `delay` from now.
    #[must_use]
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// Sets the number of attempts allowed.
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = Some(attempts);
        self
    }

    /// Sets the parent job.
    #[must_use]
    pub fn parent(mut self, parent: JobId) -> Self {
        self.parent = Some(parent);
        self
    }

    /// Sets who asked.
    #[must_use]
    pub fn actor(mut self, actor: Actor) -> Self {
        self.actor = actor;
        self
    }
}

/// One job of a batch for [`Queue::enqueue_batch`](super::Queue::enqueue_batch).
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    /// The kind.
    pub kind: String,
    /// The payload.
    pub payload: Value,
    /// The options.
    pub options: EnqueueOptions,
}

impl NewJob {
    /// A job of `kind` with `payload` and default options.
    #[must_use]
    pub fn new(kind: impl Into<String>, payload: Value) -> Self {
        NewJob {
            kind: kind.into(),
            payload,
            options: EnqueueOptions::default(),
        }
    }

    /// Sets the options.
    #[must_use]
    pub fn options(mut self, options: EnqueueOptions) -> Self {
        self.options = options;
        self
    }
}

/// What an enqueue did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Enqueued {
    /// The new job, or the existing one holding the dedupe key.
    pub id: JobId,
    /// `false` when a job with the same dedupe key was already queued or running and
    /// nothing was added.
    pub created: bool,
}

// ===== Claims and leases =====

/// What a worker asks for when it claims.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::ClaimRequest;
///
/// let request = ClaimRequest::new("worker-1", ["embed", "ingest"])
///     .limit("embed", 1)
///     .lease(Duration::from_secs(30))
///     .max_jobs(8);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaimRequest {
    /// The worker's id; the lease is fenced by it.
    pub worker: String,
    /// The kinds this worker can run. Jobs of other kinds are left alone.
    pub kinds: Vec<String>,
    /// Caps on running jobs per kind, across every worker and process.
    pub limits: HashMap<String, u32>,
    /// How long the lease lasts unless renewed.
    pub lease: Duration,
    /// Lease lengths for particular kinds, overriding `lease`.
    pub kind_leases: HashMap<String, Duration>,
    /// How many jobs to claim at most in this one transaction.
    pub max_jobs: u32,
}

impl ClaimRequest {
    /// A request for one job of any of `kinds`, with a 30 second lease and no caps.
    #[must_use]
    pub fn new<I, S>(worker: impl Into<String>, kinds: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ClaimRequest {
            worker: worker.into(),
            kinds: kinds.into_iter().map(Into::into).collect(),
            limits: HashMap::new(),
            lease: Duration::from_secs(30),
            kind_leases: HashMap::new(),
            max_jobs: 1,
        }
    }

    /// Caps the running jobs of `kind` at `limit`.
    #[must_use]
    pub fn limit(mut self, kind: impl Into<String>, limit: u32) -> Self {
        self.limits.insert(kind.into(), limit);
        self
    }

    /// Sets the lease length.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Sets the lease length for jobs of `kind`.
    #[must_use]
    pub fn kind_lease(mut self, kind: impl Into<String>, lease: Duration) -> Self {
        self.kind_leases.insert(kind.into(), lease);
        self
    }

    /// The lease length for jobs of `kind`.
    #[must_use]
    pub fn lease_for(&self, kind: &str) -> Duration {
        self.kind_leases.get(kind).copied().unwrap_or(self.lease)
    }

    /// Sets how many jobs one claim may take.
    #[must_use]
    pub fn max_jobs(mut self, max_jobs: u32) -> Self {
        self.max_jobs = max_jobs;
        self
    }
}

/// Proof that a worker holds a job: every later write is fenced by it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    /// The job.
    pub job_id: JobId,
    /// Its kind.
    pub kind: String,
    /// The worker holding it.
    pub worker: String,
    /// The attempt this lease is for.
    pub attempt: u32,
    /// When it runs out unless renewed.
    pub expires_at: Timestamp,
    /// How long each renewal extends it, in milliseconds.
    pub length_ms: u64,
}

impl Lease {
    /// The lease length.
    #[must_use]
    pub fn length(&self) -> Duration {
        Duration::from_millis(self.length_ms)
    }
}

/// A job a worker now holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedJob {
    /// The job, as it is after the claim.
    pub job: Job,
    /// The lease to fence every later write with.
    pub lease: Lease,
}

/// What a heartbeat learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Heartbeat {
    /// The new expiry.
    pub expires_at: Timestamp,
    /// Whether someone asked to cancel the job: stop and report it cancelled.
    pub cancel_requested: bool,
}

/// How an attempt went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFailure {
    /// What happened. Redacted and cut to 500 characters before it is stored.
    pub message: String,
    /// Fail the job now instead of retrying.
    pub permanent: bool,
}

impl JobFailure {
    /// A failure that is retried while attempts remain.
    #[must_use]
    pub fn retryable(message: impl Into<String>) -> Self {
        JobFailure {
            message: message.into(),
            permanent: false,
        }
    }

    /// A failure that fails the job at once.
    #[must_use]
    pub fn permanent(message: impl Into<String>) -> Self {
        JobFailure {
            message: message.into(),
            permanent: true,
        }
    }
}

/// How an attempt ended, for [`Queue::finish`](super::Queue::finish).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The handler returned; its result, if any, is checked and stored.
    Succeeded(Option<Value>),
    /// The handler failed.
    Failed(JobFailure),
    /// The handler stopped because cancellation was asked for.
    Cancelled,
    /// The worker gives the job back without counting the attempt (shutdown).
    Released,
}

/// Where a job went after [`Queue::finish`](super::Queue::finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finished {
    /// Succeeded.
    Succeeded,
    /// Failed for good.
    Failed,
    /// Failed this attempt; queued again for `at`.
    Retrying {
        /// When it runs again.
        at: Timestamp,
    },
    /// Cancelled.
    Cancelled,
    /// Queued again, attempt not counted.
    Released,
}

/// What [`Queue::cancel`](super::Queue::cancel) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancelOutcome {
    /// The job was queued and is now cancelled.
    Cancelled,
    /// The job is running; its worker is asked to stop.
    Requested,
    /// The job had already finished; nothing changed.
    AlreadyFinished(JobStatus),
}

// ===== Reads =====

/// Which jobs [`Queue::list`](super::Queue::list) returns: newest first, a page at a
/// time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct JobFilter {
    /// Only this status.
    pub status: Option<JobStatus>,
    /// Only this kind.
    pub kind: Option<String>,
    /// Only pieces of this job.
    pub parent: Option<JobId>,
    /// Only jobs older than this one: pass the last id of the previous page.
    pub before: Option<JobId>,
    /// Page size; 50 by default, at most 1000.
    pub limit: Option<u32>,
}

impl JobFilter {
    /// Every job, newest first.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Only this status.
    #[must_use]
    pub fn status(mut self, status: JobStatus) -> Self {
        self.status = Some(status);
        self
    }

    /// Only this kind.
    #[must_use]
    pub fn kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// Only pieces of `parent`.
    #[must_use]
    pub fn parent(mut self, parent: JobId) -> Self {
        self.parent = Some(parent);
        self
    }

    /// Only jobs older than `id`.
    #[must_use]
    pub fn before(mut self, id: JobId) -> Self {
        self.before = Some(id);
        self
    }

    /// Sets the page size.
    #[must_use]
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }
}

/// How many jobs of one kind are in one status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct KindCount {
    /// The kind.
    pub kind: String,
    /// The status.
    pub status: JobStatus,
    /// How many.
    pub count: u32,
}
