//! Inserting checked jobs: the queue's enqueue calls, and the insert in a
//! transaction (dedupe keys honoured, a parent and the jobs to wait for checked
//! against what the caller may read, the wait attached).

use std::collections::HashSet;

use rusqlite::Transaction;
use serde::Serialize;

use super::enqueue::{EnqueueOptions, Enqueued, NewJob};
use super::prepare::{prepare, PreparedJob};
use super::Queue;
use crate::clock::Timestamp;
use crate::db::{Changes, Db};
use crate::error::{Error, Result};
use crate::json::to_value_bounded;
use crate::model::{EnqueueOutcome, JobId, JobStatus, Patterns};
use crate::store::jobs::{self, Change, NewRow, NextId};

// ===== the queue's enqueue calls =====

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
            let mut done = Vec::with_capacity(prepared.len());
            let mut rest = &prepared[..];
            while let Some(job) = rest.first() {
                // A run of plain jobs goes in with few statements; anything else alone,
                // in its place (ids follow the input's order).
                let plain = rest.iter().take_while(|job| job.is_plain()).count();
                if plain > 1 {
                    done.extend(insert_plain(tx, &rest[..plain], now, &mut next, changes)?);
                    rest = &rest[plain..];
                } else {
                    done.push(insert_within(tx, job, now, &mut next, changes, reach)?);
                    rest = &rest[1..];
                }
            }
            Ok(done)
        })
    }
}

/// Inserts plain jobs ([`PreparedJob::is_plain`]): nothing to look up first, nothing
/// to attach after; what the caller may read does not come into it.
fn insert_plain(
    tx: &Transaction<'_>,
    jobs: &[PreparedJob],
    now: Timestamp,
    next: &mut NextId,
    changes: &mut Changes,
) -> Result<Vec<Enqueued>> {
    let rows: Vec<NewRow<'_>> = jobs.iter().map(|job| job.row(now)).collect();
    let ids = jobs::insert_plain(tx, &rows, next)?;
    Ok(jobs
        .iter()
        .zip(ids)
        .map(|(job, id)| {
            changes.push(Change {
                id,
                kind: job.kind.clone(),
                from: None,
                to: JobStatus::Queued,
                attempt: 0,
                ran: None,
                deferred: false,
            });
            Enqueued {
                id,
                created: true,
                outcome: EnqueueOutcome::Created,
            }
        })
        .collect())
}

// ===== inserts within a transaction =====

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

/// The most jobs a job enqueued for a scoped caller (a webview) may wait for, the
/// pieces of an `after_pieces_of` parent included.
pub(crate) const MAX_SCOPED_DEPENDENCIES: usize = 10_000;

/// [`insert`], with a parent, and jobs to wait for, that must be of a kind `reach`
/// allows.
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

/// [`insert_within`], with the jobs in `own` the caller's own whatever their kind: the
/// ids the earlier steps of the same workflow got in this transaction (its parent, for
/// its pieces; its pieces, for the jobs after them), and nothing else.
pub(crate) fn insert_reaching(
    tx: &Transaction<'_>,
    job: &PreparedJob,
    now: Timestamp,
    next: &mut NextId,
    changes: &mut Changes,
    reach: Option<&Patterns>,
    own: Option<&HashSet<JobId>>,
) -> Result<Enqueued> {
    let own_job = |id: JobId| own.is_some_and(|own| own.contains(&id));
    // A job of a kind the caller may not read is not there, for it.
    let readable = |id: JobId| -> Result<()> {
        jobs::kind_within(tx, id, reach)?
            .map(drop)
            .ok_or(Error::JobNotFound(id))
    };
    if let Some(parent) = job.parent.filter(|parent| !own_job(*parent)) {
        readable(parent)?;
    }
    let (id, outcome, attempt) = jobs::insert(tx, &job.row(now), next)?;
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
                    if jobs::kind_within(tx, *piece, reach)?.is_none() {
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
        let reach = jobs::deps::Reach { kinds: reach, own };
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
            ran: None,
            deferred: false,
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
