//! How an attempt ends, as a worker reports it ([`Outcome`]: a success, a failure, a
//! deferral, a cancel or a release) and where the job went ([`Finished`]).

use std::time::Duration;

use serde_json::Value;

use crate::clock::Timestamp;

/// How an attempt went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFailure {
    /// What happened. Redacted and cut to 500 characters before it is stored.
    pub message: String,
    /// Fail the job now instead of retrying.
    pub permanent: bool,
}

impl JobFailure {
    /// A failure that is retried while attempts remain.
    #[must_use]
    pub fn retryable(message: impl Into<String>) -> Self {
        JobFailure {
            message: message.into(),
            permanent: false,
        }
    }

    /// A failure that fails the job at once.
    #[must_use]
    pub fn permanent(message: impl Into<String>) -> Self {
        JobFailure {
            message: message.into(),
            permanent: true,
        }
    }
}

/// How an attempt ended, for [`Queue::finish`](super::Queue::finish).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The handler returned; its result, if any, is checked and stored.
    Succeeded(Option<Value>),
    /// The handler failed.
    Failed(JobFailure),
    /// The handler stopped because cancellation was asked for.
    Cancelled,
    /// The worker gives the job back without counting the attempt (shutdown); a job
    /// whose cancellation was asked for ends cancelled instead.
    Released,
    /// The handler could not do its work now, and nothing says it failed: the job
    /// goes back to the queue, the attempt not counted ([`Deferral`]).
    Deferred(Deferral),
}

/// Why an attempt was deferred rather than failed ([`Outcome::Deferred`]). None of
/// them counts against the job's attempts; a job whose cancellation was asked for
/// ends cancelled instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Deferral {
    /// The service could not be reached (no network, no route, the connection
    /// refused). The job waits for the network: its kind starts no job until a probe
    /// (one job of the kind, every `offline_retry`, or at once when the network comes
    /// back, [`Queue::network_back`](super::Queue::network_back)) gets through.
    Offline {
        /// What the handler saw. Redacted and cut like an error.
        message: String,
    },
    /// Run again after `after`, not a failure (a snooze: a `Retry-After` for this
    /// job alone). Clamped from [`MIN_DEFERRAL`] to [`MAX_DEFERRAL`].
    Later {
        /// How long to wait.
        after: Duration,
        /// Why, as the inspector shows it.
        reason: String,
    },
    /// Every job of the kind waits `after` (the service throttles all of them), in
    /// every process on the file; this one runs again then. Clamped to
    /// from [`MIN_DEFERRAL`] to [`MAX_DEFERRAL`].
    Kind {
        /// How long the kind waits.
        after: Duration,
        /// Why, as the inspector shows it ("HTTP 429").
        reason: String,
    },
    /// A durable sleep of the handler's ([`JobContext::sleep`](crate::runner::JobContext::sleep)):
    /// the job runs again at `until`, not before, and its next attempt goes on after
    /// the sleep. Not clamped: the app asked for it, not a server.
    Sleep {
        /// When it ends.
        until: Timestamp,
        /// The step that sleeps.
        step: String,
    },
    /// The handler waits for a signal
    /// ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)):
    /// the job runs again when signal `name` is sent to it, or at `until`, the wait's
    /// deadline, whichever comes first.
    Signal {
        /// The signal.
        name: String,
        /// The deadline.
        until: Timestamp,
    },
}

/// The longest a handler may defer a job or its kind ([`Deferral::Later`],
/// [`Deferral::Kind`]): a day, as a sync target's `max_throttle`. A hostile
/// `Retry-After` cannot park a job for years.
pub const MAX_DEFERRAL: Duration = Duration::from_secs(24 * 3600);

/// The shortest a handler may defer a job or its kind: a second. A `Retry-After: 0`
/// (or a handler that always asks for no wait) would otherwise run the job again at
/// once, for ever, without spending an attempt.
pub const MIN_DEFERRAL: Duration = Duration::from_secs(1);

/// A deferral's wait as the queue applies it: from [`MIN_DEFERRAL`] to
/// [`MAX_DEFERRAL`].
pub(crate) fn clamp_deferral(after: Duration) -> Duration {
    after.clamp(MIN_DEFERRAL, MAX_DEFERRAL)
}

/// How often a kind waiting for the network tries one job, by default (the sync
/// engine's `offline_retry`): the attempt is the probe.
pub const DEFAULT_OFFLINE_RETRY: Duration = Duration::from_secs(15);

/// Where a job went after [`Queue::finish`](super::Queue::finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finished {
    /// Succeeded.
    Succeeded,
    /// Failed for good.
    Failed,
    /// Failed this attempt; queued again for `at`.
    Retrying {
        /// When it runs again.
        at: Timestamp,
    },
    /// Cancelled.
    Cancelled,
    /// Queued again, attempt not counted.
    Released,
    /// Deferred ([`Outcome::Deferred`]): queued again, the attempt not counted; it
    /// runs again at `at` at the earliest (an offline job: when its kind's probe
    /// gets through).
    Deferred {
        /// When it may run again.
        at: Timestamp,
    },
}
