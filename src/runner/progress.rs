//! A durable handler's progress: events throttled like a local job's (about one a
//! percent), and the latest figures stored with the job at most once a second while
//! it runs (and with its outcome), so a window opened mid-job shows where it is.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::bus::{EventBus, JobProgress};
use crate::clock::{duration_millis, Clock};
use crate::model::{percent, JobId, Timestamp};
use crate::progress::Throttle;
use crate::queue::PendingLine;

/// The least time between two writes of one attempt's progress to `raw.db`.
pub const PROGRESS_STORE_INTERVAL: Duration = Duration::from_secs(1);

/// The most lines one attempt holds in memory before they are stored.
const MAX_PENDING_LINES: usize = 1000;

/// One running attempt's progress.
pub(crate) struct AttemptProgress {
    id: JobId,
    kind: String,
    attempt: u32,
    bus: EventBus,
    clock: Arc<dyn Clock>,
    throttle: Throttle,
    // Relaxed: each flag is read on its own; a race stores one report late, never
    // loses the last one (it stays dirty).
    dirty: AtomicBool,
    stored_at: AtomicI64,
    // Asks the runner's thread for a round, which stores what is due.
    wake: Arc<dyn Fn() -> bool + Send + Sync>,
    /// The attempt's durable steps (`runner::steps`), here because every clone of its
    /// context shares this, and it is made per attempt anyway.
    pub(super) steps: super::steps::Steps,
    // Mutex: pushed by the handler, taken by the runner's rounds; held to move lines.
    logs: std::sync::Mutex<Vec<PendingLine>>,
    // When the oldest line not stored yet was logged (ms; i64::MIN: none). Relaxed:
    // a late read stores a line a round later, never loses it.
    logs_since: AtomicI64,
}

impl std::fmt::Debug for AttemptProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttemptProgress")
            .field("id", &self.id)
            .field("current", &self.throttle.current())
            .finish()
    }
}

impl AttemptProgress {
    pub(crate) fn new(
        id: JobId,
        kind: String,
        attempt: u32,
        bus: EventBus,
        clock: Arc<dyn Clock>,
        wake: Arc<dyn Fn() -> bool + Send + Sync>,
        steps: super::steps::Steps,
    ) -> Self {
        AttemptProgress {
            id,
            kind,
            attempt,
            bus,
            throttle: Throttle::new(clock.clone()),
            clock,
            dirty: AtomicBool::new(false),
            stored_at: AtomicI64::new(i64::MIN),
            wake,
            steps,
            logs: std::sync::Mutex::new(Vec::new()),
            logs_since: AtomicI64::new(i64::MIN),
        }
    }

    /// A report from the handler: published when the throttle lets it, stored by the
    /// runner's next round once a second has passed since the last store.
    pub(crate) fn report(&self, done: u64, total: Option<u64>) {
        if self.throttle.report(done, total) {
            self.publish(done, total);
        }
        self.dirty.store(true, Ordering::Relaxed);
        if self.store_due_at().is_some_and(|at| at <= self.clock.now()) {
            let _ = (self.wake)();
        }
    }

    /// When the latest report should be stored, if it has not been; or the lines
    /// logged, a store interval after the oldest of them.
    pub(crate) fn store_due_at(&self) -> Option<Timestamp> {
        let progress = self.progress_due_at();
        let since = self.logs_since.load(Ordering::Relaxed);
        let logs = (since != i64::MIN).then(|| {
            Timestamp::from_millis(since.saturating_add(duration_millis(PROGRESS_STORE_INTERVAL)))
        });
        match (progress, logs) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A line the handler logged (redacted, cut): stored by a round of the runner
    /// within a store interval, or with the attempt's outcome.
    pub(crate) fn log(&self, level: &'static str, text: String) {
        let now = self.clock.now();
        let mut logs = crate::locks::lock(&self.logs);
        // Bounded in memory too: past the most a job keeps, the oldest pending go.
        if logs.len() >= MAX_PENDING_LINES {
            logs.remove(0);
        }
        logs.push(PendingLine {
            at: now,
            attempt: self.attempt,
            level,
            text,
        });
        if logs.len() == 1 {
            self.logs_since.store(now.as_millis(), Ordering::Relaxed);
        }
        drop(logs);
        if self.store_due_at().is_some_and(|at| at <= now) {
            let _ = (self.wake)();
        }
    }

    /// The lines logged and not stored yet, with the job and kind, if any; when `due`
    /// only once a store interval has passed since the oldest of them.
    pub(crate) fn take_logs(
        &self,
        due: Option<Timestamp>,
    ) -> Option<(JobId, String, Vec<PendingLine>)> {
        let since = self.logs_since.load(Ordering::Relaxed);
        if since == i64::MIN {
            return None;
        }
        if let Some(now) = due {
            if since.saturating_add(duration_millis(PROGRESS_STORE_INTERVAL)) > now.as_millis() {
                return None;
            }
        }
        let lines = std::mem::take(&mut *crate::locks::lock(&self.logs));
        self.logs_since.store(i64::MIN, Ordering::Relaxed);
        (!lines.is_empty()).then(|| (self.id, self.kind.clone(), lines))
    }

    /// When the latest report should be stored, if it has not been.
    fn progress_due_at(&self) -> Option<Timestamp> {
        self.dirty.load(Ordering::Relaxed).then(|| {
            Timestamp::from_millis(
                self.stored_at
                    .load(Ordering::Relaxed)
                    .saturating_add(duration_millis(PROGRESS_STORE_INTERVAL)),
            )
        })
    }

    /// The figures to store now, if a store is due at `now`; marks them stored.
    pub(crate) fn take_due(&self, now: Timestamp) -> Option<(u64, Option<u64>)> {
        if self.progress_due_at()? > now {
            return None;
        }
        self.dirty.store(false, Ordering::Relaxed);
        self.stored_at.store(now.as_millis(), Ordering::Relaxed);
        Some(self.throttle.current())
    }

    /// The latest figures if they were not stored yet, marking them stored: to store
    /// with the attempt's outcome.
    pub(crate) fn take_last(&self) -> Option<(u64, Option<u64>)> {
        self.dirty
            .swap(false, Ordering::Relaxed)
            .then(|| self.throttle.current())
    }

    /// The latest figures reported: steps done, of a total when known.
    pub(crate) fn current(&self) -> (u64, Option<u64>) {
        self.throttle.current()
    }

    /// Publishes the last report if the throttle held it back: when the attempt ends.
    pub(crate) fn finish(&self) {
        if let Some((done, total)) = self.throttle.held_back() {
            self.publish(done, total);
        }
    }

    fn publish(&self, done: u64, total: Option<u64>) {
        self.bus.publish(JobProgress {
            id: self.id,
            kind: self.kind.clone(),
            attempt: self.attempt,
            done,
            total,
            percent: total.map(|total| percent(done, total)),
            at: self.clock.now(),
        });
    }
}
