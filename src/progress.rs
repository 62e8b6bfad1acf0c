//! Progress throttling, shared by process-local jobs and sync runs.
//!
//! With a known total, an event goes out when the whole percent grows (so at most 101
//! for any number of steps, the first and the last included); with an unknown total,
//! at most one per [`PROGRESS_INTERVAL`] of clock time. A report that is held back is
//! still stored, so records show the latest figures, and it is sent when the work
//! ends. A report that publishes nothing costs a few atomic operations and no lock.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{duration_millis, Clock};
pub(crate) use crate::model::percent;

/// What `progress` returns on a durable job's and on a local job's context: the report
/// is made when the call returns. It may be awaited, and is then ready at once, so both
/// `ctx.progress(1, Some(4));` and `ctx.progress(1, Some(4)).await;` work on either
/// context (a local job's was once async).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reported;

impl std::future::IntoFuture for Reported {
    type Output = ();
    type IntoFuture = std::future::Ready<()>;

    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(())
    }
}

/// With an unknown total, the least clock time between two progress events.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

const UNKNOWN: u64 = u64::MAX;
const NONE_YET: i64 = -1;

/// The latest report of one piece of work, and whether the next one should be
/// published.
pub(crate) struct Throttle {
    clock: Arc<dyn Clock>,
    // Relaxed throughout: each value is read on its own; a report racing another one
    // can at worst publish one event more or one figure older, never block.
    done: AtomicU64,
    total: AtomicU64,
    last_percent: AtomicI64,
    last_at: AtomicI64,
    held_back: AtomicBool,
}

impl std::fmt::Debug for Throttle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (done, total) = self.current();
        f.debug_struct("Throttle")
            .field("done", &done)
            .field("total", &total)
            .finish()
    }
}

impl Throttle {
    pub(crate) fn new(clock: Arc<dyn Clock>) -> Self {
        Throttle {
            clock,
            done: AtomicU64::new(0),
            total: AtomicU64::new(UNKNOWN),
            last_percent: AtomicI64::new(NONE_YET),
            last_at: AtomicI64::new(i64::MIN),
            held_back: AtomicBool::new(false),
        }
    }

    /// The latest figures.
    pub(crate) fn current(&self) -> (u64, Option<u64>) {
        let total = self.total.load(Ordering::Relaxed);
        (
            self.done.load(Ordering::Relaxed),
            (total != UNKNOWN).then_some(total),
        )
    }

    /// Stores a report; returns whether it should be published now.
    #[must_use]
    pub(crate) fn report(&self, done: u64, total: Option<u64>) -> bool {
        self.done.store(done, Ordering::Relaxed);
        self.total
            .store(total.unwrap_or(UNKNOWN), Ordering::Relaxed);
        let publish = match total {
            Some(total) => {
                let percent = i64::from(percent(done, total));
                let last = self.last_percent.load(Ordering::Relaxed);
                percent > last
                    && self
                        .last_percent
                        .compare_exchange(last, percent, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
            }
            None => {
                let now = self.clock.now().as_millis();
                let last = self.last_at.load(Ordering::Relaxed);
                now.saturating_sub(last) >= duration_millis(PROGRESS_INTERVAL)
                    && self
                        .last_at
                        .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
            }
        };
        self.held_back.store(!publish, Ordering::Relaxed);
        publish
    }

    /// The last report, if it was held back: to publish when the work ends.
    pub(crate) fn held_back(&self) -> Option<(u64, Option<u64>)> {
        self.held_back
            .swap(false, Ordering::Relaxed)
            .then(|| self.current())
    }
}

#[cfg(test)]
mod reported_tests {
    use super::Reported;

    #[tokio::test]
    async fn a_report_awaited_is_ready_at_once() {
        // The form a local job's body was written in while its progress was async.
        Reported.await;
    }
}
