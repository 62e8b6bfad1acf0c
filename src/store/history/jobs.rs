//! `job_history`: per kind and period, the jobs that ended (succeeded, failed,
//! cancelled), the attempts retried, and how long attempts waited and ran.
//!
//! A kind's current minute is kept in `job_counts` instead, in a row of status
//! `minute` (`n` the minute's start, `tally` its counts and histograms as one blob):
//! every transaction that ends jobs writes `job_counts` anyway, and its rows share a
//! page, so adding to the minute there costs the commit no page of its own (a row in
//! `job_history` per end cost "claim + complete, one job per step" a sixth of its
//! rate). When a kind's minute changes, the finished one moves to `job_history`.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::{count, counted, histogram_at, minute_of, Counts, Histogram, Period, MINUTE_MS};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::JobStatus;
use crate::store::jobs::Change;

/// What one period of a kind holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub succeeded: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub retries: u64,
    pub waits: Histogram,
    pub runs: Histogram,
}

impl Counts for Tally {
    const READ: &'static str = "SELECT span, at, succeeded, failed, cancelled, retries, waits, \
         runs FROM job_history WHERE kind = ?1 AND span IN (60000, 3600000) AND at >= ?2 \
         AND at < ?3";
    const KEYS: &'static str =
        "SELECT DISTINCT kind FROM job_history WHERE at >= ?1 AND at < ?2 ORDER BY kind";
    const OLD: &'static str = "SELECT span, at, succeeded, failed, cancelled, retries, waits, \
         runs, kind FROM job_history WHERE span = 60000 AND at < ?1 ORDER BY at LIMIT ?2";
    const DELETE_MINUTE: &'static str =
        "DELETE FROM job_history WHERE kind = ?1 AND span = 60000 AND at = ?2";
    const DELETE_HOURS: &'static str = "DELETE FROM job_history WHERE span = 3600000 AND at < ?1";
    const OLD_KEY: usize = 8;

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Tally {
            succeeded: counted(r, 2)?,
            failed: counted(r, 3)?,
            cancelled: counted(r, 4)?,
            retries: counted(r, 5)?,
            waits: histogram_at(r, 6)?,
            runs: histogram_at(r, 7)?,
        })
    }

    fn merge(&mut self, other: &Tally) {
        self.succeeded += other.succeeded;
        self.failed += other.failed;
        self.cancelled += other.cancelled;
        self.retries += other.retries;
        self.waits.merge(&other.waits);
        self.runs.merge(&other.runs);
    }

    fn is_empty(&self) -> bool {
        self.succeeded + self.failed + self.cancelled + self.retries == 0
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
            let tally = Tally::from_blob(blob.as_deref().unwrap_or_default());
            if !tally.is_empty() {
                tally.add(tx, &kind, at, MINUTE_MS)?;
            }
            tx.prepare_cached("DELETE FROM job_counts WHERE kind = ?1 AND status = 'minute'")?
                .execute([&kind])?;
        }
        Ok(())
    }

    fn add(&self, tx: &Transaction<'_>, kind: &str, at: i64, span: i64) -> Result<()> {
        tx.prepare_cached(
            "INSERT INTO job_history (kind, span, at, succeeded, failed, cancelled, retries, \
             waits, runs) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
             ON CONFLICT (kind, span, at) DO UPDATE SET \
             succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed, \
             cancelled = cancelled + excluded.cancelled, retries = retries + excluded.retries, \
             waits = jobs_histogram_add(waits, excluded.waits), \
             runs = jobs_histogram_add(runs, excluded.runs)",
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
        } else if !kept.is_empty() {
            kept.add(tx, kind, at, MINUTE_MS)?;
        }
    }
    tx.prepare_cached(
        "INSERT INTO job_counts (kind, status, n, tally) VALUES (?1, 'minute', ?2, ?3) \
         ON CONFLICT (kind, status) DO UPDATE SET n = excluded.n, tally = excluded.tally",
    )?
    .execute(params![kind, minute, tally.to_blob()])?;
    Ok(())
}

impl Tally {
    /// The tally as one blob: the four counts (little-endian `u64`), then the waits'
    /// histogram blob's length (`u32`) and that blob, then the runs' blob.
    pub(crate) fn to_blob(&self) -> Vec<u8> {
        let waits = self.waits.to_blob();
        let mut blob = Vec::with_capacity(36 + waits.len());
        for n in [self.succeeded, self.failed, self.cancelled, self.retries] {
            blob.extend_from_slice(&n.to_le_bytes());
        }
        blob.extend_from_slice(&(waits.len() as u32).to_le_bytes());
        blob.extend_from_slice(&waits);
        blob.extend_from_slice(&self.runs.to_blob());
        blob
    }

    /// Reads [`to_blob`](Tally::to_blob)'s bytes; what is short or foreign reads as
    /// zeros (the file is read, never trusted).
    pub(crate) fn from_blob(bytes: &[u8]) -> Tally {
        let word = |i: usize| {
            bytes
                .get(i * 8..i * 8 + 8)
                .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        };
        let waits_len = bytes.get(32..36).map_or(0, |b| {
            u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize
        });
        let rest = bytes.get(36..).unwrap_or_default();
        let (waits, runs) = rest.split_at(waits_len.min(rest.len()));
        Tally {
            succeeded: word(0),
            failed: word(1),
            cancelled: word(2),
            retries: word(3),
            waits: Histogram::from_blob(waits),
            runs: Histogram::from_blob(runs),
        }
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
