//! The IPC commands. Each is async and does its SQLite work off the async threads;
//! none can panic the app: every failure is a [`CommandError`].
//!
//! Wrong or missing arguments are refused by Tauri before a command runs, with a
//! message naming the argument (`invalid args `kind` for command `enqueue``); values
//! that parse but make no sense are refused here, naming the argument too.
//!
//! Every command takes the calling window's [`Scope`]: what lies outside it is refused
//! (`forbidden`) before any work, or left out of what is read.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tauri::ipc::Channel;
use tauri::State;

use super::error::{CommandError, ErrorCode};
pub use super::models::{
    AgentClaimArgs, AgentFinished, CancelResult, EnqueueArgs, JobRef, SyncStatus,
};
use super::scope::Scope;
use super::Jobs;
use crate::local::{LocalJob, LocalJobFailure, LocalJobId, LocalRunEvent, Observer};
use crate::model::JobProgressValue;
use crate::queue::{
    Actor, CancelOutcome, ClaimRequest, ClaimedJob, EnqueueOptions, Enqueued, Heartbeat, Job,
    JobFailure, JobFilter, JobId, KindCount, Lease, Priority, RetryOutcome,
};
use crate::scheduler::Schedule;
use crate::sync::{SyncOutcome, SyncTarget, Trigger};

type CommandResult<T> = Result<T, CommandError>;

/// Runs blocking work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> crate::Result<T> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|error| {
            CommandError::new(
                ErrorCode::Database,
                format!("a database task stopped: {error}"),
            )
        })?
        .map_err(CommandError::from)
}

fn invalid(argument: &str, reason: impl std::fmt::Display) -> CommandError {
    CommandError::new(
        ErrorCode::InvalidArgument,
        format!("invalid argument `{argument}`: {reason}"),
    )
}

// ===== durable jobs =====

/// Enqueues a durable job on behalf of the user.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn enqueue(
    jobs: State<'_, Jobs>,
    scope: Scope,
    kind: String,
    payload: Value,
    options: Option<EnqueueArgs>,
) -> CommandResult<Enqueued> {
    scope.kind(&kind)?;
    let options = enqueue_options(options.unwrap_or_default(), Actor::User)?;
    let queue = jobs.queue.clone();
    blocking(move || queue.enqueue(&kind, &payload, options)).await
}

/// The queue's options for what the webview asked, on behalf of `actor`.
fn enqueue_options(args: EnqueueArgs, actor: Actor) -> CommandResult<EnqueueOptions> {
    let mut options = EnqueueOptions::new()
        .priority(Priority(args.priority.unwrap_or(Priority::INGEST.0)))
        .actor(actor);
    options.dedupe_key = args.dedupe_key;
    options.max_attempts = args.max_attempts;
    options.parent = args.parent;
    if let Some(delay) = args.delay_ms {
        if !delay.is_finite() || delay < 0.0 {
            return Err(invalid(
                "options.delayMs",
                format!("{delay} is not a number of milliseconds"),
            ));
        }
        options.delay = Some(Duration::from_secs_f64(delay / 1000.0));
    }
    Ok(options)
}

/// One durable job.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn get_job(jobs: State<'_, Jobs>, scope: Scope, id: JobId) -> CommandResult<Option<Job>> {
    let queue = jobs.queue.clone();
    let job = blocking(move || queue.get(id)).await?;
    // A job of a kind outside the scope is not there, for this window.
    Ok(job.filter(|job| scope.allows_kind(&job.kind)))
}

/// A page of durable jobs, newest first.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn list_jobs(
    jobs: State<'_, Jobs>,
    scope: Scope,
    filter: Option<JobFilter>,
) -> CommandResult<Vec<Job>> {
    let queue = jobs.queue.clone();
    let kinds = scope.kinds().clone();
    blocking(move || queue.list_matching(&filter.unwrap_or_default(), &kinds)).await
}

/// Durable job counts by kind and status.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn job_counts(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<KindCount>> {
    let queue = jobs.queue.clone();
    let mut counts = blocking(move || queue.counts()).await?;
    counts.retain(|count| scope.allows_kind(&count.kind));
    Ok(counts)
}

/// Cancels a durable or local job.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn cancel(
    jobs: State<'_, Jobs>,
    scope: Scope,
    job: JobRef,
) -> CommandResult<CancelResult> {
    match job {
        JobRef::Durable(id) => {
            let queue = jobs.queue.clone();
            let cancelled = blocking(move || {
                // The kind from the row decides, before anything is written.
                if let Some(job) = queue.get(id)? {
                    if let Err(refused) = scope.kind(&job.kind) {
                        return Ok(Err(refused));
                    }
                }
                queue.cancel(id).map(Ok)
            })
            .await??;
            Ok(match cancelled {
                CancelOutcome::Cancelled => CancelResult::Cancelled,
                CancelOutcome::Requested => CancelResult::Requested,
                _ => CancelResult::AlreadyFinished,
            })
        }
        JobRef::Local(id) => {
            let Some(record) = jobs.local.get(id) else {
                return Err(CommandError::new(
                    ErrorCode::NotFound,
                    format!("no local job {id}"),
                ));
            };
            scope.local_kind(&record.kind)?;
            Ok(if jobs.local.cancel(id) {
                CancelResult::Requested
            } else {
                CancelResult::AlreadyFinished
            })
        }
    }
}

// ===== process-local jobs =====

/// Starts a local job kind the app registered for the webview; returns its id at once
/// (watch it with job events).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn spawn_local(
    jobs: State<'_, Jobs>,
    scope: Scope,
    kind: String,
    args: Value,
) -> CommandResult<LocalJobId> {
    scope.local_kind(&kind)?;
    Ok(jobs.local_kinds.spawn(&jobs.local, kind, args)?)
}

/// Starts a local job kind the app registered for the webview and returns what it
/// returned.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn spawn_awaitable(
    jobs: State<'_, Jobs>,
    scope: Scope,
    kind: String,
    args: Value,
) -> CommandResult<Value> {
    scope.local_kind(&kind)?;
    let (_, result) = jobs.local_kinds.spawn_awaitable(&jobs.local, kind, args)?;
    result.wait().await.map_err(|failure| match failure {
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
    kind: String,
    args: Value,
    on_event: Channel<LocalRunEvent>,
) -> CommandResult<LocalJobId> {
    scope.local_kind(&kind)?;
    let observer: Observer = Arc::new(move |event| {
        // A page that went away is no reason to stop the job.
        let _ = on_event.send(event);
    });
    let (id, _) = jobs
        .local_kinds
        .run(&jobs.local, kind, args, Some(observer))?;
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

// ===== sync =====

/// Parses a target and refuses one outside the scope.
fn target(scope: &Scope, text: &str) -> CommandResult<SyncTarget> {
    let target = SyncTarget::parse(text).map_err(|error| invalid("target", error))?;
    scope.target(&target.to_string())?;
    Ok(target)
}

/// Syncs one target now (the user pressed Refresh).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_now(
    jobs: State<'_, Jobs>,
    scope: Scope,
    target: String,
) -> CommandResult<SyncOutcome> {
    let target = self::target(&scope, &target)?;
    Ok(jobs.sync.sync_now(&target).await?)
}

/// Syncs one target if an automatic trigger may (not within `min_interval`, not while
/// backing off). `trigger` says what the page saw: `focus` by default; `networkBack`
/// (the page's `online` event) retries an offline target at once.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_if_due(
    jobs: State<'_, Jobs>,
    scope: Scope,
    target: String,
    trigger: Option<Trigger>,
) -> CommandResult<SyncOutcome> {
    let target = self::target(&scope, &target)?;
    let trigger = trigger.unwrap_or(Trigger::Focus);
    Ok(jobs.sync.sync_if_due(&target, trigger).await?)
}

/// State and health of every registered sync target.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_status(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<SyncStatus>> {
    let sync = jobs.sync.clone();
    blocking(move || {
        sync.targets()
            .into_iter()
            .filter(|target| scope.allows_target(&target.to_string()))
            .map(|target| {
                Ok(SyncStatus {
                    state: sync.state(&target)?.unwrap_or_default(),
                    health: sync.health(&target)?,
                    target: target.to_string(),
                })
            })
            .collect()
    })
    .await
}

/// A hint from the webview's `online`/`offline` events. Coming online retries offline
/// targets (those in the window's scope) at once; the attempt itself is the real probe.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn network_hint(jobs: State<'_, Jobs>, scope: Scope, online: bool) -> CommandResult<()> {
    if online {
        for target in jobs.sync.targets() {
            if scope.allows_target(&target.to_string()) {
                let sync = jobs.sync.clone();
                tauri::async_runtime::spawn(async move {
                    let _ = sync.sync_if_due(&target, Trigger::NetworkBack).await;
                });
            }
        }
    }
    Ok(())
}

// ===== schedules =====

/// Every schedule with its next run.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn list_schedules(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<Schedule>> {
    let scheduler = jobs.scheduler.clone();
    let mut schedules = blocking(move || scheduler.list()).await?;
    // A schedule shows a job kind and its payload: only those of kinds in scope.
    schedules.retain(|schedule| scope.allows_kind(&schedule.kind));
    Ok(schedules)
}

/// The job kinds paused now (in every process).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn paused_kinds(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<String>> {
    let queue = jobs.queue.clone();
    let mut kinds = blocking(move || queue.paused_kinds()).await?;
    kinds.retain(|kind| scope.allows_kind(kind));
    Ok(kinds)
}

// ===== admin actions (the `admin` set, not in the default one) =====

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
    blocking(move || {
        if let Some(job) = queue.get(id)? {
            if let Err(refused) = scope.kind(&job.kind) {
                return Ok(Err(refused));
            }
        }
        queue.retry_now(id).map(Ok)
    })
    .await?
}

/// Deletes a finished durable job. A queued or running one is refused: cancel it first.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn delete_job(jobs: State<'_, Jobs>, scope: Scope, id: JobId) -> CommandResult<()> {
    let queue = jobs.queue.clone();
    blocking(move || {
        if let Some(job) = queue.get(id)? {
            if let Err(refused) = scope.kind(&job.kind) {
                return Ok(Err(refused));
            }
        }
        queue.delete(id).map(Ok)
    })
    .await?
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

/// Runs a schedule's job now, without moving its next run; returns the job (or the
/// one holding its dedupe key).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn run_schedule_now(
    jobs: State<'_, Jobs>,
    scope: Scope,
    name: String,
) -> CommandResult<Enqueued> {
    let scheduler = jobs.scheduler.clone();
    blocking(move || {
        if let Some(schedule) = scheduler.get(&name)? {
            if let Err(refused) = scope.kind(&schedule.kind) {
                return Ok(Err(refused));
            }
        }
        scheduler.run_now(&name).map(|ticked| {
            Ok(Enqueued {
                id: ticked.job,
                created: ticked.created,
            })
        })
    })
    .await?
}

/// Pauses a schedule: it does not run until resumed.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn pause_schedule(
    jobs: State<'_, Jobs>,
    scope: Scope,
    name: String,
) -> CommandResult<Schedule> {
    schedule_change(&jobs, scope, name, |scheduler, name| scheduler.pause(name)).await
}

/// Resumes a paused schedule, from its first slot after now.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn resume_schedule(
    jobs: State<'_, Jobs>,
    scope: Scope,
    name: String,
) -> CommandResult<Schedule> {
    schedule_change(&jobs, scope, name, |scheduler, name| scheduler.resume(name)).await
}

/// Changes a schedule whose kind is in the scope.
async fn schedule_change(
    jobs: &Jobs,
    scope: Scope,
    name: String,
    change: impl FnOnce(&crate::scheduler::Scheduler, &str) -> crate::Result<Schedule> + Send + 'static,
) -> CommandResult<Schedule> {
    let scheduler = jobs.scheduler.clone();
    blocking(move || {
        if let Some(schedule) = scheduler.get(&name)? {
            if let Err(refused) = scope.kind(&schedule.kind) {
                return Ok(Err(refused));
            }
        }
        change(&scheduler, &name).map(Ok)
    })
    .await?
}

// ===== data removal (not in the default permission set) =====

/// Removes everything stored for an account and stops its syncs.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn disconnect_account(
    jobs: State<'_, Jobs>,
    scope: Scope,
    connector: String,
    account: String,
) -> CommandResult<u64> {
    // Every target of the account: `connector/account/*` must be in scope.
    scope.target(&format!("{connector}/{account}/*"))?;
    let sync = jobs.sync.clone();
    blocking(move || sync.disconnect(&connector, &account)).await
}

/// Deletes finished durable jobs older than `olderThanMs`.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn prune_jobs(
    jobs: State<'_, Jobs>,
    scope: Scope,
    older_than_ms: u64,
) -> CommandResult<u64> {
    scope.every_kind("deleting finished jobs")?;
    let queue = jobs.queue.clone();
    blocking(move || queue.prune(Duration::from_millis(older_than_ms))).await
}

// ===== external agents (their own permission set, never in the default one) =====

const AGENT_PREFIX: &str = "agent:";

/// Runs `work` with a lease presented over IPC, once it is shown to be an agent's own
/// (a webview can never finish a job the app's runner holds) on a job whose kind, as
/// stored, is in the window's scope.
async fn with_agent_lease<T: Send + 'static>(
    jobs: &Jobs,
    scope: Scope,
    lease: Lease,
    work: impl FnOnce(&crate::queue::Queue, &Lease) -> crate::Result<T> + Send + 'static,
) -> CommandResult<T> {
    if !lease.worker.starts_with(AGENT_PREFIX) {
        return Err(invalid("lease", "is not an agent's lease"));
    }
    let queue = jobs.queue.clone();
    blocking(move || {
        if let Some(job) = queue.get(lease.job_id)? {
            if let Err(refused) = scope.kind(&job.kind) {
                return Ok(Err(refused));
            }
        }
        work(&queue, &lease).map(Ok)
    })
    .await?
}

/// Enqueues a durable job on behalf of an external agent: as [`enqueue`], with the
/// actor `agent`.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_enqueue(
    jobs: State<'_, Jobs>,
    scope: Scope,
    kind: String,
    payload: Value,
    options: Option<EnqueueArgs>,
) -> CommandResult<Enqueued> {
    scope.kind(&kind)?;
    let options = enqueue_options(options.unwrap_or_default(), Actor::Agent)?;
    let queue = jobs.queue.clone();
    blocking(move || queue.enqueue(&kind, &payload, options)).await
}

/// Claims jobs for an external agent through the same protocol as the app's runner:
/// caps, fencing and at-least-once hold exactly as for internal workers.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_claim(
    jobs: State<'_, Jobs>,
    scope: Scope,
    request: AgentClaimArgs,
) -> CommandResult<Vec<ClaimedJob>> {
    if request.agent.is_empty() {
        return Err(invalid("request.agent", "must not be empty"));
    }
    for kind in &request.kinds {
        scope.kind(kind)?;
    }
    let mut claim = ClaimRequest::new(format!("{AGENT_PREFIX}{}", request.agent), request.kinds)
        .lease(Duration::from_millis(request.lease_ms.unwrap_or(30_000)))
        .max_jobs(request.max_jobs.unwrap_or(1));
    claim.limits = request.limits.unwrap_or_default();
    let queue = jobs.queue.clone();
    blocking(move || queue.claim(&claim)).await
}

/// Renews an agent's lease; with `progress`, stores and publishes how far it is.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_heartbeat(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    progress: Option<JobProgressValue>,
) -> CommandResult<Heartbeat> {
    with_agent_lease(&jobs, scope, lease, move |queue, lease| {
        if let Some(progress) = progress {
            queue.report_progress(lease, progress.done, progress.total)?;
        }
        queue.heartbeat(lease)
    })
    .await
}

/// Records an agent's success; the result is checked against the kind's schema.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_complete(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    result: Value,
) -> CommandResult<AgentFinished> {
    let result = (!result.is_null()).then_some(result);
    with_agent_lease(&jobs, scope, lease, |queue, lease| {
        queue.complete(lease, result)
    })
    .await
    .map(AgentFinished::from)
}

/// Records an agent's failed attempt.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_fail(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    error: String,
    permanent: bool,
) -> CommandResult<AgentFinished> {
    let failure = if permanent {
        JobFailure::permanent(error)
    } else {
        JobFailure::retryable(error)
    };
    with_agent_lease(&jobs, scope, lease, |queue, lease| {
        queue.fail(lease, failure)
    })
    .await
    .map(AgentFinished::from)
}
