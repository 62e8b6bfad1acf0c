//! Long work in steps, as stored and shown: a [`JobStep`] a handler finished (or a
//! durable sleep it began), and how a job a waiting one waited for ended
//! ([`Input`]).

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
