//! SQL for `job_logs` (migration 21): the lines a job's handler logged, the last few of
//! each job kept.
//!
//! A row holds the lines one store took of one job (`first` to `seq`, `lines` a JSON
//! array of `[seq, at, attempt, level, text]`): a round of the runner writes one row
//! per job that logged, however many lines, where a row per line cost the runner's
//! thread an insert each. Past the cap, rows go whole, and the one row that straddles
//! it is written again without its older lines.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::Value;

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

/// The last line's number in job `id`'s log (0 for none).
fn last_seq(conn: &Connection, id: JobId) -> Result<u64> {
    Ok(conn
        .prepare_cached("SELECT coalesce(max(seq), 0) FROM job_logs WHERE job_id = ?1")?
        .query_row([id.raw()], |r| r.get::<_, i64>(0))?
        .max(0) as u64)
}

/// Appends `lines` (time, attempt, level, text; already redacted) to job `id`'s log
/// as one row, and drops the rows wholly past the last `keep` lines; the lines as
/// numbered.
pub(crate) fn append(
    tx: &Transaction<'_>,
    id: JobId,
    lines: &[(Timestamp, u32, &str, &str)],
    keep: u32,
) -> Result<Vec<LogRow>> {
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let first = last_seq(tx, id)? + 1;
    let rows: Vec<LogRow> = lines
        .iter()
        .enumerate()
        .map(|(n, &(at, attempt, level, text))| LogRow {
            seq: first + n as u64,
            at,
            attempt,
            level: level.to_owned(),
            text: text.to_owned(),
        })
        .collect();
    // Written as tuples straight to text: no `Value` per line.
    let stored: Vec<(u64, i64, u32, &str, &str)> = rows
        .iter()
        .map(|row| {
            (
                row.seq,
                row.at.as_millis(),
                row.attempt,
                row.level.as_str(),
                row.text.as_str(),
            )
        })
        .collect();
    let stored = serde_json::to_string(&stored).expect("lines serialise");
    let last = first + rows.len() as u64 - 1;
    tx.prepare_cached("INSERT INTO job_logs (job_id, seq, first, lines) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![id.raw(), last as i64, first as i64, stored])?;
    // The cap: the lines numbered up to `cut` go.
    let cut = last as i64 - i64::from(keep);
    if cut >= 1 {
        tx.prepare_cached("DELETE FROM job_logs WHERE job_id = ?1 AND seq <= ?2")?
            .execute(params![id.raw(), cut])?;
        let straddling: Option<(i64, String)> = tx
            .prepare_cached(
                "SELECT seq, lines FROM job_logs WHERE job_id = ?1 AND first <= ?2 LIMIT 1",
            )?
            .query_row(params![id.raw(), cut], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some((seq, text)) = straddling {
            let kept: Vec<Value> = match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(lines)) => lines
                    .into_iter()
                    .filter(|line| line.get(0).and_then(Value::as_i64).is_some_and(|n| n > cut))
                    .collect(),
                _ => Vec::new(),
            };
            tx.prepare_cached(
                "UPDATE job_logs SET first = ?3, lines = ?4 WHERE job_id = ?1 AND seq = ?2",
            )?
            .execute(params![
                id.raw(),
                seq,
                cut + 1,
                Value::Array(kept).to_string()
            ])?;
        }
    }
    tx.prepare_cached("UPDATE jobs SET has_extras = 1 WHERE id = ?1 AND has_extras = 0")?
        .execute([id.raw()])?;
    Ok(rows)
}

/// Job `id`'s lines after `after` (their `seq`), oldest first.
pub(crate) fn of_job(conn: &Connection, id: JobId, after: u64) -> Result<Vec<LogRow>> {
    let from = after;
    let mut statement = conn
        .prepare_cached("SELECT lines FROM job_logs WHERE job_id = ?1 AND seq > ?2 ORDER BY seq")?;
    let chunks = statement.query_map(params![id.raw(), from as i64], |r| r.get::<_, String>(0))?;
    let mut lines = Vec::new();
    for chunk in chunks {
        // A row another program wrote that is not ours to read: left out.
        let Ok(Value::Array(stored)) = serde_json::from_str::<Value>(&chunk?) else {
            continue;
        };
        lines.extend(stored.iter().filter_map(|line| {
            let seq = line.get(0)?.as_u64()?;
            (seq > from).then_some(())?;
            Some(LogRow {
                seq,
                at: Timestamp::from_millis(line.get(1)?.as_i64()?),
                attempt: u32::try_from(line.get(2)?.as_u64()?).ok()?,
                level: line.get(3)?.as_str()?.to_owned(),
                text: line.get(4)?.as_str()?.to_owned(),
            })
        }));
    }
    Ok(lines)
}
