//! What an operator does to one job (run it again, delete it, cancel it), each
//! within the caller's reach, and pruning finished jobs.

use rusqlite::{params, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{JobId, JobStatus, Patterns};

use super::{status_from, tally, within};

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
                 max_attempts = max(max_attempts, attempts - lost_attempts + 1), \
                 lease_expiries = 0, \
                 updated_at = ?2 WHERE id = ?1",
            )?
            .execute(params![id.raw(), now.as_millis()])?;
            tally(tx, &kind, JobStatus::Failed, -1)?;
            // A failed job is not counted by the kind's flag: queued again, it must be.
            super::flag_kind_needs(tx, &kind, now)?;
            // The jobs still waiting for it counted its end already: its second end
            // must not count again. One it cancelled keeps the row, for a retry of
            // its workflow (`deps::retry_tree`), which counts afresh.
            tx.prepare_cached(
                "DELETE FROM job_deps WHERE dep_id = ?1 AND NOT EXISTS \
                 (SELECT 1 FROM jobs WHERE jobs.id = job_deps.job_id AND status = 'cancelled')",
            )?
            .execute([id.raw()])?;
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
            if status == JobStatus::Cancelled {
                // What a dependent cancelled by a failure waited for.
                super::deps::forget_waits(tx, id)?;
            }
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
            // A job that waited for others waits no more.
            tx.prepare_cached(
                "UPDATE jobs SET status = 'cancelled', finished_at = ?2, updated_at = ?2, \
                 needs = needs & ~?3 WHERE id = ?1",
            )?
            .execute(params![
                id.raw(),
                now.as_millis(),
                crate::model::WAITING_FOR_JOBS
            ])?;
            super::deps::forget_waits(tx, id)?;
            // Counted from the caller's change, in the kind's minute (`history::record`).
            Ok(CancelFound::Cancelled(kind, attempts))
        }
        JobStatus::Running => {
            tx.prepare_cached(
                "UPDATE jobs SET cancel_requested = 1, follow_up = NULL, updated_at = ?2 \
                 WHERE id = ?1",
            )?
            .execute(params![id.raw(), now.as_millis()])?;
            Ok(CancelFound::Requested)
        }
        finished => Ok(CancelFound::Finished(finished)),
    }
}

/// How many finished jobs of each kind a prune deleted.
pub(crate) type PrunedKinds = Vec<(String, u64)>;

/// Deletes finished jobs that finished before `before`, reading jobs in id order after
/// `after` and looking at no more than `batch` of them. Returns how many it deleted of
/// each kind and where the next batch starts, or `None` once done.
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
) -> Result<(PrunedKinds, Option<i64>)> {
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
                let status = status_from(row, 4)?;
                doomed.push((id, status == JobStatus::Cancelled));
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
    for (id, cancelled) in &doomed {
        delete.execute([id])?;
        if *cancelled {
            // What a dependent cancelled by a failure waited for (none for most).
            super::deps::forget_waits(tx, JobId::from_raw(*id))?;
        }
    }
    let mut by_kind: Vec<(String, u64)> = Vec::new();
    for (kind, status, n) in gone {
        tally(tx, &kind, status, -n)?;
        match by_kind.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, count)) => *count += n as u64,
            None => by_kind.push((kind, n as u64)),
        }
    }
    Ok((by_kind, next))
}

/// Cancels every queued job of `kind` and flags every running one; returns the
/// cancelled jobs as state changes and how many running ones were asked to stop.
pub(crate) fn cancel_kind(
    tx: &Transaction<'_>,
    kind: &str,
    now: Timestamp,
) -> Result<(Vec<super::Change>, u64)> {
    let cancelled: Vec<super::Change> = {
        let mut statement = tx.prepare_cached(
            "UPDATE jobs SET status = 'cancelled', finished_at = ?2, updated_at = ?2, \
             needs = needs & ~?3 \
             WHERE kind = ?1 AND status = 'queued' RETURNING id, attempts",
        )?;
        let rows = statement.query_map(
            params![kind, now.as_millis(), crate::model::WAITING_FOR_JOBS],
            |r| {
                Ok(super::Change {
                    id: JobId::from_raw(r.get(0)?),
                    kind: kind.to_owned(),
                    from: Some(JobStatus::Queued),
                    to: JobStatus::Cancelled,
                    attempt: r.get(1)?,
                    ran: None,
                    deferred: false,
                })
            },
        )?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    // Counted from the changes, in the kind's minute (`history::record`).
    for change in &cancelled {
        super::deps::forget_waits(tx, change.id)?;
    }
    let asked = tx
        .prepare_cached(
            "UPDATE jobs SET cancel_requested = 1, follow_up = NULL, updated_at = ?2 \
             WHERE kind = ?1 AND status = 'running' AND cancel_requested = 0",
        )?
        .execute(params![kind, now.as_millis()])?;
    Ok((cancelled, asked as u64))
}

/// Deletes every job of `kind` that is not running; returns their ids, the queued
/// ones' also on their own (the jobs waiting for those are resolved by the caller).
pub(crate) fn delete_kind(tx: &Transaction<'_>, kind: &str) -> Result<(Vec<JobId>, Vec<JobId>)> {
    let gone: Vec<(JobId, JobStatus)> = {
        let mut statement = tx.prepare_cached(
            "DELETE FROM jobs WHERE kind = ?1 AND status <> 'running' RETURNING id, status",
        )?;
        let rows = statement.query_map([kind], |r| {
            Ok((JobId::from_raw(r.get(0)?), status_from(r, 1)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for status in [
        JobStatus::Succeeded,
        JobStatus::Failed,
        JobStatus::Cancelled,
    ] {
        let n = gone.iter().filter(|(_, s)| *s == status).count() as i64;
        tally(tx, kind, status, -n)?;
    }
    let queued: Vec<JobId> = gone
        .iter()
        .filter(|(_, s)| *s == JobStatus::Queued)
        .map(|(id, _)| *id)
        .collect();
    for (id, _) in gone
        .iter()
        .filter(|(_, s)| matches!(s, JobStatus::Queued | JobStatus::Cancelled))
    {
        // Its own edges, if it waited for others.
        super::deps::forget_waits(tx, *id)?;
    }
    Ok((gone.into_iter().map(|(id, _)| id).collect(), queued))
}
