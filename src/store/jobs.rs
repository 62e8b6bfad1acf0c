//! SQL for the `jobs` table. The queue decides; this module only reads and writes rows.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use serde_json::Value;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{
    sanitize_error, to_sql_glob, Actor, Job, JobFilter, JobId, JobProgressValue, JobStatus,
    KindCount, Patterns, Priority,
};

/// The columns of a [`Job`], in the order [`job_from_row`] reads them. A macro, so
/// that the statements built from it are constants: hot statements are looked up in
/// the statement cache by their text, and formatting that text on every call was a
/// measurable share of a claim.
macro_rules! job_columns {
    () => {
        "id, kind, payload, status, priority, run_at, attempts, max_attempts, \
         lease_owner, lease_expires_at, cancel_requested, dedupe_key, last_error, result, \
         parent_id, actor, created_at, updated_at, finished_at, started_at, timeout_ms, \
         progress_done, progress_total"
    };
}
const JOB_COLUMNS: &str = job_columns!();

/// How many queued jobs [`next_run_at`] looks at, at most.
const NEXT_RUN_SCAN: u32 = 256;

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
    pub now: Timestamp,
}

/// A state change made by a statement, for the event it becomes.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    pub id: JobId,
    pub kind: String,
    pub from: Option<JobStatus>,
    pub to: JobStatus,
    pub attempt: u32,
}

/// The fenced identity of a running attempt: who holds it, which attempt, and the
/// secret handed out with the claim.
pub(crate) struct Fence<'a> {
    pub id: JobId,
    pub worker: &'a str,
    pub attempt: u32,
    pub token: i64,
}

/// A running attempt as seen through its fence.
pub(crate) struct Attempt {
    pub kind: String,
    pub max_attempts: u32,
    pub cancel_requested: bool,
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
         parent_id, actor, created_at, updated_at, timeout_ms, id) \
         VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11)",
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
    ])?;
    next.0 = Some(id + 1);
    Ok((JobId::from_raw(id), true))
}

/// Ends every lease that expired by `now`: back to queued, or failed when out of
/// attempts, or cancelled when cancellation was asked for.
pub(crate) fn reclaim_expired(tx: &Transaction<'_>, now: Timestamp) -> Result<Vec<Change>> {
    let mut statement = tx.prepare_cached(
        "UPDATE jobs SET \
           status = CASE WHEN cancel_requested THEN 'cancelled' \
                         WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, \
           last_error = CASE WHEN cancel_requested THEN last_error \
                         WHEN attempts >= max_attempts \
                         THEN 'lease expired: the worker stopped renewing it (attempt ' || attempts || ' of ' || max_attempts || ')' \
                         ELSE last_error END, \
           finished_at = CASE WHEN cancel_requested OR attempts >= max_attempts THEN ?1 END, \
           run_at = lease_expires_at, \
           lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL, updated_at = ?1 \
         WHERE id IN (SELECT id FROM jobs INDEXED BY jobs_active \
                      WHERE status = 'running' AND lease_expires_at <= ?1) \
         RETURNING id, kind, status, attempts",
    )?;
    let rows = statement.query_map([now.as_millis()], |r| {
        Ok(Change {
            id: JobId::from_raw(r.get(0)?),
            kind: r.get(1)?,
            from: Some(JobStatus::Running),
            to: status_from(r, 2)?,
            attempt: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The cap on running jobs of `kind` stored in the file, if any, and whether the kind
/// is paused.
pub(crate) fn kind_settings(conn: &Connection, kind: &str) -> Result<(Option<u32>, bool)> {
    Ok(conn
        .prepare_cached("SELECT max_running, paused FROM kinds WHERE kind = ?1")?
        .query_row([kind], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .unwrap_or((None, false)))
}

/// Stores the cap on running jobs of `kind` (`None`: no cap).
pub(crate) fn set_kind_limit(
    tx: &Transaction<'_>,
    kind: &str,
    limit: Option<u32>,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, max_running, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (kind) DO UPDATE SET max_running = excluded.max_running, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, limit, now.as_millis()])?;
    Ok(())
}

/// Pauses or resumes `kind`: claims skip a paused kind.
pub(crate) fn set_kind_paused(
    tx: &Transaction<'_>,
    kind: &str,
    paused: bool,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, paused, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (kind) DO UPDATE SET paused = excluded.paused, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, paused, now.as_millis()])?;
    Ok(())
}

/// The paused kinds, by name.
pub(crate) fn paused_kinds(conn: &Connection) -> Result<Vec<String>> {
    let mut statement =
        conn.prepare_cached("SELECT kind FROM kinds WHERE paused = 1 ORDER BY kind")?;
    let rows = statement.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether a lease has expired by `now` (a read, no lock taken).
pub(crate) fn any_expired(conn: &Connection, now: Timestamp) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_active \
             WHERE status = 'running' AND lease_expires_at <= ?1)",
        )?
        .query_row([now.as_millis()], |r| r.get(0))?)
}

/// Whether a job of one of `kinds` is runnable at `now` (a read, no lock taken).
pub(crate) fn any_runnable(conn: &Connection, kinds: &[&str], now: Timestamp) -> Result<bool> {
    let mut statement = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_active \
         WHERE status = 'queued' AND kind = ?1 AND run_at <= ?2)",
    )?;
    for kind in kinds {
        if statement.query_row(params![kind, now.as_millis()], |r| r.get::<_, bool>(0))? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// How many jobs of `kind` are running, in every process.
pub(crate) fn running_count(conn: &Connection, kind: &str) -> Result<u32> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM jobs WHERE status = 'running' AND kind = ?1")?
        .query_row([kind], |r| r.get(0))?)
}

/// A runnable job considered by a claim, in claim order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Candidate {
    /// Negated, so that ascending order is best first.
    pub neg_priority: i64,
    pub run_at: i64,
    pub id: i64,
}

/// The best `limit` runnable jobs of `kind` at `now`, best first.
///
/// No `LIMIT ?` here: SQLite's planner peeks at a bound LIMIT, so every new binding
/// would re-prepare the statement (measured: a tenth of a claim's time). The index
/// yields rows in claim order, so reading only the first `limit` is just as cheap.
pub(crate) fn candidates(
    tx: &Transaction<'_>,
    kind: &str,
    now: Timestamp,
    limit: u32,
) -> Result<Vec<Candidate>> {
    let mut statement = tx.prepare_cached(
        "SELECT priority, run_at, id FROM jobs INDEXED BY jobs_active \
         WHERE status = 'queued' AND kind = ?1 AND run_at <= ?2 \
         ORDER BY priority DESC, run_at, id",
    )?;
    let rows = statement.query_map(params![kind, now.as_millis()], |r| {
        Ok(Candidate {
            neg_priority: -r.get::<_, i64>(0)?,
            run_at: r.get(1)?,
            id: r.get(2)?,
        })
    })?;
    Ok(rows.take(limit as usize).collect::<rusqlite::Result<_>>()?)
}

/// Marks a queued job running under `worker` until `expires_at`; returns it.
///
/// `UPDATE ... RETURNING` would do this in one statement, but SQLite keeps RETURNING
/// rows in a temporary b-tree it builds and tears down per call; an update and a
/// primary-key read are cheaper.
pub(crate) fn mark_running(
    tx: &Transaction<'_>,
    id: i64,
    worker: &str,
    token: i64,
    expires_at: Timestamp,
    now: Timestamp,
) -> Result<Job> {
    tx.prepare_cached(
        "UPDATE jobs SET status = 'running', lease_owner = ?2, lease_expires_at = ?3, \
         attempts = attempts + 1, started_at = ?4, updated_at = ?4, \
         progress_done = NULL, progress_total = NULL, lease_token = ?5 \
         WHERE id = ?1 AND status = 'queued'",
    )?
    .execute(params![
        id,
        worker,
        expires_at.as_millis(),
        now.as_millis(),
        token
    ])?;
    match read_one(tx, JobId::from_raw(id))? {
        None => Err(Error::JobNotFound(JobId::from_raw(id))),
        Some((_, Some(unreadable))) => Err(unreadable),
        Some((job, None)) => Ok(job),
    }
}

/// Fails a job whose stored JSON cannot be read; returns its attempts.
pub(crate) fn fail_unreadable(
    tx: &Transaction<'_>,
    id: JobId,
    kind: &str,
    error: &str,
    now: Timestamp,
) -> Result<u32> {
    let attempts = tx
        .prepare_cached(
            "UPDATE jobs SET status = 'failed', last_error = ?2, finished_at = ?3, updated_at = ?3, \
             lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL \
             WHERE id = ?1 RETURNING attempts",
        )?
        .query_row(params![id.raw(), error, now.as_millis()], |r| r.get(0))?;
    tally(tx, kind, JobStatus::Failed, 1)?;
    Ok(attempts)
}

/// Keeps `job_counts` in step, in the transaction that moved the jobs: `delta` jobs of
/// `kind` entered (positive) or left (negative) the finished `status`. Queued and
/// running jobs are not tallied (they are counted from their index).
pub(crate) fn tally(tx: &Transaction<'_>, kind: &str, status: JobStatus, delta: i64) -> Result<()> {
    if status.is_finished() && delta != 0 {
        tx.prepare_cached(
            "INSERT INTO job_counts (kind, status, n) VALUES (?1, ?2, ?3) \
             ON CONFLICT (kind, status) DO UPDATE SET n = n + excluded.n",
        )?
        .execute(params![kind, status.as_str(), delta])?;
    }
    Ok(())
}

/// Reads a running attempt through its fence; `None` when the fence no longer holds.
pub(crate) fn fenced(tx: &Transaction<'_>, fence: &Fence<'_>) -> Result<Option<Attempt>> {
    Ok(tx
        .prepare_cached(
            "SELECT kind, max_attempts, cancel_requested FROM jobs \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?4",
        )?
        .query_row(
            params![fence.id.raw(), fence.worker, fence.attempt, fence.token],
            |r| {
                Ok(Attempt {
                    kind: r.get(0)?,
                    max_attempts: r.get(1)?,
                    cancel_requested: r.get(2)?,
                })
            },
        )
        .optional()?)
}

/// Stores a running attempt's progress, fenced; returns whether the fence held.
pub(crate) fn set_progress(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    done: u64,
    total: Option<u64>,
) -> Result<bool> {
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    Ok(tx
        .prepare_cached(
            "UPDATE jobs SET progress_done = ?4, progress_total = ?5 \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?6",
        )?
        .execute(params![
            fence.id.raw(),
            fence.worker,
            fence.attempt,
            clamp(done),
            total.map(clamp),
            fence.token
        ])?
        == 1)
}

/// Extends a lease; returns whether cancellation was asked for, or `None` when the
/// fence no longer holds.
pub(crate) fn renew(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    expires_at: Timestamp,
    now: Timestamp,
) -> Result<Option<bool>> {
    let changed = tx
        .prepare_cached(
            "UPDATE jobs SET lease_expires_at = ?4, updated_at = ?5 \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?6",
        )?
        .execute(params![
            fence.id.raw(),
            fence.worker,
            fence.attempt,
            expires_at.as_millis(),
            now.as_millis(),
            fence.token
        ])?;
    if changed == 0 {
        return Ok(None);
    }
    Ok(Some(
        tx.prepare_cached("SELECT cancel_requested FROM jobs WHERE id = ?1")?
            .query_row([fence.id.raw()], |r| r.get(0))?,
    ))
}

/// How a fenced running job leaves the running state.
pub(crate) enum Exit<'a> {
    Succeeded {
        result: Option<&'a str>,
    },
    Failed {
        error: &'a str,
    },
    Retry {
        error: &'a str,
        at: Timestamp,
    },
    Cancelled,
    /// Back to the queue, the attempt not counted.
    Requeued,
}

/// Moves a running job out of `running`, fenced. Returns `false` when the fence no
/// longer holds and nothing changed.
pub(crate) fn exit_running(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    kind: &str,
    exit: &Exit<'_>,
    now: Timestamp,
) -> Result<bool> {
    // ?1 id, ?2 worker, ?3 attempt, ?4 now, ?5 token; ?6 and ?7 as each statement says.
    macro_rules! fenced_update {
        ($set:literal) => {
            concat!(
                "UPDATE jobs SET ",
                $set,
                ", lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL, \
                 updated_at = ?4 \
                 WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
                 AND lease_token = ?5"
            )
        };
    }
    let id = fence.id.raw();
    let (worker, attempt, now, token) = (fence.worker, fence.attempt, now.as_millis(), fence.token);
    let changed = match exit {
        Exit::Succeeded { result } => tx
            .prepare_cached(fenced_update!(
                "status = 'succeeded', result = ?6, finished_at = ?4"
            ))?
            .execute(params![id, worker, attempt, now, token, result])?,
        Exit::Failed { error } => tx
            .prepare_cached(fenced_update!(
                "status = 'failed', last_error = ?6, finished_at = ?4"
            ))?
            .execute(params![id, worker, attempt, now, token, error])?,
        Exit::Retry { error, at } => tx
            .prepare_cached(fenced_update!(
                "status = 'queued', last_error = ?6, run_at = ?7"
            ))?
            .execute(params![
                id,
                worker,
                attempt,
                now,
                token,
                error,
                at.as_millis()
            ])?,
        Exit::Cancelled => tx
            .prepare_cached(fenced_update!("status = 'cancelled', finished_at = ?4"))?
            .execute(params![id, worker, attempt, now, token])?,
        Exit::Requeued => tx
            .prepare_cached(fenced_update!("status = 'queued', attempts = attempts - 1"))?
            .execute(params![id, worker, attempt, now, token])?,
    };
    let finished = match exit {
        Exit::Succeeded { .. } => Some(JobStatus::Succeeded),
        Exit::Failed { .. } => Some(JobStatus::Failed),
        Exit::Cancelled => Some(JobStatus::Cancelled),
        Exit::Retry { .. } | Exit::Requeued => None,
    };
    if let (1, Some(status)) = (changed, finished) {
        tally(tx, kind, status, 1)?;
    }
    Ok(changed == 1)
}

/// Whether a row of `kind` is within `reach`: the kinds a scoped caller may touch,
/// read in the same transaction as the write that follows. `None` reaches every kind.
/// A row outside it is treated exactly as a missing one.
pub(crate) fn within(reach: Option<&Patterns>, kind: &str) -> bool {
    reach.is_none_or(|patterns| patterns.allows(kind))
}

/// What cancelling found.
pub(crate) enum CancelFound {
    Cancelled(String, u32),
    Requested,
    Finished(JobStatus),
    Missing,
}

/// What retrying a job found.
pub(crate) enum RetryFound {
    /// A failed job, queued again now; its kind and attempts.
    Requeued(String, u32),
    /// A queued job waiting out a backoff, due now; its kind and attempts.
    Rescheduled(String, u32),
    /// Already runnable; nothing changed.
    AlreadyDue,
    /// In a status it cannot be retried from.
    Refused(JobStatus),
    Missing,
}

/// Runs a job again now: a failed one goes back to the queue (with one attempt more
/// than it has used, if it used them all), a queued one waiting out its backoff becomes
/// runnable now.
pub(crate) fn retry(
    tx: &Transaction<'_>,
    id: JobId,
    now: Timestamp,
    reach: Option<&Patterns>,
) -> Result<RetryFound> {
    let found: Option<(String, JobStatus, u32, i64)> = tx
        .prepare_cached("SELECT kind, status, attempts, run_at FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| {
            Ok((r.get(0)?, status_from(r, 1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let Some((kind, status, attempts, run_at)) = found.filter(|(kind, ..)| within(reach, kind))
    else {
        return Ok(RetryFound::Missing);
    };
    match status {
        JobStatus::Failed => {
            tx.prepare_cached(
                "UPDATE jobs SET status = 'queued', run_at = ?2, finished_at = NULL, \
                 max_attempts = max(max_attempts, attempts + 1), updated_at = ?2 WHERE id = ?1",
            )?
            .execute(params![id.raw(), now.as_millis()])?;
            tally(tx, &kind, JobStatus::Failed, -1)?;
            Ok(RetryFound::Requeued(kind, attempts))
        }
        JobStatus::Queued if run_at > now.as_millis() => {
            tx.prepare_cached("UPDATE jobs SET run_at = ?2, updated_at = ?2 WHERE id = ?1")?
                .execute(params![id.raw(), now.as_millis()])?;
            Ok(RetryFound::Rescheduled(kind, attempts))
        }
        JobStatus::Queued => Ok(RetryFound::AlreadyDue),
        other => Ok(RetryFound::Refused(other)),
    }
}

/// Deletes a finished job; returns its kind, or what it found instead.
pub(crate) fn delete_finished(
    tx: &Transaction<'_>,
    id: JobId,
    reach: Option<&Patterns>,
) -> Result<std::result::Result<String, Option<JobStatus>>> {
    let found: Option<(String, JobStatus)> = tx
        .prepare_cached("SELECT kind, status FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| Ok((r.get(0)?, status_from(r, 1)?)))
        .optional()?;
    match found.filter(|(kind, _)| within(reach, kind)) {
        None => Ok(Err(None)),
        Some((kind, status)) if status.is_finished() => {
            tx.prepare_cached("DELETE FROM jobs WHERE id = ?1")?
                .execute([id.raw()])?;
            tally(tx, &kind, status, -1)?;
            Ok(Ok(kind))
        }
        Some((_, status)) => Ok(Err(Some(status))),
    }
}

/// Cancels a queued job, or flags a running one.
pub(crate) fn cancel(
    tx: &Transaction<'_>,
    id: JobId,
    now: Timestamp,
    reach: Option<&Patterns>,
) -> Result<CancelFound> {
    let found: Option<(String, JobStatus, u32)> = tx
        .prepare_cached("SELECT kind, status, attempts FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| {
            Ok((r.get(0)?, status_from(r, 1)?, r.get(2)?))
        })
        .optional()?;
    let Some((kind, status, attempts)) = found.filter(|(kind, ..)| within(reach, kind)) else {
        return Ok(CancelFound::Missing);
    };
    match status {
        JobStatus::Queued => {
            tx.prepare_cached(
                "UPDATE jobs SET status = 'cancelled', finished_at = ?2, updated_at = ?2 \
                 WHERE id = ?1",
            )?
            .execute(params![id.raw(), now.as_millis()])?;
            tally(tx, &kind, JobStatus::Cancelled, 1)?;
            Ok(CancelFound::Cancelled(kind, attempts))
        }
        JobStatus::Running => {
            tx.prepare_cached(
                "UPDATE jobs SET cancel_requested = 1, updated_at = ?2 WHERE id = ?1",
            )?
            .execute(params![id.raw(), now.as_millis()])?;
            Ok(CancelFound::Requested)
        }
        finished => Ok(CancelFound::Finished(finished)),
    }
}

/// The earliest `run_at` among the first [`NEXT_RUN_SCAN`] queued jobs of `kind` in
/// claim order. Bounded on purpose: the ready index is ordered by priority first, so
/// an exact minimum would read every queued job of the kind. The runner only uses it
/// to sleep less than its poll interval.
pub(crate) fn next_run_at(conn: &Connection, kind: &str) -> Result<Option<Timestamp>> {
    let at: Option<i64> = conn
        .prepare_cached(&format!(
            "SELECT min(run_at) FROM (SELECT run_at FROM jobs INDEXED BY jobs_active \
             WHERE status = 'queued' AND kind = ?1 LIMIT {NEXT_RUN_SCAN})"
        ))?
        .query_row([kind], |r| r.get(0))?;
    Ok(at.map(Timestamp::from_millis))
}

/// Deletes finished jobs that finished before `before`, reading jobs in id order after
/// `after` and looking at no more than `batch` of them. Returns how many it deleted and
/// where the next batch starts, or `None` once done.
///
/// There is no index on `finished_at` (a page write on every finish, for an hourly
/// sweep). Ids grow with `created_at`, and a job finishes after it was created, so the
/// read stops at the first job created at or after `before`: it reads the old jobs,
/// which are mostly the ones to delete, and never the recent ones. Should the clock
/// have stepped back, a job that is past the cutoff but sits after that point waits
/// for a later sweep.
pub(crate) fn prune(
    tx: &Transaction<'_>,
    before: Timestamp,
    after: i64,
    batch: u32,
) -> Result<(u64, Option<i64>)> {
    let before = before.as_millis();
    let mut doomed = Vec::new();
    // How many of each kind and status go, for `job_counts`.
    let mut gone: Vec<(String, JobStatus, i64)> = Vec::new();
    let mut next = None;
    {
        let mut statement = tx.prepare_cached(
            "SELECT id, created_at, finished_at, kind, status FROM jobs WHERE id > ?1 ORDER BY id",
        )?;
        let mut rows = statement.query([after])?;
        let mut read = 0;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            if row.get::<_, i64>(1)? >= before {
                break;
            }
            if row.get::<_, Option<i64>>(2)?.is_some_and(|at| at < before) {
                doomed.push(id);
                let status = status_from(row, 4)?;
                let kind = row.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
                match gone.iter_mut().find(|(k, s, _)| k == kind && *s == status) {
                    Some((_, _, n)) => *n += 1,
                    None => gone.push((kind.to_owned(), status, 1)),
                }
            }
            read += 1;
            if read == batch {
                next = Some(id);
                break;
            }
        }
    }
    let mut delete = tx.prepare_cached("DELETE FROM jobs WHERE id = ?1")?;
    for id in &doomed {
        delete.execute([id])?;
    }
    for (kind, status, n) in gone {
        tally(tx, &kind, status, -n)?;
    }
    Ok((doomed.len() as u64, next))
}

/// One job by id; a row with unreadable JSON comes back marked `unreadable`.
/// A job's kind, if the job exists.
pub(crate) fn kind_of(conn: &Connection, id: JobId) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT kind FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| r.get(0))
        .optional()?)
}

pub(crate) fn get(conn: &Connection, id: JobId) -> Result<Option<Job>> {
    Ok(read_one(conn, id)?.map(|(job, _)| job))
}

/// One job by id, and why its JSON could not be read, if it could not.
fn read_one(conn: &Connection, id: JobId) -> Result<Option<(Job, Option<Error>)>> {
    Ok(conn
        .prepare_cached(concat!(
            "SELECT ",
            job_columns!(),
            " FROM jobs WHERE id = ?1"
        ))?
        .query_row([id.raw()], job_from_row)
        .optional()?)
}

/// A page of jobs, newest first, of the kinds `kinds` allows, ending early (after
/// at least one job) once the payloads and results read pass `budget` bytes.
///
/// The statement names only the filters that are set, so SQLite can pick an index:
/// failed and cancelled jobs come from `jobs_ended_badly`, queued and running ones
/// from `jobs_active`, a parent's pieces from `jobs_parent`; anything else reads the
/// table newest first until the page is full. A status is written into the SQL as a
/// constant (it is one of five words) so the planner can match a partial index.
pub(crate) fn list(
    conn: &Connection,
    filter: &JobFilter,
    limit: u32,
    kinds: &Patterns,
    budget: usize,
) -> Result<Vec<Job>> {
    if kinds.allow.is_empty() {
        // Fails closed: no allowed kind, no job.
        return Ok(Vec::new());
    }
    let parent = filter.parent.map(JobId::raw);
    let before = filter.before.map(JobId::raw);
    let actor = filter.actor.map(Actor::as_str);
    let mut params: Vec<(String, &dyn rusqlite::ToSql)> = vec![(":limit".into(), &limit)];
    let mut terms: Vec<String> = Vec::new();
    let mut index = "";
    if let Some(status) = filter.status {
        terms.push(format!("status = '{}'", status.as_str()));
        index = match status {
            JobStatus::Queued | JobStatus::Running => " INDEXED BY jobs_active",
            JobStatus::Failed | JobStatus::Cancelled => " INDEXED BY jobs_ended_badly",
            JobStatus::Succeeded => "",
        };
    }
    if let Some(kind) = &filter.kind {
        terms.push("kind = :kind".into());
        params.push((":kind".into(), kind));
    }
    if let Some(parent) = &parent {
        terms.push("parent_id = :parent".into());
        params.push((":parent".into(), parent));
    }
    if let Some(actor) = &actor {
        terms.push("actor = :actor".into());
        params.push((":actor".into(), actor));
    }
    if let Some(before) = &before {
        terms.push("id < :before".into());
        params.push((":before".into(), before));
    }
    // Patterns become GLOBs; an unscoped list (`*` allowed) names none.
    let allow: Vec<String> = if kinds.allows_any() {
        Vec::new()
    } else {
        kinds.allow.iter().map(|p| to_sql_glob(p)).collect()
    };
    let deny: Vec<String> = kinds.deny.iter().map(|p| to_sql_glob(p)).collect();
    for (negate, globs, prefix) in [("", &allow, ":a"), ("NOT ", &deny, ":d")] {
        if globs.is_empty() {
            continue;
        }
        let mut any = Vec::new();
        for (index, glob) in globs.iter().enumerate() {
            let name = format!("{prefix}{index}");
            any.push(format!("kind GLOB {name}"));
            params.push((name, glob));
        }
        terms.push(format!("{negate}({})", any.join(" OR ")));
    }
    let filters = if terms.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", terms.join(" AND "))
    };
    // A parent's pieces are few: their index beats reading the table newest first.
    if parent.is_some() && index.is_empty() {
        index = " INDEXED BY jobs_parent";
    }
    let sql =
        format!("SELECT {JOB_COLUMNS} FROM jobs{index}{filters} ORDER BY id DESC LIMIT :limit");
    let named: Vec<(&str, &dyn rusqlite::ToSql)> = params
        .iter()
        .map(|(name, value)| (name.as_str(), *value))
        .collect();
    // Not cached: a filter's many combinations would push the claim's statements out.
    let mut statement = conn.prepare(&sql)?;
    let mut rows = statement.query(named.as_slice())?;
    let (mut page, mut bytes) = (Vec::new(), 0usize);
    while let Some(row) = rows.next()? {
        // Sized from the stored text, before anything is parsed.
        let size = text_len(row, 2)? + text_len(row, 13)?;
        if !page.is_empty() && bytes.saturating_add(size) > budget {
            break;
        }
        bytes = bytes.saturating_add(size);
        page.push(job_from_row(row)?.0);
    }
    Ok(page)
}

/// The length in bytes of a text column (0 for NULL or another type).
fn text_len(row: &Row<'_>, index: usize) -> rusqlite::Result<usize> {
    Ok(match row.get_ref(index)? {
        rusqlite::types::ValueRef::Text(text) => text.len(),
        _ => 0,
    })
}

/// Job counts by kind and status, in that order. Finished jobs are counted from
/// `job_counts` (kept by triggers), queued and running ones from `jobs_active`: no
/// finished row is read, however many there are.
pub(crate) fn counts(conn: &Connection) -> Result<Vec<KindCount>> {
    let mut statement = conn.prepare_cached(
        "SELECT kind, status, n FROM job_counts WHERE n > 0 \
         UNION ALL \
         SELECT kind, status, count(*) FROM jobs INDEXED BY jobs_active \
             WHERE status = 'queued' OR status = 'running' GROUP BY status, kind",
    )?;
    let rows = statement.query_map([], |r| {
        Ok(KindCount {
            kind: r.get(0)?,
            status: status_from(r, 1)?,
            count: r.get(2)?,
        })
    })?;
    let mut counts = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    counts.sort_by(|a, b| (&a.kind, a.status.as_str()).cmp(&(&b.kind, b.status.as_str())));
    Ok(counts)
}

fn status_from(row: &Row<'_>, index: usize) -> rusqlite::Result<JobStatus> {
    let text = row.get_ref(index)?.as_str().map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, error.into())
    })?;
    text.parse().map_err(|reason: String| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, reason.into())
    })
}

/// Reads a [`Job`]. A JSON column that does not parse (a row another program wrote)
/// leaves its field empty and says why in `unreadable`; the error itself comes back too,
/// for the claim, which fails such a job.
fn job_from_row(r: &Row<'_>) -> rusqlite::Result<(Job, Option<Error>)> {
    let id = JobId::from_raw(r.get(0)?);
    let payload: String = r.get(2)?;
    let result: Option<String> = r.get(13)?;
    let actor: String = r.get(15)?;
    let mut unreadable = None;
    let mut parse = |column: &'static str, text: &str| {
        serde_json::from_str::<Value>(text)
            .map_err(|e| {
                unreadable.get_or_insert(Error::StoredJson {
                    id,
                    column,
                    reason: e.to_string(),
                });
            })
            .ok()
    };
    let payload = parse("payload", &payload).unwrap_or(Value::Null);
    let result = result.as_deref().and_then(|text| parse("result", text));
    let job = Job {
        id,
        kind: r.get(1)?,
        payload,
        status: status_from(r, 3)?,
        priority: Priority(r.get(4)?),
        run_at: Timestamp::from_millis(r.get(5)?),
        attempts: r.get(6)?,
        max_attempts: r.get(7)?,
        lease_owner: r.get(8)?,
        lease_expires_at: r.get::<_, Option<i64>>(9)?.map(Timestamp::from_millis),
        cancel_requested: r.get(10)?,
        dedupe_key: r.get(11)?,
        last_error: r.get(12)?,
        result,
        parent: r.get::<_, Option<i64>>(14)?.map(JobId::from_raw),
        actor: actor.parse().map_err(|reason: String| {
            rusqlite::Error::FromSqlConversionFailure(
                15,
                rusqlite::types::Type::Text,
                reason.into(),
            )
        })?,
        created_at: Timestamp::from_millis(r.get(16)?),
        updated_at: Timestamp::from_millis(r.get(17)?),
        finished_at: r.get::<_, Option<i64>>(18)?.map(Timestamp::from_millis),
        started_at: r.get::<_, Option<i64>>(19)?.map(Timestamp::from_millis),
        timeout_ms: r.get::<_, Option<i64>>(20)?.map(|ms| ms.max(0) as u64),
        progress: r
            .get::<_, Option<i64>>(21)?
            .map(|done| JobProgressValue {
                done: done.max(0) as u64,
                total: None,
            })
            .map(|mut progress| -> rusqlite::Result<_> {
                progress.total = r
                    .get::<_, Option<i64>>(22)?
                    .map(|total| total.max(0) as u64);
                Ok(progress)
            })
            .transpose()?,
        unreadable: unreadable
            .as_ref()
            .map(|error| sanitize_error(&error.to_string())),
    };
    Ok((job, unreadable))
}
