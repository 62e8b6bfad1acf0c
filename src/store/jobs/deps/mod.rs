//! Dependencies between jobs (migration 13): a job that waits for others.
//!
//! An edge `job_deps (dep_id, job_id)` is written when `job_id` starts to wait for
//! `dep_id`, and all of a dependent's go when it is freed or cancelled (but for a
//! cancel because a job it waited for failed: those stay, for [`retry_tree`]);
//! a row of `job_counts` (kind `''`, status the dependent's id) counts the jobs it
//! still waits for (migration 17), and while it waits the dependent's `needs` carries
//! [`WAITING_FOR_JOBS`], a lane no claim reads. When a job
//! ends, in the transaction that ends it, each dependent is freed (its count comes
//! down, and at 0 the bit goes) or, when the job failed or was cancelled and the
//! dependent does not run anyway, cancelled, naming the job, with its own dependents
//! after it. Nothing scans: a job with dependents is flagged (`has_dependents`), and
//! the attempt-ending update of a job without any never looks.

use std::collections::HashSet;

use rusqlite::{params, OptionalExtension, Transaction};

mod countdown;

pub(crate) use countdown::Countdown;
use countdown::{count_down, dependents_of};

use super::{flag_kind_needs, status_from, tally, within, Change};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{reasons, JobId, JobStatus, Patterns, WAITING_FOR_JOBS};

/// What a new job's dependencies came to at its enqueue.
pub(crate) enum Attached {
    /// It waits for this many jobs.
    Waiting,
    /// Every dependency has ended and it may run.
    Free,
    /// A dependency had already failed or been cancelled: why it is cancelled.
    Cancelled(String),
}

/// Which dependencies a caller may name: of the kinds `kinds` allows, or its own (the
/// jobs of the workflow it is enqueueing, in `own`).
#[derive(Clone, Copy)]
pub(crate) struct Reach<'a> {
    pub(crate) kinds: Option<&'a Patterns>,
    pub(crate) own: Option<&'a HashSet<JobId>>,
}

impl Reach<'_> {
    fn allows(&self, id: JobId, kind: &str) -> bool {
        within(self.kinds, kind) || self.own.is_some_and(|own| own.contains(&id))
    }
}

/// Makes the new job `id` wait for `deps` (each must exist). A dependency that has
/// already ended is resolved at once: succeeded, or failed or cancelled with
/// `run_anyway`, counts as done; failed or cancelled otherwise cancels the new job.
pub(crate) fn attach(
    tx: &Transaction<'_>,
    id: JobId,
    deps: &[JobId],
    run_anyway: bool,
    now: Timestamp,
    reach: Reach<'_>,
) -> Result<Attached> {
    let mut open = Vec::with_capacity(deps.len());
    let mut ended_badly = Vec::new();
    let mut cancelled = None;
    for &dep in deps {
        let found: Option<(String, JobStatus)> = tx
            .prepare_cached("SELECT kind, status FROM jobs WHERE id = ?1")?
            .query_row([dep.raw()], |r| Ok((r.get(0)?, super::status_from(r, 1)?)))
            .optional()?;
        // A job of a kind the caller may not touch is not there, for it.
        let found = found.filter(|(kind, _)| reach.allows(dep, kind));
        match found {
            None => return Err(Error::JobNotFound(dep)),
            Some((_, JobStatus::Queued | JobStatus::Running)) => open.push(dep),
            Some((_, JobStatus::Succeeded)) => {}
            Some((kind, status)) if !run_anyway => {
                // Every dependency is checked first: a missing one refuses the enqueue.
                cancelled.get_or_insert_with(|| reasons::dependency_ended(dep, &kind, status));
                ended_badly.push(dep);
            }
            Some(_) => {}
        }
    }
    // Marked whatever came of it: a workflow's outcome is its waiting jobs'. What it
    // waits for, in the order given, stays on its row for it to read their results
    // (`steps::inputs_of`; the edges go as it is freed).
    let inputs: Vec<i64> = deps.iter().map(|dep| dep.raw()).collect();
    let inputs = serde_json::to_string(&inputs).expect("ids serialise");
    tx.prepare_cached(
        "UPDATE jobs SET waited = 1, run_on_failed_deps = ?2, inputs = ?3 WHERE id = ?1",
    )?
    .execute(params![id.raw(), run_anyway, inputs])?;
    open.sort_unstable();
    open.dedup();
    if let Some(reason) = cancelled {
        // Cancelled at once, it keeps what it waited for, so a retry of the workflow
        // can make it wait again (see `retry_tree`).
        open.extend(ended_badly);
        for dep in &open {
            tx.prepare_cached("INSERT OR IGNORE INTO job_deps (dep_id, job_id) VALUES (?1, ?2)")?
                .execute(params![dep.raw(), id.raw()])?;
        }
        return Ok(Attached::Cancelled(reason));
    }
    if open.is_empty() {
        return Ok(Attached::Free);
    }
    wait_for(tx, id, &open, now)?;
    Ok(Attached::Waiting)
}

/// Drops the rows saying what `id` waits (or waited) for, and its count.
pub(crate) fn forget_waits(tx: &Transaction<'_>, id: JobId) -> Result<()> {
    forget_edges(tx, id)?;
    forget_count(tx, id).map(drop)
}

/// Drops the rows saying what `id` waits (or waited) for.
fn forget_edges(tx: &Transaction<'_>, id: JobId) -> Result<()> {
    tx.prepare_cached("DELETE FROM job_deps WHERE job_id = ?1")?
        .execute([id.raw()])?;
    Ok(())
}

/// Drops `id`'s count of the jobs it waits for (its row in `job_counts`): it waits no
/// more. Its edges may stay (see [`retry_tree`], which counts again). Returns whether
/// there was one.
fn forget_count(tx: &Transaction<'_>, id: JobId) -> Result<bool> {
    let gone = tx
        .prepare_cached("DELETE FROM job_counts WHERE kind = '' AND status = ?1")?
        .execute([id.raw()])?;
    Ok(gone == 1)
}

/// Makes `id` wait for `open` (jobs that have not ended): its rows, their flags, its
/// count and the needs bit no claim reads.
fn wait_for(tx: &Transaction<'_>, id: JobId, open: &[JobId], now: Timestamp) -> Result<()> {
    for dep in open {
        tx.prepare_cached("INSERT OR IGNORE INTO job_deps (dep_id, job_id) VALUES (?1, ?2)")?
            .execute(params![dep.raw(), id.raw()])?;
        tx.prepare_cached(
            "UPDATE jobs SET has_dependents = 1 WHERE id = ?1 AND has_dependents = 0",
        )?
        .execute([dep.raw()])?;
    }
    // Its count lives in `job_counts` (see `count_down`), keyed by its id as text.
    tx.prepare_cached("INSERT OR REPLACE INTO job_counts (kind, status, n) VALUES ('', ?1, ?2)")?
        .execute(params![id.raw(), open.len() as i64])?;
    tx.prepare_cached("UPDATE jobs SET needs = needs | ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![id.raw(), WAITING_FOR_JOBS, now.as_millis()])?;
    Ok(())
}

/// The ids of the pieces of `parent` (jobs naming it as their parent), oldest first.
pub(crate) fn pieces_of(tx: &Transaction<'_>, parent: JobId) -> Result<Vec<JobId>> {
    let mut statement =
        tx.prepare_cached("SELECT id FROM jobs WHERE parent_id = ?1 ORDER BY id")?;
    let rows = statement.query_map([parent.raw()], |r| Ok(JobId::from_raw(r.get(0)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A job of a workflow as [`tree`] reads it.
struct Member {
    id: JobId,
    kind: String,
    status: JobStatus,
    /// Enqueued to wait for others.
    waited: bool,
}

/// The workflow under `parent`: the parent and its pieces, oldest first (the parent
/// is older than any of its pieces); jobs of kinds outside `reach` are not there.
fn tree(tx: &Transaction<'_>, parent: JobId, reach: Option<&Patterns>) -> Result<Vec<Member>> {
    let mut statement = tx.prepare_cached(
        "SELECT id, kind, status, waited FROM jobs WHERE id = ?1 \
         UNION ALL SELECT id, kind, status, waited FROM jobs WHERE parent_id = ?1 ORDER BY 1",
    )?;
    let rows = statement.query_map([parent.raw()], |r| {
        Ok(Member {
            id: JobId::from_raw(r.get(0)?),
            kind: r.get(1)?,
            status: status_from(r, 2)?,
            waited: r.get(3)?,
        })
    })?;
    let mut members = Vec::new();
    for member in rows {
        let member = member?;
        if within(reach, &member.kind) {
            members.push(member);
        }
    }
    Ok(members)
}

/// Cancels the workflow under `parent`: the parent and its pieces if queued (with
/// every job waiting for them, as their policies say), and asks running ones to stop.
/// Returns the state changes and the running jobs asked.
pub(crate) fn cancel_tree(
    tx: &Transaction<'_>,
    parent: JobId,
    now: Timestamp,
    reach: Option<&Patterns>,
) -> Result<(Vec<Change>, Vec<JobId>)> {
    let members = tree(tx, parent, reach)?;
    let Some(top) = members.first().filter(|top| top.id == parent) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let reason = reasons::workflow_cancelled(parent, &top.kind);
    let (mut changes, mut running) = (Vec::new(), Vec::new());
    for Member { id, status, .. } in members {
        match status {
            JobStatus::Queued => cancel_one(tx, id, &reason, now, Edges::Drop, &mut changes)?,
            JobStatus::Running => {
                tx.prepare_cached(
                    "UPDATE jobs SET cancel_requested = 1, follow_up = NULL, updated_at = ?2 \
                     WHERE id = ?1",
                )?
                .execute(params![id.raw(), now.as_millis()])?;
                running.push(id);
            }
            _ => {}
        }
    }
    resolve_all(tx, &mut changes, now)?;
    Ok((changes, running))
}

/// What [`retry_tree`] did: the jobs it queued again, as state changes.
pub(crate) struct Retried {
    /// Failed jobs queued again.
    pub(crate) requeued: u32,
    /// Jobs cancelled because a job they waited for failed, waiting again.
    pub(crate) restored: u32,
    pub(crate) changes: Vec<Change>,
}

/// Runs the failed jobs of the workflow under `parent` again (the parent and its
/// pieces, each as [`retry`](super::retry) does), and makes each of its jobs that was
/// cancelled because a job it waited for failed wait again, for those of its
/// dependencies that have not succeeded. A dependent one of whose dependencies is
/// still failed, cancelled or gone stays cancelled. Jobs outside `reach` are not there.
pub(crate) fn retry_tree(
    tx: &Transaction<'_>,
    parent: JobId,
    now: Timestamp,
    reach: Option<&Patterns>,
) -> Result<Retried> {
    let mut done = Retried {
        requeued: 0,
        restored: 0,
        changes: Vec::new(),
    };
    let mut cancelled = Vec::new();
    // Requeued jobs that had waited (and so ran after their dependencies, anyway):
    // they wait again for what runs again.
    let mut waited_again = Vec::new();
    for Member {
        id,
        kind,
        status,
        waited,
    } in tree(tx, parent, reach)?
    {
        match status {
            JobStatus::Failed => {
                if let super::RetryFound::Requeued(kind, attempt) =
                    super::retry(tx, id, now, reach)?
                {
                    if waited && id != parent {
                        waited_again.push(id);
                    }
                    done.requeued += 1;
                    done.changes.push(Change {
                        id,
                        kind,
                        from: Some(JobStatus::Failed),
                        to: JobStatus::Queued,
                        attempt,
                        ran: None,
                        deferred: false,
                    });
                }
            }
            JobStatus::Cancelled => cancelled.push((id, kind)),
            _ => {}
        }
    }
    // In id order: a job waits only for older ones, so a chain comes back from its
    // first link on.
    for (id, kind) in cancelled {
        let deps: Vec<(JobId, Option<JobStatus>)> = {
            let mut statement = tx.prepare_cached(
                "SELECT d.dep_id, j.status FROM job_deps d LEFT JOIN jobs j ON j.id = d.dep_id \
                 WHERE d.job_id = ?1",
            )?;
            let rows = statement.query_map([id.raw()], |r| {
                let status = match r.get_ref(1)? {
                    rusqlite::types::ValueRef::Null => None,
                    _ => Some(status_from(r, 1)?),
                };
                Ok((JobId::from_raw(r.get(0)?), status))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        // Cancelled for itself (its rows went), or a dependency still ended badly.
        let restorable = !deps.is_empty()
            && deps.iter().all(|(_, status)| {
                matches!(
                    status,
                    Some(JobStatus::Queued | JobStatus::Running | JobStatus::Succeeded)
                )
            });
        if !restorable {
            continue;
        }
        let open: Vec<JobId> = deps
            .iter()
            .filter(|(_, status)| *status != Some(JobStatus::Succeeded))
            .map(|(dep, _)| *dep)
            .collect();
        let attempt: u32 = tx
            .prepare_cached(
                "UPDATE jobs SET status = 'queued', run_at = max(run_at, ?2), finished_at = NULL, \
                 last_error = NULL, updated_at = ?2 \
                 WHERE id = ?1 AND status = 'cancelled' RETURNING attempts",
            )?
            .query_row(params![id.raw(), now.as_millis()], |r| r.get(0))?;
        tally(tx, &kind, JobStatus::Cancelled, -1)?;
        flag_kind_needs(tx, &kind, now)?;
        if open.is_empty() {
            forget_waits(tx, id)?;
        } else {
            // Its rows are there still; the flags, count and bit come again.
            wait_for(tx, id, &open, now)?;
        }
        done.restored += 1;
        done.changes.push(Change {
            id,
            kind,
            from: Some(JobStatus::Cancelled),
            to: JobStatus::Queued,
            attempt,
            ran: None,
            deferred: false,
        });
    }
    // Its rows went when it was freed: it waits for the pieces enqueued before it
    // (what `then` and `after_pieces_of` name) that run again, the other waiting
    // jobs aside.
    for id in waited_again {
        let open: Vec<JobId> = {
            let mut statement = tx.prepare_cached(
                "SELECT id FROM jobs INDEXED BY jobs_parent WHERE parent_id = ?1 AND id < ?2 \
                 AND waited = 0 AND status IN ('queued', 'running') ORDER BY id",
            )?;
            let rows = statement
                .query_map([parent.raw(), id.raw()], |r| Ok(JobId::from_raw(r.get(0)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        if !open.is_empty() {
            wait_for(tx, id, &open, now)?;
        }
    }
    Ok(done)
}

/// One side of a job's dependencies: up to `limit` ids, oldest first, and how many
/// in all.
pub(crate) type Side = (Vec<JobId>, u32);

/// Whether `id` was enqueued to wait for others (kept once it is freed), what it
/// waits for (or waited for, until it was freed or cancelled) and which jobs wait for
/// it, each side cut to `limit` ids; ids of kinds outside `reach` are not there.
pub(crate) fn dependencies(
    conn: &rusqlite::Connection,
    id: JobId,
    limit: usize,
    reach: Option<&Patterns>,
) -> Result<(bool, Side, Side)> {
    let waited = conn
        .prepare_cached("SELECT waited FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| r.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false);
    let side = |sql: &str| -> Result<Side> {
        let mut statement = conn.prepare_cached(sql)?;
        let rows = statement.query_map([id.raw()], |r| {
            Ok((JobId::from_raw(r.get(0)?), r.get::<_, Option<String>>(1)?))
        })?;
        let (mut listed, mut total) = (Vec::new(), 0u32);
        for row in rows {
            let (other, kind) = row?;
            // A row whose job is gone (pruned) is not listed either.
            if kind.is_some_and(|kind| within(reach, &kind)) {
                total += 1;
                if listed.len() < limit {
                    listed.push(other);
                }
            }
        }
        Ok((listed, total))
    };
    let waits_for = side(
        "SELECT d.dep_id, j.kind FROM job_deps d INDEXED BY job_deps_job \
         LEFT JOIN jobs j ON j.id = d.dep_id WHERE d.job_id = ?1 ORDER BY d.dep_id",
    )?;
    let waited_by = side(
        "SELECT d.job_id, j.kind FROM job_deps d LEFT JOIN jobs j ON j.id = d.job_id \
         WHERE d.dep_id = ?1 ORDER BY d.job_id",
    )?;
    Ok((waited, waits_for, waited_by))
}

/// Cancels the queued job `id` because a job it waits for failed (`reason` says
/// which), with its own dependents after it; returns the state changes.
pub(crate) fn cancel_waiting(
    tx: &Transaction<'_>,
    id: JobId,
    reason: &str,
    now: Timestamp,
) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    cancel_one(tx, id, reason, now, Edges::Keep, &mut changes)?;
    resolve_all(tx, &mut changes, now)?;
    Ok(changes)
}

/// Resolves the dependents of `id`, which just ended as `status`, if it has any;
/// returns the state changes (freed dependents as queued to queued, cancelled ones).
pub(crate) fn resolve(
    tx: &Transaction<'_>,
    id: JobId,
    status: JobStatus,
    now: Timestamp,
) -> Result<Vec<Change>> {
    let flagged: bool = tx
        .prepare_cached("SELECT has_dependents FROM jobs WHERE id = ?1")?
        .query_row([id.raw()], |r| r.get(0))
        .optional()?
        .unwrap_or(false);
    if !flagged {
        return Ok(Vec::new());
    }
    walk(tx, (id, status, false), now)
}

/// Resolves the dependents of `id`, which was just deleted while it was queued (a
/// retired kind): they count it as cancelled.
pub(crate) fn resolve_deleted(
    tx: &Transaction<'_>,
    id: JobId,
    now: Timestamp,
) -> Result<Vec<Change>> {
    walk(tx, (id, JobStatus::Cancelled, true), now)
}

/// [`resolve`] for a job known to have had dependents, whose flag the update that
/// ended it already cleared.
pub(crate) fn resolve_flagged(
    tx: &Transaction<'_>,
    id: JobId,
    status: JobStatus,
    now: Timestamp,
) -> Result<Vec<Change>> {
    walk(tx, (id, status, true), now)
}

/// Frees or cancels the dependents of `id`, and theirs after them.
fn walk(
    tx: &Transaction<'_>,
    (id, status, cleared): (JobId, JobStatus, bool),
    now: Timestamp,
) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let mut ended = vec![(id, status, cleared)];
    while let Some((dep, status, cleared)) = ended.pop() {
        // Its edges stay (the dependent deletes them all when it is freed): a piece's
        // end writes nothing but its own row, already written, and the dependent's
        // count. The flag goes, so it is resolved once.
        if !cleared {
            tx.prepare_cached(
                "UPDATE jobs SET has_dependents = 0 WHERE id = ?1 AND has_dependents = 1",
            )?
            .execute([dep.raw()])?;
        }
        for dependent in dependents_of(tx, dep)? {
            let ok = status == JobStatus::Succeeded
                || tx
                    .prepare_cached("SELECT run_on_failed_deps FROM jobs WHERE id = ?1")?
                    .query_row([dependent.raw()], |r| r.get::<_, bool>(0))
                    .optional()?
                    .unwrap_or(false);
            if !ok {
                let dep_kind: String = tx
                    .prepare_cached("SELECT kind FROM jobs WHERE id = ?1")?
                    .query_row([dep.raw()], |r| r.get(0))
                    .optional()?
                    .unwrap_or_else(|| "deleted".to_owned());
                let before = changes.len();
                cancel_one(
                    tx,
                    dependent,
                    &reasons::dependency_ended(dep, &dep_kind, status),
                    now,
                    Edges::Keep,
                    &mut changes,
                )?;
                if changes.len() > before {
                    ended.push((dependent, JobStatus::Cancelled, false));
                }
                continue;
            }
            changes.extend(count_down(tx, dependent, 1, now)?);
        }
    }
    Ok(changes)
}

/// Resolves the dependents of every job `changes` ended (from `changes` on).
fn resolve_all(tx: &Transaction<'_>, changes: &mut Vec<Change>, now: Timestamp) -> Result<()> {
    let ended: Vec<(JobId, JobStatus)> = changes
        .iter()
        .filter(|c| c.to.is_finished())
        .map(|c| (c.id, c.to))
        .collect();
    for (id, status) in ended {
        let more = resolve(tx, id, status, now)?;
        changes.extend(more);
    }
    Ok(())
}

/// What a cancelled job does with the rows saying what it waited for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edges {
    /// Cancelled because a job it waited for failed: kept, so a retry of the
    /// workflow can make it wait again.
    Keep,
    /// Cancelled for itself: it waits for nothing any more.
    Drop,
}

/// Cancels a queued dependent, naming why; no change when it is not queued.
fn cancel_one(
    tx: &Transaction<'_>,
    id: JobId,
    reason: &str,
    now: Timestamp,
    edges: Edges,
    changes: &mut Vec<Change>,
) -> Result<()> {
    let row: Option<(String, u32)> = tx
        .prepare_cached(
            "UPDATE jobs SET status = 'cancelled', finished_at = ?2, updated_at = ?2, \
             last_error = ?3, needs = needs & ~?4 \
             WHERE id = ?1 AND status = 'queued' RETURNING kind, attempts",
        )?
        .query_row(
            params![id.raw(), now.as_millis(), reason, WAITING_FOR_JOBS],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((kind, attempt)) = row else {
        return Ok(());
    };
    // Counted from the change, in the kind's minute (`history::record`).
    if edges == Edges::Drop {
        forget_waits(tx, id)?;
    } else {
        forget_count(tx, id)?;
    }
    changes.push(Change {
        id,
        kind,
        from: Some(JobStatus::Queued),
        to: JobStatus::Cancelled,
        attempt,
        ran: None,
        deferred: false,
    });
    Ok(())
}
