//! Inserting jobs: the row, the next id, dedupe keys.

use rusqlite::{params, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{Actor, JobId, Priority};

/// A row to insert.
pub(crate) struct NewRow<'a> {
    pub kind: &'a str,
    pub payload: &'a str,
    pub priority: Priority,
    pub run_at: Timestamp,
    pub max_attempts: u32,
    pub dedupe_key: Option<&'a str>,
    pub parent: Option<JobId>,
    pub actor: Actor,
    pub timeout_ms: Option<i64>,
    pub payload_version: u32,
    pub now: Timestamp,
}

/// The id the next insert of a transaction takes: past every id handed out, deleted
/// ones included (see migration 6). Read once per transaction, then counted up, so a
/// batch pays for the lookup once.
pub(crate) struct NextId(Option<i64>);

impl NextId {
    /// For one transaction: it must not outlive it, nor see inserts made without it.
    pub(crate) fn new() -> Self {
        NextId(None)
    }

    fn peek(&mut self, tx: &Transaction<'_>) -> Result<i64> {
        if let Some(id) = self.0 {
            return Ok(id);
        }
        let id: i64 = tx
            .prepare_cached(
                "SELECT max(coalesce((SELECT max(id) FROM jobs), 0), \
                            coalesce((SELECT deleted FROM job_ids), 0)) + 1",
            )?
            .query_row([], |r| r.get(0))?;
        self.0 = Some(id);
        Ok(id)
    }
}

/// Inserts a job unless its dedupe key is taken; returns its id and whether it is new.
pub(crate) fn insert(
    tx: &Transaction<'_>,
    row: &NewRow<'_>,
    next: &mut NextId,
) -> Result<(JobId, bool)> {
    if let Some(key) = row.dedupe_key {
        let existing: Option<i64> = tx
            .prepare_cached(
                "SELECT id FROM jobs WHERE kind = ?1 AND dedupe_key = ?2 \
                 AND status IN ('queued', 'running')",
            )?
            .query_row(params![row.kind, key], |r| r.get(0))
            .optional()?;
        if let Some(id) = existing {
            return Ok((JobId::from_raw(id), false));
        }
    }
    let id = next.peek(tx)?;
    // Positional parameters: binding by name looks each name up on every call.
    tx.prepare_cached(
        "INSERT INTO jobs (kind, payload, status, priority, run_at, max_attempts, dedupe_key, \
         parent_id, actor, created_at, updated_at, timeout_ms, id, payload_version) \
         VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12)",
    )?
    .execute(params![
        row.kind,
        row.payload,
        row.priority.0,
        row.run_at.as_millis(),
        row.max_attempts,
        row.dedupe_key,
        row.parent.map(JobId::raw),
        row.actor.as_str(),
        row.now.as_millis(),
        row.timeout_ms,
        id,
        row.payload_version,
    ])?;
    next.0 = Some(id + 1);
    Ok((JobId::from_raw(id), true))
}
