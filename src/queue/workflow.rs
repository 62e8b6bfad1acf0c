//! Workflows: a parent job, its pieces, and the jobs that run once the pieces have
//! ended, enqueued as one unit ([`Queue::enqueue_workflow`]), watched as one
//! ([`Queue::workflow`]) and cancelled as one ([`Queue::cancel_workflow`]).
//!
//! What makes the fan-in is [`EnqueueOptions::after`]: a job that waits for others is
//! claimed by no one until they have ended, and the transaction that ends the last of
//! them frees it (`store::jobs::deps`).

use serde::Serialize;

use super::enqueue::{insert_within, prepare};
use super::{NewJob, Queue};
use crate::db::Notice;
use crate::error::{Error, Result};
use crate::model::{JobId, JobProgressValue, JobStatus};
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
    /// Whether any piece (or the parent) failed.
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

impl Queue {
    /// Enqueues a workflow in one transaction: the parent first, then each piece with
    /// the parent as its parent, then each `then` job as a piece of the parent too,
    /// waiting for every piece given here. Dedupe keys work on each step as in
    /// [`enqueue`](Queue::enqueue); nothing is written when any step is refused.
    pub fn enqueue_workflow(&self, workflow: Workflow) -> Result<WorkflowIds> {
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
            let top = insert_within(tx, &parent[0], now, &mut next, changes, None)?.id;
            let mut piece_ids = Vec::with_capacity(pieces.len());
            for piece in &pieces {
                let piece = piece.clone().with_parent(top);
                piece_ids.push(insert_within(tx, &piece, now, &mut next, changes, None)?.id);
            }
            let mut then_ids = Vec::with_capacity(then.len());
            for job in &then {
                let job = job.clone().with_parent(top).waiting_for(&piece_ids);
                then_ids.push(insert_within(tx, &job, now, &mut next, changes, None)?.id);
            }
            Ok(WorkflowIds {
                parent: top,
                pieces: piece_ids,
                then: then_ids,
            })
        })
    }

    /// The state of the workflow under `parent`: its pieces by status and its
    /// progress (pieces ended, of all). `None` when no such job exists.
    pub fn workflow(&self, parent: JobId) -> Result<Option<WorkflowState>> {
        let Some(top) = self.get(parent)? else {
            return Ok(None);
        };
        let counts = self.db().read(|conn| jobs::piece_counts(conn, parent))?;
        let total: u32 = counts.iter().map(|(_, n)| n).sum();
        let done: u32 = counts
            .iter()
            .filter(|(status, _)| status.is_finished())
            .map(|(_, n)| n)
            .sum();
        let failed = top.status == JobStatus::Failed
            || counts
                .iter()
                .any(|(status, n)| *status == JobStatus::Failed && *n > 0);
        Ok(Some(WorkflowState {
            parent,
            status: top.status,
            ended: top.status.is_finished() && done == total,
            failed,
            progress: JobProgressValue {
                done: u64::from(done),
                total: Some(u64::from(total)),
            },
            pieces: counts,
        }))
    }

    /// Cancels what has not run of the workflow under `parent`, in one transaction:
    /// the parent and its pieces (the jobs after them included) if queued; running
    /// ones are asked to stop (their workers learn it at their next heartbeat). Jobs
    /// outside the workflow that wait for a cancelled one follow their own
    /// [`DependencyFailure`](crate::queue::DependencyFailure). Jobs that ended stay as
    /// they are.
    pub fn cancel_workflow(&self, parent: JobId) -> Result<WorkflowCancelled> {
        let db = self.db();
        let now = db.now();
        let (done, running) = db.write(now, |tx, changes| {
            let (cancelled, running) = jobs::deps::cancel_tree(tx, parent, now)?;
            let count = cancelled
                .iter()
                .filter(|change| change.to == JobStatus::Cancelled)
                .count() as u32;
            changes.extend(cancelled);
            Ok((count, running))
        })?;
        for id in &running {
            db.notify(Notice::CancelRequested(*id));
        }
        if done == 0 && running.is_empty() && self.get(parent)?.is_none() {
            return Err(Error::JobNotFound(parent));
        }
        Ok(WorkflowCancelled {
            cancelled: done,
            asked_to_stop: running.len() as u32,
        })
    }
}
