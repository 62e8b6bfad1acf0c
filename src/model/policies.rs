//! Rules for what may happen to a kind's jobs: what an enqueue does with a dedupe key
//! that is taken ([`OnDuplicate`], answered by [`EnqueueOutcome`]), and how often a
//! kind may start ([`RateLimit`], computed with [`RateState`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Timestamp;

/// What an enqueue with a dedupe key does when a queued or running job of the same
/// kind holds the key. Decided in the enqueue's transaction, so two processes
/// enqueueing at once never make two jobs.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::{EnqueueOptions, OnDuplicate};
///
/// // "Reindex once the user has stopped typing for 2 s."
/// let options = EnqueueOptions::new()
///     .dedupe_key("reindex")
///     .on_duplicate(OnDuplicate::Debounce(Duration::from_secs(2)));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnDuplicate {
    /// The job holding the key stays as it is and nothing is added
    /// ([`EnqueueOutcome::Kept`]).
    #[default]
    Keep,
    /// A queued job holding the key takes the new payload, priority and payload
    /// version; its start, attempts and id stay ([`EnqueueOutcome::Replaced`]). The
    /// latest settings win.
    Replace,
    /// As `Replace`, and the queued job's start moves to now + the delay, so a burst
    /// of enqueues runs once, after the burst has been quiet for the delay. A job
    /// enqueued new waits the delay too.
    Debounce(Duration),
}

/// What a job that waits for others ([`EnqueueOptions::after`](crate::queue::EnqueueOptions::after))
/// does when one of them fails or is cancelled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum DependencyFailure {
    /// It is cancelled too, its error naming the job that failed (the default), and
    /// so are the jobs waiting for it.
    #[default]
    Cancel,
    /// It counts the failed job as ended, and runs once the others have ended.
    Run,
}

/// What an enqueue did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum EnqueueOutcome {
    /// A new job was added.
    Created,
    /// A job held the dedupe key and stays as it was (`OnDuplicate::Keep`).
    Kept,
    /// The queued job holding the key took the new payload (and, debounced, its new
    /// start).
    Replaced,
    /// The job holding the key is running, and is never changed: the new payload
    /// runs after it, as one follow-up job under the same key, queued in the
    /// transaction that ends the running one (a later replace or debounce while it
    /// still runs changes that follow-up). The id is the running job's.
    FollowUp,
}

/// At most `starts` starts of a kind per `per`, across every runner, agent and
/// process on the file. By default spread evenly: one start every `per / starts`
/// (rounded up to a millisecond), never a burst, so that no window of that length
/// ever holds more than `starts` (what a service's quota counts). With a
/// [`burst`](RateLimit::burst) of B, up to B may start at once and the budget comes
/// back one start per interval (a token bucket holding B): `RateLimit::new(5,
/// minute).burst(5)` starts five at once, then one every 12 s while jobs keep
/// coming, five at once again after a quiet minute. Kept as one time per kind in
/// `raw.db`, moved on in the claim's transaction.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::RateLimit;
///
/// // A mail API that takes 60 requests a minute: one a second.
/// let limit = RateLimit::new(60, Duration::from_secs(60));
/// assert_eq!(limit.interval(), Duration::from_secs(1));
/// // An API that takes five at once and then one every 12 s.
/// let bursty = RateLimit::new(5, Duration::from_secs(60)).burst(5);
/// assert_eq!(bursty.burst, 5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RateLimit {
    /// Starts allowed in a window; at least 1.
    pub starts: u32,
    /// The window; from a millisecond to a year.
    pub per: Duration,
    /// How many may start at once, from 1 (evenly spread, the default) to `starts`
    /// (the whole budget at once).
    pub burst: u32,
}

/// The longest window a rate limit takes.
const MAX_WINDOW: Duration = Duration::from_secs(365 * 86_400);

impl RateLimit {
    /// `starts` starts per `per` (`starts` at least 1; `per` from 1 ms to a year),
    /// evenly spread. More starts than milliseconds in `per` run at one a millisecond.
    #[must_use]
    pub fn new(starts: u32, per: Duration) -> Self {
        RateLimit {
            starts: starts.max(1),
            per: per.clamp(Duration::from_millis(1), MAX_WINDOW),
            burst: 1,
        }
    }

    /// Lets up to `burst` start at once (clamped from 1 to `starts`); the budget
    /// comes back one start per [`interval`](RateLimit::interval).
    #[must_use]
    pub fn burst(mut self, burst: u32) -> Self {
        self.burst = burst.clamp(1, self.starts);
        self
    }

    /// The spacing of starts: `per / starts`, rounded up to a millisecond.
    #[must_use]
    pub fn interval(&self) -> Duration {
        Duration::from_millis(
            interval_ms(duration_ms(self.per), i64::from(self.starts.max(1))) as u64,
        )
    }
}

fn duration_ms(duration: Duration) -> i64 {
    i64::try_from(duration.min(MAX_WINDOW).as_millis())
        .unwrap_or(i64::MAX)
        .max(1)
}

fn interval_ms(window_ms: i64, starts: i64) -> i64 {
    (window_ms.saturating_add(starts - 1) / starts).max(1)
}

/// A kind's rate limit as stored (`starts` per `window_ms`, `burst` at once), and its
/// state: the earliest time the budget would be whole again if one start more were
/// made at the same pace (`next`, the theoretical arrival time of the generic cell
/// rate algorithm: with a burst of 1, simply the earliest time of the next start).
/// Every claimer computes with these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RateState {
    pub starts: u32,
    pub window_ms: i64,
    pub burst: u32,
    pub next: Option<i64>,
}

impl RateState {
    pub(crate) fn of(limit: RateLimit) -> (u32, i64, u32) {
        let starts = limit.starts.max(1);
        (starts, duration_ms(limit.per), limit.burst.clamp(1, starts))
    }

    pub(crate) fn interval(&self) -> i64 {
        interval_ms(
            self.window_ms.clamp(1, duration_ms(MAX_WINDOW)),
            i64::from(self.starts.max(1)),
        )
    }

    /// How many jobs may start at `now`: as many as the budget holds (at most
    /// `burst`), none while it is spent.
    pub(crate) fn room(&self, now: Timestamp) -> u32 {
        let now = now.as_millis();
        let burst = self.burst.clamp(1, self.starts.max(1));
        let Some(next) = self.next.filter(|&next| next > now) else {
            return burst;
        };
        let interval = self.interval();
        // Starts fit while the booked pace stays within `burst` intervals of now.
        let free = now
            .saturating_add(i64::from(burst).saturating_mul(interval))
            .saturating_sub(next);
        u32::try_from((free / interval).max(0))
            .unwrap_or(0)
            .min(burst)
    }

    /// When the next start is allowed, if the budget is spent now.
    pub(crate) fn free_at(&self) -> Option<Timestamp> {
        let burst = i64::from(self.burst.clamp(1, self.starts.max(1)));
        self.next
            .map(|next| Timestamp::from_millis(next.saturating_sub((burst - 1) * self.interval())))
    }

    /// The next start after `started` more at `now`.
    pub(crate) fn spent(&self, started: u32, now: Timestamp) -> i64 {
        let now = now.as_millis();
        self.next
            .unwrap_or(now)
            .max(now)
            .saturating_add(i64::from(started).saturating_mul(self.interval()))
    }
}
