//! SQL for `job_signals` (migration 21): signals sent to a job and the waits for them
//! its handler began.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::Fence;
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{JobId, JobStatus};

/// A job's row for one signal name, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SignalRow {
    /// What was sent (JSON), if it was.
    pub payload: Option<String>,
    pub sent_at: Option<Timestamp>,
    /// The wait's deadline, once the handler began waiting.
    pub deadline: Option<Timestamp>,
    /// An attempt saw the deadline pass with nothing sent: the wait is over.
    pub timed_out: bool,
}

/// The row of job `id` for signal `name`.
pub(crate) fn read(conn: &Connection, id: JobId, name: &str) -> Result<Option<SignalRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT payload, sent_at, deadline, timed_out FROM job_signals \
             WHERE job_id = ?1 AND name = ?2",
        )?
        .query_row(params![id.raw(), name], |r| {
            Ok(SignalRow {
                payload: r.get(0)?,
                sent_at: r.get::<_, Option<i64>>(1)?.map(Timestamp::from_millis),
                deadline: r.get::<_, Option<i64>>(2)?.map(Timestamp::from_millis),
                timed_out: r.get(3)?,
            })
        })
        .optional()?)
}

/// Where a job stands for a sender: its kind and status, and the signal it waits for.
pub(crate) fn target(
    tx: &Transaction<'_>,
    id: JobId,
) -> Result<Option<(String, JobStatus, Option<String>)>> {
    Ok(tx
        .prepare_cached("SELECT kind, status, awaits_signal FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| {
            Ok((r.get(0)?, super::status_from(r, 1)?, r.get(2)?))
        })
        .optional()?)
}

/// What [`send`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Stored; `woke`: the job was waiting for it and may run now.
    Stored { woke: bool },
    /// A signal of that name was sent before: the first one stays.
    Before,
    /// The job's wait for it timed out: too late.
    WaitOver,
}

/// Stores signal `name` for job `id` (unfinished: the caller checked) and, when the
/// job waits for it, brings its start to `now`.
pub(crate) fn send(
    tx: &Transaction<'_>,
    id: JobId,
    name: &str,
    payload: &str,
    now: Timestamp,
) -> Result<Sent> {
    if let Some(row) = read(tx, id, name)? {
        if row.payload.is_some() {
            return Ok(Sent::Before);
        }
        if row.timed_out {
            return Ok(Sent::WaitOver);
        }
    }
    tx.prepare_cached(
        "INSERT INTO job_signals (job_id, name, payload, sent_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (job_id, name) DO UPDATE SET payload = excluded.payload, \
         sent_at = excluded.sent_at",
    )?
    .execute(params![id.raw(), name, payload, now.as_millis()])?;
    let woke = tx
        .prepare_cached(
            "UPDATE jobs SET has_extras = 1, \
             run_at = CASE WHEN status = 'queued' AND awaits_signal = ?2 THEN min(run_at, ?3) \
                      ELSE run_at END \
             WHERE id = ?1 RETURNING coalesce(status = 'queued' AND awaits_signal = ?2, 0)",
        )?
        .query_row(params![id.raw(), name, now.as_millis()], |r| r.get(0))?;
    Ok(Sent::Stored { woke })
}

/// Notes, for the attempt `fence` holds, that its handler waits for signal `name`
/// until `deadline` (a deadline noted before stays); whether the fence held.
pub(crate) fn begin_wait(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    name: &str,
    deadline: Timestamp,
) -> Result<bool> {
    if super::fenced(tx, fence)?.is_none() {
        return Ok(false);
    }
    tx.prepare_cached(
        "INSERT INTO job_signals (job_id, name, deadline) VALUES (?1, ?2, ?3) \
         ON CONFLICT (job_id, name) DO UPDATE SET deadline = coalesce(deadline, excluded.deadline)",
    )?
    .execute(params![fence.id.raw(), name, deadline.as_millis()])?;
    tx.prepare_cached("UPDATE jobs SET has_extras = 1 WHERE id = ?1 AND has_extras = 0")?
        .execute([fence.id.raw()])?;
    Ok(true)
}

/// Notes, for the attempt `fence` holds, that the wait for `name` timed out (unless a
/// signal came meanwhile); the row as it stands then, or `None` when the fence did not
/// hold.
pub(crate) fn time_out(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    name: &str,
) -> Result<Option<SignalRow>> {
    if super::fenced(tx, fence)?.is_none() {
        return Ok(None);
    }
    tx.prepare_cached(
        "UPDATE job_signals SET timed_out = 1 WHERE job_id = ?1 AND name = ?2 \
         AND payload IS NULL",
    )?
    .execute(params![fence.id.raw(), name])?;
    read(tx, fence.id, name)
}
