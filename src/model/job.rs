//! Durable jobs as stored in `raw.db`: ids, statuses, priorities, actors, the job
//! record, and what a read asks for. What callers pass to the queue (enqueue options,
//! claims, leases, outcomes) lives with the queue in [`crate::queue`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Constraints, JobStep, Timestamp, WaitingFor};

// ===== JobId =====

/// A durable job's id: the row id in `raw.db`.
///
/// Ids count up from 1 and stay far below 2^53, so they cross IPC as plain JavaScript
/// numbers without loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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

    /// The raw row id (also `i64::from(id)`).
    #[must_use]
    pub const fn raw(self) -> i64 {
        self.0
    }
}

/// `i64::from(id)`, `let n: i64 = id.into()`: the row id, as [`JobId::raw`].
impl From<JobId> for i64 {
    fn from(id: JobId) -> i64 {
        id.0
    }
}

/// `JobId::from(7)`: a row id, as [`JobId::from_raw`].
impl From<i64> for JobId {
    fn from(raw: i64) -> JobId {
        JobId(raw)
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Job {
    /// Its row id in `raw.db`; ids count up from 1.
    pub id: JobId,
    /// Picks the handler; 1 to 128 bytes.
    pub kind: String,
    /// The handler's input, as enqueued.
    pub payload: Value,
    /// Where it is in its life; see [`JobStatus`] for the moves.
    pub status: JobStatus,
    /// Higher is claimed first.
    pub priority: Priority,
    /// When it became, or becomes, runnable.
    pub run_at: Timestamp,
    /// Attempts started so far, the running one included; a release at shutdown does
    /// not count.
    pub attempts: u32,
    /// Attempts allowed in all, at least 1.
    pub max_attempts: u32,
    /// The worker holding the lease, while running.
    pub lease_owner: Option<String>,
    /// When the lease runs out unless renewed, while running.
    pub lease_expires_at: Option<Timestamp>,
    /// Whether cancellation was asked for while it ran.
    pub cancel_requested: bool,
    /// While the job is queued or running, enqueueing another job of the same kind with
    /// this key returns this one.
    pub dedupe_key: Option<String>,
    /// The error of its last failed attempt, redacted and cut to 500 characters;
    /// cleared when an attempt succeeds (the attempts' errors stay in `errors`).
    pub last_error: Option<String>,
    /// What the handler returned, once succeeded; empty when it returned nothing.
    pub result: Option<Value>,
    /// The job this one is a piece of.
    pub parent: Option<JobId>,
    /// Who asked for it: a person, an agent or the app.
    pub actor: Actor,
    /// When it was enqueued.
    pub created_at: Timestamp,
    /// When any column last changed (a lease renewal included).
    pub updated_at: Timestamp,
    /// When it reached `succeeded`, `failed` or `cancelled`.
    pub finished_at: Option<Timestamp>,
    /// When the current attempt started (the last one, once finished); empty before
    /// the first claim. With `finished_at` or the clock, a UI shows durations.
    pub started_at: Option<Timestamp>,
    /// The time limit of each attempt, in milliseconds, when the job set its own;
    /// otherwise the handler's applies.
    pub timeout_ms: Option<u64>,
    /// How long it may wait for the network before it fails, in milliseconds, when the
    /// job set its own ([`EnqueueOptions::max_offline`](crate::queue::EnqueueOptions::max_offline));
    /// otherwise its kind's applies.
    pub max_offline_ms: Option<u64>,
    /// Set while a queued job waits out a snooze its handler asked for
    /// ([`JobError::retry_after`](crate::runner::JobError::retry_after), a
    /// `Retry-After`): when it runs again (its `run_at`). Not a failed attempt:
    /// `whyWaiting` says "the service asked it to wait", not "backing off".
    pub snoozed_until: Option<Timestamp>,
    /// Set while a queued job waits out a durable sleep of its handler
    /// ([`JobContext::sleep`](crate::runner::JobContext::sleep)): when it ends. Its
    /// steps say which ([`Job::steps`]). While it waits for a signal
    /// ([`awaits_signal`](Job::awaits_signal)), the wait's deadline.
    #[serde(default)]
    pub sleeping_until: Option<Timestamp>,
    /// Set while a queued job waits for a signal
    /// ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)):
    /// its name. It runs when the signal comes, or at `sleeping_until`.
    #[serde(default)]
    pub awaits_signal: Option<String>,
    /// The steps its handler finished and the durable sleeps it began, in the order
    /// they ended ([`JobContext::step`](crate::runner::JobContext::step)): names,
    /// when, how long; what they returned stays in `raw.db` for the next attempts.
    /// Read by `get` (the webview's `getJob`), empty in lists.
    #[serde(default)]
    pub steps: Vec<JobStep>,
    /// The current (or last) attempt's latest progress as the handler reported it,
    /// stored at most once a second while it runs and with its outcome; empty until it
    /// reports any, and again when a new attempt starts.
    pub progress: Option<JobProgressValue>,
    /// Why the stored payload or result could not be read (a row another program
    /// wrote); that field is then empty. A list shows such a row instead of failing.
    pub unreadable: Option<String>,
    /// The version of its payload (1 unless its kind declares versions).
    pub payload_version: u32,
    /// Queued, and this process registers nothing for its kind (no handler, and not
    /// declared as run by agents): it waits for a build that has a handler, or for
    /// its kind to be retired.
    pub handler_missing: bool,
    /// Queued, and its kind is at its rate limit ([`RateLimit`](super::RateLimit)): no job of it starts
    /// before this time.
    #[serde(default)]
    pub rate_limited_until: Option<Timestamp>,
    /// What the job itself needs of the machine (its kind may need more).
    #[serde(default)]
    pub constraints: Constraints,
    /// Queued, and the machine does not meet what it (or its kind) needs, or other
    /// jobs have to end first: what it waits for ("a charger"). Empty otherwise.
    #[serde(default)]
    pub waiting_for: Vec<WaitingFor>,
    /// What the handler or the service said when it held the kind (`waiting_for`
    /// holds `network` or `service`): "connection refused", "HTTP 429". Redacted and
    /// cut like an error.
    #[serde(default)]
    pub held_because: Option<String>,
    /// How many of the jobs it waits for ([`EnqueueOptions::after`](crate::queue::EnqueueOptions::after))
    /// have not ended yet.
    #[serde(default)]
    pub waiting_on_jobs: u32,
    /// What each attempt that did not succeed said, oldest first (the last 20): a job
    /// that succeeded on its third attempt keeps the first two's errors here, and its
    /// detail shows them as a timeline, with its deferrals (offline probes, snoozes,
    /// throttles: [`AttemptError::outcome`]), which counted no attempt.
    #[serde(default)]
    pub errors: Vec<AttemptError>,
}

/// An attempt of a durable job that did not succeed: one that failed, or one its
/// handler deferred (offline, a snooze, a throttle of its kind), which counted no
/// attempt. Which, when it ended, what it said (redacted, cut to 500 characters), and
/// for a deferral until when the job waited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AttemptError {
    /// The attempt, from 1. An attempt whose worker vanished (its lease ran out) is
    /// here too, saying so; it does not count against the job's attempts, nor does a
    /// deferral (the next attempt has the same number).
    pub attempt: u32,
    /// When it ended (the last probe of a run of offline ones).
    pub at: Timestamp,
    /// What it said.
    pub error: String,
    /// How it ended: `failed` (entries written before deferrals were kept say
    /// nothing, and are failures).
    #[serde(default)]
    pub outcome: AttemptOutcome,
    /// A deferral's end: when the job could run again (a snooze's or a throttle's
    /// end, the kind's next probe while offline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Timestamp>,
    /// Offline: how many probes in a row found the network gone (one entry for the
    /// run of them, `at` the last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<u32>,
}

/// How an attempt that did not succeed ended ([`AttemptError::outcome`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum AttemptOutcome {
    /// It failed (retried while attempts remain): `JobError::retryable` or
    /// `::permanent`, a panic, a time limit, a vanished worker.
    #[default]
    Failed,
    /// It found the network gone (`JobError::offline`): the kind waited for it.
    Offline,
    /// The service asked this job to wait (`JobError::retry_after`).
    Snoozed,
    /// The service throttled the whole kind (`JobError::throttle_kind`).
    Throttled,
    /// Its handler began a durable sleep (`JobContext::sleep`): it went on after it.
    Slept,
    /// Its handler waited for a signal (`JobContext::wait_for_signal`).
    Signal,
}

/// How far a durable job's attempt is, as its handler reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobProgressValue {
    /// Steps done.
    pub done: u64,
    /// Steps in all, when known.
    pub total: Option<u64>,
}

impl JobProgressValue {
    /// Whole percent done (0 to 100), when the total is known.
    #[must_use]
    pub fn percent(&self) -> Option<u8> {
        self.total.map(|total| percent(self.done, total))
    }
}

/// Whole percent of `done` in `total`, 0 to 100; a total of 0 is done.
pub(crate) fn percent(done: u64, total: u64) -> u8 {
    if total == 0 {
        return 100;
    }
    (u128::from(done.min(total)) * 100 / u128::from(total)) as u8
}

/// Why a finished job gave no typed result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JobEnded {
    /// It has not finished.
    #[error("job {0} has not finished")]
    NotFinished(JobId),
    /// It failed; its last error (redacted).
    #[error("job {id} failed: {error}")]
    Failed {
        /// The job.
        id: JobId,
        /// Its last error.
        error: String,
    },
    /// It was cancelled.
    #[error("job {0} was cancelled")]
    Cancelled(JobId),
    /// It succeeded, but its result is not of the type asked for.
    #[error("job {id} succeeded, but its result does not fit: {reason}")]
    Mismatch {
        /// The job.
        id: JobId,
        /// The parser's message.
        reason: String,
    },
}

impl Job {
    /// What a finished job returned, typed: its result (`null` when the handler
    /// returned nothing) when it succeeded, else why not.
    pub fn result_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, JobEnded> {
        match self.status {
            JobStatus::Succeeded => T::deserialize(self.result.as_ref().unwrap_or(&Value::Null))
                .map_err(|error| JobEnded::Mismatch {
                    id: self.id,
                    reason: error.to_string(),
                }),
            JobStatus::Failed => Err(JobEnded::Failed {
                id: self.id,
                error: self.last_error.clone().unwrap_or_default(),
            }),
            JobStatus::Cancelled => Err(JobEnded::Cancelled(self.id)),
            _ => Err(JobEnded::NotFinished(self.id)),
        }
    }

    /// The payload as a typed value.
    pub fn payload_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&self.payload)
    }
}

// ===== Reads =====

/// Which jobs [`Queue::list`](crate::queue::Queue::list) returns: newest first, a page at a
/// time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct JobFilter {
    /// Only this status.
    pub status: Option<JobStatus>,
    /// Only this kind.
    pub kind: Option<String>,
    /// Only pieces of this job.
    pub parent: Option<JobId>,
    /// Only jobs enqueued by this actor.
    pub actor: Option<Actor>,
    /// Only jobs older than this one: pass the last id of the previous page.
    pub before: Option<JobId>,
    /// Page size; 50 by default, at most 1000. A page also ends early (after at least
    /// one job) once its payloads and results pass about 4 MiB: a short page is not
    /// the end of the list, an empty one is.
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

    /// Only jobs enqueued by `actor`.
    #[must_use]
    pub fn actor(mut self, actor: Actor) -> Self {
        self.actor = Some(actor);
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct KindCount {
    /// The kind counted.
    pub kind: String,
    /// The status counted.
    pub status: JobStatus,
    /// Jobs of that kind in that status.
    pub count: u32,
    /// The count is of queued jobs whose kind this process registers nothing for (no
    /// handler, not declared as run by agents): they wait for a build that has one.
    #[serde(default)]
    pub handler_missing: bool,
    /// The count is of queued jobs whose kind is at its rate limit: none starts
    /// before this time.
    #[serde(default)]
    pub rate_limited_until: Option<Timestamp>,
    /// The count is of queued jobs whose kind needs what the machine does not offer
    /// now (jobs' own constraints are on each job).
    #[serde(default)]
    pub waiting_for: Vec<WaitingFor>,
    /// What the handler or the service said when it held the kind (`waiting_for`
    /// holds `network` or `service`): "connection refused", "HTTP 429". Redacted and
    /// cut like an error.
    #[serde(default)]
    pub held_because: Option<String>,
}
