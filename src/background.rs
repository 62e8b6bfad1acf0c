//! The loop behind [`Scheduler::start`](crate::scheduler::Scheduler::start) and
//! [`SyncEngine::start`](crate::sync::SyncEngine::start): run one step, then sleep
//! until the time the step asked for, a change, or [`MAX_SLEEP`], whichever is first;
//! until stopped. A step that fails is retried after a backoff (1 s, doubling to
//! `MAX_SLEEP`), never at once: a full disk or a locked file costs a few attempts a
//! minute, not a busy core.
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

use crate::backoff::{self, Jitter};
use crate::locks::lock;

/// The longest a background loop sleeps before looking at the wall clock again.
pub const MAX_SLEEP: Duration = Duration::from_secs(30);

/// The first wait after a step failed; it doubles with each failure in a row.
pub(crate) const FAILED_STEP_BACKOFF: Duration = Duration::from_secs(1);

/// How long to wait after `failures` failed steps in a row (1 for the first).
pub(crate) fn failure_backoff(failures: u32) -> Duration {
    backoff::delay_for(
        FAILED_STEP_BACKOFF,
        MAX_SLEEP,
        Jitter::Shorten(0.0),
        failures,
        0.0,
    )
}

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
    /// answered (at most [`MAX_SLEEP`]; after a failed step, `None`, the failure
    /// backoff), a wake-up, or the stop. Starting it again, or after
    /// [`stop`](Background::stop), does nothing.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub(crate) fn start<F, Fut>(&self, mut step: F)
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = Option<Duration>> + Send,
    {
        let mut task = lock(&self.task);
        if task.is_some() || self.shared.stopping.is_cancelled() {
            return;
        }
        let shared = self.shared.clone();
        *task = Some(crate::tasks::spawn(async move {
            let mut failures = 0u32;
            loop {
                let changed = shared.changed.notified();
                let wait = match step().await {
                    Some(wait) => {
                        failures = 0;
                        wait.min(MAX_SLEEP)
                    }
                    None => {
                        failures = failures.saturating_add(1);
                        failure_backoff(failures)
                    }
                };
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_step_that_keeps_failing_runs_a_few_times_a_minute() {
        let calls = Arc::new(AtomicU32::new(0));
        let background = Background::default();
        let counted = calls.clone();
        background.start(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async { None }
        });
        // A fake minute: 1 + 1 + 2 + 4 + 8 + 16 + 30 s of backoff.
        tokio::time::sleep(Duration::from_secs(60)).await;
        let failed = calls.load(Ordering::SeqCst);
        assert!((6..=7).contains(&failed), "{failed} attempts in a minute");
        background.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn a_step_sleeps_as_long_as_it_asks_and_wakes_on_a_change() {
        let calls = Arc::new(AtomicU32::new(0));
        let background = Background::default();
        let counted = calls.clone();
        background.start(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async { Some(Duration::from_secs(3600)) }
        });
        tokio::time::sleep(Duration::from_secs(45)).await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            2,
            "a first step, then one per 30 s"
        );
        background.wake();
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        background.stop().await;
    }
}
