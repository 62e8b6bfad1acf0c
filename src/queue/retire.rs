//! Retiring a job kind that no build will run again (its handler was removed in an
//! update): its waiting jobs would otherwise sit queued for ever, shown as waiting for
//! a handler. Compared with pausing a kind, which keeps the jobs for later, retiring
//! ends them, in one transaction, with the events a UI follows.

use super::Queue;
use crate::bus::JobDeleted;
use crate::db::Notice;
use crate::error::Result;
use crate::model::JobStatus;
use crate::store::jobs;

use super::prepare::check_kind;

/// What to do with a retired kind's jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Retire {
    /// Cancel the queued ones (they stay on record, `cancelled`).
    Cancel,
    /// Delete every one that is not running, finished ones included.
    Delete,
}

/// What [`Queue::retire_kind`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Retired {
    /// Queued jobs cancelled.
    pub cancelled: u64,
    /// Jobs deleted.
    pub deleted: u64,
    /// Running jobs asked to stop (an older build, or an agent, still runs them:
    /// they end `cancelled` when it notices).
    pub asked_to_stop: u64,
}

impl Queue {
    /// Retires `kind`: cancels its queued jobs, or deletes every one of them that is
    /// not running, in one transaction; a running one is asked to stop. Publishes a
    /// state change for each job cancelled and a [`JobDeleted`] for each deleted.
    pub fn retire_kind(&self, kind: &str, how: Retire) -> Result<Retired> {
        check_kind(kind)?;
        let db = self.db();
        let now = db.now();
        let mut retired = Retired::default();
        match how {
            Retire::Cancel => {
                let (cancelled, asked) = db.write(now, |tx, changes| {
                    let (cancelled, asked) = jobs::cancel_kind(tx, kind, now)?;
                    let count = cancelled.len() as u64;
                    let ended: Vec<_> = cancelled.iter().map(|change| change.id).collect();
                    changes.extend(cancelled);
                    for id in ended {
                        changes.extend(jobs::deps::resolve(tx, id, JobStatus::Cancelled, now)?);
                    }
                    Ok((count, asked))
                })?;
                retired.cancelled = cancelled;
                retired.asked_to_stop = asked;
            }
            Retire::Delete => {
                let (deleted, asked) = db.write(now, |tx, changes| {
                    let (deleted, queued) = jobs::delete_kind(tx, kind)?;
                    // Only a job that had not ended can leave others waiting for it.
                    for id in &queued {
                        changes.extend(jobs::deps::resolve_deleted(tx, *id, now)?);
                    }
                    let (_, asked) = jobs::cancel_kind(tx, kind, now)?;
                    Ok((deleted, asked))
                })?;
                retired.deleted = deleted.len() as u64;
                retired.asked_to_stop = asked;
                for id in deleted {
                    db.bus().publish(JobDeleted {
                        id,
                        kind: kind.to_owned(),
                        at: now,
                    });
                }
            }
        }
        if retired.asked_to_stop > 0 {
            // This process's own runner learns at its next round; others at their
            // next heartbeat.
            db.notify(Notice::Runnable);
        }
        Ok(retired)
    }
}
