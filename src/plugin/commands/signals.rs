//! Signals to jobs (`signal_job`: a permission of its own, in the `signals` and
//! `agents` sets, not the default one) and what a job logged (`get_job_logs`, a read in
//! the default set). A job outside the window's scope answers as a missing one,
//! checked in the transaction (the send) or with the read.

use serde_json::Value;
use tauri::State;

use super::{blocking, CommandResult};
use crate::plugin::scope::Scope;
use crate::plugin::Jobs;
use crate::queue::{JobId, JobLogLine, SignalSent};

/// Sends signal `name` with `payload` to job `id`: a job waiting for it runs at once;
/// one that will wait for it finds it kept. Refused with `signalRefused` when the job
/// has ended, its handler waits for no such signal, or its wait for it timed out; the
/// payload is bounded and checked as an enqueue's.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn signal_job(
    jobs: State<'_, Jobs>,
    scope: Scope,
    id: JobId,
    name: String,
    payload: Value,
) -> CommandResult<SignalSent> {
    let queue = jobs.queue.clone();
    blocking(move || queue.signal_within(id, &name, &payload, Some(scope.kinds()))).await
}

/// What job `id`'s handler logged, the lines after `after` (their `seq`; none or 0
/// for every line kept), oldest first; `null` for a job the window may not read, as
/// for one that does not exist.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn get_job_logs(
    jobs: State<'_, Jobs>,
    scope: Scope,
    id: JobId,
    after: Option<f64>,
) -> CommandResult<Option<Vec<JobLogLine>>> {
    let after = after
        .filter(|n| n.is_finite() && *n > 0.0)
        .map_or(0, |n| n as u64);
    let queue = jobs.queue.clone();
    blocking(move || {
        let Some(kind) = queue.kind_of(id)? else {
            return Ok(None);
        };
        if !scope.allows_kind(&kind) {
            return Ok(None);
        }
        queue.logs(id, after).map(Some)
    })
    .await
}
