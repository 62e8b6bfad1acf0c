//! Process-local jobs the app registered for the webview: start one (three ways),
//! read them. At most [`LOCAL_JOBS_PER_WINDOW`](crate::plugin::LOCAL_JOBS_PER_WINDOW)
//! of a kind run at once per window.

use std::sync::Arc;

use serde_json::Value;
use tauri::ipc::Channel;
use tauri::State;

use super::CommandResult;
use crate::local::{JobResult, LocalJob, LocalJobFailure, LocalJobId, LocalRunEvent, Observer};
use crate::plugin::error::{CommandError, ErrorCode};
use crate::plugin::limits::Slot;
use crate::plugin::scope::{CallingWebview, Scope};
use crate::plugin::Jobs;

/// Gives the window's slot back when the job ends, whoever waits for it.
fn release_when_done(slot: Slot, result: JobResult<Value>) {
    crate::tasks::spawn_in_app(async move {
        let _ = result.wait().await;
        drop(slot);
    });
}

/// Starts a local job kind the app registered for the webview; returns its id at once
/// (watch it with job events).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn spawn_local(
    jobs: State<'_, Jobs>,
    scope: Scope,
    caller: CallingWebview,
    kind: String,
    args: Value,
) -> CommandResult<LocalJobId> {
    scope.local_kind(&kind)?;
    let slot = jobs.local_slots.take(&caller.0, &kind)?;
    let (id, result) = jobs.local_kinds.run(&jobs.local, kind, args, None)?;
    release_when_done(slot, result);
    Ok(id)
}

/// Starts a local job kind the app registered for the webview and returns what it
/// returned.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn spawn_awaitable(
    jobs: State<'_, Jobs>,
    scope: Scope,
    caller: CallingWebview,
    kind: String,
    args: Value,
) -> CommandResult<Value> {
    scope.local_kind(&kind)?;
    let slot = jobs.local_slots.take(&caller.0, &kind)?;
    let (_, result) = jobs.local_kinds.spawn_awaitable(&jobs.local, kind, args)?;
    let value = result.wait().await;
    drop(slot);
    value.map_err(|failure| match failure {
        LocalJobFailure::Cancelled => CommandError::new(ErrorCode::Cancelled, failure.to_string()),
        other => CommandError::new(ErrorCode::JobFailed, other.to_string()),
    })
}

/// Starts a local job kind the app registered for the webview and returns its id at
/// once; `on_event` hears that job's progress and then its end (with what it
/// returned), and nothing else.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn run_local(
    jobs: State<'_, Jobs>,
    scope: Scope,
    caller: CallingWebview,
    kind: String,
    args: Value,
    on_event: Channel<LocalRunEvent>,
) -> CommandResult<LocalJobId> {
    scope.local_kind(&kind)?;
    let slot = jobs.local_slots.take(&caller.0, &kind)?;
    let observer: Observer = Arc::new(move |event| {
        // A page that went away is no reason to stop the job.
        let _ = on_event.send(event);
    });
    let (id, result) = jobs
        .local_kinds
        .run(&jobs.local, kind, args, Some(observer))?;
    release_when_done(slot, result);
    Ok(id)
}

/// One local job's record.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn get_local_job(
    jobs: State<'_, Jobs>,
    scope: Scope,
    id: LocalJobId,
) -> CommandResult<Option<LocalJob>> {
    Ok(jobs
        .local
        .get(id)
        .filter(|job| scope.allows_local_kind(&job.kind)))
}

/// Every local job on record.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn list_local_jobs(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<LocalJob>> {
    let mut list = jobs.local.list();
    list.retain(|job| scope.allows_local_kind(&job.kind));
    Ok(list)
}
