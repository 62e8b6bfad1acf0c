//! A local job's progress reports, throttled and published.

use std::fmt;
use std::sync::Arc;

use super::{LocalJobId, LocalRunEvent, Observer};
use crate::bus::{EventBus, LocalJobProgress};
use crate::clock::Clock;
use crate::progress::{percent, Throttle};

/// A local job's progress: the shared throttle, publishing `LocalJobProgress`.
pub(super) struct Progress {
    pub(super) id: LocalJobId,
    pub(super) kind: String,
    pub(super) bus: EventBus,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) throttle: Throttle,
    pub(super) observer: Option<Observer>,
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.throttle.fmt(f)
    }
}

impl Progress {
    pub(super) fn new(
        id: LocalJobId,
        kind: String,
        bus: EventBus,
        clock: Arc<dyn Clock>,
        observer: Option<Observer>,
    ) -> Self {
        Progress {
            id,
            kind,
            bus,
            throttle: Throttle::new(clock.clone()),
            clock,
            observer,
        }
    }

    pub(super) fn current(&self) -> (u64, Option<u64>) {
        self.throttle.current()
    }

    pub(super) fn report(&self, done: u64, total: Option<u64>) {
        if self.throttle.report(done, total) {
            self.send(done, total);
        }
    }

    /// Sends the last report if it was held back.
    pub(super) fn finish(&self) {
        if let Some((done, total)) = self.throttle.held_back() {
            self.send(done, total);
        }
    }

    fn send(&self, done: u64, total: Option<u64>) {
        let percent = total.map(|total| percent(done, total));
        self.bus.publish(LocalJobProgress {
            id: self.id,
            kind: self.kind.clone(),
            done,
            total,
            percent,
            at: self.clock.now(),
        });
        if let Some(observer) = &self.observer {
            observer(LocalRunEvent::Progress {
                done,
                total,
                percent,
            });
        }
    }
}
