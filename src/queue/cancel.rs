//! Cancelling a durable job: at once while it is queued, by asking its worker while it
//! runs.

use super::Queue;
use crate::db::Notice;
use crate::error::{Error, Result};
use crate::model::{JobId, JobStatus, Patterns};
use crate::store::history;
use crate::store::jobs::{self, Change};

/// What [`Queue::cancel`] did.
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

impl Queue {
    /// Cancels a job: a queued one at once, a running one by asking its worker to stop
    /// (it learns on its next heartbeat, or sooner from the runner).
    pub fn cancel(&self, id: JobId) -> Result<CancelOutcome> {
        self.cancel_within(id, None)
    }

    /// [`cancel`](Queue::cancel) for a caller that may only touch the kinds `reach`
    /// allows (a scoped window): the kind is read in the transaction that cancels, and
    /// a job of another kind is [`Error::JobNotFound`], exactly like a missing one.
    pub(crate) fn cancel_within(
        &self,
        id: JobId,
        reach: Option<&Patterns>,
    ) -> Result<CancelOutcome> {
        let db = self.db();
        let now = db.now();
        let mut store = db.store();
        let (found, waiting) = store.write(|tx| {
            let found = jobs::cancel(tx, id, now, reach)?;
            let changes = match &found {
                jobs::CancelFound::Cancelled(kind, attempt) => {
                    let mut changes = vec![Change {
                        id,
                        kind: kind.clone(),
                        from: Some(JobStatus::Queued),
                        to: JobStatus::Cancelled,
                        attempt: *attempt,
                        ran: None,
                        deferred: false,
                    }];
                    // The jobs that waited for it are freed or cancelled with it.
                    changes.extend(jobs::deps::resolve(tx, id, JobStatus::Cancelled, now)?);
                    history::record(tx, &changes, now)?;
                    changes
                }
                _ => Vec::new(),
            };
            Ok((found, changes))
        })?;
        db.publish(store, waiting, now);
        match found {
            jobs::CancelFound::Cancelled(..) => Ok(CancelOutcome::Cancelled),
            jobs::CancelFound::Requested => {
                // No runner in this process is fine: the worker learns it from its
                // next heartbeat.
                db.notify(Notice::CancelRequested(id));
                Ok(CancelOutcome::Requested)
            }
            jobs::CancelFound::Finished(status) => Ok(CancelOutcome::AlreadyFinished(status)),
            jobs::CancelFound::Missing => Err(Error::JobNotFound(id)),
        }
    }
}
