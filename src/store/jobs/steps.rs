//! SQL for `job_steps` (migration 21): the steps a job's attempts finished and the
//! durable sleeps they began, and the results a waiting job reads of the jobs it
//! waited for (`jobs.inputs`).

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::Fence;
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{JobId, JobStatus};

/// A step as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepRow {
    pub name: String,
    pub attempt: u32,
    pub started_at: Timestamp,
    pub finished_at: Timestamp,
    /// What the step returned, as JSON; `None` for a sleep.
    pub output: Option<String>,
    /// A durable sleep's end.
    pub sleep_until: Option<Timestamp>,
    /// Its place in the job's steps, when the caller knows it (an attempt that read
    /// them); `None`: after the last recorded (a read of them all).
    pub seq: Option<u64>,
}

/// What [`record`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// The step is recorded.
    Done,
    /// The attempt no longer holds the job's lease: nothing was written.
    LostLease,
    /// A step of that name was recorded already (by an earlier attempt): it stays.
    AlreadyThere,
}

/// Records `step` for the attempt `fence` holds, in one statement fenced like every
/// write of an attempt: a stale attempt (its lease run out and the job claimed
/// again) writes nothing. A step already recorded under the name is never
/// overwritten.
pub(crate) fn record(tx: &Transaction<'_>, fence: &Fence<'_>, step: &StepRow) -> Result<Recorded> {
    let inserted = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO job_steps \
             (job_id, name, seq, attempt, started_at, finished_at, output, sleep_until) \
             SELECT ?1, ?5, CASE WHEN ?10 IS NOT NULL THEN ?10 ELSE \
             (SELECT coalesce(max(seq), 0) + 1 FROM job_steps WHERE job_id = ?1) END, \
             ?3, ?6, ?7, ?8, ?9 WHERE EXISTS (SELECT 1 FROM jobs \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?4)",
        )?
        .execute(params![
            fence.id.raw(),
            fence.worker,
            fence.attempt,
            fence.token,
            step.name,
            step.started_at.as_millis(),
            step.finished_at.as_millis(),
            step.output,
            step.sleep_until.map(Timestamp::as_millis),
            step.seq.map(|seq| seq as i64),
        ])?;
    if inserted == 1 {
        // Its steps go with it (the trigger of migration 21 reads the flag). A step
        // recorded is progress: workers that died before it do not count towards
        // `max_lease_expiries` ("died N times in a row" without getting anywhere).
        tx.prepare_cached(
            "UPDATE jobs SET has_extras = 1, lease_expiries = 0 WHERE id = ?1 \
             AND (has_extras = 0 OR lease_expiries > 0)",
        )?
        .execute([fence.id.raw()])?;
        return Ok(Recorded::Done);
    }
    Ok(if super::fenced(tx, fence)?.is_some() {
        Recorded::AlreadyThere
    } else {
        Recorded::LostLease
    })
}

/// The steps of job `id`, in the order they were recorded.
pub(crate) fn of_job(conn: &Connection, id: JobId) -> Result<Vec<StepRow>> {
    let mut statement = conn.prepare_cached(
        "SELECT name, attempt, started_at, finished_at, output, sleep_until FROM job_steps \
         WHERE job_id = ?1 ORDER BY seq",
    )?;
    let rows = statement.query_map([id.raw()], |r| {
        Ok(StepRow {
            name: r.get(0)?,
            attempt: r.get::<_, i64>(1)?.clamp(0, i64::from(u32::MAX)) as u32,
            started_at: Timestamp::from_millis(r.get(2)?),
            finished_at: Timestamp::from_millis(r.get(3)?),
            output: r.get(4)?,
            sleep_until: r.get::<_, Option<i64>>(5)?.map(Timestamp::from_millis),
            seq: None,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How one job a waiting job waited for ended, as its result reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputRow {
    pub id: JobId,
    /// `None`: the job is gone (deleted since).
    pub found: Option<(String, JobStatus, Option<String>, Option<String>)>,
}

/// The jobs job `id` waited for, in the order its enqueue named them, with their
/// kind, status, result (JSON) and last error; `None` when it waited for none.
pub(crate) fn inputs_of(conn: &Connection, id: JobId) -> Result<Option<Vec<InputRow>>> {
    let inputs: Option<Option<String>> = conn
        .prepare_cached("SELECT inputs FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| r.get(0))
        .optional()?;
    let Some(Some(inputs)) = inputs else {
        return Ok(None);
    };
    let mut statement = conn.prepare_cached(
        "SELECT e.value, j.kind, j.status, j.result, j.last_error \
         FROM json_each(?1) AS e LEFT JOIN jobs AS j ON j.id = e.value ORDER BY e.key",
    )?;
    let rows = statement.query_map([inputs], |r| {
        let id = JobId::from_raw(r.get(0)?);
        let kind: Option<String> = r.get(1)?;
        Ok(match kind {
            None => InputRow { id, found: None },
            Some(kind) => InputRow {
                id,
                found: Some((kind, super::status_from(r, 2)?, r.get(3)?, r.get(4)?)),
            },
        })
    })?;
    Ok(Some(rows.collect::<rusqlite::Result<_>>()?))
}
