//! What the queue logs once a transaction has committed: what an operator of a desktop
//! app needs, and no more. A job that failed for good (WARN, with its kind, id, attempts
//! and redacted error, read from its row), a retry scheduled (DEBUG), a lease taken back
//! from a worker that stopped renewing or whose process is gone (INFO). Logged after
//! the commit, never inside the transaction, which may be retried or rolled back.
//! Compared with the bus, which tells pages every change, these lines are for people.

use super::lease::Lease;
use super::outcome::{Deferral, Finished, Outcome};
use super::Queue;
use crate::error::Result;
use crate::model::{sanitize_error, JobId, JobStatus};
use crate::store::jobs::{self, Change};

impl Queue {
    /// Logs the jobs `changes` ended `failed`: one WARN line each, from the row (a
    /// caller's lease says nothing about the job that is not checked against it).
    pub(super) fn log_failed(&self, changes: &[Change]) {
        let mut failed: Vec<JobId> = changes
            .iter()
            .filter(|change| change.to == JobStatus::Failed)
            .map(|change| change.id)
            .collect();
        if failed.is_empty() {
            return;
        }
        failed.sort_unstable();
        failed.dedup();
        for id in failed {
            match self.db().read(|conn| jobs::get(conn, id)) {
                Ok(Some(job)) if job.status == JobStatus::Failed => tracing::warn!(
                    job = %id,
                    kind = %job.kind,
                    attempts = job.attempts,
                    max_attempts = job.max_attempts,
                    error = %job.last_error.as_deref().map(sanitize_error).unwrap_or_default(),
                    "job failed for good"
                ),
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(job = %id, %error, "job failed for good (its row could not be read)")
                }
            }
        }
    }

    /// Logs the retries a batch of finishes scheduled: one DEBUG line each.
    pub(super) fn log_retries(
        batch: &[(Lease, Outcome, Option<String>)],
        results: &[Result<Finished>],
    ) {
        for ((lease, outcome, _), result) in batch.iter().zip(results) {
            match (outcome, result) {
                (Outcome::Failed(failure), Ok(Finished::Retrying { at })) => {
                    let error = sanitize_error(&failure.message);
                    tracing::debug!(job = %lease.job_id, attempt = lease.attempt, %error, retry_at = %at, "retry scheduled");
                }
                (Outcome::Deferred(deferral), Ok(Finished::Deferred { at })) => {
                    let (why, said) = match deferral {
                        Deferral::Offline { message } => {
                            ("offline: the kind waits for the network", message)
                        }
                        Deferral::Later { reason, .. } => ("deferred by its handler", reason),
                        Deferral::Kind { reason, .. } => ("the service throttles its kind", reason),
                        Deferral::Sleep { step, .. } => ("a durable sleep of its handler", step),
                        Deferral::Signal { name, .. } => ("waiting for a signal", name),
                    };
                    let said = sanitize_error(said);
                    tracing::debug!(job = %lease.job_id, kind = %lease.kind, %said, until = %at, "{why}");
                }
                _ => {}
            }
        }
    }

    /// Logs the leases a sweep took back: one INFO line each (a job that thereby ended
    /// failed is also logged by [`log_failed`](Queue::log_failed)).
    pub(super) fn log_reclaimed(reclaimed: &[Change]) {
        for change in reclaimed
            .iter()
            .filter(|change| change.from == Some(JobStatus::Running))
        {
            tracing::info!(
                job = %change.id,
                kind = %change.kind,
                attempt = change.attempt,
                now = %change.to,
                "lease taken back: its worker stopped renewing it, or its process is gone"
            );
        }
    }
}
