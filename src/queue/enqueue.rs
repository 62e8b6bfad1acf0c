//! Adding jobs: options, checks (kind, key, payload schema, depth and size), and the
//! insert that honours dedupe keys.
//!
//! [`enqueue_in`] is the one way in for code that writes jobs together with rows of
//! its own in one transaction (the scheduler); [`Queue::enqueue_batch`] checks and
//! serialises before taking the write lock, then inserts.

use std::time::Duration;

use rusqlite::Transaction;
use serde::Serialize;
use serde_json::Value;

use super::Queue;
use crate::clock::{duration_millis, Timestamp};
use crate::db::{Changes, Db};
use crate::error::{Error, Result};
use crate::json::{drop_deep, to_value_bounded, too_deep};
use crate::kinds::KindSpec;
use crate::model::{
    Actor, Constraints, DependencyFailure, EnqueueOutcome, JobId, JobStatus, OnDuplicate, Patterns,
    Priority,
};
use crate::store::jobs::{self, Change, NewRow, NextId};

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

/// One job of a batch for [`Queue::enqueue_batch`].
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

// ===== impl Queue =====

impl Queue {
    /// Enqueues one job. With a dedupe key that a queued or running job of the same
    /// kind holds, nothing is added and that job's id comes back with `created: false`.
    ///
    /// ```
    /// # use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new())?;
    /// let first = queue.enqueue("sync", &"inbox", EnqueueOptions::new().dedupe_key("inbox"))?;
    /// let again = queue.enqueue("sync", &"inbox", EnqueueOptions::new().dedupe_key("inbox"))?;
    /// assert_eq!(first.id, again.id);
    /// assert!(first.created && !again.created);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn enqueue<P: Serialize + ?Sized>(
        &self,
        kind: &str,
        payload: &P,
        options: EnqueueOptions,
    ) -> Result<Enqueued> {
        // Bounded: a payload nested too deeply is refused before the serialisation
        // recurses past the limit.
        let payload = to_value_bounded(payload).map_err(|error| Error::InvalidPayload {
            kind: kind.to_owned(),
            reason: error.to_string(),
        })?;
        let mut done = self.enqueue_batch([NewJob {
            kind: kind.to_owned(),
            payload,
            options,
        }])?;
        Ok(done.remove(0))
    }

    /// Enqueues several jobs in one transaction: all of them or, on any error, none.
    /// Results come back in input order.
    pub fn enqueue_batch(&self, jobs: impl IntoIterator<Item = NewJob>) -> Result<Vec<Enqueued>> {
        self.enqueue_batch_within(jobs, None)
    }

    /// [`enqueue_batch`](Queue::enqueue_batch) for a caller that may only read the
    /// kinds `reach` allows (a scoped window): a parent of another kind is
    /// [`Error::JobNotFound`], exactly like a missing one, checked in the transaction
    /// that inserts.
    pub(crate) fn enqueue_batch_within(
        &self,
        jobs: impl IntoIterator<Item = NewJob>,
        reach: Option<&Patterns>,
    ) -> Result<Vec<Enqueued>> {
        let db = self.db();
        let now = db.now();
        let prepared = prepare(db, jobs, now)?;
        db.write(now, |tx, changes| {
            let mut next = NextId::new();
            prepared
                .iter()
                .map(|job| insert_within(tx, job, now, &mut next, changes, reach))
                .collect()
        })
    }
}

// ===== checks and inserts =====

/// Checks `job` and inserts it in `tx` (unless its dedupe key is taken), as
/// [`Queue::enqueue`] would: for writers that add a job in a transaction of their own.
pub(crate) fn enqueue_in(
    db: &Db,
    tx: &Transaction<'_>,
    job: NewJob,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<Enqueued> {
    let prepared = prepare(db, [job], now)?;
    insert(tx, &prepared[0], now, &mut NextId::new(), changes)
}

/// Checks and serialises new jobs before any transaction starts.
/// Checks `job` as [`Queue::enqueue`] would, without writing anything.
pub(crate) fn check_new(db: &Db, job: NewJob, now: Timestamp) -> Result<()> {
    prepare(db, [job], now).map(drop)
}

/// Checks and serialises new jobs before any transaction starts.
pub(crate) fn prepare(
    db: &Db,
    jobs: impl IntoIterator<Item = NewJob>,
    now: Timestamp,
) -> Result<Vec<PreparedJob>> {
    let options = db.kinds();
    let kinds = options.specs();
    // Depth first, before anything recursive (a schema check, a serialisation) runs;
    // a batch with a payload too deep is dropped without recursion as a whole.
    let jobs: Vec<NewJob> = jobs.into_iter().collect();
    if let Some((kind, reason)) = jobs
        .iter()
        .find_map(|job| Some((job.kind.clone(), too_deep(&job.payload)?)))
    {
        jobs.into_iter().for_each(|job| drop_deep(job.payload));
        return Err(Error::InvalidPayload { kind, reason });
    }
    jobs.into_iter()
        .map(|job| {
            check_kind(&job.kind)?;
            let spec = kinds.get(&job.kind);
            let current = spec.map_or(1, KindSpec::version);
            let payload_version = job.options.payload_version.unwrap_or(current).max(1);
            // The schema is this build's: an older payload is upgraded at its claim.
            if let Some(schema) = spec
                .and_then(|spec| spec.payload.as_ref())
                .filter(|_| payload_version >= current)
            {
                schema
                    .check(&job.payload)
                    .map_err(|reason| Error::InvalidPayload {
                        kind: job.kind.clone(),
                        reason,
                    })?;
            }
            let payload = job.payload.to_string();
            if payload.len() > options.max_payload_bytes {
                return Err(Error::InvalidPayload {
                    kind: job.kind,
                    reason: format!(
                        "{} bytes of JSON, more than the limit of {}",
                        payload.len(),
                        options.max_payload_bytes
                    ),
                });
            }
            if let Some(key) = &job.options.dedupe_key {
                check_key("dedupe_key", key)?;
            }
            let max_attempts = job
                .options
                .max_attempts
                .or_else(|| spec.and_then(|spec| spec.max_attempts))
                .unwrap_or(options.max_attempts);
            if max_attempts == 0 {
                return Err(Error::invalid_argument(
                    "max_attempts",
                    "must be at least 1",
                ));
            }
            if job.options.on_duplicate != OnDuplicate::Keep && job.options.dedupe_key.is_none() {
                return Err(Error::invalid_argument(
                    "on_duplicate",
                    "replace and debounce need a dedupe key",
                ));
            }
            let run_at = match (
                job.options.on_duplicate,
                job.options.run_at,
                job.options.delay,
            ) {
                (OnDuplicate::Debounce(_), Some(_), _) | (OnDuplicate::Debounce(_), _, Some(_)) => {
                    return Err(Error::invalid_argument(
                        "on_duplicate",
                        "a debounce sets the start itself: leave run_at and delay unset",
                    ));
                }
                (OnDuplicate::Debounce(wait), None, None) => now.saturating_add(wait),
                (_, Some(at), _) => at,
                (_, None, Some(delay)) => now.saturating_add(delay),
                (_, None, None) => now,
            };
            let timeout_ms = match job.options.timeout {
                Some(limit) if limit < Duration::from_millis(1) => {
                    return Err(Error::invalid_argument(
                        "timeout",
                        "must be at least one millisecond",
                    ));
                }
                Some(limit) => Some(duration_millis(limit)),
                None => None,
            };
            Ok(PreparedJob {
                payload_version,
                kind: job.kind,
                payload,
                priority: job.options.priority,
                run_at,
                max_attempts,
                dedupe_key: job.options.dedupe_key,
                parent: job.options.parent,
                actor: job.options.actor,
                timeout_ms,
                on_duplicate: job.options.on_duplicate,
                needs: job.options.constraints.to_needs(),
                after: job.options.after,
                after_pieces_of: job.options.after_pieces_of,
                run_on_failed_deps: job.options.on_dependency_failure == DependencyFailure::Run,
            })
        })
        .collect()
}

/// Inserts a checked job in `tx`, unless its dedupe key is taken.
pub(crate) fn insert(
    tx: &Transaction<'_>,
    job: &PreparedJob,
    now: Timestamp,
    next: &mut NextId,
    changes: &mut Changes,
) -> Result<Enqueued> {
    insert_within(tx, job, now, next, changes, None)
}

impl PreparedJob {
    /// The same job as a piece of `parent`.
    pub(crate) fn with_parent(mut self, parent: JobId) -> Self {
        self.parent = Some(parent);
        self
    }

    /// The same job, waiting for `jobs` as well.
    pub(crate) fn waiting_for(mut self, jobs: &[JobId]) -> Self {
        self.after.extend_from_slice(jobs);
        self
    }
}

/// The most jobs a job enqueued for a scoped caller (a webview) may wait for, the
/// pieces of an `after_pieces_of` parent included.
pub(crate) const MAX_SCOPED_DEPENDENCIES: usize = 10_000;

/// [`insert`], with a parent, and jobs to wait for, that must be of a kind `reach`
/// allows, unless they are at or after `own_from`: jobs this same transaction
/// created (a workflow's parent, for its pieces).
pub(crate) fn insert_within(
    tx: &Transaction<'_>,
    job: &PreparedJob,
    now: Timestamp,
    next: &mut NextId,
    changes: &mut Changes,
    reach: Option<&Patterns>,
) -> Result<Enqueued> {
    insert_reaching(tx, job, now, next, changes, reach, None)
}

/// [`insert_within`], with the ids from `own_from` on the caller's own.
pub(crate) fn insert_reaching(
    tx: &Transaction<'_>,
    job: &PreparedJob,
    now: Timestamp,
    next: &mut NextId,
    changes: &mut Changes,
    reach: Option<&Patterns>,
    own_from: Option<JobId>,
) -> Result<Enqueued> {
    let own = |id: JobId| own_from.is_some_and(|from| id >= from);
    // A job of a kind the caller may not read is not there, for it.
    let readable = |id: JobId| -> Result<()> {
        match jobs::kind_of(tx, id)? {
            Some(kind) if jobs::within(reach, &kind) => Ok(()),
            _ => Err(Error::JobNotFound(id)),
        }
    };
    if let Some(parent) = job.parent.filter(|parent| !own(*parent)) {
        readable(parent)?;
    }
    let (id, outcome, attempt) = jobs::insert(
        tx,
        &NewRow {
            kind: &job.kind,
            payload: &job.payload,
            priority: job.priority,
            run_at: job.run_at,
            max_attempts: job.max_attempts,
            dedupe_key: job.dedupe_key.as_deref(),
            parent: job.parent,
            actor: job.actor,
            timeout_ms: job.timeout_ms,
            payload_version: job.payload_version,
            on_duplicate: job.on_duplicate,
            needs: job.needs,
            now,
        },
        next,
    )?;
    let waits = !job.after.is_empty() || job.after_pieces_of.is_some();
    let mut cancelled = None;
    if outcome == EnqueueOutcome::Created && waits {
        let mut deps = job.after.clone();
        if let Some(parent) = job.after_pieces_of {
            readable(parent)?;
            let pieces = jobs::deps::pieces_of(tx, parent)?;
            // A parent with pieces the caller may not read is not there for it: it
            // learns neither their ids nor how many.
            if reach.is_some() {
                for piece in &pieces {
                    if !jobs::kind_of(tx, *piece)?.is_some_and(|kind| jobs::within(reach, &kind)) {
                        return Err(Error::JobNotFound(parent));
                    }
                }
            }
            deps.extend(pieces.into_iter().filter(|piece| *piece != id));
        }
        if deps.contains(&id) {
            return Err(Error::invalid_argument(
                "after",
                "a job cannot wait for itself",
            ));
        }
        if reach.is_some() && deps.len() > MAX_SCOPED_DEPENDENCIES {
            return Err(Error::invalid_argument(
                "after",
                format!(
                    "{} jobs to wait for are more than the most, {MAX_SCOPED_DEPENDENCIES}",
                    deps.len()
                ),
            ));
        }
        let reach = jobs::deps::Reach {
            kinds: reach,
            own_from,
        };
        match jobs::deps::attach(tx, id, &deps, job.run_on_failed_deps, now, reach)? {
            jobs::deps::Attached::Cancelled(reason) => cancelled = Some(reason),
            jobs::deps::Attached::Waiting | jobs::deps::Attached::Free => {}
        }
    }
    // A replaced job stays queued: the UI hears "queued to queued", and reads it again.
    let from = match outcome {
        EnqueueOutcome::Created => Some(None),
        EnqueueOutcome::Replaced => Some(Some(JobStatus::Queued)),
        _ => None,
    };
    if let Some(from) = from {
        changes.push(Change {
            id,
            kind: job.kind.clone(),
            from,
            to: JobStatus::Queued,
            attempt,
        });
    }
    // A job it was to wait for had already failed: it ends at once, saying which.
    if let Some(reason) = cancelled {
        changes.extend(jobs::deps::cancel_waiting(tx, id, &reason, now)?);
    }
    Ok(Enqueued {
        id,
        created: outcome == EnqueueOutcome::Created,
        outcome,
    })
}

/// A new job, checked and serialised.
#[derive(Clone)]
pub(crate) struct PreparedJob {
    kind: String,
    payload: String,
    priority: Priority,
    run_at: Timestamp,
    max_attempts: u32,
    dedupe_key: Option<String>,
    parent: Option<JobId>,
    actor: Actor,
    timeout_ms: Option<i64>,
    payload_version: u32,
    on_duplicate: OnDuplicate,
    needs: i64,
    after: Vec<JobId>,
    after_pieces_of: Option<JobId>,
    run_on_failed_deps: bool,
}

pub(crate) fn check_kind(kind: &str) -> Result<()> {
    if kind.is_empty() {
        return Err(Error::invalid_argument("kind", "must not be empty"));
    }
    if kind.len() > MAX_KIND_BYTES {
        return Err(Error::invalid_argument(
            "kind",
            format!(
                "{} bytes, more than the limit of {MAX_KIND_BYTES}",
                kind.len()
            ),
        ));
    }
    Ok(())
}

pub(crate) fn check_key(name: &'static str, key: &str) -> Result<()> {
    if key.is_empty() {
        return Err(Error::invalid_argument(name, "must not be empty"));
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(Error::invalid_argument(
            name,
            format!(
                "{} bytes, more than the limit of {MAX_KEY_BYTES}",
                key.len()
            ),
        ));
    }
    Ok(())
}
