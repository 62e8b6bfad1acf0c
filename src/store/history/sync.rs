//! `sync_history`: per sync target (`connector/account/name`) and period, how its runs
//! ended, the items they changed, and how long they took.

use rusqlite::{params, Row, Transaction};

use super::{count, counted, histogram_at, minute_of, Counts, Histogram, MINUTE_MS};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::SyncOutcome;

/// What one period of a target holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SyncTally {
    pub updated: u64,
    pub not_modified: u64,
    pub failed: u64,
    pub offline: u64,
    pub throttled: u64,
    pub changed: u64,
    pub durations: Histogram,
}

/// One run that ended, as `sync_history` counts it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SyncRun<'a> {
    pub outcome: &'a SyncOutcome,
    pub took_ms: u64,
}

impl Counts for SyncTally {
    const READ: &'static str = "SELECT span, at, updated, not_modified, failed, offline, \
         throttled, changed, durations FROM sync_history WHERE target = ?1 \
         AND span IN (60000, 3600000) AND at >= ?2 AND at < ?3";
    // As `Tally::KEYS`: a seek from target to target.
    const KEYS: &'static str = "WITH RECURSIVE k(target) AS (\
         SELECT min(target) FROM sync_history \
         UNION ALL SELECT (SELECT min(target) FROM sync_history WHERE target > k.target) \
         FROM k WHERE k.target IS NOT NULL) \
         SELECT target FROM k WHERE target IS NOT NULL AND EXISTS (SELECT 1 FROM \
         sync_history h WHERE h.target = k.target AND h.span IN (60000, 3600000) \
         AND h.at >= ?1 AND h.at < ?2) ORDER BY target";
    const OLD: &'static str = "SELECT span, at, updated, not_modified, failed, offline, \
         throttled, changed, durations, target FROM sync_history WHERE span = 60000 \
         AND at < ?1 ORDER BY at LIMIT ?2";
    const DELETE_MINUTE: &'static str =
        "DELETE FROM sync_history WHERE target = ?1 AND span = 60000 AND at = ?2";
    const DELETE_HOURS: &'static str = "DELETE FROM sync_history WHERE span = 3600000 AND at < ?1";
    const OLD_KEY: usize = 9;

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(SyncTally {
            updated: counted(r, 2)?,
            not_modified: counted(r, 3)?,
            failed: counted(r, 4)?,
            offline: counted(r, 5)?,
            throttled: counted(r, 6)?,
            changed: counted(r, 7)?,
            durations: histogram_at(r, 8)?,
        })
    }

    fn merge(&mut self, other: &SyncTally) {
        self.updated += other.updated;
        self.not_modified += other.not_modified;
        self.failed += other.failed;
        self.offline += other.offline;
        self.throttled += other.throttled;
        self.changed += other.changed;
        self.durations.merge(&other.durations);
    }

    fn is_empty(&self) -> bool {
        self.updated + self.not_modified + self.failed + self.offline + self.throttled == 0
    }

    fn add(&self, tx: &Transaction<'_>, target: &str, at: i64, span: i64) -> Result<()> {
        tx.prepare_cached(
            "INSERT INTO sync_history (target, span, at, updated, not_modified, failed, \
             offline, throttled, changed, durations) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
             ON CONFLICT (target, span, at) DO UPDATE SET \
             updated = updated + excluded.updated, \
             not_modified = not_modified + excluded.not_modified, \
             failed = failed + excluded.failed, offline = offline + excluded.offline, \
             throttled = throttled + excluded.throttled, changed = changed + excluded.changed, \
             durations = jobs_histogram_add(durations, excluded.durations)",
        )?
        .execute(params![
            target,
            span,
            at,
            count(self.updated),
            count(self.not_modified),
            count(self.failed),
            count(self.offline),
            count(self.throttled),
            count(self.changed),
            self.durations.to_blob(),
        ])?;
        Ok(())
    }
}

/// Adds a run of `target` that ended at `now` to its minute. A run that did not
/// happen (skipped) or was cancelled adds nothing.
pub(crate) fn record_sync(
    tx: &Transaction<'_>,
    target: &str,
    run: SyncRun<'_>,
    now: Timestamp,
) -> Result<()> {
    let mut tally = SyncTally::default();
    match run.outcome {
        SyncOutcome::Updated { changed } => {
            tally.updated = 1;
            tally.changed = *changed;
        }
        SyncOutcome::NotModified => tally.not_modified = 1,
        SyncOutcome::Throttled { .. } => tally.throttled = 1,
        SyncOutcome::Failed { offline: true, .. } => tally.offline = 1,
        SyncOutcome::Failed { .. } => tally.failed = 1,
        _ => return Ok(()),
    }
    tally.durations.add(run.took_ms);
    tally.add(tx, target, minute_of(now.as_millis()), MINUTE_MS)
}

/// Deletes the history of every target of `connector/account`, for a disconnected
/// account (both names hold no `/`: `SyncTarget::check_account`). Returns how many
/// rows went.
pub(crate) fn forget_account(
    tx: &Transaction<'_>,
    connector: &str,
    account: &str,
) -> Result<usize> {
    // The targets under `connector/account/` sort from there up to the same with the
    // last `/` raised by one, `connector/account0`.
    let (from, to) = (
        format!("{connector}/{account}/"),
        format!("{connector}/{account}0"),
    );
    Ok(tx
        .prepare_cached("DELETE FROM sync_history WHERE target >= ?1 AND target < ?2")?
        .execute(params![from, to])?)
}
