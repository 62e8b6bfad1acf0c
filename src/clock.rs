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
//! Beside it, [`Clock::awake`] is time the machine has been awake (a monotonic clock,
//! which stops while the machine sleeps): the wall clock running ahead of it between
//! two looks is how a wake from sleep is recognised (`SleepWatch`).
//!
//! The clock also says which time zone the machine's wall clock is in, for schedules
//! on local time: the system's ([`TimeZone::system`], which `jiff` re-reads at most
//! every five minutes, so a change after travel is seen), or, for a fake clock, the
//! zone a test sets.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

    /// Time the machine has been awake, from an origin of the clock's choosing: it
    /// stops while the machine sleeps (`Instant`, a monotonic clock, by default; on
    /// Linux and macOS it does not count a suspend).
    fn awake(&self) -> Duration {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed()
    }

    /// The time zone of the machine's wall clock now: the system's by default.
    ///
    /// Reading the system's zone takes time-zone code the `schedules` feature brings
    /// (on by default); a build without it carries none, and the default is UTC there:
    /// the plugin then refuses `"local"` in a schedule or a durable sleep, naming the
    /// feature, rather than read it as UTC.
    fn local_zone(&self) -> TimeZone {
        #[cfg(feature = "schedules")]
        return TimeZone::system();
        #[cfg(not(feature = "schedules"))]
        TimeZone::UTC
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
    // Relaxed is enough: each is a single value with no other memory to order.
    millis: Arc<AtomicI64>,
    awake: Arc<AtomicI64>,
    // Mutex: set by a test now and then; `None` is UTC.
    zone: Arc<Mutex<Option<TimeZone>>>,
}

impl FakeClock {
    /// A fake clock showing `start`.
    #[must_use]
    pub fn new(start: Timestamp) -> Self {
        FakeClock {
            millis: Arc::new(AtomicI64::new(start.as_millis())),
            awake: Arc::default(),
            zone: Arc::default(),
        }
    }

    /// Moves the clock forward: wall time and awake time alike.
    pub fn advance(&self, by: Duration) {
        self.millis
            .fetch_add(duration_millis(by), Ordering::Relaxed);
        self.awake.fetch_add(duration_millis(by), Ordering::Relaxed);
    }

    /// The machine sleeps for `by`: the wall clock jumps forward, no awake time passes
    /// (as a suspended laptop's monotonic clock does not move).
    pub fn suspend(&self, by: Duration) {
        self.millis
            .fetch_add(duration_millis(by), Ordering::Relaxed);
    }

    /// Sets the wall clock to `to`, forwards or backwards (awake time stays).
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

    fn awake(&self) -> Duration {
        Duration::from_millis(self.awake.load(Ordering::Relaxed).max(0) as u64)
    }

    fn local_zone(&self) -> TimeZone {
        lock(&self.zone).clone().unwrap_or(TimeZone::UTC)
    }
}

/// How far the wall clock must run ahead of the awake clock between two looks to
/// count as a wake from sleep. Small, so that a sleep longer than a short lease is
/// seen; an NTP step of the wall clock reads the same and costs only a delayed sweep.
pub const WAKE_JUMP: Duration = Duration::from_secs(2);

/// Recognises wakes from sleep: at each look, a wall clock that ran ahead of the awake
/// clock by more than [`WAKE_JUMP`] since the previous look means the machine slept.
#[derive(Debug, Default)]
pub(crate) struct SleepWatch {
    // Mutex: one look at a time; each takes two clock readings.
    state: Mutex<SleepState>,
}

#[derive(Debug, Default)]
struct SleepState {
    last: Option<(Timestamp, Duration)>,
    woke_at: Option<Timestamp>,
}

impl SleepWatch {
    /// Looks at the clock: the wall time of the last wake seen, if any (this look's,
    /// when it is one).
    pub(crate) fn look(&self, clock: &dyn Clock) -> Option<Timestamp> {
        let (wall, awake) = (clock.now(), clock.awake());
        let mut state = lock(&self.state);
        if let Some((last_wall, last_awake)) = state.last {
            let wall_passed = wall.duration_since(last_wall);
            let awake_passed = awake.saturating_sub(last_awake);
            if wall_passed > awake_passed + WAKE_JUMP {
                tracing::debug!(slept = ?(wall_passed - awake_passed), "woke from sleep");
                state.woke_at = Some(wall);
            }
        }
        state.last = Some((wall, awake));
        state.woke_at
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
    fn a_wall_clock_running_ahead_of_the_awake_clock_is_a_wake() {
        let clock = FakeClock::new(Timestamp::from_millis(1_000_000));
        let watch = SleepWatch::default();
        assert_eq!(watch.look(&clock), None);
        clock.advance(Duration::from_secs(3600));
        assert_eq!(watch.look(&clock), None, "awake all along");
        clock.suspend(Duration::from_secs(1));
        assert_eq!(watch.look(&clock), None, "within WAKE_JUMP");
        clock.suspend(Duration::from_secs(7200));
        let woke = watch.look(&clock).expect("a wake");
        assert_eq!(woke, clock.now());
        clock.advance(Duration::from_secs(10));
        assert_eq!(watch.look(&clock), Some(woke), "the last wake is kept");
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
