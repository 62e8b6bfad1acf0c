//! Time, injected.
//!
//! Every decision about time in this crate (leases, backoff, due schedules, retention)
//! takes `now` from a [`Clock`]. The app uses [`SystemClock`], wall-clock UTC in
//! milliseconds; tests use [`FakeClock`] and move it by hand, so nothing ever sleeps.
//!
//! Wall-clock time is used on purpose rather than `Instant`: on Linux and macOS the
//! monotonic clock stops while the machine is suspended, and a run that fell due during
//! the suspension must be noticed on wake-up.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// A point in time: milliseconds since the Unix epoch, UTC.
///
/// Stored as an integer in `raw.db`. Milliseconds fit a JavaScript number exactly until
/// the year 287,396, so timestamps cross IPC as plain numbers.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The Unix epoch.
    pub const EPOCH: Timestamp = Timestamp(0);

    /// A timestamp from milliseconds since the Unix epoch.
    #[must_use]
    pub const fn from_millis(millis: i64) -> Self {
        Timestamp(millis)
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// This instant moved forward by `duration`, saturating at the end of time.
    #[must_use]
    pub fn saturating_add(self, duration: Duration) -> Self {
        Timestamp(self.0.saturating_add(duration_millis(duration)))
    }

    /// This instant moved back by `duration`, saturating at the start of time.
    #[must_use]
    pub fn saturating_sub(self, duration: Duration) -> Self {
        Timestamp(self.0.saturating_sub(duration_millis(duration)))
    }

    /// How long after `earlier` this instant is; zero when it is not later.
    #[must_use]
    pub fn duration_since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0).max(0) as u64)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

/// Whole milliseconds of a duration, saturating at `i64::MAX`.
pub(crate) fn duration_millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A source of the current time.
///
/// Implementations must be cheap: the queue asks for the time in every transaction.
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    /// The current wall-clock time.
    fn now(&self) -> Timestamp;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        Timestamp(duration_millis(since_epoch))
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
}

impl FakeClock {
    /// A fake clock showing `start`.
    #[must_use]
    pub fn new(start: Timestamp) -> Self {
        FakeClock {
            millis: Arc::new(AtomicI64::new(start.0)),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        self.millis
            .fetch_add(duration_millis(by), Ordering::Relaxed);
    }

    /// Sets the clock to `to`, forwards or backwards.
    pub fn set(&self, to: Timestamp) {
        self.millis.store(to.0, Ordering::Relaxed);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.millis.load(Ordering::Relaxed))
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
