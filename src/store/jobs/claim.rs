//! Around a claim: expired leases and the processes that hold leases, the lanes of a
//! kind's queued jobs, and the cheap reads that let an idle claimer skip the write
//! lock. The claim's own steps for each job it takes are in `claimed`.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{Conditions, Constraints, JobId, JobStatus, WAITING_FOR_JOBS};

use super::{status_from, take_follow_up, Change};

/// How many queued jobs [`next_run_at`] looks at, at most.
const NEXT_RUN_SCAN: u32 = 256;
/// How many jobs [`pending`] counts in each status, at most.
pub(crate) const PENDING_SCAN: u32 = 10_000;

/// Ends every lease that expired by `now`. The job goes back to the queue whatever its
/// attempt count, and the attempt is not counted against `max_attempts` (its worker
/// died: nothing says the job failed; `lost_attempts` keeps it); a job whose cancellation was asked for ends cancelled; one whose
/// leases expired `max_lease_expiries` times in a row (its kind's, else
/// `default_expiries`) ends failed, saying so.
///
/// After a wake from sleep at `woke_at`, the wall clock has jumped and every lease
/// looks expired: a lease is then reclaimed only once its holder has had one renewal
/// period (a third of the lease) since the wake and did not renew. A holder that is
/// alive renews in that time; one that died, or is frozen, does not.
///
/// The leases of holders known to be gone (`gone`: their rows in `processes`, see
/// `crate::holder`) end too, whether or not they ran out, as if they had just now,
/// and those rows go.
pub(crate) fn reclaim_expired(
    tx: &Transaction<'_>,
    now: Timestamp,
    default_expiries: u32,
    woke_at: Option<Timestamp>,
    gone: &[i64],
) -> Result<Vec<Change>> {
    // ?1 now, ?2 the default; `dead` is whether this expiry is the last one allowed.
    macro_rules! dead {
        () => {
            "lease_expiries + 1 >= coalesce((SELECT max_lease_expiries FROM kinds \
             WHERE kinds.kind = jobs.kind), ?2)"
        };
    }
    let mut statement = tx.prepare_cached(concat!(
        "UPDATE jobs SET \
           status = CASE WHEN cancel_requested THEN 'cancelled' \
                         WHEN ",
        dead!(),
        " THEN 'failed' ELSE 'queued' END, \
           last_error = CASE WHEN cancel_requested THEN last_error \
                         WHEN ",
        dead!(),
        " THEN 'the worker died ' || (lease_expiries + 1) || ' times in a row: its lease \
               ran out without a renewal each time' \
                         ELSE last_error END, \
           errors = CASE WHEN cancel_requested THEN errors ELSE ",
        errors_appended!(
            "?1",
            concat!(
                "CASE WHEN ",
                dead!(),
                " THEN 'the worker died ' || (lease_expiries + 1) || ' times in a row: its \
                 lease ran out without a renewal each time' ELSE 'the worker stopped before \
                 the attempt ended (its lease ran out): not counted against its attempts' END"
            )
        ),
        " END, \
           finished_at = CASE WHEN cancel_requested OR ",
        dead!(),
        " THEN ?1 END, \
           lost_attempts = CASE WHEN cancel_requested OR ",
        dead!(),
        " THEN lost_attempts ELSE lost_attempts + 1 END, \
           lease_expiries = lease_expiries + 1, \
           run_at = min(lease_expires_at, ?1), \
           lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL, \
           lease_process = NULL, updated_at = ?1 \
         WHERE id IN (SELECT id FROM jobs INDEXED BY jobs_active \
                      WHERE status = 'running' AND (lease_expires_at <= ?1 \
                      AND (?3 IS NULL OR ?3 + coalesce(lease_ms, 30000) / 3 <= ?1) \
                      OR ?4 IS NOT NULL AND lease_process IN (SELECT value FROM json_each(?4)))) \
         RETURNING id, kind, status, attempts, follow_up IS NOT NULL"
    ))?;
    let woke_at = woke_at.map(Timestamp::as_millis);
    let gone_list = (!gone.is_empty()).then(|| serde_json::to_string(gone).unwrap_or_default());
    let rows = statement.query_map(
        params![now.as_millis(), default_expiries, woke_at, gone_list],
        |r| {
            let change = Change {
                id: JobId::from_raw(r.get(0)?),
                kind: r.get(1)?,
                from: Some(JobStatus::Running),
                to: status_from(r, 2)?,
                attempt: r.get(3)?,
                ran: None,
                deferred: false,
            };
            Ok((change, r.get::<_, bool>(4)?))
        },
    )?;
    let reclaimed: Vec<(Change, bool)> = rows.collect::<rusqlite::Result<_>>()?;
    drop(statement);
    forget_processes(tx, gone)?;
    let mut changes = Vec::with_capacity(reclaimed.len());
    let mut follow_ups = Vec::new();
    for (change, follows) in reclaimed {
        // An end is counted from its change, in the kind's minute (`history::record`).
        if follows {
            follow_ups.push(change.id);
        }
        changes.push(change);
    }
    for id in follow_ups {
        changes.extend(take_follow_up(tx, id, now)?);
    }
    // A job that ended here (its last lease, or a cancel asked for) frees or
    // cancels the jobs waiting for it.
    let ended: Vec<(JobId, JobStatus)> = changes
        .iter()
        .filter(|change| change.to.is_finished())
        .map(|change| (change.id, change.to))
        .collect();
    for (id, status) in ended {
        changes.extend(super::deps::resolve(tx, id, status, now)?);
    }
    Ok(changes)
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

/// The processes holding the leases of running jobs (each once, with its mark), where
/// they were stored: what a claimer looks at for holders that are gone.
pub(crate) fn lease_processes(conn: &Connection) -> Result<Vec<(i64, String)>> {
    let mut statement = conn.prepare_cached(
        "SELECT id, mark FROM processes WHERE id IN \
         (SELECT lease_process FROM jobs INDEXED BY jobs_active \
          WHERE status = 'running' AND lease_process IS NOT NULL)",
    )?;
    let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The processes no running job names (each with its mark): what retention looks at
/// for rows of processes that ended.
pub(crate) fn idle_processes(conn: &Connection) -> Result<Vec<(i64, String)>> {
    let mut statement = conn.prepare_cached(
        "SELECT id, mark FROM processes WHERE id NOT IN \
         (SELECT lease_process FROM jobs INDEXED BY jobs_active \
          WHERE status = 'running' AND lease_process IS NOT NULL)",
    )?;
    let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The row of the process with `mark`, written if it is the first claim of it.
pub(crate) fn process_row(tx: &Transaction<'_>, mark: &str) -> Result<i64> {
    tx.prepare_cached("INSERT OR IGNORE INTO processes (mark) VALUES (?1)")?
        .execute([mark])?;
    Ok(tx
        .prepare_cached("SELECT id FROM processes WHERE mark = ?1")?
        .query_row([mark], |r| r.get(0))?)
}

/// Deletes the rows of processes in `gone`.
pub(crate) fn forget_processes(tx: &Transaction<'_>, gone: &[i64]) -> Result<()> {
    let mut statement = tx.prepare_cached("DELETE FROM processes WHERE id = ?1")?;
    for id in gone {
        statement.execute([id])?;
    }
    Ok(())
}

/// The earliest `lease_expires_at` of a running job (the running rows are few).
pub(crate) fn next_lease_expiry(conn: &Connection) -> Result<Option<Timestamp>> {
    let at: Option<i64> = conn
        .prepare_cached(
            "SELECT min(lease_expires_at) FROM jobs INDEXED BY jobs_active \
             WHERE status = 'running'",
        )?
        .query_row([], |r| r.get(0))?;
    Ok(at.map(Timestamp::from_millis))
}

/// The `needs` values of the queued jobs of `kind` that `conditions` meets (all of
/// them with `None`), 0 (no need) first: each is a lane of `jobs_active`, whose key
/// puts `needs` right after the kind, so that jobs waiting for the machine lie apart
/// from the rest and a claim never reads through them. Found by seeking from one
/// value to the next, not by reading the jobs: a kind without constrained jobs costs
/// nothing: `kinds.has_needs` (`flagged`, read here when `None`) says whether any job
/// of the kind may have constraints, and without it only lane 0 is read.
pub(crate) fn lanes(
    conn: &Connection,
    kind: &str,
    conditions: Option<&Conditions>,
    flagged: Option<bool>,
) -> Result<Lanes> {
    let mut lanes = Lanes {
        met: vec![0],
        any: false,
    };
    let flagged = match flagged {
        Some(flagged) => flagged,
        None => super::kind_settings(conn, kind)?.has_needs,
    };
    if !flagged {
        return Ok(lanes);
    }
    let mut statement = conn.prepare_cached(
        "SELECT needs FROM jobs INDEXED BY jobs_active \
         WHERE status = 'queued' AND kind = ?1 AND needs > ?2 ORDER BY needs LIMIT 1",
    )?;
    let mut after = 0i64;
    while let Some(needs) = statement
        .query_row(params![kind, after], |r| r.get::<_, i64>(0))
        .optional()?
    {
        after = needs;
        lanes.any = true;
        // A job that waits for other jobs is never claimable: its lane is skipped.
        let met = needs & WAITING_FOR_JOBS == 0
            && conditions.is_none_or(|conditions| {
                conditions.unmet(&Constraints::from_needs(needs)).is_empty()
            });
        if met {
            lanes.met.push(needs);
        }
    }
    Ok(lanes)
}

/// What the queued jobs need of the machine, each distinct set once: the constraints
/// of every kind that has queued jobs, and every lane of the queued jobs' own. Seeks
/// only (a kind, then its lanes), never a read of the jobs.
pub(crate) fn waiting_needs(conn: &Connection) -> Result<Vec<Constraints>> {
    let kinds: Vec<(String, i64, bool)> = conn
        .prepare_cached(
            "SELECT kind, coalesce(needs, 0), has_needs FROM kinds \
             WHERE coalesce(needs, 0) <> 0 OR has_needs <> 0",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut queued = conn.prepare_cached(
        "SELECT 1 FROM jobs INDEXED BY jobs_active WHERE status = 'queued' AND kind = ?1 LIMIT 1",
    )?;
    let mut needs = std::collections::BTreeSet::new();
    for (kind, own, flagged) in kinds {
        if queued.query_row([&kind], |_| Ok(())).optional()?.is_none() {
            continue;
        }
        if own != 0 {
            needs.insert(own);
        }
        if flagged {
            for lane in lanes(conn, &kind, None, Some(true))?.met {
                if lane != 0 {
                    needs.insert(lane | own);
                }
            }
        }
    }
    Ok(needs.into_iter().map(Constraints::from_needs).collect())
}

/// The lanes of a kind's queued jobs ([`lanes`]).
pub(crate) struct Lanes {
    /// The values of `needs` the conditions meet, 0 first.
    pub met: Vec<i64>,
    /// Whether any queued job of the kind has constraints at all.
    pub any: bool,
}

/// How long the user must stay idle before a queued job of `kind` that waits only for
/// that may start, the least of them; `None` when no job waits only for idle time.
pub(crate) fn idle_wait(
    conn: &Connection,
    kind: &str,
    conditions: &Conditions,
) -> Result<Option<std::time::Duration>> {
    let mut waits = Vec::new();
    for needs in lanes(conn, kind, None, None)?.met {
        if let Some(wait) = conditions.idle_met_in(&Constraints::from_needs(needs)) {
            waits.push(wait);
        }
    }
    Ok(waits.into_iter().min())
}

/// Whether a job of one of `kinds` whose needs `conditions` meets is runnable at `now`
/// (a read, no lock taken).
pub(crate) fn any_runnable(
    conn: &Connection,
    kinds: &[(&str, u32)],
    now: Timestamp,
    conditions: &Conditions,
) -> Result<bool> {
    for (kind, version) in kinds {
        let settings = super::kind_settings(conn, kind)?;
        if !settings.needs.is_none() && !conditions.unmet(&settings.needs).is_empty() {
            // The kind waits for the machine: no reason to take the write lock.
            continue;
        }
        if settings.hold.is_some_and(|hold| hold.closed(now)) {
            // Held for the service or the network until later.
            continue;
        }
        for needs in lanes(conn, kind, Some(conditions), Some(settings.has_needs))?.met {
            let mut statement = conn.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_active \
                 WHERE status = 'queued' AND kind = ?1 AND needs = ?4 AND run_at <= ?2 \
                 AND payload_version <= ?3)",
            )?;
            if statement.query_row(params![kind, now.as_millis(), version, needs], |r| {
                r.get::<_, bool>(0)
            })? {
                return Ok(true);
            }
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

/// The earliest `run_at` among the first [`NEXT_RUN_SCAN`] queued jobs of `kind` in
/// claim order, in each lane of needs that `conditions` meets (every lane: `None`). Bounded on purpose: the ready index is ordered by priority first, so
/// an exact minimum would read every queued job of the kind. The runner only uses it
/// to sleep less than its poll interval.
pub(crate) fn next_run_at(
    conn: &Connection,
    kind: &str,
    version: u32,
    conditions: Option<&Conditions>,
) -> Result<Option<Timestamp>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT min(run_at) FROM (SELECT run_at FROM jobs INDEXED BY jobs_active \
         WHERE status = 'queued' AND kind = ?1 AND needs = ?3 AND payload_version <= ?2 \
         LIMIT {NEXT_RUN_SCAN})"
    ))?;
    let mut earliest: Option<i64> = None;
    for needs in lanes(conn, kind, conditions, None)?.met {
        let at: Option<i64> = statement.query_row(params![kind, version, needs], |r| r.get(0))?;
        if let Some(at) = at {
            earliest = Some(earliest.map_or(at, |e| e.min(at)));
        }
    }
    Ok(earliest.map(Timestamp::from_millis))
}

/// How many jobs of `kind` are running (in every process) and how many queued ones
/// could start by `by` (`run_at` by then, of version `version` or lower): none while the kind is paused, held for
/// the service or the network past `by`, or waits for what the machine does not
/// offer; not those that wait for other jobs or whose own needs are not met. Counted
/// up to [`PENDING_SCAN`] each.
pub(crate) fn pending(
    conn: &Connection,
    (kind, version): (&str, u32),
    by: Timestamp,
    conditions: &Conditions,
) -> Result<(u32, u32)> {
    let running: u32 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM (SELECT 1 FROM jobs INDEXED BY jobs_active \
             WHERE status = 'running' AND kind = ?1 LIMIT {PENDING_SCAN})"
        ))?
        .query_row([kind], |r| r.get(0))?;
    let settings = super::kind_settings(conn, kind)?;
    let blocked = !settings.needs.is_none() && !conditions.unmet(&settings.needs).is_empty();
    if settings.paused || blocked || settings.hold.is_some_and(|hold| hold.closed(by)) {
        return Ok((running, 0));
    }
    let mut statement = conn.prepare_cached(&format!(
        "SELECT count(*) FROM (SELECT 1 FROM jobs INDEXED BY jobs_active \
         WHERE status = 'queued' AND kind = ?1 AND needs = ?2 AND run_at <= ?3 \
         AND payload_version <= ?4 LIMIT {PENDING_SCAN})"
    ))?;
    let mut due = 0u32;
    for needs in lanes(conn, kind, Some(conditions), Some(settings.has_needs))?.met {
        let n: u32 =
            statement.query_row(params![kind, needs, by.as_millis(), version], |r| r.get(0))?;
        due = due.saturating_add(n);
    }
    Ok((running, due.min(PENDING_SCAN)))
}
