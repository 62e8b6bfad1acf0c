//! The IPC commands, a file per family: durable jobs, local jobs, sync, schedules,
//! the admin actions, external agents, event subscriptions and the plugin's health. Each is async and does
//! its SQLite work off the async threads; none can panic the app: every failure is a
//! [`CommandError`].
//!
//! Wrong or missing arguments are refused by Tauri before a command runs, with a
//! message naming the argument (`invalid args `kind` for command `enqueue``); values
//! that parse but make no sense, or lie outside the bounds below, are refused here
//! with `invalidArgument`, naming the argument too. Nothing a window sends (an id, a
//! lease, a length, a nested value) is trusted beyond what the database says.
//!
//! Every command takes the calling window's [`Scope`](super::Scope): what it names
//! outside the scope is refused (`forbidden`) before any work; a stored row it points
//! at (a job, a schedule) is checked in the transaction that acts on it and, outside
//! the scope, answers exactly as a missing one (`notFound`). See
//! the README's Permissions for what one window may hold at once.

use std::ops::RangeInclusive;
use std::time::Duration;

use super::error::{CommandError, ErrorCode};

pub(super) mod admin;
pub(super) mod agents;
pub(super) mod durable;
pub(super) mod events;
pub(super) mod health;
pub(super) mod history;
#[cfg(feature = "local")]
pub(super) mod local;
#[cfg(feature = "schedules")]
pub(super) mod schedules;
pub(super) mod signals;
#[cfg(feature = "sync")]
pub(super) mod sync;
pub(super) mod workflows;

pub use super::models::{
    AgentClaimArgs, AgentFinished, CancelResult, ComponentHealth, EnqueueArgs, JobRef, SyncStatus,
    WorkflowArgs, WorkflowStep,
};
pub use admin::{delete_job, pause_kind, paused_kinds, resume_kind, retry_job};
pub use agents::{
    agent_claim, agent_complete, agent_defer, agent_enqueue, agent_fail, agent_heartbeat,
};
pub use durable::{cancel, enqueue, get_job, job_counts, list_jobs, prune_jobs};
pub use events::{subscribe, unsubscribe};
pub use health::plugin_health;
#[cfg(feature = "sync")]
pub use history::sync_history;
pub use history::{job_history, HistorySpan, KindHistory, TargetHistory};
#[cfg(feature = "local")]
pub use local::{get_local_job, list_local_jobs, run_local, spawn_awaitable, spawn_local};
#[cfg(feature = "schedules")]
pub use schedules::{list_schedules, pause_schedule, resume_schedule, run_schedule_now};
pub use signals::{get_job_logs, signal_job};
#[cfg(feature = "sync")]
pub use sync::{disconnect_account, network_hint, sync_if_due, sync_now, sync_status};
pub use workflows::{
    cancel_workflow, enqueue_workflow, get_workflow, job_dependencies, retry_workflow,
};

// ===== bounds on what a window sends =====

/// The longest delay a window may ask for (`options.delayMs`): one year.
pub const MAX_DELAY: Duration = Duration::from_secs(366 * 24 * 3600);
/// The priorities a window may ask for: from 0 to [`Priority::USER`](crate::queue::Priority::USER).
/// The app's own Rust code may use any; a window cannot outrank the app's urgent work.
pub const WEBVIEW_PRIORITIES: RangeInclusive<i32> = 0..=100;
/// The most attempts a window may ask for (`options.maxAttempts`).
pub const MAX_ATTEMPTS: u32 = 100;
/// The most jobs one job may wait for (`options.after`).
pub const MAX_AFTER: usize = 10_000;
/// The most pieces and `then` jobs one `enqueue_workflow` may add.
pub const MAX_WORKFLOW_JOBS: usize = 10_000;
/// The most jobs one `agent_claim` may take.
pub const MAX_AGENT_CLAIM: u32 = 100;
/// The most kinds one `agent_claim` may name.
pub const MAX_AGENT_KINDS: usize = 64;
/// The longest agent name, in bytes.
pub const MAX_AGENT_NAME_BYTES: usize = 128;

type CommandResult<T> = Result<T, CommandError>;

/// Runs blocking work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> crate::Result<T> + Send + 'static,
) -> CommandResult<T> {
    let answer = on_blocking_pool(Box::new(move || Box::new(work()))).await?;
    match answer.downcast::<crate::Result<T>>() {
        Ok(answer) => (*answer).map_err(CommandError::from),
        Err(_) => Err(stopped(&"its answer was of another type")),
    }
}

/// Every command's work as one type of task on the blocking pool, its answer as one
/// type: the pool's code for a task is in the app's binary once, not once per command
/// or per type of answer (docs/performance.md).
async fn on_blocking_pool(
    work: Box<dyn FnOnce() -> Box<dyn std::any::Any + Send> + Send>,
) -> CommandResult<Box<dyn std::any::Any + Send>> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|error| stopped(&error))
}

fn stopped(error: &dyn std::fmt::Display) -> CommandError {
    CommandError::new(
        ErrorCode::Database,
        format!("a database task stopped: {error}"),
    )
}

fn invalid(argument: &str, reason: impl std::fmt::Display) -> CommandError {
    CommandError::new(
        ErrorCode::InvalidArgument,
        format!("invalid argument `{argument}`: {reason}"),
    )
}

/// A number of milliseconds from 0 to `max`, as a duration; `argument` names it.
fn millis(argument: &str, ms: f64, max: Duration) -> CommandResult<Duration> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(invalid(
            argument,
            format!("{ms} is not a number of milliseconds"),
        ));
    }
    if ms > max.as_millis() as f64 {
        return Err(invalid(
            argument,
            format!(
                "{ms} ms is longer than the most allowed, {} ms",
                max.as_millis()
            ),
        ));
    }
    // In range, so this cannot overflow.
    Ok(Duration::from_secs_f64(ms / 1000.0))
}
