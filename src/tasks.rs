//! Tasks on the async runtime as one type.
//!
//! tokio compiles its code for a task (its cell, its poll and its wake-ups, its join
//! handle) once per type of future it runs. The crate's own tasks that end in `()` are
//! boxed into one type here, so that code is in an app's binary once rather than once
//! per place that starts a task (docs/performance.md). A box a task costs nothing
//! measurable beside the task's own allocation.

use std::future::Future;
use std::pin::Pin;

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// What every task of the crate's becomes.
type Task = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Starts `work` on the current tokio runtime.
///
/// # Panics
///
/// Outside a tokio runtime, as `tokio::spawn` does.
pub(crate) fn spawn(work: impl Future<Output = ()> + Send + 'static) -> JoinHandle<()> {
    tokio::spawn(Box::pin(work) as Task)
}

/// Starts `work` on the runtime `handle` names.
pub(crate) fn spawn_on(
    handle: &Handle,
    work: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    handle.spawn(Box::pin(work) as Task)
}

/// Starts `work` on Tauri's async runtime (the app's, or the one Tauri makes).
pub(crate) fn spawn_in_app(
    work: impl Future<Output = ()> + Send + 'static,
) -> tauri::async_runtime::JoinHandle<()> {
    tauri::async_runtime::spawn(Box::pin(work) as Task)
}
