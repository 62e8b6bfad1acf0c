//! What happened to each sync target: its runs per period, by how they ended, and how
//! long they took ([`SyncEngine::history`]). The rows are written by the transaction
//! that stores the target's state after a run, kept as long as the job history is
//! ([`Queue::compact_history`](crate::queue::Queue::compact_history)), and removed
//! with the account ([`SyncEngine::disconnect`]).

use serde::Serialize;

use super::{SyncEngine, SyncTarget};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::queue::history::{checked, merged};
use crate::queue::HistoryRange;
use crate::store::history::{self, SyncTally};

/// One period of a sync target's history. Runs that did not happen (skipped: not due,
/// joined one in flight) or were cancelled are not counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SyncHistoryPoint {
    /// When the period starts.
    pub at: Timestamp,
    /// How long it is: 60,000 (a minute) or 3,600,000 (an hour).
    pub span_ms: u32,
    /// Runs that fetched data.
    pub updated: u64,
    /// Runs the server answered with nothing new.
    pub not_modified: u64,
    /// Runs that failed with the service reachable.
    pub failed: u64,
    /// Runs that could not reach the service.
    pub offline: u64,
    /// Runs the server asked to wait.
    pub throttled: u64,
    /// Items the runs that fetched data changed, in all.
    pub changed: u64,
    /// How long runs took, median (the top of its half-octave bucket, as
    /// [`HistoryPoint`](crate::queue::HistoryPoint)'s times).
    pub took_p50_ms: Option<u64>,
    /// The same, 95th percentile.
    pub took_p95_ms: Option<u64>,
}

impl SyncHistoryPoint {
    fn from_tally(at: i64, span: i64, tally: &SyncTally) -> Self {
        SyncHistoryPoint {
            at: Timestamp::from_millis(at),
            span_ms: span as u32,
            updated: tally.updated,
            not_modified: tally.not_modified,
            failed: tally.failed,
            offline: tally.offline,
            throttled: tally.throttled,
            changed: tally.changed,
            took_p50_ms: tally.durations.quantile(0.5),
            took_p95_ms: tally.durations.quantile(0.95),
        }
    }
}

impl SyncEngine {
    /// The history of `target` in `range`, oldest first: a point per period that saw
    /// a run end (others are left out). Refuses `range` as
    /// [`Queue::history`](crate::queue::Queue::history) does.
    pub fn history(
        &self,
        target: &SyncTarget,
        range: HistoryRange,
    ) -> Result<Vec<SyncHistoryPoint>> {
        self.history_of(&target.to_string(), range)
    }

    /// The targets (`connector/account/name`) with any history in `range`, by name.
    pub fn history_targets(&self, range: HistoryRange) -> Result<Vec<String>> {
        let (from, to) = checked(range)?;
        self.inner
            .db
            .read(|conn| history::keys::<SyncTally>(conn, from, to))
    }

    /// [`history`](SyncEngine::history) of a target named as stored.
    pub(crate) fn history_of(
        &self,
        target: &str,
        range: HistoryRange,
    ) -> Result<Vec<SyncHistoryPoint>> {
        let (from, to) = checked(range)?;
        let periods = self
            .inner
            .db
            .read(|conn| history::read::<SyncTally>(conn, target, from, to))?;
        Ok(merged(periods, from, range.step)
            .into_iter()
            .map(|(at, span, tally)| SyncHistoryPoint::from_tally(at, span, &tally))
            .collect())
    }
}
