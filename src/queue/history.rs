//! What happened, per kind and period: the jobs that ended, the retries, and how long
//! attempts waited and ran ([`Queue::history`]), kept for a bounded time
//! ([`HistoryKeep`], [`Queue::compact_history`]). The rows are written by the
//! transactions that end the jobs (`store::history`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Queue;
use crate::clock::{duration_millis, Timestamp};
use crate::error::{Error, Result};
use crate::store::history::{self, Counts, Period, SyncTally, Tally, HOUR_MS, MINUTE_MS};

/// How finely [`Queue::history`] returns a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum HistoryStep {
    /// A point per minute while minutes are kept (older periods come as the hours
    /// they were folded into).
    #[default]
    Minute,
    /// A point per hour.
    Hour,
}

/// The span of a kind's history to read: periods that start in `[from, to)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct HistoryRange {
    /// The first instant included.
    pub from: Timestamp,
    /// The first instant past the span.
    pub to: Timestamp,
    /// A point per minute or per hour.
    #[serde(default)]
    pub step: HistoryStep,
}

impl HistoryRange {
    /// The periods starting in `[from, to)`, a point per `step`.
    #[must_use]
    pub fn new(from: Timestamp, to: Timestamp, step: HistoryStep) -> Self {
        HistoryRange { from, to, step }
    }

    /// The hour before `now`, by minute (the minute `now` is in included).
    #[must_use]
    pub fn last_hour(now: Timestamp) -> Self {
        let to = Timestamp::from_millis(next_start(now.as_millis(), MINUTE_MS));
        HistoryRange::new(
            to.saturating_sub(Duration::from_secs(3600)),
            to,
            HistoryStep::Minute,
        )
    }

    /// The day before `now`, by hour (the hour `now` is in included).
    #[must_use]
    pub fn last_day(now: Timestamp) -> Self {
        let to = Timestamp::from_millis(next_start(now.as_millis(), HOUR_MS));
        HistoryRange::new(
            to.saturating_sub(Duration::from_secs(86_400)),
            to,
            HistoryStep::Hour,
        )
    }
}

/// One period of a kind's history.
///
/// Times are read from half-octave histograms: each figure is the top of the bucket its
/// percentile falls in, so it is never under the true one and at most √2 (41 %) over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HistoryPoint {
    /// When the period starts.
    pub at: Timestamp,
    /// How long it is: 60,000 (a minute) or 3,600,000 (an hour).
    pub span_ms: u32,
    /// Jobs that succeeded in it.
    pub succeeded: u64,
    /// Jobs that failed for good in it.
    pub failed: u64,
    /// Jobs cancelled in it, queued or running.
    pub cancelled: u64,
    /// Attempts that failed and were queued again (a lease taken back from a dead
    /// worker is not one: it does not count as an attempt either).
    pub retries: u64,
    /// Attempts that found the network gone and were deferred until it is back
    /// (`JobError::offline`): not retries, and not counted as attempts.
    pub offline: u64,
    /// Attempts a service asked to wait (`JobError::retry_after`,
    /// `JobError::throttle_kind`): not retries, and not counted as attempts.
    pub throttled: u64,
    /// Attempts that began a durable sleep of their handler
    /// ([`JobContext::sleep`](crate::runner::JobContext::sleep)): not retries, and not
    /// counted as attempts.
    #[serde(default)]
    pub slept: u64,
    /// The time from runnable to start of the attempts that ended in it, median.
    pub wait_p50_ms: Option<u64>,
    /// The same, 95th percentile.
    pub wait_p95_ms: Option<u64>,
    /// The run time of the attempts that ended in it, median.
    pub run_p50_ms: Option<u64>,
    /// The same, 95th percentile.
    pub run_p95_ms: Option<u64>,
}

impl HistoryPoint {
    fn from_tally(at: i64, span: i64, tally: &Tally) -> Self {
        HistoryPoint {
            at: Timestamp::from_millis(at),
            span_ms: span as u32,
            succeeded: tally.succeeded,
            failed: tally.failed,
            cancelled: tally.cancelled,
            retries: tally.retries,
            offline: tally.offline,
            throttled: tally.throttled,
            slept: tally.slept,
            wait_p50_ms: tally.waits.quantile(0.5),
            wait_p95_ms: tally.waits.quantile(0.95),
            run_p50_ms: tally.runs.quantile(0.5),
            run_p95_ms: tally.runs.quantile(0.95),
        }
    }
}

/// How long history is kept: by minute for `by_minute` (48 hours by default), then by
/// hour until `by_hour` (30 days). The runner applies it every few minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryKeep {
    /// How long minutes stay minutes before they are folded into hours.
    pub by_minute: Duration,
    /// How long hours are kept (counted from now, so at least `by_minute`).
    pub by_hour: Duration,
}

impl Default for HistoryKeep {
    fn default() -> Self {
        HistoryKeep {
            by_minute: Duration::from_secs(48 * 3600),
            by_hour: Duration::from_secs(30 * 86_400),
        }
    }
}

/// The most minute rows one transaction of [`Queue::compact_history`] folds.
const COMPACT_BATCH: usize = 2_000;

/// The longest span [`Queue::history`] reads: 31 days.
pub const MAX_HISTORY_SPAN: Duration = Duration::from_secs(31 * 86_400);

impl Queue {
    /// The history of `kind` in `range`, oldest first: a point per period that saw
    /// an end, a retry or a deferred attempt (periods without any are left out).
    ///
    /// Fails with [`Error::InvalidArgument`] when `range` ends before it starts or spans
    /// more than [`MAX_HISTORY_SPAN`].
    pub fn history(&self, kind: &str, range: HistoryRange) -> Result<Vec<HistoryPoint>> {
        let (from, to) = checked(range)?;
        let periods = self
            .db()
            .read(|conn| history::read::<Tally>(conn, kind, from, to))?;
        Ok(merged(periods, from, range.step)
            .into_iter()
            .map(|(at, span, tally)| HistoryPoint::from_tally(at, span, &tally))
            .collect())
    }

    /// The kinds with any history in `range`, by name. Refuses `range` as
    /// [`history`](Queue::history) does.
    pub fn history_kinds(&self, range: HistoryRange) -> Result<Vec<String>> {
        let (from, to) = checked(range)?;
        self.db()
            .read(|conn| history::keys::<Tally>(conn, from, to))
    }

    /// Folds minutes older than `keep.by_minute` into hours and deletes hours older
    /// than `keep.by_hour`, a batch per transaction, in the history of job kinds and of
    /// sync targets alike. Returns how many rows went. The runner calls it hourly; an
    /// app without a runner may call it itself.
    pub fn compact_history(&self, keep: HistoryKeep) -> Result<u64> {
        let db = self.db();
        let now = db.now();
        let minutes_before = now.saturating_sub(keep.by_minute).as_millis();
        let hours_before = now
            .saturating_sub(keep.by_hour.max(keep.by_minute))
            .as_millis();
        let mut gone = 0;
        for compact in [
            history::compact::<Tally> as Compact,
            history::compact::<SyncTally>,
        ] {
            loop {
                let (removed, more) = db
                    .store()
                    .write(|tx| compact(tx, minutes_before, hours_before, COMPACT_BATCH))?;
                gone += removed as u64;
                if !more {
                    break;
                }
            }
        }
        Ok(gone)
    }
}

type Compact = fn(&rusqlite::Transaction<'_>, i64, i64, usize) -> Result<(usize, bool)>;

/// `range` in milliseconds, refused when it ends before it starts or spans more than
/// [`MAX_HISTORY_SPAN`]; its start moved to the first period of its step that starts
/// in it (a range holds the periods that start in it: from 10:30 by hour, the first
/// is the hour at 11:00, and an hour row of stored minutes at 10:00 is not read).
pub(crate) fn checked(range: HistoryRange) -> Result<(i64, i64)> {
    let (from, to) = (range.from.as_millis(), range.to.as_millis());
    if to < from {
        return Err(Error::invalid_argument(
            "range",
            format!("ends ({to}) before it starts ({from})"),
        ));
    }
    if to.saturating_sub(from) > duration_millis(MAX_HISTORY_SPAN) {
        return Err(Error::invalid_argument(
            "range",
            format!(
                "spans more than {} days",
                MAX_HISTORY_SPAN.as_secs() / 86_400
            ),
        ));
    }
    let span = match range.step {
        HistoryStep::Minute => MINUTE_MS,
        HistoryStep::Hour => HOUR_MS,
    };
    let into = from.rem_euclid(span);
    let first = if into == 0 {
        from
    } else {
        from.saturating_add(span - into)
    };
    Ok((first, to))
}

/// The start of the period after the one `at` is in.
fn next_start(at: i64, span: i64) -> i64 {
    at - at.rem_euclid(span) + span
}

/// Stored periods as `(start, length, tally)` of `step`, those that start before
/// `from` left out.
pub(crate) fn merged<T: Counts>(
    periods: Vec<Period<T>>,
    from: i64,
    step: HistoryStep,
) -> Vec<(i64, i64, T)> {
    let mut merged: Vec<(i64, i64, T)> = Vec::new();
    for period in periods {
        let (at, span) = match step {
            HistoryStep::Minute => (period.at, period.span),
            HistoryStep::Hour => (period.at - period.at.rem_euclid(HOUR_MS), HOUR_MS),
        };
        match merged.last_mut() {
            Some((last, last_span, tally)) if *last == at && *last_span == span => {
                tally.merge(&period.tally)
            }
            _ => merged.push((at, span, period.tally)),
        }
    }
    merged.retain(|(at, _, _)| *at >= from);
    merged
}
