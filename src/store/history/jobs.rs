//! `job_history`: per kind and period, the jobs that ended (succeeded, failed,
//! cancelled), the attempts retried, and how long attempts waited and ran.
//!
//! A kind's current minute is kept in `job_counts` instead, in a row of status
//! `minute` (`n` the minute's start, `tally` its counts and histograms as one blob):
//! every transaction that ends jobs wrote `job_counts` anyway, and its rows share a
//! page, so adding to the minute there costs the commit no page of its own (a row in
//! `job_history` per end cost "claim + complete, one job per step" a sixth of its
//! rate). The minute's ends are not in the kind's `succeeded` / `failed` /
//! `cancelled` rows yet: an end writes one row, not two, and a reader of the counts
//! adds the minute's ([`minutes`]). When a kind's minute changes, the finished one
//! moves to `job_history` and its ends into those rows ([`settle_minute`]).
//!
//! An attempt a handler deferred (`JobError::offline`, `::retry_after`,
//! `::throttle_kind`, a durable sleep) is neither an end nor a retry: it is counted as
//! `offline`, `throttled` or `slept`, straight into the minute's `job_history` row ([`record_deferral`]).
//! Deferrals are rare (a kind offline tries one job per `offline_retry`), so they
//! take a row of their own and the minute blob of the end's hot path stays as it is.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{params, Connection, OptionalExtension, Row, ToSql, Transaction};

use super::histogram::MAX_BLOB;
use super::{count, counted, histogram_at, minute_of, Counts, Histogram, Period, MINUTE_MS};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::JobStatus;
use crate::store::jobs::{tally, Change};

/// Jobs that ended, by how.
pub(crate) type Ended = [(JobStatus, u64); 3];

/// What one period of a kind holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub succeeded: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub retries: u64,
    pub waits: Histogram,
    pub runs: Histogram,
    /// Attempts that found the network gone and were deferred (not in the minute blob).
    pub offline: u64,
    /// Attempts a service asked to wait (a snooze or a throttle; not in the blob).
    pub throttled: u64,
    /// Attempts that began a durable sleep of their handler (not in the blob).
    pub slept: u64,
}

/// How an attempt was deferred, as the history counts it ([`record_deferral`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deferred {
    /// It found the network gone.
    Offline,
    /// A service asked it (or its kind) to wait.
    Throttled,
    /// Its handler began a durable sleep.
    Slept,
}

impl Counts for Tally {
    const READ: &'static str = "SELECT span, at, succeeded, failed, cancelled, retries, waits, \
         runs, offline, throttled, slept FROM job_history WHERE kind = ?1 AND span IN (60000, 3600000) AND at >= ?2 \
         AND at < ?3";
    // A seek from kind to kind, and one per kind for its range: a scan for DISTINCT
    // read every row of 30 days of history (14 ms at 11 kinds).
    const KEYS: &'static str = "WITH RECURSIVE k(kind) AS (\
         SELECT min(kind) FROM job_history \
         UNION ALL SELECT (SELECT min(kind) FROM job_history WHERE kind > k.kind) FROM k \
         WHERE k.kind IS NOT NULL) \
         SELECT kind FROM k WHERE kind IS NOT NULL AND EXISTS (SELECT 1 FROM job_history h \
         WHERE h.kind = k.kind AND h.span IN (60000, 3600000) AND h.at >= ?1 AND h.at < ?2) \
         ORDER BY kind";
    const OLD: &'static str = "SELECT span, at, succeeded, failed, cancelled, retries, waits, \
         runs, offline, throttled, slept, kind FROM job_history WHERE span = 60000 AND at < ?1 \
         ORDER BY at LIMIT ?2";
    const DELETE_MINUTE: &'static str =
        "DELETE FROM job_history WHERE kind = ?1 AND span = 60000 AND at = ?2";
    const DELETE_HOURS: &'static str = "DELETE FROM job_history WHERE span = 3600000 AND at < ?1";
    const OLD_KEY: usize = 11;

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Tally {
            succeeded: counted(r, 2)?,
            failed: counted(r, 3)?,
            cancelled: counted(r, 4)?,
            retries: counted(r, 5)?,
            waits: histogram_at(r, 6)?,
            runs: histogram_at(r, 7)?,
            offline: counted(r, 8)?,
            throttled: counted(r, 9)?,
            slept: counted(r, 10)?,
        })
    }

    fn merge(&mut self, other: &Tally) {
        self.succeeded += other.succeeded;
        self.failed += other.failed;
        self.cancelled += other.cancelled;
        self.retries += other.retries;
        self.waits.merge(&other.waits);
        self.runs.merge(&other.runs);
        self.offline += other.offline;
        self.throttled += other.throttled;
        self.slept += other.slept;
    }

    fn is_empty(&self) -> bool {
        self.succeeded
            + self.failed
            + self.cancelled
            + self.retries
            + self.offline
            + self.throttled
            + self.slept
            == 0
    }

    fn pending(conn: &Connection, kind: &str, from: i64, to: i64) -> Result<Vec<Period<Tally>>> {
        Ok(current(conn, kind)?
            .filter(|(at, _)| (from..to).contains(at))
            .map(|(at, tally)| Period {
                at,
                span: MINUTE_MS,
                tally,
            })
            .into_iter()
            .collect())
    }

    fn pending_keys(conn: &Connection, from: i64, to: i64) -> Result<Vec<String>> {
        let mut statement = conn.prepare_cached(
            "SELECT kind FROM job_counts WHERE status = 'minute' AND n >= ?1 AND n < ?2",
        )?;
        let kinds = statement
            .query_map(params![from, to], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(kinds)
    }

    fn settle(tx: &Transaction<'_>, before: i64) -> Result<()> {
        let stale: Vec<(String, i64, Option<Vec<u8>>)> = {
            let mut statement = tx.prepare_cached(
                "SELECT kind, n, tally FROM job_counts WHERE status = 'minute' AND n < ?1",
            )?;
            let rows = statement
                .query_map([before], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            rows
        };
        for (kind, at, blob) in stale {
            settle_minute(
                tx,
                &kind,
                at,
                &Tally::from_blob(blob.as_deref().unwrap_or_default()),
            )?;
            tx.prepare_cached("DELETE FROM job_counts WHERE kind = ?1 AND status = 'minute'")?
                .execute([&kind])?;
        }
        Ok(())
    }

    fn add(&self, tx: &Transaction<'_>, kind: &str, at: i64, span: i64) -> Result<()> {
        tx.prepare_cached(
            "INSERT INTO job_history (kind, span, at, succeeded, failed, cancelled, retries, \
             waits, runs, offline, throttled, slept) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
             ON CONFLICT (kind, span, at) DO UPDATE SET \
             succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed, \
             cancelled = cancelled + excluded.cancelled, retries = retries + excluded.retries, \
             waits = jobs_histogram_add(waits, excluded.waits), \
             runs = jobs_histogram_add(runs, excluded.runs), \
             offline = offline + excluded.offline, throttled = throttled + excluded.throttled, \
             slept = slept + excluded.slept",
        )?
        .execute(params![
            kind,
            span,
            at,
            count(self.succeeded),
            count(self.failed),
            count(self.cancelled),
            count(self.retries),
            self.waits.to_blob(),
            self.runs.to_blob(),
            count(self.offline),
            count(self.throttled),
            count(self.slept),
        ])?;
        Ok(())
    }
}

/// Adds what the changes of one transaction ended to the minute of `now`: one upsert
/// per kind among them. Changes that end nothing (an enqueue, a claim, a release)
/// cost a comparison each.
pub(crate) fn record(tx: &Transaction<'_>, changes: &[Change], now: Timestamp) -> Result<()> {
    let mut kinds: Vec<(&str, Tally)> = Vec::new();
    for change in changes {
        let retried = change.to == JobStatus::Queued
            && change.from == Some(JobStatus::Running)
            && change.ran.is_some();
        if !change.to.is_finished() && !retried {
            continue;
        }
        let tally = match kinds.iter_mut().position(|(kind, _)| *kind == change.kind) {
            Some(i) => &mut kinds[i].1,
            None => {
                kinds.push((&change.kind, Tally::default()));
                &mut kinds.last_mut().expect("just pushed").1
            }
        };
        match change.to {
            JobStatus::Succeeded => tally.succeeded += 1,
            JobStatus::Failed => tally.failed += 1,
            JobStatus::Cancelled => tally.cancelled += 1,
            _ => tally.retries += 1,
        }
        if let Some(ran) = change.ran {
            tally.waits.add(ran.waited_ms);
            tally.runs.add(ran.ran_ms);
        }
    }
    let minute = minute_of(now.as_millis());
    for (kind, tally) in kinds {
        add_to_minute(tx, kind, minute, tally)?;
    }
    Ok(())
}

/// Counts an attempt of `kind` a handler deferred, in the minute of `now`: as
/// `offline` when it found the network gone, `slept` when its handler began a durable
/// sleep, else as `throttled` (the service asked to wait). Written to `job_history` at once (see the module's comment).
pub(crate) fn record_deferral(
    tx: &Transaction<'_>,
    kind: &str,
    deferred: Deferred,
    now: Timestamp,
) -> Result<()> {
    let tally = Tally {
        offline: u64::from(deferred == Deferred::Offline),
        throttled: u64::from(deferred == Deferred::Throttled),
        slept: u64::from(deferred == Deferred::Slept),
        ..Tally::default()
    };
    tally.add(tx, kind, minute_of(now.as_millis()), MINUTE_MS)
}

/// Moves a kind's minute that is over out of `job_counts`' minute row: its tally to
/// `job_history`, its ends into the kind's finished counts. The caller replaces or
/// deletes the minute row in the same transaction.
fn settle_minute(tx: &Transaction<'_>, kind: &str, at: i64, minute: &Tally) -> Result<()> {
    if minute.is_empty() {
        return Ok(());
    }
    minute.add(tx, kind, at, MINUTE_MS)?;
    for (status, n) in minute.ended() {
        tally(tx, kind, status, count(n))?;
    }
    Ok(())
}

/// The ends each kind's current minute holds, not yet in its finished counts (the
/// counts' reader adds them), by kind.
pub(crate) fn minutes(conn: &Connection) -> Result<Vec<(String, Ended)>> {
    let mut statement =
        conn.prepare_cached("SELECT kind, tally FROM job_counts WHERE status = 'minute'")?;
    let rows = statement.query_map([], |r| {
        let tally = match r.get_ref(1)? {
            ValueRef::Blob(bytes) => Tally::from_blob(bytes),
            _ => Tally::default(),
        };
        Ok((r.get(0)?, tally.ended()))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A kind's current minute, as `job_counts` keeps it: its start and tally.
fn current(conn: &Connection, kind: &str) -> Result<Option<(i64, Tally)>> {
    let row: Option<(i64, Option<Vec<u8>>)> = conn
        .prepare_cached("SELECT n, tally FROM job_counts WHERE kind = ?1 AND status = 'minute'")?
        .query_row([kind], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(row.map(|(at, blob)| (at, Tally::from_blob(blob.as_deref().unwrap_or_default()))))
}

/// Adds `tally` to `kind`'s minute starting at `minute`; the minute kept before, when
/// another, goes to `job_history` first.
fn add_to_minute(tx: &Transaction<'_>, kind: &str, minute: i64, mut tally: Tally) -> Result<()> {
    // Most ends fall in the minute kept: one statement, merged by `jobs_tally_add`.
    let added = tx
        .prepare_cached(
            "UPDATE job_counts SET tally = jobs_tally_add(tally, ?3) \
             WHERE kind = ?1 AND status = 'minute' AND n = ?2",
        )?
        .execute(params![kind, minute, tally.to_blob()])?;
    if added > 0 {
        return Ok(());
    }
    if let Some((at, kept)) = current(tx, kind)? {
        if at == minute {
            tally.merge(&kept);
        } else {
            settle_minute(tx, kind, at, &kept)?;
        }
    }
    tx.prepare_cached(
        "INSERT INTO job_counts (kind, status, n, tally) VALUES (?1, 'minute', ?2, ?3) \
         ON CONFLICT (kind, status) DO UPDATE SET n = excluded.n, tally = excluded.tally",
    )?
    .execute(params![kind, minute, tally.to_blob()])?;
    Ok(())
}

/// The most bytes a tally's blob takes.
const MAX_TALLY_BLOB: usize = 36 + 2 * MAX_BLOB;

/// A tally's blob, built on the stack (a job's end allocates nothing for it).
pub(crate) struct TallyBlob {
    len: usize,
    bytes: [u8; MAX_TALLY_BLOB],
}

impl std::ops::Deref for TallyBlob {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl ToSql for TallyBlob {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Blob(self)))
    }
}

impl Tally {
    /// The jobs it counts by how they ended.
    pub(crate) fn ended(&self) -> Ended {
        [
            (JobStatus::Succeeded, self.succeeded),
            (JobStatus::Failed, self.failed),
            (JobStatus::Cancelled, self.cancelled),
        ]
    }

    /// The tally as one blob: the four counts (little-endian `u64`), then the waits'
    /// histogram blob's length (`u32`) and that blob, then the runs' blob. `offline`
    /// and `throttled` are not in it: they go to `job_history` at once.
    pub(crate) fn to_blob(&self) -> TallyBlob {
        let mut blob = TallyBlob {
            len: 0,
            bytes: [0; MAX_TALLY_BLOB],
        };
        let bytes = &mut blob.bytes;
        for (i, n) in [self.succeeded, self.failed, self.cancelled, self.retries]
            .into_iter()
            .enumerate()
        {
            bytes[i * 8..i * 8 + 8].copy_from_slice(&n.to_le_bytes());
        }
        let waits = self.waits.write_blob(&mut bytes[36..]);
        bytes[32..36].copy_from_slice(&(waits as u32).to_le_bytes());
        let runs = self.runs.write_blob(&mut bytes[36 + waits..]);
        blob.len = 36 + waits + runs;
        blob
    }

    /// Reads [`to_blob`](Tally::to_blob)'s bytes; what is short or foreign reads as
    /// zeros (the file is read, never trusted).
    pub(crate) fn from_blob(bytes: &[u8]) -> Tally {
        let mut tally = Tally::default();
        tally.add_blob(bytes);
        tally
    }

    /// Adds a stored tally to this one, read as [`from_blob`](Tally::from_blob) reads it.
    pub(crate) fn add_blob(&mut self, bytes: &[u8]) {
        let word = |i: usize| {
            bytes
                .get(i * 8..i * 8 + 8)
                .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        };
        self.succeeded = self.succeeded.saturating_add(word(0));
        self.failed = self.failed.saturating_add(word(1));
        self.cancelled = self.cancelled.saturating_add(word(2));
        self.retries = self.retries.saturating_add(word(3));
        let waits_len = bytes.get(32..36).map_or(0, |b| {
            u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize
        });
        let rest = bytes.get(36..).unwrap_or_default();
        let (waits, runs) = rest.split_at(waits_len.min(rest.len()));
        self.waits.add_blob(waits);
        self.runs.add_blob(runs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_survives_its_blob_and_a_short_or_foreign_one_reads_safely() {
        let mut tally = Tally {
            succeeded: 3,
            failed: 1,
            cancelled: 0,
            retries: 2,
            ..Tally::default()
        };
        tally.waits.add(40);
        tally.runs.add(300);
        tally.runs.add(7);
        assert_eq!(Tally::from_blob(&tally.to_blob()), tally);
        assert_eq!(Tally::from_blob(&[]), Tally::default());
        assert_eq!(Tally::from_blob(&[9; 5]).succeeded, 0);
        let foreign = Tally::from_blob(&[0xff; 50]);
        assert_eq!(
            foreign.runs.total(),
            0,
            "a length past the end takes the rest"
        );
    }
}
