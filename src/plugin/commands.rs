//! The IPC commands. Each is async and does its SQLite work off the async threads;
//! none can panic the app: every failure is a [`CommandError`].
//!
//! Wrong or missing arguments are refused by Tauri before a command runs, with a
//! message naming the argument (`invalid args `kind` for command `enqueue``); values
//! that parse but make no sense are refused here, naming the argument too.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tauri::State;

use super::error::CommandError;
use super::Jobs;
use crate::health::Health;
use crate::local::{LocalJob, LocalJobFailure, LocalJobId};
use crate::queue::{
    Actor, CancelOutcome, EnqueueOptions, Job, JobFilter, JobId, KindCount, Priority,
};
use crate::scheduler::Schedule;
use crate::sync::{SyncOutcome, SyncState, SyncTarget, Trigger};

type CommandResult<T> = Result<T, CommandError>;

/// Runs blocking work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> crate::Result<T> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|error| {
            CommandError::new("database", format!("a database task stopped: {error}"))
        })?
        .map_err(CommandError::from)
}

fn invalid(argument: &str, reason: impl std::fmt::Display) -> CommandError {
    CommandError::new(
        "invalidArgument",
        format!("invalid argument `{argument}`: {reason}"),
    )
}

// ===== durable jobs =====

/// Options of [`enqueue`]. The actor is always `user`: the webview speaks for one.
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnqueueArgs {
    /// Priority; 50 by default, 100 for work a person waits for.
    pub priority: Option<i32>,
    /// Dedupe key.
    pub dedupe_key: Option<String>,
    /// Delay before it may run, in milliseconds.
    pub delay_ms: Option<f64>,
    /// Attempts allowed.
    pub max_attempts: Option<u32>,
    /// Parent job.
    pub parent: Option<JobId>,
}

/// What [`enqueue`] did.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct EnqueueResult {
    /// The job (the existing one when the dedupe key was taken).
    pub id: JobId,
    /// Whether a job was added.
    pub created: bool,
}

/// Enqueues a durable job on behalf of the user.
#[tauri::command]
#[specta::specta]
pub async fn enqueue(
    jobs: State<'_, Jobs>,
    kind: String,
    payload: Value,
    options: Option<EnqueueArgs>,
) -> CommandResult<EnqueueResult> {
    let args = options.unwrap_or_default();
    let mut options = EnqueueOptions::new()
        .priority(Priority(args.priority.unwrap_or(Priority::INGEST.0)))
        .actor(Actor::User);
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
    let queue = jobs.queue.clone();
    let done = blocking(move || queue.enqueue(&kind, &payload, options)).await?;
    Ok(EnqueueResult {
        id: done.id,
        created: done.created,
    })
}

/// One durable job.
#[tauri::command]
#[specta::specta]
pub async fn get_job(jobs: State<'_, Jobs>, id: JobId) -> CommandResult<Option<Job>> {
    let queue = jobs.queue.clone();
    blocking(move || queue.get(id)).await
}

/// A page of durable jobs, newest first.
#[tauri::command]
#[specta::specta]
pub async fn list_jobs(
    jobs: State<'_, Jobs>,
    filter: Option<JobFilter>,
) -> CommandResult<Vec<Job>> {
    let queue = jobs.queue.clone();
    blocking(move || queue.list(&filter.unwrap_or_default())).await
}

/// Durable job counts by kind and status.
#[tauri::command]
#[specta::specta]
pub async fn job_counts(jobs: State<'_, Jobs>) -> CommandResult<Vec<KindCount>> {
    let queue = jobs.queue.clone();
    blocking(move || queue.counts()).await
}

/// A job of either sort: `{ "durable": 12 }` or `{ "local": "local-3" }`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum JobRef {
    /// A durable job.
    Durable(JobId),
    /// A process-local job.
    Local(LocalJobId),
}

/// What [`cancel`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum CancelResult {
    /// It was queued and is now cancelled.
    Cancelled,
    /// It is running and was asked to stop.
    Requested,
    /// It had already finished.
    AlreadyFinished,
}

/// Cancels a durable or local job.
#[tauri::command]
#[specta::specta]
pub async fn cancel(jobs: State<'_, Jobs>, job: JobRef) -> CommandResult<CancelResult> {
    match job {
        JobRef::Durable(id) => {
            let queue = jobs.queue.clone();
            Ok(match blocking(move || queue.cancel(id)).await? {
                CancelOutcome::Cancelled => CancelResult::Cancelled,
                CancelOutcome::Requested => CancelResult::Requested,
                _ => CancelResult::AlreadyFinished,
            })
        }
        JobRef::Local(id) => match jobs.local.get(id) {
            None => Err(CommandError::new("notFound", format!("no local job {id}"))),
            Some(_) if jobs.local.cancel(id) => Ok(CancelResult::Requested),
            Some(_) => Ok(CancelResult::AlreadyFinished),
        },
    }
}

// ===== process-local jobs =====

/// Starts a local job kind the app registered for the webview; returns its id at once
/// (watch it with job events).
#[tauri::command]
#[specta::specta]
pub async fn spawn_local(
    jobs: State<'_, Jobs>,
    kind: String,
    args: Value,
) -> CommandResult<LocalJobId> {
    let registered = jobs
        .local_kinds
        .get(&kind)
        .ok_or_else(|| invalid("kind", format!("no local job kind {kind:?} is registered")))?;
    let run = registered.run.clone();
    let body = move |ctx| async move { run(args, ctx).await.map(drop) };
    if registered.exclusive {
        Ok(jobs.local.spawn_exclusive(kind, body)?)
    } else {
        Ok(jobs.local.spawn(kind, body))
    }
}

/// Starts a local job kind the app registered for the webview and returns what it
/// returned.
#[tauri::command]
#[specta::specta]
pub async fn spawn_awaitable(
    jobs: State<'_, Jobs>,
    kind: String,
    args: Value,
) -> CommandResult<Value> {
    let registered = jobs
        .local_kinds
        .get(&kind)
        .ok_or_else(|| invalid("kind", format!("no local job kind {kind:?} is registered")))?;
    let run = registered.run.clone();
    let body = move |ctx| run(args, ctx);
    let (_, result) = if registered.exclusive {
        jobs.local.spawn_exclusive_awaitable(kind, body)?
    } else {
        jobs.local.spawn_awaitable(kind, body)
    };
    result.wait().await.map_err(|failure| match failure {
        LocalJobFailure::Cancelled => CommandError::new("cancelled", failure.to_string()),
        other => CommandError::new("jobFailed", other.to_string()),
    })
}

/// One local job's record.
#[tauri::command]
#[specta::specta]
pub async fn get_local_job(
    jobs: State<'_, Jobs>,
    id: LocalJobId,
) -> CommandResult<Option<LocalJob>> {
    Ok(jobs.local.get(id))
}

/// Every local job on record.
#[tauri::command]
#[specta::specta]
pub async fn list_local_jobs(jobs: State<'_, Jobs>) -> CommandResult<Vec<LocalJob>> {
    Ok(jobs.local.list())
}

// ===== sync =====

fn target(text: &str) -> CommandResult<SyncTarget> {
    SyncTarget::parse(text).map_err(|error| invalid("target", error))
}

/// Syncs one target now (the user pressed Refresh).
#[tauri::command]
#[specta::specta]
pub async fn sync_now(jobs: State<'_, Jobs>, target: String) -> CommandResult<SyncOutcome> {
    let target = self::target(&target)?;
    Ok(jobs.sync.sync_now(&target).await?)
}

/// Syncs one target if an automatic trigger may (not within `min_interval`).
#[tauri::command]
#[specta::specta]
pub async fn sync_if_due(jobs: State<'_, Jobs>, target: String) -> CommandResult<SyncOutcome> {
    let target = self::target(&target)?;
    Ok(jobs.sync.sync_if_due(&target, Trigger::Focus).await?)
}

/// A sync target's state and health.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    /// `connector/account/name`.
    pub target: String,
    /// Its bookkeeping.
    pub state: SyncState,
    /// Its health now.
    pub health: Health,
}

/// State and health of every registered sync target.
#[tauri::command]
#[specta::specta]
pub async fn sync_status(jobs: State<'_, Jobs>) -> CommandResult<Vec<SyncStatus>> {
    let sync = jobs.sync.clone();
    blocking(move || {
        sync.targets()
            .into_iter()
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
/// targets at once; the attempt itself is the real probe.
#[tauri::command]
#[specta::specta]
pub async fn network_hint(jobs: State<'_, Jobs>, online: bool) -> CommandResult<()> {
    if online {
        let sync = jobs.sync.clone();
        tauri::async_runtime::spawn(async move {
            sync.trigger_all(Trigger::NetworkBack).await;
        });
    }
    Ok(())
}

// ===== schedules =====

/// Every schedule with its next run.
#[tauri::command]
#[specta::specta]
pub async fn list_schedules(jobs: State<'_, Jobs>) -> CommandResult<Vec<Schedule>> {
    let scheduler = jobs.scheduler.clone();
    blocking(move || scheduler.list()).await
}

// ===== data removal (not in the default permission set) =====

/// Removes everything stored for an account and stops its syncs.
#[tauri::command]
#[specta::specta]
pub async fn disconnect_account(
    jobs: State<'_, Jobs>,
    connector: String,
    account: String,
) -> CommandResult<u64> {
    let sync = jobs.sync.clone();
    blocking(move || sync.disconnect(&connector, &account)).await
}

/// Deletes finished durable jobs older than `olderThanMs`.
#[tauri::command]
#[specta::specta]
pub async fn prune_jobs(jobs: State<'_, Jobs>, older_than_ms: u64) -> CommandResult<u64> {
    let queue = jobs.queue.clone();
    blocking(move || queue.prune(Duration::from_millis(older_than_ms))).await
}
