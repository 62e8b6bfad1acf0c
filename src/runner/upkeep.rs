//! Between rounds of claims: storing progress, renewing leases a third of the way
//! through, acting on cancellations and lost leases, and the hourly sweeps
//! (retention, ended processes, the history).

use std::sync::atomic::Ordering;

use super::{Interrupt, Runner, PRUNE_EVERY, PRUNE_SLICE};
use crate::clock::duration_millis;
use crate::error::{Error, Result};
use crate::locks::lock;
use crate::queue::Lease;

impl Runner {
    /// Stores lines attempts logged; a failure loses them, logged, and fails nothing.
    fn store_logs(&self, logs: &[(crate::model::JobId, String, Vec<crate::queue::PendingLine>)]) {
        if logs.is_empty() {
            return;
        }
        let keep = self.inner.settings.log_lines;
        if let Err(error) = self.inner.queue.store_logs(logs, keep) {
            tracing::warn!(%error, "could not store what jobs logged");
        }
    }

    /// Stores what the attempts that ended logged (before their outcomes are written).
    pub(super) fn store_ended_logs(&self) {
        let logs = std::mem::take(&mut *lock(&self.inner.ended_logs));
        self.store_logs(&logs);
    }

    /// Keeps what an attempt that ended logged, for the write of its outcome.
    pub(super) fn keep_ended_logs(
        inner: &super::Inner,
        progress: &super::progress::AttemptProgress,
    ) {
        if let Some(lines) = progress.take_logs(None) {
            lock(&inner.ended_logs).push(lines);
        }
    }

    /// Acts on cancellations asked for through this queue handle, renews leases that
    /// are a third of the way through (on the injected clock), interrupts handlers
    /// whose job was cancelled elsewhere or whose lease was lost, and deletes finished
    /// jobs past retention once an hour of clock time.
    ///
    /// Blocks on SQLite: call it from a test or a blocking context.
    pub fn maintain(&self) -> Result<()> {
        let now = self.now();
        let progress: Vec<(Lease, u64, Option<u64>)> = lock(&self.inner.running)
            .values()
            .filter_map(|job| {
                let (done, total) = job.progress.take_due(now)?;
                Some((job.lease.clone(), done, total))
            })
            .collect();
        if !progress.is_empty() {
            if let Err(error) = self.inner.queue.store_progress(&progress) {
                tracing::warn!(%error, "could not store job progress");
            }
        }
        // Lines logged a store interval ago or more, of every running attempt.
        let logs: Vec<_> = lock(&self.inner.running)
            .values()
            .filter_map(|job| job.progress.take_logs(Some(now)))
            .collect();
        self.store_logs(&logs);
        let due: Vec<Lease> = lock(&self.inner.running)
            .values()
            .filter(|job| {
                job.interrupt.is_some()
                    && now.duration_since(job.renewed_at) >= job.lease.length() / 3
            })
            .map(|job| job.lease.clone())
            .collect();
        self.renew(due);

        let last = self.inner.last_prune.load(Ordering::Relaxed);
        if now.as_millis().saturating_sub(last) >= duration_millis(PRUNE_EVERY) {
            let retention = self.inner.settings.retention;
            let done = match retention {
                // A slice per round: a backlog of old jobs (a week's, at the first start
                // after an update) never holds up the runner's claims for long.
                Some(retention) => {
                    let slice = std::time::Instant::now() + PRUNE_SLICE;
                    match self.inner.queue.prune_until(retention, Some(slice)) {
                        Ok((pruned, done)) => {
                            if pruned > 0 {
                                tracing::debug!(
                                    pruned,
                                    done,
                                    "deleted finished jobs past retention"
                                );
                            }
                            done
                        }
                        Err(error) => {
                            tracing::warn!(%error, "retention sweep failed");
                            true
                        }
                    }
                }
                None => true,
            };
            if done {
                self.inner
                    .last_prune
                    .store(now.as_millis(), Ordering::Relaxed);
                // The rows of processes that claimed and ended since.
                if retention.is_some() {
                    if let Err(error) = self.inner.queue.forget_ended_processes() {
                        tracing::warn!(%error, "could not forget ended processes");
                    }
                }
                if let Some(keep) = self.inner.settings.history {
                    if let Err(error) = self.inner.queue.compact_history(keep) {
                        tracing::warn!(%error, "could not compact the job history");
                    }
                }
            }
        }
        Ok(())
    }

    fn renew(&self, leases: Vec<Lease>) {
        let now = self.now();
        for lease in leases {
            match self.inner.queue.heartbeat(&lease) {
                Ok(beat) => {
                    if let Some(job) = lock(&self.inner.running).get_mut(&lease.job_id) {
                        job.renewed_at = now;
                        job.lease.expires_at = beat.expires_at;
                    }
                    if beat.cancel_requested {
                        self.interrupt(lease.job_id, Interrupt::Cancel);
                    }
                }
                Err(Error::LostLease { .. }) => self.interrupt(lease.job_id, Interrupt::LostLease),
                Err(error) => {
                    tracing::warn!(job = %lease.job_id, %error, "lease renewal failed; will retry");
                }
            }
        }
    }
}
