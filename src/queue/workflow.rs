//! Workflows: a parent job, its pieces, and the jobs that run once the pieces have
//! ended, enqueued as one unit ([`Queue::enqueue_workflow`]), watched as one
//! ([`Queue::workflow`]) and cancelled as one ([`Queue::cancel_workflow`]).
//!
//! What makes the fan-in is [`EnqueueOptions::after`]: a job that waits for others is
//! claimed by no one until they have ended, and the transaction that ends the last of
//! them frees it (`store::jobs::deps`).

use std::collections::HashSet;

use serde::Serialize;

use super::insert::{insert_reaching, insert_within};
use super::prepare::prepare;
use super::{NewJob, Queue};
use crate::db::Notice;
use crate::error::{Error, Result};
use crate::model::{JobId, JobProgressValue, JobStatus, Patterns};
use crate::store::jobs::{self, NextId};

/// A workflow to enqueue: the parent, its pieces (each a piece of the parent), and
/// the jobs that run once every piece has ended (pieces of the parent too).
///
/// ```
/// use serde_json::json;
/// use tauri_plugin_jobs::queue::{NewJob, Queue, QueueOptions, Workflow};
///
/// # let dir = tempfile::tempdir()?;
/// # let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new())?;
/// // Import a mailbox: embed each message, then rebuild the index once.
/// let import = Workflow::new(NewJob::new("import", json!({"mailbox": "inbox"})))
///     .pieces((0..3).map(|n| NewJob::new("embed", json!({"message": n}))))
///     .then(NewJob::new("reindex", json!({})));
/// let ids = queue.enqueue_workflow(import)?;
/// assert_eq!(ids.pieces.len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Workflow {
    /// The parent job.
    pub parent: NewJob,
    /// Its pieces.
    pub pieces: Vec<NewJob>,
    /// The jobs that run once every piece has ended.
    pub then: Vec<NewJob>,
}

impl Workflow {
    /// A workflow of `parent` alone.
    pub fn new(parent: NewJob) -> Self {
        Workflow {
            parent,
            pieces: Vec::new(),
            then: Vec::new(),
        }
    }

    /// Adds pieces.
    pub fn pieces(mut self, pieces: impl IntoIterator<Item = NewJob>) -> Self {
        self.pieces.extend(pieces);
        self
    }

    /// Adds a job that runs once every piece has ended (what it does when one fails
    /// is its own options' [`on_dependency_failure`](super::EnqueueOptions::on_dependency_failure)).
    pub fn then(mut self, job: NewJob) -> Self {
        self.then.push(job);
        self
    }
}

/// The ids a workflow's jobs got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorkflowIds {
    /// The parent.
    pub parent: JobId,
    /// The pieces, in the order given.
    pub pieces: Vec<JobId>,
    /// The jobs that run after the pieces, in the order given.
    pub then: Vec<JobId>,
}

/// A workflow's state: its jobs (the parent and every piece of it) by status, and one
/// progress figure for the whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorkflowState {
    /// The parent.
    pub parent: JobId,
    /// The parent's own status.
    pub status: JobStatus,
    /// Its pieces (the jobs after them included) by status, in life order; statuses
    /// with none are left out.
    pub pieces: Vec<(JobStatus, u32)>,
    /// Pieces that have ended, of all of them: the workflow's progress bar.
    pub progress: JobProgressValue,
    /// Whether the parent and every piece have ended.
    pub ended: bool,
    /// Whether the workflow failed, as its waiting jobs' policies say: the parent
    /// failed or was cancelled, or a job of it that waited for others (the `then`
    /// jobs) failed or was cancelled, a failed piece cancelling it by default
    /// ([`DependencyFailure::Cancel`](crate::queue::DependencyFailure)). A workflow
    /// without such jobs fails when a piece fails or is cancelled.
    pub failed: bool,
}

/// What [`Queue::cancel_workflow`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorkflowCancelled {
    /// Queued jobs cancelled (the parent, pieces and the jobs waiting for them).
    pub cancelled: u32,
    /// Running ones asked to stop.
    pub asked_to_stop: u32,
}

/// What [`Queue::retry_workflow`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorkflowRetried {
    /// Failed jobs (the parent, pieces) queued again.
    pub requeued: u32,
    /// Jobs that a failure had cancelled, waiting again for what has not succeeded.
    pub waiting_again: u32,
}

/// A job's dependencies: what it waits for and what waits for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct JobDependencies {
    /// The job.
    pub id: JobId,
    /// It was enqueued to wait for other jobs (`after`, `then`, `after_pieces_of`);
    /// still true once it was freed and `waits_for` is empty, so a finished
    /// workflow's graph can tell the jobs after its pieces from the pieces.
    pub waited: bool,
    /// The jobs it waits for (ended ones included), oldest first, at most
    /// [`MAX_LISTED_DEPENDENCIES`]; none once it was freed to run, since those rows go
    /// then. A job cancelled because one of them failed keeps them.
    pub waits_for: Vec<JobId>,
    /// How many it waits for in all.
    pub waits_for_total: u32,
    /// The jobs waiting for it (or cancelled because it failed), oldest first, at
    /// most [`MAX_LISTED_DEPENDENCIES`].
    pub waited_by: Vec<JobId>,
    /// How many wait for it in all.
    pub waited_by_total: u32,
}

/// The most ids [`Queue::dependencies`] lists on each side.
pub const MAX_LISTED_DEPENDENCIES: usize = 200;

impl Queue {
    /// Enqueues a workflow in one transaction: the parent first, then each piece with
    /// the parent as its parent, then each `then` job as a piece of the parent too,
    /// waiting for every piece given here. Dedupe keys work on each step as in
    /// [`enqueue`](Queue::enqueue); nothing is written when any step is refused.
    pub fn enqueue_workflow(&self, workflow: Workflow) -> Result<WorkflowIds> {
        self.enqueue_workflow_within(workflow, None)
    }

    /// [`enqueue_workflow`](Queue::enqueue_workflow) for a caller that may read only
    /// the kinds `reach` allows: a job a step waits for of another kind is
    /// [`Error::JobNotFound`], checked in the transaction.
    pub(crate) fn enqueue_workflow_within(
        &self,
        workflow: Workflow,
        reach: Option<&Patterns>,
    ) -> Result<WorkflowIds> {
        let db = self.db();
        let now = db.now();
        let Workflow {
            parent,
            pieces,
            then,
        } = workflow;
        if parent.options.parent.is_some() {
            return Err(Error::invalid_argument(
                "parent",
                "a workflow's parent is the top of it: it names no parent of its own",
            ));
        }
        // Checked before the transaction: the pieces' parent is filled in inside it.
        let parent = prepare(db, [parent], now)?;
        let pieces = prepare(db, pieces, now)?;
        let then = prepare(db, then, now)?;
        db.write(now, |tx, changes| {
            let mut next = NextId::new();
            let top = insert_within(tx, &parent[0], now, &mut next, changes, reach)?.id;
            // The workflow's own jobs are the caller's whatever it may read: the ids
            // its steps got here (created, or kept by a dedupe key), and no others.
            let mut own = HashSet::from([top]);
            let mut piece_ids = Vec::with_capacity(pieces.len());
            for piece in &pieces {
                let piece = piece.clone().with_parent(top);
                let id =
                    insert_reaching(tx, &piece, now, &mut next, changes, reach, Some(&own))?.id;
                own.insert(id);
                piece_ids.push(id);
            }
            let mut then_ids = Vec::with_capacity(then.len());
            for job in &then {
                let job = job.clone().with_parent(top).waiting_for(&piece_ids);
                then_ids.push(
                    insert_reaching(tx, &job, now, &mut next, changes, reach, Some(&own))?.id,
                );
            }
            Ok(WorkflowIds {
                parent: top,
                pieces: piece_ids,
                then: then_ids,
            })
        })
    }

    /// The state of the workflow under `parent`: its pieces by status, its progress
    /// (pieces ended, of all) and its outcome. `None` when no such job exists.
    pub fn workflow(&self, parent: JobId) -> Result<Option<WorkflowState>> {
        self.workflow_within(parent, None)
    }

    /// [`workflow`](Queue::workflow) for a caller that may read only the kinds
    /// `reach` allows: a parent of another kind is not there, and pieces of other
    /// kinds are not counted.
    pub(crate) fn workflow_within(
        &self,
        parent: JobId,
        reach: Option<&Patterns>,
    ) -> Result<Option<WorkflowState>> {
        let (top, counts) = self.db().read(|conn| {
            let top = jobs::get(conn, parent)?;
            Ok((top, jobs::piece_counts(conn, parent)?))
        })?;
        let Some(top) = top.filter(|top| jobs::within(reach, &top.kind)) else {
            return Ok(None);
        };
        let counts: Vec<_> = counts
            .into_iter()
            .filter(|(kind, ..)| jobs::within(reach, kind))
            .collect();
        let ended_badly =
            |status: &JobStatus| matches!(status, JobStatus::Failed | JobStatus::Cancelled);
        let waiting_jobs = counts.iter().any(|(_, _, waited, _)| *waited);
        // With jobs that waited, their outcome; without, the pieces'.
        let failed = ended_badly(&top.status)
            || counts.iter().any(|(_, status, waited, n)| {
                *n > 0 && ended_badly(status) && (*waited || !waiting_jobs)
            });
        let mut pieces: Vec<(JobStatus, u32)> = Vec::new();
        for (_, status, _, n) in &counts {
            match pieces.iter_mut().find(|(s, _)| s == status) {
                Some((_, total)) => *total += n,
                None => pieces.push((*status, *n)),
            }
        }
        pieces.sort_by_key(|(status, _)| JobStatus::ALL.iter().position(|s| s == status));
        let total: u32 = pieces.iter().map(|(_, n)| n).sum();
        let done: u32 = pieces
            .iter()
            .filter(|(status, _)| status.is_finished())
            .map(|(_, n)| n)
            .sum();
        Ok(Some(WorkflowState {
            parent,
            status: top.status,
            ended: top.status.is_finished() && done == total,
            failed,
            progress: JobProgressValue {
                done: u64::from(done),
                total: Some(u64::from(total)),
            },
            pieces,
        }))
    }

    /// Cancels what has not run of the workflow under `parent`, in one transaction:
    /// the parent and its pieces (the jobs after them included) if queued; running
    /// ones are asked to stop (their workers learn it at their next heartbeat). Jobs
    /// outside the workflow that wait for a cancelled one follow their own
    /// [`DependencyFailure`](crate::queue::DependencyFailure). Jobs that ended stay as
    /// they are.
    pub fn cancel_workflow(&self, parent: JobId) -> Result<WorkflowCancelled> {
        self.cancel_workflow_within(parent, None)
    }

    /// [`cancel_workflow`](Queue::cancel_workflow) for a caller that may touch only
    /// the kinds `reach` allows, checked in the transaction: a parent of another kind
    /// is [`Error::JobNotFound`], pieces of other kinds are left as they are.
    pub(crate) fn cancel_workflow_within(
        &self,
        parent: JobId,
        reach: Option<&Patterns>,
    ) -> Result<WorkflowCancelled> {
        let db = self.db();
        let now = db.now();
        let (done, running) = db.write(now, |tx, changes| {
            if jobs::kind_within(tx, parent, reach)?.is_none() {
                return Err(Error::JobNotFound(parent));
            }
            let (cancelled, running) = jobs::deps::cancel_tree(tx, parent, now, reach)?;
            // Jobs of kinds the caller may not read that a cancel cascaded to are
            // not counted: it learns nothing of them.
            let count = cancelled
                .iter()
                .filter(|change| {
                    change.to == JobStatus::Cancelled && jobs::within(reach, &change.kind)
                })
                .count() as u32;
            changes.extend(cancelled);
            Ok((count, running))
        })?;
        for id in &running {
            db.notify(Notice::CancelRequested(*id));
        }
        Ok(WorkflowCancelled {
            cancelled: done,
            asked_to_stop: running.len() as u32,
        })
    }

    /// Retries the workflow under `parent`, in one transaction: its failed jobs (the
    /// parent, pieces) go back to the queue as [`retry_now`](Queue::retry_now) puts
    /// them, and each of its jobs that a failure cancelled
    /// ([`DependencyFailure::Cancel`](crate::queue::DependencyFailure)) waits again,
    /// for those of its dependencies that have not succeeded, and then runs. A job
    /// cancelled for itself (by [`cancel`](Queue::cancel) or
    /// [`cancel_workflow`](Queue::cancel_workflow)) stays cancelled, and so does one
    /// that waits for a job still failed or cancelled. Publishes each change.
    pub fn retry_workflow(&self, parent: JobId) -> Result<WorkflowRetried> {
        self.retry_workflow_within(parent, None)
    }

    /// [`retry_workflow`](Queue::retry_workflow) within `reach`, checked in the
    /// transaction, as [`cancel_workflow_within`](Queue::cancel_workflow_within).
    pub(crate) fn retry_workflow_within(
        &self,
        parent: JobId,
        reach: Option<&Patterns>,
    ) -> Result<WorkflowRetried> {
        let db = self.db();
        let now = db.now();
        let done = db.write(now, |tx, changes| {
            if jobs::kind_within(tx, parent, reach)?.is_none() {
                return Err(Error::JobNotFound(parent));
            }
            let done = jobs::deps::retry_tree(tx, parent, now, reach)?;
            changes.extend(done.changes);
            Ok(WorkflowRetried {
                requeued: done.requeued,
                waiting_again: done.restored,
            })
        });
        match done {
            Err(Error::Sqlite(error))
                if error.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) =>
            {
                Err(Error::invalid_argument(
                    "parent",
                    format!(
                        "workflow {parent} cannot run again: the dedupe key of a job in it \
                         is held by another queued or running job"
                    ),
                ))
            }
            other => other,
        }
    }

    /// What the job `id` waits for and what waits for it (see [`JobDependencies`]).
    /// `None` when no such job exists.
    pub fn dependencies(&self, id: JobId) -> Result<Option<JobDependencies>> {
        self.dependencies_within(id, None)
    }

    /// [`dependencies`](Queue::dependencies) for a caller that may read only the
    /// kinds `reach` allows: a job of another kind is not there, nor are the ids of
    /// jobs of other kinds.
    pub(crate) fn dependencies_within(
        &self,
        id: JobId,
        reach: Option<&Patterns>,
    ) -> Result<Option<JobDependencies>> {
        self.db().read(|conn| {
            if jobs::kind_within(conn, id, reach)?.is_none() {
                return Ok(None);
            }
            let (waited, (waits_for, waits_for_total), (waited_by, waited_by_total)) =
                jobs::deps::dependencies(conn, id, MAX_LISTED_DEPENDENCIES, reach)?;
            Ok(Some(JobDependencies {
                id,
                waited,
                waits_for,
                waits_for_total,
                waited_by,
                waited_by_total,
            }))
        })
    }
}
