//! The history per kind (`job_history`): what ended, the retries, and how long attempts
//! waited and ran, for the kinds the window's scope allows.

use serde::{Deserialize, Serialize};
use tauri::State;

use super::{blocking, CommandResult};
use crate::plugin::scope::Scope;
use crate::plugin::Jobs;
use crate::queue::{HistoryPoint, HistoryRange};

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
        let now = queue.clock().now();
        let range = match span.unwrap_or_default() {
            HistorySpan::LastHour => HistoryRange::last_hour(now),
            HistorySpan::LastDay => HistoryRange::last_day(now),
            HistorySpan::Range(range) => range,
        };
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
