//! Workflows from the webview: enqueue one (every step's kind in the window's scope),
//! read its state, cancel it; what a job waits for; and (`admin`) retry a workflow.
//! A workflow or job outside the window's scope is not found, checked in the
//! transaction (reads: with the read); pieces of kinds outside it are neither counted,
//! cancelled nor retried.

use tauri::State;

use super::durable::{enqueue_options, registered};
use super::{blocking, invalid, CommandResult, MAX_WORKFLOW_JOBS};
use crate::plugin::error::CommandError;
use crate::plugin::models::{WorkflowArgs, WorkflowStep};
use crate::plugin::scope::{ReadableKinds, Scope};
use crate::plugin::Jobs;
use crate::queue::{
    Actor, JobDependencies, JobId, NewJob, Workflow, WorkflowCancelled, WorkflowIds,
    WorkflowRetried, WorkflowState,
};

/// Enqueues a workflow on behalf of the user, in one transaction: the parent, its
/// pieces, and the jobs that run once every piece has ended (`then`). Every step's
/// kind must be in the window's scope and registered; a step names no `parent` (the
/// workflow does).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn enqueue_workflow(
    jobs: State<'_, Jobs>,
    scope: Scope,
    reads: ReadableKinds,
    workflow: WorkflowArgs,
) -> CommandResult<WorkflowIds> {
    let WorkflowArgs {
        parent,
        pieces,
        then,
    } = workflow;
    let steps = pieces.len() + then.len();
    if steps > MAX_WORKFLOW_JOBS {
        return Err(invalid(
            "workflow",
            format!(
                "{steps} pieces and jobs after them are more than the most, {MAX_WORKFLOW_JOBS}"
            ),
        ));
    }
    // Each job after the pieces waits for every one: the rows written, bounded.
    let waits = pieces.len().saturating_mul(then.len());
    if waits > MAX_WORKFLOW_JOBS {
        return Err(invalid(
            "workflow.then",
            format!(
                "{} jobs each waiting for {} pieces are {waits} waits, more than the most, \
                 {MAX_WORKFLOW_JOBS}",
                then.len(),
                pieces.len()
            ),
        ));
    }
    let parent = step(&jobs, &scope, "workflow.parent", parent)?;
    let pieces = pieces
        .into_iter()
        .enumerate()
        .map(|(n, piece)| step(&jobs, &scope, &format!("workflow.pieces[{n}]"), piece))
        .collect::<CommandResult<Vec<_>>>()?;
    let then = then
        .into_iter()
        .enumerate()
        .map(|(n, job)| step(&jobs, &scope, &format!("workflow.then[{n}]"), job))
        .collect::<CommandResult<Vec<_>>>()?;
    let queue = jobs.queue.clone();
    blocking(move || {
        let workflow = Workflow {
            parent,
            pieces,
            then,
        };
        queue.enqueue_workflow_within(workflow, Some(&reads.0))
    })
    .await
}

/// One step, checked: its kind in the scope and registered, its options in bounds,
/// no parent of its own. `at` names it in errors.
fn step(jobs: &Jobs, scope: &Scope, at: &str, step: WorkflowStep) -> CommandResult<NewJob> {
    scope.kind(&step.kind)?;
    let args = step.options.unwrap_or_default();
    if args.parent.is_some() {
        return Err(invalid(
            &format!("{at}.options.parent"),
            "a workflow's steps take their parent from the workflow",
        ));
    }
    // Where in the workflow, for what is refused below.
    let at_step =
        |error: CommandError| CommandError::new(error.code, format!("{at}: {}", error.message));
    let options = enqueue_options(args, Actor::User).map_err(at_step)?;
    crate::queue::check_kind(&step.kind)?;
    registered(jobs, &step.kind).map_err(at_step)?;
    Ok(NewJob::new(step.kind, step.payload).options(options))
}

/// The state of the workflow under `parent` (its pieces by status, its progress and
/// outcome); `null` when there is none the window may read.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn get_workflow(
    jobs: State<'_, Jobs>,
    scope: Scope,
    parent: JobId,
) -> CommandResult<Option<WorkflowState>> {
    let queue = jobs.queue.clone();
    blocking(move || queue.workflow_within(parent, Some(scope.kinds()))).await
}

/// Cancels what has not run of the workflow under `parent` (queued jobs cancelled,
/// running ones asked to stop).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn cancel_workflow(
    jobs: State<'_, Jobs>,
    scope: Scope,
    parent: JobId,
) -> CommandResult<WorkflowCancelled> {
    let queue = jobs.queue.clone();
    blocking(move || queue.cancel_workflow_within(parent, Some(scope.kinds()))).await
}

/// Runs the failed jobs of the workflow under `parent` again, and makes the jobs a
/// failure cancelled wait again (the `admin` set).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn retry_workflow(
    jobs: State<'_, Jobs>,
    scope: Scope,
    parent: JobId,
) -> CommandResult<WorkflowRetried> {
    let queue = jobs.queue.clone();
    blocking(move || queue.retry_workflow_within(parent, Some(scope.kinds()))).await
}

/// What the job `id` waits for and what waits for it; `null` when there is no such
/// job the window may read.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn job_dependencies(
    jobs: State<'_, Jobs>,
    scope: Scope,
    id: JobId,
) -> CommandResult<Option<JobDependencies>> {
    let queue = jobs.queue.clone();
    blocking(move || queue.dependencies_within(id, Some(scope.kinds()))).await
}
