//! The loop behind [`Scheduler::start`](crate::scheduler::Scheduler::start) and
//! [`SyncEngine::start`](crate::sync::SyncEngine::start): run one step, then sleep
//! until the time the step asked for, a change, or [`MAX_SLEEP`], whichever is first;
//! until stopped.
//!
//! The sleep is capped because monotonic timers stop while the machine is suspended:
//! the steps judge due-ness on the wall clock, and a run that fell due during a
//! suspension happens within `MAX_SLEEP` of waking up. Compared with the runner's own
//! thread, these loops do little work and run as tokio tasks.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::locks::lock;

/// The longest a background loop sleeps before looking at the wall clock again.
pub const MAX_SLEEP: Duration = Duration::from_secs(30);

/// A background loop that can be woken early and stopped.
#[derive(Debug, Default)]
pub(crate) struct Background {
    shared: Arc<Shared>,
    // Mutex: start and stop may race from different threads; the handle is taken once.
    task: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Debug, Default)]
struct Shared {
    changed: Notify,
    stopping: CancellationToken,
}

impl Background {
    /// Wakes the loop for an early step. A wake-up while the step runs is kept for
    /// the next sleep, so none is lost.
    pub(crate) fn wake(&self) {
        self.shared.changed.notify_one();
    }

    /// Starts the loop on the current tokio runtime: `step`, then sleep as long as it
    /// answered (at most [`MAX_SLEEP`]), a wake-up, or the stop. Starting it again, or
    /// after [`stop`](Background::stop), does nothing.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub(crate) fn start<F, Fut>(&self, mut step: F)
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = Duration> + Send,
    {
        let mut task = lock(&self.task);
        if task.is_some() || self.shared.stopping.is_cancelled() {
            return;
        }
        let shared = self.shared.clone();
        *task = Some(tokio::spawn(async move {
            loop {
                let changed = shared.changed.notified();
                let wait = step().await.min(MAX_SLEEP);
                tokio::select! {
                    _ = shared.stopping.cancelled() => return,
                    _ = changed => {}
                    _ = tokio::time::sleep(wait) => {}
                }
            }
        }));
    }

    /// Stops the loop and waits for its current step to end.
    pub(crate) async fn stop(&self) {
        self.shared.stopping.cancel();
        let task = lock(&self.task).take();
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}
