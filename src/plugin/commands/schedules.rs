//! Schedules (the `schedules` feature): read them, and (admin) run one now, pause and
//! resume it.

use tauri::State;

use super::{blocking, CommandResult};
use crate::plugin::scope::Scope;
use crate::plugin::Jobs;
use crate::queue::Enqueued;
use crate::scheduler::Schedule;

/// Every schedule with its next run, of the kinds in the window's scope.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn list_schedules(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<Schedule>> {
    let scheduler = jobs.scheduler.clone();
    let mut schedules = blocking(move || scheduler.list()).await?;
    // A schedule shows a job kind and its payload: only those of kinds in scope.
    schedules.retain(|schedule| scope.allows_kind(&schedule.kind));
    Ok(schedules)
}

/// Runs a schedule's job now, without moving its next run; returns the job (or the
/// one holding its dedupe key). A schedule of a kind outside the scope is not found.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn run_schedule_now(
    jobs: State<'_, Jobs>,
    scope: Scope,
    name: String,
) -> CommandResult<Enqueued> {
    let scheduler = jobs.scheduler.clone();
    blocking(move || {
        let ticked = scheduler.run_now_within(&name, Some(scope.kinds()))?;
        Ok(Enqueued::from_parts(ticked.job, ticked.created))
    })
    .await
}

/// Pauses a schedule: it does not run until resumed.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn pause_schedule(
    jobs: State<'_, Jobs>,
    scope: Scope,
    name: String,
) -> CommandResult<Schedule> {
    let scheduler = jobs.scheduler.clone();
    blocking(move || scheduler.pause_within(&name, Some(scope.kinds()))).await
}

/// Resumes a paused schedule, from its first slot after now.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn resume_schedule(
    jobs: State<'_, Jobs>,
    scope: Scope,
    name: String,
) -> CommandResult<Schedule> {
    let scheduler = jobs.scheduler.clone();
    blocking(move || scheduler.resume_within(&name, Some(scope.kinds()))).await
}
