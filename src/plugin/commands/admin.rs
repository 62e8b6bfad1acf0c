//! The admin actions on jobs and kinds (the `admin` set, not in the default one), and
//! which kinds are paused (`paused_kinds`, a read in the default set).
//! A job outside the window's scope is not found, checked in the transaction.

use tauri::State;

use super::{blocking, CommandResult};
use crate::plugin::scope::Scope;
use crate::plugin::Jobs;
use crate::queue::{JobId, RetryOutcome};

/// Runs a durable job again now: a failed one goes back to the queue, a queued one
/// waiting out its backoff becomes runnable at once. A running, succeeded or cancelled
/// job is refused, naming its status.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn retry_job(
    jobs: State<'_, Jobs>,
    scope: Scope,
    id: JobId,
) -> CommandResult<RetryOutcome> {
    let queue = jobs.queue.clone();
    blocking(move || queue.retry_now_within(id, Some(scope.kinds()))).await
}

/// Deletes a finished durable job. A queued or running one is refused: cancel it first.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn delete_job(jobs: State<'_, Jobs>, scope: Scope, id: JobId) -> CommandResult<()> {
    let queue = jobs.queue.clone();
    blocking(move || queue.delete_within(id, Some(scope.kinds()))).await
}

/// Pauses a job kind: claims in every process skip it until it is resumed.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn pause_kind(jobs: State<'_, Jobs>, scope: Scope, kind: String) -> CommandResult<()> {
    scope.kind(&kind)?;
    let queue = jobs.queue.clone();
    blocking(move || queue.pause_kind(&kind)).await
}

/// Resumes a paused job kind.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn resume_kind(jobs: State<'_, Jobs>, scope: Scope, kind: String) -> CommandResult<()> {
    scope.kind(&kind)?;
    let queue = jobs.queue.clone();
    blocking(move || queue.resume_kind(&kind)).await
}

/// The job kinds paused now (in every process), of the kinds in the window's scope.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn paused_kinds(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<String>> {
    let queue = jobs.queue.clone();
    let mut kinds = blocking(move || queue.paused_kinds()).await?;
    kinds.retain(|kind| scope.allows_kind(kind));
    Ok(kinds)
}
