//! Leases that ended without their holder: the sweep a claim makes first (at most
//! once a [`LEASE_SWEEP_INTERVAL`] per handle) of leases that ran out, and of those
//! whose holder, a process of this machine, is gone (`crate::holder`), and the rows of
//! `processes` that say which process holds what. Compared with `claim`, which takes
//! queued jobs, this gives back running ones.

use std::sync::atomic::Ordering;

use rusqlite::Transaction;

use super::{Queue, DEFAULT_MAX_LEASE_EXPIRIES, LEASE_SWEEP_INTERVAL};
use crate::clock::{duration_millis, Timestamp};
use crate::error::Result;
use crate::store::{history, jobs};

impl Queue {
    /// Ends every expired lease now, as a claim would first, and every lease whose
    /// holder is a process of this machine that is gone. Returns how many.
    pub fn reclaim_expired(&self) -> Result<usize> {
        let db = self.db();
        let now = db.now();
        let woke_at = db.woke_at();
        let gone = self.gone_holders()?;
        let mut store = db.store();
        let changes = store.write(|tx| {
            let changes =
                jobs::reclaim_expired(tx, now, DEFAULT_MAX_LEASE_EXPIRIES, woke_at, &gone)?;
            history::record(tx, &changes, now)?;
            Ok(changes)
        })?;
        Self::log_reclaimed(&changes);
        self.log_failed(&changes);
        let count = changes.len();
        db.publish(store, changes, now);
        Ok(count)
    }

    /// The lease holders of running jobs that are surely gone: processes of this
    /// machine that died (`crate::holder`), by their rows. Their jobs need not wait
    /// for their leases to run out.
    pub(super) fn gone_holders(&self) -> Result<Vec<i64>> {
        let holders = self.db().read(jobs::lease_processes)?;
        Ok(holders
            .into_iter()
            .filter(|(_, mark)| crate::holder::is_gone(mark))
            .map(|(id, _)| id)
            .collect())
    }

    /// Deletes the rows of processes that hold no lease and are gone (a claim wrote
    /// one per process; retention takes those of processes that ended). Returns how
    /// many went.
    pub(crate) fn forget_ended_processes(&self) -> Result<usize> {
        let ended: Vec<i64> = self
            .db()
            .read(jobs::idle_processes)?
            .into_iter()
            .filter(|(_, mark)| crate::holder::is_gone(mark))
            .map(|(id, _)| id)
            .collect();
        if !ended.is_empty() {
            self.db()
                .store()
                .write(|tx| jobs::forget_processes(tx, &ended))?;
        }
        Ok(ended.len())
    }

    /// This process's row in `processes`, written by its first claim in `tx` (`None`
    /// where the process has no mark). `known` is what an earlier claim of this
    /// handle found (0: none yet).
    pub(super) fn process_row(tx: &Transaction<'_>, known: i64) -> Result<Option<i64>> {
        match (known, crate::holder::this_process()) {
            (_, None) => Ok(None),
            (0, Some(mark)) => jobs::process_row(tx, mark).map(Some),
            (known, Some(_)) => Ok(Some(known)),
        }
    }

    /// When this handle's next claim sweeps for expired leases (see
    /// [`LEASE_SWEEP_INTERVAL`]): now or earlier if the next claim does.
    pub(crate) fn next_sweep_at(&self) -> Timestamp {
        let last = self.inner.last_reclaim.load(Ordering::Relaxed);
        Timestamp::from_millis(last.saturating_add(duration_millis(LEASE_SWEEP_INTERVAL)))
    }

    /// Whether a claim at `now` should first sweep for expired leases: at most once per
    /// [`LEASE_SWEEP_INTERVAL`] of clock time per queue handle.
    pub(super) fn sweep_due(&self, now: Timestamp) -> bool {
        let last = self.inner.last_reclaim.load(Ordering::Relaxed);
        let due = now.as_millis().saturating_sub(last) >= duration_millis(LEASE_SWEEP_INTERVAL);
        if due {
            self.inner
                .last_reclaim
                .store(now.as_millis(), Ordering::Relaxed);
        }
        due
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use crate::queue::{ClaimRequest, EnqueueOptions, Queue, QueueOptions};

    #[test]
    fn retention_forgets_the_rows_of_processes_that_ended_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
        queue.enqueue("k", &1, EnqueueOptions::new()).unwrap();
        // This process's row, written by its first claim, and held by its lease.
        assert_eq!(
            queue.claim(&ClaimRequest::new("w", ["k"])).unwrap().len(),
            1
        );
        let this = crate::holder::this_process().expect("a mark here");
        let parts: Vec<&str> = this.split('/').collect();
        // An earlier process of this place that ended, and one of another namespace.
        let ended = format!("{}/1", parts[..parts.len() - 1].join("/"));
        let elsewhere = this.replacen(parts[2], "1", 1);
        let conn = rusqlite::Connection::open(queue.path()).unwrap();
        for mark in [&ended, &elsewhere] {
            conn.execute("INSERT INTO processes (mark) VALUES (?1)", [mark])
                .unwrap();
        }
        assert_eq!(queue.forget_ended_processes().unwrap(), 1);
        let left: Vec<String> = conn
            .prepare("SELECT mark FROM processes ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|mark| mark.unwrap())
            .collect();
        assert_eq!(left, [this.to_owned(), elsewhere]);
    }
}
