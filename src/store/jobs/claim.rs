//! What a claim reads and writes: expired leases, runnable candidates, marking one
//! running, failing an unreadable one, and the cheap reads that let an idle claimer
//! skip the write lock.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{Actor, Conditions, Constraints, Job, JobId, JobStatus, WAITING_FOR_JOBS};

use super::read::{actor_from, read_claimed, version_from, READ_CLAIMED};
use super::{status_from, take_follow_up, Change};

/// How many queued jobs [`next_run_at`] looks at, at most.
const NEXT_RUN_SCAN: u32 = 256;

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

/// A runnable job considered by a claim, in claim order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Candidate {
    /// Negated, so that ascending order is best first.
    pub neg_priority: i64,
    pub run_at: i64,
    pub id: i64,
}

/// The best `limit` runnable jobs of `kind` at `now`, best first, each with what
/// `R` reads of it in the same seek.
///
/// No `LIMIT ?` here: SQLite's planner peeks at a bound LIMIT, so every new binding
/// would re-prepare the statement (measured: a tenth of a claim's time). The index
/// yields rows in claim order, so reading only the first `limit` is just as cheap.
pub(crate) fn candidates<R: ClaimedRow>(
    tx: &Transaction<'_>,
    (kind, version): (&str, u32),
    now: Timestamp,
    limit: u32,
    (conditions, flagged): (&Conditions, bool),
) -> Result<Vec<(Candidate, R::Ahead)>> {
    // A payload newer than the claimer knows waits for a build that does; a job whose
    // needs the machine does not meet waits in a lane that is not read.
    let mut statement = tx.prepare_cached(R::SEEK)?;
    let mut found = Vec::new();
    let lanes = lanes(tx, kind, Some(conditions), Some(flagged))?;
    if flagged && !lanes.any {
        // No queued job of the kind has constraints, nor a running one (which could
        // come back to the queue: a retry, a release, an expired lease): claims read
        // lane 0 alone again until an insert or an operator's retry flags it.
        tx.prepare_cached(
            "UPDATE kinds SET has_needs = 0 WHERE kind = ?1 AND NOT EXISTS \
             (SELECT 1 FROM jobs INDEXED BY jobs_active \
              WHERE status = 'running' AND kind = ?1 AND needs > 0)",
        )?
        .execute([kind])?;
    }
    for needs in lanes.met {
        let rows = statement.query_map(params![kind, now.as_millis(), version, needs], |r| {
            let candidate = Candidate {
                neg_priority: -r.get::<_, i64>(0)?,
                run_at: r.get(1)?,
                id: r.get(2)?,
            };
            Ok((candidate, R::ahead(r)?))
        })?;
        for row in rows.take(limit as usize) {
            found.push(row?);
        }
    }
    // Each lane is in claim order; several are merged.
    found.sort_unstable_by_key(|(candidate, _)| *candidate);
    found.truncate(limit as usize);
    Ok(found)
}

/// The claim's seek: one lane of `needs`, in claim order straight from the index.
/// `{}` is what else it reads of each job (nothing, or [`Start`]'s columns).
macro_rules! seek {
    ($also:literal) => {
        concat!(
            "SELECT priority, run_at, id",
            $also,
            " FROM jobs INDEXED BY jobs_active \
             WHERE status = 'queued' AND kind = ?1 AND needs = ?4 AND run_at <= ?2 \
             AND payload_version <= ?3 ORDER BY priority DESC, run_at, id"
        )
    };
}

/// The claim's seek for a whole [`Job`], from the index alone.
pub(crate) const CANDIDATES: &str = seek!("");

/// The runner's seek, which also reads what [`Start`] needs (each row it reads, its
/// first `limit` of a lane, is a job it will most likely claim).
pub(crate) const CANDIDATES_TO_START: &str =
    seek!(", payload, payload_version, attempts, parent_id, actor, timeout_ms, has_dependents");

/// What a claim reads of each job it marks running: the whole [`Job`] (what
/// `Queue::claim` hands a worker) or [`Start`] (what the runner gives a handler).
pub(crate) trait ClaimedRow: Sized {
    /// The seek for candidates: `priority, run_at, id`, then what
    /// [`ahead`](ClaimedRow::ahead) reads.
    const SEEK: &'static str;

    /// What the seek reads of a candidate beyond its place in the order.
    type Ahead;

    /// Reads [`Ahead`](ClaimedRow::Ahead) from the seek's row.
    fn ahead(r: &Row<'_>) -> rusqlite::Result<Self::Ahead>;

    /// Reads the job `?1` after the update that marked it running; `""` when what was
    /// read ahead is enough.
    const READ: &'static str;

    /// The job as its claim left it, from what was read ahead or by `read`, and
    /// whether jobs wait for it; `Error::StoredJson` when its payload is not JSON.
    fn claimed(
        read: &mut Option<rusqlite::CachedStatement<'_>>,
        job: (JobId, &str, Timestamp),
        ahead: Self::Ahead,
    ) -> Result<(Self, bool)>;

    /// The attempt the claim counted.
    fn attempts(&self) -> u32;

    /// When the job became runnable.
    fn run_at(&self) -> Timestamp;

    /// The payload and its version, for the upgrade and the schema check.
    fn payload_mut(&mut self) -> (&mut Value, &mut u32);
}

impl ClaimedRow for Job {
    const SEEK: &'static str = CANDIDATES;
    type Ahead = ();

    fn ahead(_: &Row<'_>) -> rusqlite::Result<()> {
        Ok(())
    }

    const READ: &'static str = READ_CLAIMED;

    fn claimed(
        read: &mut Option<rusqlite::CachedStatement<'_>>,
        (id, ..): (JobId, &str, Timestamp),
        (): (),
    ) -> Result<(Self, bool)> {
        let read = match read {
            Some(read) => read.query_row([id.raw()], read_claimed).optional()?,
            None => None,
        };
        match read {
            None => Err(Error::JobNotFound(id)),
            Some((_, Some(unreadable), _)) => Err(unreadable),
            Some((job, None, dependents)) => Ok((job, dependents)),
        }
    }

    fn attempts(&self) -> u32 {
        self.attempts
    }

    fn run_at(&self) -> Timestamp {
        self.run_at
    }

    fn payload_mut(&mut self) -> (&mut Value, &mut u32) {
        (&mut self.payload, &mut self.payload_version)
    }
}

/// What the runner reads of a job it claims: what its handler and context are given,
/// and no more (a whole [`Job`] is 27 columns and as many allocations).
#[derive(Debug)]
pub(crate) struct Start {
    pub id: JobId,
    pub kind: String,
    pub payload: Value,
    pub payload_version: u32,
    pub attempts: u32,
    pub run_at: Timestamp,
    pub parent: Option<JobId>,
    pub actor: Actor,
    pub timeout_ms: Option<u64>,
}

/// [`Start`]'s columns as the seek read them, before the claim.
pub(crate) struct StartAhead {
    payload: String,
    payload_version: u32,
    attempts: u32,
    parent: Option<JobId>,
    actor: Actor,
    timeout_ms: Option<u64>,
    has_dependents: bool,
}

impl ClaimedRow for Start {
    const SEEK: &'static str = CANDIDATES_TO_START;
    type Ahead = StartAhead;

    fn ahead(r: &Row<'_>) -> rusqlite::Result<StartAhead> {
        Ok(StartAhead {
            payload: r.get(3)?,
            payload_version: version_from(r, 4)?,
            attempts: r.get(5)?,
            parent: r.get::<_, Option<i64>>(6)?.map(JobId::from_raw),
            actor: actor_from(r, 7)?,
            timeout_ms: r.get::<_, Option<i64>>(8)?.map(|ms| ms.max(0) as u64),
            has_dependents: r.get(9)?,
        })
    }

    const READ: &'static str = "";

    fn claimed(
        _: &mut Option<rusqlite::CachedStatement<'_>>,
        (id, kind, run_at): (JobId, &str, Timestamp),
        ahead: StartAhead,
    ) -> Result<(Self, bool)> {
        let payload =
            serde_json::from_str::<Value>(&ahead.payload).map_err(|e| Error::StoredJson {
                id,
                column: "payload",
                reason: e.to_string(),
            })?;
        let start = Start {
            id,
            kind: kind.to_owned(),
            payload,
            payload_version: ahead.payload_version,
            // The update that marked it running counted this attempt.
            attempts: ahead.attempts.saturating_add(1),
            run_at,
            parent: ahead.parent,
            actor: ahead.actor,
            timeout_ms: ahead.timeout_ms,
        };
        Ok((start, ahead.has_dependents))
    }

    fn attempts(&self) -> u32 {
        self.attempts
    }

    fn run_at(&self) -> Timestamp {
        self.run_at
    }

    fn payload_mut(&mut self) -> (&mut Value, &mut u32) {
        (&mut self.payload, &mut self.payload_version)
    }
}

/// Marks queued jobs running, one at a time, with the statements it needs prepared
/// once for the whole claim: looking a statement up in the connection's cache hashes
/// its text each time, which came to a few percent of a job's claim.
pub(crate) struct Marker<'t, R> {
    update: rusqlite::CachedStatement<'t>,
    read: Option<rusqlite::CachedStatement<'t>>,
    row: std::marker::PhantomData<R>,
}

impl<'t, R: ClaimedRow> Marker<'t, R> {
    /// Prepares (or takes from the cache) the claim's update and read.
    ///
    /// `UPDATE ... RETURNING` would do both in one statement, but SQLite keeps
    /// RETURNING rows in a temporary b-tree it builds and tears down per call; an update
    /// and a primary-key read are cheaper (measured again for a claim's jobs in one
    /// `UPDATE ... WHERE id IN (...) RETURNING`: more instructions per job, not fewer),
    /// and reading in the seek (the runner's [`Start`]) is cheaper still.
    pub(crate) fn new(tx: &'t Transaction<'_>) -> Result<Self> {
        Ok(Marker {
            update: tx.prepare_cached(
                "UPDATE jobs SET status = 'running', lease_owner = ?2, lease_expires_at = ?3, \
                 attempts = attempts + 1, started_at = ?4, updated_at = ?4, \
                 progress_done = NULL, progress_total = NULL, lease_token = ?5, lease_ms = ?6, \
                 lease_process = ?7 \
                 WHERE id = ?1 AND status = 'queued'",
            )?,
            read: match R::READ {
                "" => None,
                read => Some(tx.prepare_cached(read)?),
            },
            row: std::marker::PhantomData,
        })
    }

    /// Marks a queued job (`candidate`, of `kind`) running under `worker` until
    /// `expires_at`; returns it, and whether jobs wait for it.
    pub(crate) fn mark(
        &mut self,
        (candidate, ahead, kind): (&Candidate, R::Ahead, &str),
        (worker, process): (&str, Option<i64>),
        (token, expires_at, lease_ms): (i64, Timestamp, i64),
        now: Timestamp,
    ) -> Result<(R, bool)> {
        let id = JobId::from_raw(candidate.id);
        let changed = self.update.execute(params![
            candidate.id,
            worker,
            expires_at.as_millis(),
            now.as_millis(),
            token,
            lease_ms,
            process
        ])?;
        if changed != 1 {
            // The seek found it queued in this same transaction: never seen.
            return Err(Error::JobNotFound(id));
        }
        let run_at = Timestamp::from_millis(candidate.run_at);
        R::claimed(&mut self.read, (id, kind, run_at), ahead)
    }
}

/// Stores a job's payload as upgraded to `version` (at the claim that upgraded it).
pub(crate) fn set_payload(
    tx: &Transaction<'_>,
    id: JobId,
    payload: &str,
    version: u32,
) -> Result<()> {
    tx.prepare_cached("UPDATE jobs SET payload = ?2, payload_version = ?3 WHERE id = ?1")?
        .execute(params![id.raw(), payload, version])?;
    Ok(())
}

/// Fails a job whose stored JSON cannot be read; returns its attempts.
pub(crate) fn fail_unreadable(
    tx: &Transaction<'_>,
    id: JobId,
    error: &str,
    now: Timestamp,
) -> Result<u32> {
    let attempts = tx
        .prepare_cached(
            "UPDATE jobs SET status = 'failed', last_error = ?2, finished_at = ?3, updated_at = ?3, \
             lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL, lease_process = NULL \
             WHERE id = ?1 RETURNING attempts",
        )?
        .query_row(params![id.raw(), error, now.as_millis()], |r| r.get(0))?;
    // Counted from the caller's change, in the kind's minute (`history::record`).
    Ok(attempts)
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
