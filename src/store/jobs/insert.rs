//! Inserting jobs: the row, the next id, dedupe keys.

use rusqlite::{params, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{Actor, EnqueueOutcome, JobId, OnDuplicate, Priority};

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
    /// How long it may wait for the network (not written by [`insert_plain`]).
    pub max_offline_ms: Option<i64>,
    pub payload_version: u32,
    pub on_duplicate: OnDuplicate,
    /// Constraints, stored (`Constraints::to_needs`).
    pub needs: i64,
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

/// Inserts a job unless its dedupe key is taken; returns its id, what happened, and
/// the attempts the job has started (0 for a new one). With a key taken,
/// `row.on_duplicate` says whether the holder is kept, replaced (queued), or given a
/// follow-up (running).
pub(crate) fn insert(
    tx: &Transaction<'_>,
    row: &NewRow<'_>,
    next: &mut NextId,
) -> Result<(JobId, EnqueueOutcome, u32)> {
    if let Some(key) = row.dedupe_key {
        let existing: Option<(i64, String, u32)> = tx
            .prepare_cached(
                "SELECT id, status, attempts FROM jobs WHERE kind = ?1 AND dedupe_key = ?2 \
                 AND status IN ('queued', 'running')",
            )?
            .query_row(params![row.kind, key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?;
        if let Some((id, status, attempts)) = existing {
            let outcome = match row.on_duplicate {
                OnDuplicate::Keep => EnqueueOutcome::Kept,
                _ if status == "queued" => {
                    replace_queued(tx, id, row)?;
                    EnqueueOutcome::Replaced
                }
                _ => {
                    set_follow_up(tx, id, row)?;
                    EnqueueOutcome::FollowUp
                }
            };
            return Ok((JobId::from_raw(id), outcome, attempts));
        }
    }
    let id = next.peek(tx)?;
    // Positional parameters: binding by name looks each name up on every call.
    tx.prepare_cached(
        "INSERT INTO jobs (kind, payload, status, priority, run_at, max_attempts, dedupe_key, \
         parent_id, actor, created_at, updated_at, timeout_ms, id, payload_version, needs, \
         max_offline_ms) \
         VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13, ?14)",
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
        row.needs,
        row.max_offline_ms,
    ])?;
    if row.needs != 0 {
        super::flag_kind_needs(tx, row.kind, row.now)?;
    }
    next.0 = Some(id + 1);
    Ok((JobId::from_raw(id), EnqueueOutcome::Created, 0))
}

/// How many rows one statement of [`insert_plain`] inserts.
const PLAIN_ROWS: usize = 32;

/// The columns [`insert_plain`] binds for each row, after `?1` (now).
const PLAIN_COLUMNS: usize = 9;

/// The multi-row insert of [`insert_plain`]: `?1` is now, then each row's columns.
fn plain_insert_sql() -> &'static str {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SQL.get_or_init(|| {
        let mut sql = String::from(
            "INSERT INTO jobs (kind, payload, status, priority, run_at, max_attempts, actor, \
             timeout_ms, id, payload_version, created_at, updated_at) VALUES ",
        );
        for row in 0..PLAIN_ROWS {
            let first = 2 + row * PLAIN_COLUMNS;
            if row > 0 {
                sql.push_str(", ");
            }
            sql.push('(');
            for column in 0..PLAIN_COLUMNS {
                // The status, a constant, comes third.
                if column == 2 {
                    sql.push_str("'queued', ");
                }
                sql.push_str(&format!("?{}, ", first + column));
            }
            sql.push_str("?1, ?1)");
        }
        sql
    })
}

/// Inserts plain jobs (no dedupe key, no parent, no constraints, no offline limit:
/// `dedupe_key`, `parent`, `needs` and `max_offline_ms` are not read), [`PLAIN_ROWS`] to a statement; returns their
/// ids, in order.
///
/// One insert statement per job spends about as much on the statement (its cursors
/// on the table and each index, its registers, its reset) as on the row; a batch of
/// enqueues shares that among many.
pub(crate) fn insert_plain(
    tx: &Transaction<'_>,
    rows: &[NewRow<'_>],
    next: &mut NextId,
) -> Result<Vec<JobId>> {
    let mut ids = Vec::with_capacity(rows.len());
    let mut chunks = rows.chunks_exact(PLAIN_ROWS);
    if chunks.len() > 0 {
        let mut statement = tx.prepare_cached(plain_insert_sql())?;
        for chunk in &mut chunks {
            statement.raw_bind_parameter(1, chunk[0].now.as_millis())?;
            for (i, row) in chunk.iter().enumerate() {
                let id = next.peek(tx)?;
                let at = 2 + i * PLAIN_COLUMNS;
                statement.raw_bind_parameter(at, row.kind)?;
                statement.raw_bind_parameter(at + 1, row.payload)?;
                statement.raw_bind_parameter(at + 2, row.priority.0)?;
                statement.raw_bind_parameter(at + 3, row.run_at.as_millis())?;
                statement.raw_bind_parameter(at + 4, row.max_attempts)?;
                statement.raw_bind_parameter(at + 5, row.actor.as_str())?;
                statement.raw_bind_parameter(at + 6, row.timeout_ms)?;
                statement.raw_bind_parameter(at + 7, id)?;
                statement.raw_bind_parameter(at + 8, row.payload_version)?;
                next.0 = Some(id + 1);
                ids.push(JobId::from_raw(id));
            }
            statement.raw_execute()?;
        }
    }
    for row in chunks.remainder() {
        ids.push(insert(tx, row, next)?.0);
    }
    Ok(ids)
}

/// A queued job takes `row`'s payload, priority and payload version; a debounce also
/// moves its start (to `row.run_at`, now + the delay).
fn replace_queued(tx: &Transaction<'_>, id: i64, row: &NewRow<'_>) -> Result<()> {
    let debounced = matches!(row.on_duplicate, OnDuplicate::Debounce(_));
    // What its steps returned was another payload's work (the same payload again
    // keeps them). A job without steps has no row here: the seek finds nothing.
    tx.prepare_cached(
        "DELETE FROM job_steps WHERE job_id = ?1 AND EXISTS \
         (SELECT 1 FROM jobs WHERE id = ?1 AND payload IS NOT ?2)",
    )?
    .execute(params![id, row.payload])?;
    tx.prepare_cached(
        "UPDATE jobs SET payload = ?2, priority = ?3, payload_version = ?4, \
         run_at = CASE WHEN ?5 THEN ?6 ELSE run_at END, updated_at = ?7, \
         needs = ?8 | (needs & ?9), max_offline_ms = ?10 WHERE id = ?1",
    )?
    .execute(params![
        id,
        row.payload,
        row.priority.0,
        row.payload_version,
        debounced,
        row.run_at.as_millis(),
        row.now.as_millis(),
        row.needs,
        // A job that waits for others keeps waiting: only its constraints change.
        crate::model::WAITING_FOR_JOBS,
        row.max_offline_ms,
    ])?;
    if row.needs != 0 {
        super::flag_kind_needs(tx, row.kind, row.now)?;
    }
    Ok(())
}

/// What a running job's follow-up run will be, kept on its row until it leaves
/// `running` (migration 10).
#[derive(serde::Serialize, serde::Deserialize)]
struct FollowUp {
    payload: String,
    priority: i32,
    payload_version: u32,
    /// From the moment the running job ends; `None` to start at once.
    delay_ms: Option<i64>,
    max_attempts: u32,
    actor: String,
    timeout_ms: Option<i64>,
    /// Its constraints, stored (absent: none).
    #[serde(default)]
    needs: i64,
    /// How long it may wait for the network (absent: its kind's limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_offline_ms: Option<i64>,
}

fn set_follow_up(tx: &Transaction<'_>, id: i64, row: &NewRow<'_>) -> Result<()> {
    // A debounce's wait, or a delay the enqueue asked for, counts from the end of the
    // running job.
    let delay = row.run_at.as_millis().saturating_sub(row.now.as_millis());
    let delay_ms = (delay > 0).then_some(delay);
    let follow_up = FollowUp {
        payload: row.payload.to_owned(),
        priority: row.priority.0,
        payload_version: row.payload_version,
        delay_ms,
        max_attempts: row.max_attempts,
        actor: row.actor.as_str().to_owned(),
        timeout_ms: row.timeout_ms,
        needs: row.needs,
        max_offline_ms: row.max_offline_ms,
    };
    let text = serde_json::to_string(&follow_up).expect("a follow-up serialises");
    tx.prepare_cached("UPDATE jobs SET follow_up = ?2 WHERE id = ?1")?
        .execute(params![id, text])?;
    Ok(())
}

/// The job a follow-up was kept on, as it is after leaving `running`.
struct Holder {
    follow_up: String,
    status: String,
    kind: String,
    key: Option<String>,
    parent: Option<i64>,
    attempts: u32,
    run_at: i64,
}

/// Queues the follow-up a job that just left `running` was given, in the transaction
/// that moved it: a new job under the same key when it ended, or its payload taken
/// over when it went back to the queue. Returns the change to publish.
pub(crate) fn take_follow_up(
    tx: &Transaction<'_>,
    id: JobId,
    now: Timestamp,
) -> Result<Option<super::Change>> {
    let found = tx
        .prepare_cached(
            "SELECT follow_up, status, kind, dedupe_key, parent_id, attempts, run_at \
             FROM jobs WHERE id = ?1 AND follow_up IS NOT NULL",
        )?
        .query_row([id.raw()], |r| {
            Ok(Holder {
                follow_up: r.get(0)?,
                status: r.get(1)?,
                kind: r.get(2)?,
                key: r.get(3)?,
                parent: r.get(4)?,
                attempts: r.get(5)?,
                run_at: r.get(6)?,
            })
        })
        .optional()?;
    let Some(Holder {
        follow_up: text,
        status,
        kind,
        key,
        parent,
        attempts,
        run_at,
    }) = found
    else {
        return Ok(None);
    };
    tx.prepare_cached("UPDATE jobs SET follow_up = NULL WHERE id = ?1")?
        .execute([id.raw()])?;
    // Written by this build's set_follow_up: unreadable means a damaged row, which
    // loses the follow-up and nothing else.
    let Ok(follow_up) = serde_json::from_str::<FollowUp>(&text) else {
        tracing::warn!(job = id.raw(), "a follow-up run could not be read; dropped");
        return Ok(None);
    };
    let start = Timestamp::from_millis(
        now.as_millis()
            .saturating_add(follow_up.delay_ms.unwrap_or(0).max(0)),
    );
    if status == "queued" {
        // Back in the queue (a retry, an expired lease): it runs the latest payload,
        // no earlier than its retry was due.
        let start = start.as_millis().max(run_at);
        tx.prepare_cached(
            "UPDATE jobs SET payload = ?2, priority = ?3, payload_version = ?4, run_at = ?5, \
             needs = ?6 | (needs & ?7) WHERE id = ?1",
        )?
        .execute(params![
            id.raw(),
            follow_up.payload,
            follow_up.priority,
            follow_up.payload_version,
            start,
            follow_up.needs,
            crate::model::WAITING_FOR_JOBS,
        ])?;
        if follow_up.needs != 0 {
            super::flag_kind_needs(tx, &kind, now)?;
        }
        return Ok(Some(super::Change {
            id,
            kind,
            from: Some(crate::model::JobStatus::Queued),
            to: crate::model::JobStatus::Queued,
            attempt: attempts,
            ran: None,
            deferred: false,
        }));
    }
    let actor = follow_up.actor.parse().unwrap_or(Actor::System);
    let (new, _, _) = insert(
        tx,
        &NewRow {
            kind: &kind,
            payload: &follow_up.payload,
            priority: Priority(follow_up.priority),
            run_at: start,
            max_attempts: follow_up.max_attempts,
            dedupe_key: key.as_deref(),
            parent: parent.map(JobId::from_raw),
            actor,
            timeout_ms: follow_up.timeout_ms,
            max_offline_ms: follow_up.max_offline_ms.filter(|&ms| ms > 0),
            payload_version: follow_up.payload_version,
            on_duplicate: OnDuplicate::Keep,
            needs: follow_up.needs,
            now,
        },
        &mut NextId::new(),
    )?;
    Ok(Some(super::Change {
        id: new,
        kind,
        from: None,
        to: crate::model::JobStatus::Queued,
        attempt: 0,
        ran: None,
        deferred: false,
    }))
}
