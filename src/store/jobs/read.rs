//! Reading jobs: one, a page (scoped, bounded in rows and bytes), counts, and a row
//! read back into a [`Job`].

use rusqlite::{Connection, OptionalExtension, Row};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{
    sanitize_error, to_sql_glob, Actor, AttemptError, AttemptOutcome, Constraints, Job, JobFilter,
    JobId, JobProgressValue, JobStatus, KindCount, Patterns, Priority,
};

use super::{status_from, JOB_COLUMNS};

/// A job's kind, if the job exists.
pub(crate) fn kind_of(conn: &Connection, id: JobId) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT kind FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| r.get(0))
        .optional()?)
}

/// The kind of job `id` when it exists and `reach` allows its kind: a job of another
/// kind is not there, for a caller that may not read it.
pub(crate) fn kind_within(
    conn: &Connection,
    id: JobId,
    reach: Option<&Patterns>,
) -> Result<Option<String>> {
    Ok(kind_of(conn, id)?.filter(|kind| super::within(reach, kind)))
}

/// One job by id; a row with unreadable JSON comes back marked `unreadable`.
pub(crate) fn get(conn: &Connection, id: JobId) -> Result<Option<Job>> {
    Ok(read_one(conn, id)?.map(|(job, _)| job))
}

/// One job by id, and why its JSON could not be read, if it could not.
pub(super) fn read_one(conn: &Connection, id: JobId) -> Result<Option<(Job, Option<Error>)>> {
    Ok(conn
        .prepare_cached(concat!(
            "SELECT ",
            job_columns!(),
            " FROM jobs WHERE id = ?1"
        ))?
        .query_row([id.raw()], job_from_row)
        .optional()?)
}

/// [`read_one`]'s row for the claim that just marked it running, and whether jobs
/// wait for it (what the end of the attempt will have to resolve).
pub(super) fn read_claimed(r: &Row<'_>) -> rusqlite::Result<(Job, Option<Error>, bool)> {
    let (job, unreadable) = job_from_row(r)?;
    Ok((job, unreadable, r.get(31)?))
}

/// The statement [`read_claimed`] runs. A claimed job waits for no other (a waiting
/// one is in a lane no claim reads).
pub(super) const READ_CLAIMED: &str = concat!(
    "SELECT ",
    job_columns!("0"),
    ", has_dependents FROM jobs WHERE id = ?1"
);

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

/// The page cache, in KiB, while [`counts`] scans the queued and running jobs' index.
const SCAN_CACHE_KIB: i64 = 256;

/// The finished jobs' tallies and the queued and running jobs, by kind and status.
fn count_rows(conn: &Connection) -> Result<Vec<(String, JobStatus, i64)>> {
    let mut statement = conn.prepare_cached(
        "SELECT kind, status, n FROM job_counts WHERE status <> 'minute' AND kind <> '' \
         UNION ALL \
         SELECT kind, status, count(*) FROM jobs INDEXED BY jobs_active \
             WHERE status = 'queued' OR status = 'running' GROUP BY status, kind",
    )?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            status_from(r, 1)?,
            r.get::<_, i64>(2)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Job counts by kind and status, in that order. Finished jobs are counted from
/// `job_counts` (kept by the statements that reopen or delete jobs) plus the ends in
/// each kind's current minute (its `minute` row, `store::history::jobs`), queued and
/// running ones from `jobs_active`: no finished row is read, however many there are.
pub(crate) fn counts(conn: &Connection) -> Result<Vec<KindCount>> {
    // The queued and running are counted from their index, which at a million jobs is
    // many times the page cache: the scan would fill the cache with pages it reads
    // once, and the process would keep that memory. With a small cache for the scan
    // it does not grow (the pages stay in the system's file cache); the connection's
    // own size comes back after it, whatever the scan did.
    let kept: i64 = conn.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
    conn.pragma_update(None, "cache_size", -SCAN_CACHE_KIB)?;
    let counted = count_rows(conn);
    conn.pragma_update(None, "cache_size", kept)?;
    let mut counted = counted?;
    for (kind, ended) in crate::store::history::minutes(conn)? {
        for (status, n) in ended.into_iter().filter(|(_, n)| *n > 0) {
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            match counted
                .iter_mut()
                .find(|(k, s, _)| *s == status && *k == kind)
            {
                Some((_, _, count)) => *count = count.saturating_add(n),
                None => counted.push((kind.clone(), status, n)),
            }
        }
    }
    let mut counts: Vec<KindCount> = counted
        .into_iter()
        .filter(|(_, _, n)| *n > 0)
        .map(|(kind, status, n)| KindCount {
            kind,
            status,
            count: u32::try_from(n).unwrap_or(u32::MAX),
            handler_missing: false,
            rate_limited_until: None,
            waiting_for: Vec::new(),
            held_because: None,
        })
        .collect();
    counts.sort_by(|a, b| (&a.kind, a.status.as_str()).cmp(&(&b.kind, b.status.as_str())));
    Ok(counts)
}

/// The pieces of `parent` (jobs naming it as their parent) by kind, status and
/// whether they were enqueued to wait for others.
pub(crate) fn piece_counts(
    conn: &Connection,
    parent: JobId,
) -> Result<Vec<(String, JobStatus, bool, u32)>> {
    let mut statement = conn.prepare_cached(
        "SELECT kind, status, waited, count(*) FROM jobs INDEXED BY jobs_parent \
         WHERE parent_id = ?1 GROUP BY kind, status, waited",
    )?;
    let rows = statement.query_map([parent.raw()], |r| {
        Ok((r.get(0)?, status_from(r, 1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Reads a [`Job`]. A JSON column that does not parse (a row another program wrote)
/// leaves its field empty and says why in `unreadable`; the error itself comes back too,
/// for the claim, which fails such a job.
fn job_from_row(r: &Row<'_>) -> rusqlite::Result<(Job, Option<Error>)> {
    let id = JobId::from_raw(r.get(0)?);
    let result: Option<String> = r.get(13)?;
    let (payload, mut unreadable) = match payload_from(r, 2, id)? {
        Ok(payload) => (payload, None),
        Err(unreadable) => (Value::Null, Some(unreadable)),
    };
    let result = result.as_deref().and_then(|text| {
        serde_json::from_str::<Value>(text)
            .map_err(|e| {
                unreadable.get_or_insert(Error::StoredJson {
                    id,
                    column: "result",
                    reason: e.to_string(),
                });
            })
            .ok()
    });
    let status = status_from(r, 3)?;
    let run_at = Timestamp::from_millis(r.get(5)?);
    let job = Job {
        id,
        kind: r.get(1)?,
        payload,
        status,
        priority: Priority(r.get(4)?),
        run_at,
        attempts: r.get(6)?,
        max_attempts: r.get(7)?,
        lease_owner: r.get(8)?,
        lease_expires_at: r.get::<_, Option<i64>>(9)?.map(Timestamp::from_millis),
        cancel_requested: r.get(10)?,
        dedupe_key: r.get(11)?,
        last_error: r.get(12)?,
        result,
        parent: r.get::<_, Option<i64>>(14)?.map(JobId::from_raw),
        actor: actor_from(r, 15)?,
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
        payload_version: version_from(r, 23)?,
        // Filled in by the queue, which knows the kinds this process handles and
        // reads the rate limits beside.
        handler_missing: false,
        rate_limited_until: None,
        errors: errors_from(r.get::<_, Option<String>>(24)?.as_deref()),
        constraints: Constraints::from_needs(r.get(25)?),
        waiting_for: Vec::new(),
        held_because: None,
        max_offline_ms: r.get::<_, Option<i64>>(26)?.map(|ms| ms.max(0) as u64),
        // A snooze's time, while the job still waits for it (a retry or an edit that
        // moved `run_at` since ends it).
        snoozed_until: r
            .get::<_, Option<i64>>(27)?
            .filter(|&until| until == run_at.as_millis() && status == JobStatus::Queued)
            .map(Timestamp::from_millis),
        // A durable sleep's end (or a wait for a signal's deadline), while the job
        // still waits it out: its `run_at` moves on a signal, a retry or an edit.
        sleeping_until: r
            .get::<_, Option<i64>>(28)?
            .filter(|&until| until == run_at.as_millis() && status == JobStatus::Queued)
            .map(Timestamp::from_millis),
        awaits_signal: r.get(29)?,
        steps: Vec::new(),
        waiting_on_jobs: r.get::<_, i64>(30)?.clamp(0, i64::from(u32::MAX)) as u32,
    };
    // A signal is waited for while the wait's deadline is still the job's start: one
    // that came (or a retry) moved it.
    let mut job = job;
    if job.sleeping_until.is_none() {
        job.awaits_signal = None;
    }
    Ok((job, unreadable))
}

/// The job's attempts that did not succeed as stored (`jobs.errors`): failures and
/// deferrals; what cannot be read is left out, never an error of the whole read (an
/// outcome this build does not know reads as a failure).
fn errors_from(text: Option<&str>) -> Vec<AttemptError> {
    let mut errors: Vec<AttemptError> = text
        .and_then(|text| serde_json::from_str::<Vec<Value>>(text).ok())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|entry| {
            let outcome = match entry.get("outcome").and_then(Value::as_str) {
                Some("offline") => AttemptOutcome::Offline,
                Some("snoozed") => AttemptOutcome::Snoozed,
                Some("throttled") => AttemptOutcome::Throttled,
                Some("slept") => AttemptOutcome::Slept,
                Some("signal") => AttemptOutcome::Signal,
                _ => AttemptOutcome::Failed,
            };
            Some(AttemptError {
                attempt: u32::try_from(entry.get("attempt")?.as_u64()?).ok()?,
                at: Timestamp::from_millis(entry.get("at")?.as_i64()?),
                error: sanitize_error(entry.get("error")?.as_str()?),
                outcome,
                until: entry
                    .get("until")
                    .and_then(Value::as_i64)
                    .map(Timestamp::from_millis),
                probes: entry
                    .get("probes")
                    .and_then(Value::as_u64)
                    .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            })
        })
        .collect();
    let extra = errors.len().saturating_sub(super::MAX_ATTEMPT_ERRORS);
    errors.drain(..extra);
    errors
}

/// The payload in column `i` of job `id`'s row, or why it is not valid JSON.
fn payload_from(
    r: &Row<'_>,
    i: usize,
    id: JobId,
) -> rusqlite::Result<std::result::Result<Value, Error>> {
    let text = super::text_at(r, i)?;
    Ok(
        serde_json::from_str::<Value>(text).map_err(|e| Error::StoredJson {
            id,
            column: "payload",
            reason: e.to_string(),
        }),
    )
}

/// The payload version in column `i` (1 and up).
pub(super) fn version_from(r: &Row<'_>, i: usize) -> rusqlite::Result<u32> {
    Ok(r.get::<_, i64>(i)?.clamp(1, i64::from(u32::MAX)) as u32)
}

/// The actor in column `i`.
pub(super) fn actor_from(r: &Row<'_>, i: usize) -> rusqlite::Result<Actor> {
    super::text_at(r, i)?.parse().map_err(|reason: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, reason.into())
    })
}
