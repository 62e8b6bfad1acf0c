//! `job_history`: per kind and period, the jobs that ended (succeeded, failed,
//! cancelled), the attempts retried, and how long attempts waited and ran.

use rusqlite::{params, Row, Transaction};

use super::{count, counted, histogram_at, minute_of, Counts, Histogram, MINUTE_MS};
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
    for (kind, tally) in &kinds {
        tally.add(tx, kind, minute, MINUTE_MS)?;
    }
    Ok(())
}
