//! What adding a job takes and gives: the options, a new job, what an enqueue did,
//! and the limits on names. The checks (kind, key, payload schema, depth and size)
//! are in `prepare`; the queue's enqueue calls and the insert that honours dedupe
//! keys in `insert`.
//!
//! [`enqueue_in`](super::insert::enqueue_in) is the one way in for code that writes
//! jobs together with rows of its own in one transaction (the scheduler);
//! [`Queue::enqueue_batch`](super::Queue::enqueue_batch) checks and serialises before
//! taking the write lock, then inserts.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::clock::Timestamp;
use crate::model::{
    Actor, Constraints, DependencyFailure, EnqueueOutcome, JobId, OnDuplicate, Priority,
};

/// The longest kind name, in bytes.
pub const MAX_KIND_BYTES: usize = 128;
/// The longest dedupe key or worker id, in bytes.
pub const MAX_KEY_BYTES: usize = 512;

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
    pub parent: Option<JobId>,
    /// Who asked; [`Actor::System`] by default.
    pub actor: Actor,
    /// A time limit for each attempt, overriding the handler's; see
    /// [`Handler::timeout`](crate::runner::Handler::timeout).
    pub timeout: Option<Duration>,
    /// How long the job may wait for the network before it fails, overriding its
    /// kind's; see [`EnqueueOptions::max_offline`].
    pub max_offline: Option<Duration>,
    /// The version of the payload; the version the kind's spec in this process says
    /// by default, else 1. A payload of an older version than the spec's is not
    /// checked against its schema here: it is upgraded when it is claimed.
    pub payload_version: Option<u32>,
    /// What happens when a job of the same kind already holds the dedupe key: kept
    /// (the default), replaced, or debounced. Needs a dedupe key unless it is `Keep`.
    pub on_duplicate: OnDuplicate,
    /// What this job needs of the machine before it starts (beside its kind's); see
    /// [`Constraints`].
    pub constraints: Constraints,
    /// Jobs that must end before this one may start (each must exist).
    pub after: Vec<JobId>,
    /// Every piece of this job (jobs naming it as their parent, enqueued before this
    /// one) must end before this one may start.
    pub after_pieces_of: Option<JobId>,
    /// What happens when a job this one waits for fails or is cancelled.
    pub on_dependency_failure: DependencyFailure,
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

    /// Sets the payload's version (see [`KindSpec::payload_version`](crate::queue::KindSpec::payload_version)).
    #[must_use]
    pub fn payload_version(mut self, version: u32) -> Self {
        self.payload_version = Some(version.max(1));
        self
    }

    /// Limits each attempt to `limit`; an attempt still running then fails with a
    /// timeout error and is retried like any failure.
    #[must_use]
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Fails the job once it has waited for the network for `limit` or more, counted
    /// from the end of its first attempt that found the network gone (a handler's
    /// [`JobError::offline`](crate::runner::JobError::offline)); an attempt that gets
    /// through starts the count again. Overrides the kind's
    /// [`Handler::max_offline`](crate::runner::Handler::max_offline); without either,
    /// a job waits for the network as long as it takes. Checked when an attempt finds
    /// the network gone: a job that never ran is not failed by it.
    #[must_use]
    pub fn max_offline(mut self, limit: Duration) -> Self {
        self.max_offline = Some(limit);
        self
    }

    /// Sets what happens when a job already holds the dedupe key.
    #[must_use]
    pub fn on_duplicate(mut self, on_duplicate: OnDuplicate) -> Self {
        self.on_duplicate = on_duplicate;
        self
    }

    /// Sets what the job needs of the machine before it starts (a charger, an
    /// unmetered network, an idle user), beside what its kind needs.
    #[must_use]
    pub fn constraints(mut self, constraints: Constraints) -> Self {
        self.constraints = constraints;
        self
    }

    /// Makes the job wait for `jobs` to end: it is claimed by no one until they have
    /// (each must exist; one that already ended counts at once). Frees it in the
    /// transaction that ends the last of them; nothing polls.
    #[must_use]
    pub fn after(mut self, jobs: impl IntoIterator<Item = JobId>) -> Self {
        self.after.extend(jobs);
        self
    }

    /// Makes the job wait for every piece of `parent` enqueued before it (the fan-in
    /// of a workflow: "rebuild the index once every message is embedded").
    #[must_use]
    pub fn after_pieces_of(mut self, parent: JobId) -> Self {
        self.after_pieces_of = Some(parent);
        self
    }

    /// Sets what happens when a job this one waits for fails or is cancelled:
    /// [`DependencyFailure::Cancel`] (the default) or [`DependencyFailure::Run`].
    #[must_use]
    pub fn on_dependency_failure(mut self, policy: DependencyFailure) -> Self {
        self.on_dependency_failure = policy;
        self
    }
}

/// One job of a batch for [`Queue::enqueue_batch`](super::Queue::enqueue_batch).
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    /// Picks the handler; 1 to [`MAX_KIND_BYTES`] bytes.
    pub kind: String,
    /// The handler's input, checked against the kind's schema when one is registered.
    pub payload: Value,
    /// Priority, delay, dedupe key and the rest; all defaulted.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Enqueued {
    /// The new job, or the existing one holding the dedupe key.
    pub id: JobId,
    /// `false` when a job with the same dedupe key was already queued or running and
    /// no job was added.
    pub created: bool,
    /// What happened: created, kept, replaced, or a follow-up after a running job.
    pub outcome: EnqueueOutcome,
}

impl Enqueued {
    /// A job just added (`created`), or one that held the key and was kept.
    pub(crate) fn from_parts(id: JobId, created: bool) -> Self {
        let outcome = if created {
            EnqueueOutcome::Created
        } else {
            EnqueueOutcome::Kept
        };
        Enqueued {
            id,
            created,
            outcome,
        }
    }
}
