//! The claim's own steps for each job it takes: the seek for candidates (from the
//! index alone, or reading ahead what the runner's handler is given), what it reads
//! of each ([`ClaimedRow`]: the whole [`Job`] or the runner's [`Start`]), marking each
//! running ([`Marker`]), and storing an upgraded payload or failing an unreadable one.

use rusqlite::{params, OptionalExtension, Row, Transaction};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{Actor, Conditions, Job, JobId};

use super::claim::lanes;
use super::read::{actor_from, read_claimed, version_from, READ_CLAIMED};

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
    /// The payload as stored, hashed ([`payload_hash`]): part of the job's
    /// idempotency key, which a payload replaced by a later enqueue changes.
    pub payload_hash: u64,
}

/// A hash of a payload's stored text that every build and process computes alike
/// (FNV-1a, 64 bits: not `std`'s hasher, whose output may change between Rust
/// releases, and so between an app's updates).
pub(crate) fn payload_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
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
            payload_hash: payload_hash(&ahead.payload),
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
        .prepare_cached(concat!(
            "UPDATE jobs SET status = 'failed', last_error = ?2, finished_at = ?3, updated_at = ?3, \
             lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL, lease_process = NULL, ",
            append_error!("?3", "?2"),
            " WHERE id = ?1 RETURNING attempts"
        ))?
        .query_row(params![id.raw(), error, now.as_millis()], |r| r.get(0))?;
    // Counted from the caller's change, in the kind's minute (`history::record`).
    Ok(attempts)
}
