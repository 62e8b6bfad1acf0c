//! SQL for `job_logs` (migration 21): the lines a job's handler logged, the last few of
//! each job kept.

use rusqlite::{params, Connection, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::JobId;

/// A line as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogRow {
    pub seq: u64,
    pub at: Timestamp,
    pub attempt: u32,
    pub level: String,
    pub text: String,
}

/// Appends `lines` (time, attempt, level, text; already redacted) to job `id`'s log
/// and keeps its last `keep`; the lines as numbered.
pub(crate) fn append(
    tx: &Transaction<'_>,
    id: JobId,
    lines: &[(Timestamp, u32, &str, &str)],
    keep: u32,
) -> Result<Vec<LogRow>> {
    let mut next: u64 = tx
        .prepare_cached("SELECT coalesce(max(seq), 0) FROM job_logs WHERE job_id = ?1")?
        .query_row([id.raw()], |r| r.get::<_, i64>(0))?
        .max(0) as u64;
    let mut insert = tx.prepare_cached(
        "INSERT INTO job_logs (job_id, seq, at, attempt, level, text) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut rows = Vec::with_capacity(lines.len());
    for &(at, attempt, level, text) in lines {
        next += 1;
        insert.execute(params![
            id.raw(),
            next as i64,
            at.as_millis(),
            attempt,
            level,
            text
        ])?;
        rows.push(LogRow {
            seq: next,
            at,
            attempt,
            level: level.to_owned(),
            text: text.to_owned(),
        });
    }
    tx.prepare_cached("DELETE FROM job_logs WHERE job_id = ?1 AND seq <= ?2")?
        .execute(params![id.raw(), next as i64 - i64::from(keep)])?;
    tx.prepare_cached("UPDATE jobs SET has_extras = 1 WHERE id = ?1 AND has_extras = 0")?
        .execute([id.raw()])?;
    Ok(rows)
}

/// Job `id`'s lines after `after` (their `seq`), oldest first.
pub(crate) fn of_job(conn: &Connection, id: JobId, after: u64) -> Result<Vec<LogRow>> {
    let mut statement = conn.prepare_cached(
        "SELECT seq, at, attempt, level, text FROM job_logs WHERE job_id = ?1 AND seq > ?2 \
         ORDER BY seq",
    )?;
    let rows = statement.query_map(params![id.raw(), after as i64], |r| {
        Ok(LogRow {
            seq: r.get::<_, i64>(0)?.max(0) as u64,
            at: Timestamp::from_millis(r.get(1)?),
            attempt: r.get::<_, i64>(2)?.clamp(0, i64::from(u32::MAX)) as u32,
            level: r.get(3)?,
            text: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
