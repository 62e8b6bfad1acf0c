//! What an operator does to single jobs from a UI: run one again now, delete one that
//! finished. (Pausing a kind is in `settings`.)

use rusqlite::ErrorCode;

use super::Queue;
use crate::bus::JobDeleted;
use crate::db::Notice;
use crate::error::{Error, Result};
use crate::model::{JobId, JobStatus, Patterns};
use crate::store::jobs::{self, Change, RetryFound};

/// What [`Queue::retry_now`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum RetryOutcome {
    /// The job had failed; it is queued again, runnable now, with one attempt more
    /// than it had used if it had used them all.
    Requeued,
    /// The job was waiting out a backoff; it is runnable now.
    Rescheduled,
    /// The job was already runnable; nothing changed.
    AlreadyDue,
}

impl Queue {
    /// Runs a job again now: a failed job goes back to the queue (its dedupe key must
    /// be free), a queued job waiting out its backoff becomes runnable at once. A
    /// running, succeeded or cancelled job is refused (cancel is final), naming its
    /// status. Publishes the state change; wakes runners in this process.
    pub fn retry_now(&self, id: JobId) -> Result<RetryOutcome> {
        self.retry_now_within(id, None)
    }

    /// [`retry_now`](Queue::retry_now) for a caller that may only touch the kinds
    /// `reach` allows: checked in the same transaction, a job of another kind is
    /// [`Error::JobNotFound`].
    pub(crate) fn retry_now_within(
        &self,
        id: JobId,
        reach: Option<&Patterns>,
    ) -> Result<RetryOutcome> {
        let db = self.db();
        let now = db.now();
        let mut store = db.store();
        let found = store.write(|tx| jobs::retry(tx, id, now, reach));
        let found = match found {
            Err(Error::Sqlite(error))
                if error.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) =>
            {
                return Err(Error::invalid_argument(
                    "id",
                    format!("job {id} cannot run again: its dedupe key is held by another queued or running job"),
                ));
            }
            other => other?,
        };
        let (kind, attempt, from, outcome) = match found {
            RetryFound::Requeued(kind, attempt) => {
                (kind, attempt, JobStatus::Failed, RetryOutcome::Requeued)
            }
            RetryFound::Rescheduled(kind, attempt) => {
                (kind, attempt, JobStatus::Queued, RetryOutcome::Rescheduled)
            }
            RetryFound::AlreadyDue => return Ok(RetryOutcome::AlreadyDue),
            RetryFound::Refused(status) => {
                return Err(Error::invalid_argument(
                    "id",
                    format!("job {id} is {status}; only a failed job or one waiting out its backoff runs again"),
                ))
            }
            RetryFound::Missing => return Err(Error::JobNotFound(id)),
        };
        db.publish(
            store,
            vec![Change {
                id,
                kind,
                from: Some(from),
                to: JobStatus::Queued,
                attempt,
                ran: None,
                deferred: false,
            }],
            now,
        );
        db.notify(Notice::Runnable);
        Ok(outcome)
    }

    /// Deletes a finished job (succeeded, failed or cancelled). A queued or running
    /// one is refused: cancel it first. Publishes a
    /// [`JobDeleted`] event.
    pub fn delete(&self, id: JobId) -> Result<()> {
        self.delete_within(id, None)
    }

    /// [`delete`](Queue::delete) for a caller that may only touch the kinds `reach`
    /// allows: checked in the same transaction, a job of another kind is
    /// [`Error::JobNotFound`].
    pub(crate) fn delete_within(&self, id: JobId, reach: Option<&Patterns>) -> Result<()> {
        let db = self.db();
        let now = db.now();
        match db
            .store()
            .write(|tx| jobs::delete_finished(tx, id, reach))?
        {
            Ok(kind) => {
                db.bus().publish(JobDeleted { id, kind, at: now });
                Ok(())
            }
            Err(None) => Err(Error::JobNotFound(id)),
            Err(Some(status)) => Err(Error::invalid_argument(
                "id",
                format!(
                    "job {id} is {status}; only a finished job can be deleted (cancel it first)"
                ),
            )),
        }
    }
}
