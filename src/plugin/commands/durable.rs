//! Durable jobs: enqueue, read, count, cancel (a local job too), prune.

use std::time::Duration;

use serde_json::Value;
use tauri::State;

use super::{
    blocking, invalid, millis, CommandResult, MAX_AFTER, MAX_ATTEMPTS, MAX_DELAY,
    WEBVIEW_PRIORITIES,
};
use crate::plugin::error::{CommandError, ErrorCode};
use crate::plugin::models::{CancelResult, DuplicateArg, EnqueueArgs, JobRef};
use crate::plugin::scope::{ReadableKinds, Scope};
use crate::plugin::Jobs;
use crate::queue::{
    Actor, CancelOutcome, EnqueueOptions, Enqueued, Job, JobFilter, JobId, KindCount, NewJob,
    OnDuplicate, Priority,
};

/// Enqueues a durable job on behalf of the user.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn enqueue(
    jobs: State<'_, Jobs>,
    scope: Scope,
    reads: ReadableKinds,
    kind: String,
    payload: Value,
    options: Option<EnqueueArgs>,
) -> CommandResult<Enqueued> {
    enqueue_as(&jobs, &scope, reads, kind, payload, options, Actor::User).await
}

/// Enqueues for `actor` what a window asked: the kind in its scope, the options in
/// their bounds, a parent the window may read (checked in the transaction).
pub(super) async fn enqueue_as(
    jobs: &Jobs,
    scope: &Scope,
    reads: ReadableKinds,
    kind: String,
    payload: Value,
    options: Option<EnqueueArgs>,
    actor: Actor,
) -> CommandResult<Enqueued> {
    scope.kind(&kind)?;
    let options = enqueue_options(options.unwrap_or_default(), actor)?;
    crate::queue::check_kind(&kind)?;
    registered(jobs, &kind)?;
    let queue = jobs.queue.clone();
    blocking(move || {
        let job = NewJob::new(kind, payload).options(options);
        let mut done = queue.enqueue_batch_within([job], Some(&reads.0))?;
        Ok(done.remove(0))
    })
    .await
}

/// Refuses a kind no handler in this app runs (nor an agent, declared): its jobs would
/// wait for ever.
pub(super) fn registered(jobs: &Jobs, kind: &str) -> CommandResult<()> {
    if jobs.queue.is_registered(kind) {
        return Ok(());
    }
    Err(CommandError::new(
        ErrorCode::UnknownKind,
        format!(
            "no handler in this app runs job kind {kind:?}: register one with \
             Builder::handler, or declare it with Builder::agent_kind if an agent runs it"
        ),
    ))
}

/// The longest idle time a webview's job may wait for: a day.
const MAX_IDLE_SECS: u32 = 86_400;

/// The queue's options for what the webview asked, on behalf of `actor`.
pub(super) fn enqueue_options(args: EnqueueArgs, actor: Actor) -> CommandResult<EnqueueOptions> {
    let priority = args.priority.unwrap_or(Priority::INGEST.0);
    if !WEBVIEW_PRIORITIES.contains(&priority) {
        return Err(invalid(
            "options.priority",
            format!(
                "{priority} is not from {} to {}",
                WEBVIEW_PRIORITIES.start(),
                WEBVIEW_PRIORITIES.end()
            ),
        ));
    }
    if let Some(attempts) = args.max_attempts {
        if !(1..=MAX_ATTEMPTS).contains(&attempts) {
            return Err(invalid(
                "options.maxAttempts",
                format!("{attempts} is not from 1 to {MAX_ATTEMPTS}"),
            ));
        }
    }
    let mut options = EnqueueOptions::new()
        .priority(Priority(priority))
        .actor(actor);
    options.dedupe_key = args.dedupe_key;
    options.max_attempts = args.max_attempts;
    options.parent = args.parent;
    if let Some(delay) = args.delay_ms {
        options.delay = Some(millis("options.delayMs", delay, MAX_DELAY)?);
    }
    if let Some(limit) = args.max_offline_ms {
        let limit = millis("options.maxOfflineMs", limit, MAX_DELAY)?;
        if limit < Duration::from_millis(1) {
            return Err(invalid("options.maxOfflineMs", "must be at least 1 ms"));
        }
        options.max_offline = Some(limit);
    }
    options.on_duplicate = match (args.on_duplicate, args.debounce_ms) {
        (Some(DuplicateArg::Debounce), Some(wait)) => {
            OnDuplicate::Debounce(millis("options.debounceMs", wait, MAX_DELAY)?)
        }
        (Some(DuplicateArg::Debounce), None) => {
            return Err(invalid("options.debounceMs", "a debounce needs its wait"));
        }
        (_, Some(_)) => {
            return Err(invalid(
                "options.debounceMs",
                "only with onDuplicate: \"debounce\"",
            ));
        }
        (Some(DuplicateArg::Replace), None) => OnDuplicate::Replace,
        (Some(DuplicateArg::Keep) | None, None) => OnDuplicate::Keep,
    };
    if let Some(needs) = args.constraints {
        if let Some(level) = needs
            .battery_at_least
            .filter(|level| !(1..=100).contains(level))
        {
            return Err(invalid(
                "options.constraints.batteryAtLeast",
                format!("{level} is not from 1 to 100"),
            ));
        }
        if let Some(secs) = needs
            .user_idle_secs
            .filter(|secs| !(1..=MAX_IDLE_SECS).contains(secs))
        {
            return Err(invalid(
                "options.constraints.userIdleSecs",
                format!("{secs} is not from 1 to {MAX_IDLE_SECS}"),
            ));
        }
        options.constraints = needs;
    }
    if let Some(after) = args.after {
        if after.len() > MAX_AFTER {
            return Err(invalid(
                "options.after",
                format!("{} jobs are more than the most, {MAX_AFTER}", after.len()),
            ));
        }
        options.after = after;
    }
    options.after_pieces_of = args.after_pieces_of;
    options.on_dependency_failure = args.on_dependency_failure.unwrap_or_default();
    Ok(options)
}

/// One durable job.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn get_job(jobs: State<'_, Jobs>, scope: Scope, id: JobId) -> CommandResult<Option<Job>> {
    let queue = jobs.queue.clone();
    // A job of a kind outside the scope is not there, for this window, nor named in
    // what it reads of another job.
    blocking(move || queue.get_matching(id, scope.kinds())).await
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
            // The kind, as stored, is checked in the transaction that cancels.
            let cancelled = blocking(move || queue.cancel_within(id, Some(scope.kinds()))).await?;
            Ok(match cancelled {
                CancelOutcome::Cancelled => CancelResult::Cancelled,
                CancelOutcome::Requested => CancelResult::Requested,
                _ => CancelResult::AlreadyFinished,
            })
        }
        #[cfg(not(feature = "local"))]
        JobRef::Local(id) => Err(CommandError::new(
            ErrorCode::NotFound,
            format!("no local job {id}: this app is built without local jobs"),
        )),
        #[cfg(feature = "local")]
        JobRef::Local(id) => {
            let record = jobs
                .local
                .get(id)
                .filter(|record| scope.allows_local_kind(&record.kind));
            let Some(_) = record else {
                // Another kind's job answers as a missing one.
                return Err(CommandError::new(
                    ErrorCode::NotFound,
                    format!("no local job {id}"),
                ));
            };
            // A local job's kind never changes: the check above holds for the cancel.
            Ok(if jobs.local.cancel(id) {
                CancelResult::Requested
            } else {
                CancelResult::AlreadyFinished
            })
        }
    }
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
