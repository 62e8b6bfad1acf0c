//! Long work in steps, as stored and shown: a [`JobStep`] a handler finished (or a
//! durable sleep it began), how a job a waiting one waited for ended ([`Input`]), why
//! a job refused a signal ([`SignalRefusal`]) and a line a handler logged
//! ([`JobLogLine`]).

use serde::{Deserialize, Serialize};

use super::{JobId, JobStatus, Timestamp};

/// A step a durable job's handler finished
/// ([`JobContext::step`](crate::runner::JobContext::step)), or a durable sleep it began
/// ([`JobContext::sleep`](crate::runner::JobContext::sleep)): what the inspector and
/// `getJob` show. What a step returned is not here: it stays in `raw.db` for the
/// job's next attempts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct JobStep {
    /// Its name, unique within the job.
    pub name: String,
    /// The attempt that finished it, from 1.
    pub attempt: u32,
    /// When its body started (a sleep: when it began).
    pub started_at: Timestamp,
    /// When it was recorded.
    pub finished_at: Timestamp,
    /// A durable sleep: when it ends.
    pub sleep_until: Option<Timestamp>,
}

/// How one job a waiting job waited for stands, with its result
/// ([`JobContext::inputs`](crate::runner::JobContext::inputs)): `T` is the result's
/// type, as its handler returned it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "status")]
#[non_exhaustive]
pub enum Input<T> {
    /// It succeeded and returned `result`.
    Succeeded {
        /// The job.
        id: JobId,
        /// What its handler returned.
        result: T,
    },
    /// It failed for good (a job that waited with
    /// [`DependencyFailure::Run`](crate::queue::DependencyFailure::Run) runs anyway),
    /// with its last error.
    Failed {
        /// The job.
        id: JobId,
        /// What its last attempt said.
        error: Option<String>,
    },
    /// It was cancelled.
    Cancelled {
        /// The job.
        id: JobId,
    },
    /// It has not ended (a job read by id before it did).
    Pending {
        /// The job.
        id: JobId,
        /// Where it is: queued or running.
        state: JobStatus,
    },
    /// No such job: never there, or deleted since (by retention or an operator).
    Missing {
        /// The job.
        id: JobId,
    },
}

impl<T> Input<T> {
    /// The job it is about.
    #[must_use]
    pub fn id(&self) -> JobId {
        match self {
            Input::Succeeded { id, .. }
            | Input::Failed { id, .. }
            | Input::Cancelled { id }
            | Input::Pending { id, .. }
            | Input::Missing { id } => *id,
        }
    }

    /// Its result, when it succeeded.
    #[must_use]
    pub fn ok(self) -> Option<T> {
        match self {
            Input::Succeeded { result, .. } => Some(result),
            _ => None,
        }
    }
}

/// Why a job refused a signal
/// ([`Error::SignalRefused`](crate::Error::SignalRefused)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignalRefusal {
    /// The job has ended (succeeded, failed or cancelled).
    Ended(JobStatus),
    /// Its kind's handler does not wait for a signal of that name
    /// ([`Handler::signal`](crate::runner::Handler::signal) declares the names), and the
    /// job is not waiting for it now.
    NotAwaited,
    /// The job's wait for it timed out: too late.
    WaitOver,
}

impl std::fmt::Display for SignalRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignalRefusal::Ended(status) => write!(f, "the job has ended ({status})"),
            SignalRefusal::NotAwaited => {
                f.write_str("its handler waits for no signal of that name")
            }
            SignalRefusal::WaitOver => f.write_str("its wait for it timed out"),
        }
    }
}

/// A line a durable job's handler logged
/// ([`JobContext::log`](crate::runner::JobContext::log)), as stored: redacted and cut
/// like an error, the last few of each job kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct JobLogLine {
    /// Its number in the job's log, from 1, in the order logged.
    pub seq: u64,
    /// When it was logged.
    pub at: Timestamp,
    /// The attempt that logged it.
    pub attempt: u32,
    /// `error`, `warn`, `info` or `debug`.
    pub level: String,
    /// What it said.
    pub text: String,
}
