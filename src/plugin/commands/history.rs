//! What happened: per job kind (`job_history`: what ended, the retries, and how long
//! attempts waited and ran) and per sync target (`sync_history`: how runs ended and
//! how long they took), for the kinds and targets the window's scope allows.

use serde::{Deserialize, Serialize};
use tauri::State;

use super::{blocking, CommandResult};
use crate::clock::Timestamp;
use crate::plugin::scope::Scope;
use crate::plugin::Jobs;
use crate::queue::{HistoryPoint, HistoryRange};
use crate::sync::SyncHistoryPoint;

/// The span `job_history` reads: the last hour by minute, the last day by hour (both
/// by the plugin's clock), or a range of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub enum HistorySpan {
    /// The 60 minutes up to now, a point per minute.
    #[default]
    LastHour,
    /// The 24 hours up to now, a point per hour.
    LastDay,
    /// Any span up to 31 days.
    Range(HistoryRange),
}

impl HistorySpan {
    /// The range it stands for at `now`.
    fn range(self, now: Timestamp) -> HistoryRange {
        match self {
            HistorySpan::LastHour => HistoryRange::last_hour(now),
            HistorySpan::LastDay => HistoryRange::last_day(now),
            HistorySpan::Range(range) => range,
        }
    }
}

/// One kind's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct KindHistory {
    /// The kind.
    pub kind: String,
    /// Its periods that saw an end or a retry, oldest first.
    pub points: Vec<HistoryPoint>,
}

/// The history of `kind`, or of every kind with history in the span, leaving out the
/// kinds outside the window's scope (a kind it may not read answers as one that never
/// ran: `[]`). A span that ends before it starts or is longer than 31 days is refused
/// (`invalidArgument`, naming `range`).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn job_history(
    jobs: State<'_, Jobs>,
    scope: Scope,
    kind: Option<String>,
    span: Option<HistorySpan>,
) -> CommandResult<Vec<KindHistory>> {
    let queue = jobs.queue.clone();
    blocking(move || {
        let range = span.unwrap_or_default().range(queue.clock().now());
        let kinds = match kind {
            Some(kind) => vec![kind],
            None => queue.history_kinds(range)?,
        };
        let mut answer = Vec::new();
        for kind in kinds.into_iter().filter(|kind| scope.allows_kind(kind)) {
            let points = queue.history(&kind, range)?;
            if !points.is_empty() {
                answer.push(KindHistory { kind, points });
            }
        }
        Ok(answer)
    })
    .await
}

/// One sync target's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct TargetHistory {
    /// The target, `connector/account/name`.
    pub target: String,
    /// Its periods that saw a run end, oldest first.
    pub points: Vec<SyncHistoryPoint>,
}

/// The history of `target` (`connector/account/name`), or of every target with
/// history in the span, leaving out the targets outside the window's scope (one it
/// may not read answers as one that never ran: `[]`). Spans as `job_history`'s.
#[cfg(feature = "sync")]
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_history(
    jobs: State<'_, Jobs>,
    scope: Scope,
    target: Option<String>,
    span: Option<HistorySpan>,
) -> CommandResult<Vec<TargetHistory>> {
    let engine = jobs.sync.clone();
    let now = jobs.queue.clock().now();
    blocking(move || {
        let range = span.unwrap_or_default().range(now);
        let targets = match target {
            Some(target) => vec![target],
            None => engine.history_targets(range)?,
        };
        let mut answer = Vec::new();
        for target in targets
            .into_iter()
            .filter(|target| scope.allows_target(target))
        {
            let points = engine.history_of(&target, range)?;
            if !points.is_empty() {
                answer.push(TargetHistory { target, points });
            }
        }
        Ok(answer)
    })
    .await
}
