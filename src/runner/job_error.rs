//! [`JobError`]: how a handler says why an attempt did not succeed (retry, fail, wait
//! for the network, wait for the service), what `?` makes of any other error, and the
//! words an error is kept in (its whole [`error_chain`], not only its outer message).

use std::fmt;
use std::time::Duration;

use super::steps::StepError;
use crate::clock::Timestamp;
use crate::queue::{Deferral, JobFailure, Outcome};

/// Why an attempt did not succeed. A handler returns it; anything that converts into
/// a `Box<dyn Error>` converts into one with `?`: [`JobError::Offline`] when the error
/// (or one it wraps) is an I/O error that says the network or the host cannot be
/// reached ([`is_unreachable`]), else [`JobError::Retryable`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JobError {
    /// Try again after the backoff, while attempts remain.
    Retryable(String),
    /// Fail the job now: retrying cannot help (bad input, a refused request).
    Permanent(String),
    /// The service could not be reached: not a failure. The attempt is not counted;
    /// the job waits for the network, and its kind tries one job every
    /// `offline_retry` (15 s) or at once when the network comes back.
    Offline(String),
    /// Run this job again after `after` (clamped from a second to a day), not a failure: a
    /// `Retry-After` for this job alone. The attempt is not counted.
    RetryAfter {
        /// How long to wait.
        after: Duration,
        /// Why, as the logs say.
        reason: String,
    },
    /// The service throttles the whole kind: no job of it starts for `after` (clamped
    /// from a second to a day), in any process on the file, this one included. The
    /// attempt is not counted.
    ThrottleKind {
        /// How long the kind waits.
        after: Duration,
        /// Why, as the inspector says ("HTTP 429").
        reason: String,
    },
    /// A durable sleep began, or goes on: the job runs again at `until`, the attempt
    /// not counted, and its next attempt goes on past the sleep. What
    /// [`JobContext::sleep`](crate::runner::JobContext::sleep) returns for the handler
    /// to pass on with `?`.
    Sleeping {
        /// When it ends.
        until: Timestamp,
        /// The step that sleeps.
        step: String,
    },
    /// The handler waits for signal `name`: the job runs again when it is sent, or at
    /// `until`, the wait's deadline. What
    /// [`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)
    /// returns for the handler to pass on with `?`; the attempt is not counted.
    AwaitingSignal {
        /// The signal.
        name: String,
        /// The deadline.
        until: Timestamp,
    },
    /// A step could not be run or recorded: its name was used twice in one attempt,
    /// its output is too large or unreadable, or the attempt lost its lease.
    Step(StepError),
}

impl JobError {
    /// A failure worth retrying.
    #[must_use]
    pub fn retryable(message: impl fmt::Display) -> Self {
        JobError::Retryable(message.to_string())
    }

    /// A failure that fails the job at once.
    #[must_use]
    pub fn permanent(message: impl fmt::Display) -> Self {
        JobError::Permanent(message.to_string())
    }

    /// The service could not be reached: the job waits for the network, the attempt
    /// not counted ([`JobError::Offline`]).
    #[must_use]
    pub fn offline(message: impl fmt::Display) -> Self {
        JobError::Offline(message.to_string())
    }

    /// Run this job again after `after`, the attempt not counted
    /// ([`JobError::RetryAfter`]). With a `Retry-After` header:
    /// `retry_after(value, ctx.now())` ([`retry_after`](crate::runner::retry_after))
    /// reads both of its forms.
    #[must_use]
    pub fn retry_after(after: Duration, reason: impl fmt::Display) -> Self {
        JobError::RetryAfter {
            after,
            reason: reason.to_string(),
        }
    }

    /// No job of this kind starts for `after`, this one included
    /// ([`JobError::ThrottleKind`]).
    #[must_use]
    pub fn throttle_kind(after: Duration, reason: impl fmt::Display) -> Self {
        JobError::ThrottleKind {
            after,
            reason: reason.to_string(),
        }
    }
}

impl JobError {
    /// How the attempt ends, as the queue takes it.
    pub(super) fn into_outcome(self) -> Outcome {
        match self {
            JobError::Retryable(message) => Outcome::Failed(JobFailure::retryable(message)),
            JobError::Permanent(message) => Outcome::Failed(JobFailure::permanent(message)),
            JobError::Offline(message) => Outcome::Deferred(Deferral::Offline { message }),
            JobError::RetryAfter { after, reason } => {
                Outcome::Deferred(Deferral::Later { after, reason })
            }
            JobError::ThrottleKind { after, reason } => {
                Outcome::Deferred(Deferral::Kind { after, reason })
            }
            JobError::Sleeping { until, step } => {
                Outcome::Deferred(Deferral::Sleep { until, step })
            }
            JobError::AwaitingSignal { name, until } => {
                Outcome::Deferred(Deferral::Signal { name, until })
            }
            JobError::Step(error) if error.is_permanent() => {
                Outcome::Failed(JobFailure::permanent(error.to_string()))
            }
            JobError::Step(error) => Outcome::Failed(JobFailure::retryable(error.to_string())),
        }
    }
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobError::Retryable(message) => f.write_str(message),
            JobError::Permanent(message) => write!(f, "permanent: {message}"),
            JobError::Offline(message) => write!(f, "offline: {message}"),
            JobError::RetryAfter { after, reason } => {
                write!(f, "retry after {after:?}: {reason}")
            }
            JobError::ThrottleKind { after, reason } => {
                write!(f, "the kind waits {after:?}: {reason}")
            }
            JobError::Sleeping { until, step } => {
                write!(f, "step {step:?} sleeps until {until}")
            }
            JobError::AwaitingSignal { name, until } => {
                write!(f, "waiting for signal {name:?} until {until}")
            }
            JobError::Step(error) => fmt::Display::fmt(error, f),
        }
    }
}

/// What `?` makes of an error: [`JobError::Offline`] when it (or one it wraps) says
/// the network or the host cannot be reached, else [`JobError::Retryable`]; either
/// keeps the whole [`error_chain`] ("error sending request for url (…): client error
/// (Connect): tcp connect error: Connection refused"), so the cause is what a log, the
/// inspector and `whyWaiting` show.
impl<E: Into<Box<dyn std::error::Error + Send + Sync>>> From<E> for JobError {
    fn from(error: E) -> Self {
        let error = error.into();
        let said = error_chain(&*error);
        if is_unreachable(&*error) {
            JobError::Offline(said)
        } else {
            JobError::Retryable(said)
        }
    }
}

/// `error`'s message and those of the errors it wraps (its `source()` chain), joined
/// by ": ", each left out when the one before already says it. An HTTP client's outer
/// message ("error sending request for url") rarely says why; its cause does
/// ("Connection refused"). For `JobError::offline(error_chain(&error))` where a
/// handler maps its client's own test.
///
/// ```
/// use tauri_plugin_jobs::runner::error_chain;
///
/// #[derive(Debug)]
/// struct Send(std::io::Error);
/// impl std::fmt::Display for Send {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("error sending request")
///     }
/// }
/// impl std::error::Error for Send {
///     fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
///         Some(&self.0)
///     }
/// }
/// let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
/// assert_eq!(error_chain(&Send(refused)), "error sending request: connection refused");
/// ```
#[must_use]
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut said = error.to_string();
    let mut next = error.source();
    // Bounded: a chain that loops back on itself must not hang a handler's end.
    for _ in 0..16 {
        let Some(error) = next else { break };
        let text = error.to_string();
        if !text.is_empty() && !said.contains(&text) {
            said.push_str(": ");
            said.push_str(&text);
        }
        next = error.source();
    }
    said
}

/// Whether `error`, or an error it wraps (its `source()` chain), is an I/O error
/// that says the network or the host cannot be reached: the connection refused, the
/// network or the host unreachable, the network down, no local address. What `?`
/// turns into [`JobError::Offline`]. A failed DNS lookup has no kind of its own in
/// `std` (the system's resolver says it in words), so it is not told apart here: a
/// handler maps its client's own test (`reqwest::Error::is_connect`) to
/// [`JobError::offline`].
#[must_use]
pub fn is_unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind;
    let mut next = Some(error);
    // Bounded: a chain that loops back on itself must not hang a handler's end.
    for _ in 0..32 {
        let Some(error) = next else { break };
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::NetworkUnreachable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkDown
                    | ErrorKind::AddrNotAvailable
            ) {
                return true;
            }
        }
        next = error.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An HTTP client's error as reqwest's is: an outer message that says little, the
    /// cause in its `source()`.
    #[derive(Debug)]
    struct Request(std::io::Error);

    impl fmt::Display for Request {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("error sending request for url (http://127.0.0.1:9/notes/1)")
        }
    }

    impl std::error::Error for Request {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn question_mark(error: Request) -> Result<(), JobError> {
        Err(error)?
    }

    #[test]
    fn what_question_mark_keeps_is_the_cause_too() {
        let refused =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        let error = question_mark(Request(refused)).unwrap_err();
        assert_eq!(
            error,
            JobError::Offline(
                "error sending request for url (http://127.0.0.1:9/notes/1): Connection refused"
                    .into()
            )
        );
        let other = std::io::Error::other("HTTP/1.1 parse error");
        let error = question_mark(Request(other)).unwrap_err();
        assert!(
            matches!(&error, JobError::Retryable(said) if said.ends_with(": HTTP/1.1 parse error")),
            "{error:?}"
        );
    }

    #[test]
    fn a_cause_the_outer_message_already_says_is_not_said_twice() {
        #[derive(Debug)]
        struct Says(std::io::Error);
        impl fmt::Display for Says {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "connect failed: {}", self.0)
            }
        }
        impl std::error::Error for Says {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = Says(std::io::Error::other("timed out"));
        assert_eq!(error_chain(&error), "connect failed: timed out");
    }
}
