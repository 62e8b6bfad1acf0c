//! Time, injected.
//!
//! Every decision about time in this crate (leases, backoff, due schedules, retention)
//! takes `now` from a [`Clock`]. The app uses [`SystemClock`], wall-clock UTC in
//! milliseconds; tests use [`FakeClock`] and move it by hand, so nothing ever sleeps.
//!
//! Wall-clock time is used on purpose rather than `Instant`: on Linux and macOS the
//! monotonic clock stops while the machine is suspended, and a run that fell due during
//! the suspension must be noticed on wake-up.
//!
//! The clock also says which time zone the machine's wall clock is in, for schedules
//! on local time: the system's ([`TimeZone::system`], which `jiff` re-reads at most
//! every five minutes, so a change after travel is seen), or, for a fake clock, the
//! zone a test sets.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use jiff::tz::TimeZone;

use crate::locks::lock;

pub(crate) use crate::model::time::duration_millis;
pub use crate::model::Timestamp;

/// A source of the current time.
///
/// Implementations must be cheap: the queue asks for the time in every transaction.
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    /// The current wall-clock time.
    fn now(&self) -> Timestamp;

    /// The time zone of the machine's wall clock now: the system's by default.
    fn local_zone(&self) -> TimeZone {
        TimeZone::system()
    }
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        Timestamp::from_millis(duration_millis(since_epoch))
    }
}

/// A clock that only moves when told to. Clones share the same time.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::clock::{Clock, FakeClock, Timestamp};
///
/// let clock = FakeClock::new(Timestamp::from_millis(1_000));
/// clock.advance(Duration::from_secs(2));
/// assert_eq!(clock.now(), Timestamp::from_millis(3_000));
/// ```
#[derive(Debug, Clone, Default)]
pub struct FakeClock {
    // Relaxed is enough: the clock is a single value with no other memory to order.
    millis: Arc<AtomicI64>,
    // Mutex: set by a test now and then; `None` is UTC.
    zone: Arc<Mutex<Option<TimeZone>>>,
}

impl FakeClock {
    /// A fake clock showing `start`.
    #[must_use]
    pub fn new(start: Timestamp) -> Self {
        FakeClock {
            millis: Arc::new(AtomicI64::new(start.as_millis())),
            zone: Arc::default(),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        self.millis
            .fetch_add(duration_millis(by), Ordering::Relaxed);
    }

    /// Sets the clock to `to`, forwards or backwards.
    pub fn set(&self, to: Timestamp) {
        self.millis.store(to.as_millis(), Ordering::Relaxed);
    }

    /// Puts the machine's wall clock in `zone` (UTC until set), as after travel.
    pub fn set_local_zone(&self, zone: TimeZone) {
        *lock(&self.zone) = Some(zone);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(self.millis.load(Ordering::Relaxed))
    }

    fn local_zone(&self) -> TimeZone {
        lock(&self.zone).clone().unwrap_or(TimeZone::UTC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_clones_share_time() {
        let clock = FakeClock::new(Timestamp::from_millis(5));
        let other = clock.clone();
        clock.advance(Duration::from_millis(10));
        assert_eq!(other.now(), Timestamp::from_millis(15));
        other.set(Timestamp::from_millis(1));
        assert_eq!(clock.now(), Timestamp::from_millis(1));
    }

    #[test]
    fn arithmetic_saturates() {
        let end = Timestamp::from_millis(i64::MAX - 1);
        assert_eq!(
            end.saturating_add(Duration::from_secs(10)),
            Timestamp::from_millis(i64::MAX)
        );
        assert_eq!(
            Timestamp::from_millis(10).duration_since(Timestamp::from_millis(20)),
            Duration::ZERO
        );
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now() > Timestamp::from_millis(1_577_836_800_000));
    }
}
