//! A job waiting for others counts them down as they succeed: one at a time as each
//! ends, or, for the successes a runner writes in one transaction, each waiting job
//! once for all of them ([`Countdown`]).

use rusqlite::{params, Transaction};

use super::{forget_count, forget_edges};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{JobId, JobStatus, WAITING_FOR_JOBS};
use crate::store::jobs::Change;

/// What [`dependents_of`] runs.
const DEPENDENTS: &str = "SELECT job_id FROM job_deps WHERE dep_id = ?1";

/// The jobs that wait for `dep` (its edges stay until each of them is freed).
pub(super) fn dependents_of(tx: &Transaction<'_>, dep: JobId) -> Result<Vec<JobId>> {
    read_dependents(&mut *tx.prepare_cached(DEPENDENTS)?, dep)
}

fn read_dependents(statement: &mut rusqlite::Statement<'_>, dep: JobId) -> Result<Vec<JobId>> {
    let rows = statement.query_map([dep.raw()], |r| Ok(JobId::from_raw(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `n` of the jobs `dependent` waits for succeeded (or ended in a way it runs after
/// anyway): `n` fewer to wait for, and when none is left it is free to run, its edges
/// done with. The same as `n` single steps: one that finds the count at 1 frees it,
/// and the steps after that find nothing to count. A dependent that is not queued and
/// waiting (cancelled meanwhile) is left as it is. Returns the change of a freed one.
///
/// The count is `dependent`'s row in `job_counts` (migration 17): every transaction
/// that ends a job writes that table's page anyway, so counting down costs no page
/// of its own.
pub(super) fn count_down(
    tx: &Transaction<'_>,
    dependent: JobId,
    n: u32,
    now: Timestamp,
) -> Result<Option<Change>> {
    // Nearly always: fewer to wait for, and more left.
    let counted = tx
        .prepare_cached(
            "UPDATE job_counts SET n = n - ?2 WHERE kind = '' AND status = ?1 AND n > ?2",
        )?
        .execute(params![dependent.raw(), n])?;
    if counted == 1 {
        return Ok(None);
    }
    // The last ones: the count goes, and the job is free to run.
    if !forget_count(tx, dependent)? {
        return Ok(None);
    }
    let freed = tx
        .prepare_cached(
            "UPDATE jobs SET needs = needs & ~?2, updated_at = ?3, run_at = max(run_at, ?3) \
             WHERE id = ?1 AND status = 'queued' AND needs & ?2 <> 0",
        )?
        .execute(params![dependent.raw(), WAITING_FOR_JOBS, now.as_millis()])?;
    if freed == 0 {
        return Ok(None);
    }
    forget_edges(tx, dependent)?;
    let (kind, attempt): (String, u32) = tx
        .prepare_cached("SELECT kind, attempts FROM jobs WHERE id = ?1")?
        .query_row([dependent.raw()], |r| Ok((r.get(0)?, r.get(1)?)))?;
    // It is runnable from now (or its own later start): its wait in the history
    // counts from here, and it queues behind the jobs that were runnable before it.
    // The runners hear of it as of any job queued now.
    Ok(Some(Change {
        id: dependent,
        kind,
        from: Some(JobStatus::Queued),
        to: JobStatus::Queued,
        attempt,
        ran: None,
        deferred: false,
    }))
}

/// Successes not yet counted against the jobs waiting for them, in one transaction.
///
/// A job waiting for many (a workflow's last step) would otherwise have its row
/// written once per piece that ends; the runner ends several pieces per transaction,
/// so each waiting job is written once for all of them when the countdown is
/// [`flush`](Countdown::flush)ed. Whatever else the transaction does to jobs must
/// come after a flush, so that it sees them counted, as it would have one by one.
/// The read of each success's dependents is prepared once for all of them (looking a
/// statement up in the connection's cache hashes its text each time).
#[derive(Default)]
pub(crate) struct Countdown<'t> {
    pending: Vec<(JobId, u32)>,
    dependents: Option<rusqlite::CachedStatement<'t>>,
}

impl<'t> Countdown<'t> {
    /// Counts the success of `dep`, whose own row already says it ended and no
    /// longer has dependents, against each job waiting for it, at the next flush.
    pub(crate) fn succeeded(&mut self, tx: &'t Transaction<'_>, dep: JobId) -> Result<()> {
        let statement = match &mut self.dependents {
            Some(statement) => statement,
            empty => empty.insert(tx.prepare_cached(DEPENDENTS)?),
        };
        for dependent in read_dependents(&mut *statement, dep)? {
            match self.pending.iter_mut().find(|(id, _)| *id == dependent) {
                Some((_, n)) => *n += 1,
                None => self.pending.push((dependent, 1)),
            }
        }
        Ok(())
    }

    /// Writes what was counted: each waiting job once; returns the changes of the ones
    /// it freed.
    pub(crate) fn flush(&mut self, tx: &Transaction<'_>, now: Timestamp) -> Result<Vec<Change>> {
        let mut changes = Vec::new();
        for (dependent, n) in std::mem::take(&mut self.pending) {
            changes.extend(count_down(tx, dependent, n, now)?);
        }
        Ok(changes)
    }
}
