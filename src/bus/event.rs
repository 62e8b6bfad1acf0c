//! The events the bus carries.
//!
//! Events are frozen: built once, then only read. The bus hands them around as
//! `Arc<Event>`, so a clone is a reference-count bump however many listeners there are.

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::queue::{JobId, JobStatus};

/// Everything published on the [`EventBus`](super::EventBus).
///
/// Serialised with a `type` tag, so the webview can switch on `event.type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Event {
    /// A durable job moved from one state to another.
    JobStateChanged(JobStateChanged),
}

impl Event {
    /// A short, stable name for logs and filters, such as `"jobStateChanged"`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Event::JobStateChanged(_) => "jobStateChanged",
        }
    }
}

/// A durable job changed state. Published after the change is committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct JobStateChanged {
    /// The job.
    pub id: JobId,
    /// Its kind.
    pub kind: String,
    /// The state before; `None` when the job was just enqueued.
    pub from: Option<JobStatus>,
    /// The state after.
    pub to: JobStatus,
    /// Attempts started so far, this one included.
    pub attempt: u32,
    /// When the change happened.
    pub at: Timestamp,
}

impl From<JobStateChanged> for Event {
    fn from(event: JobStateChanged) -> Self {
        Event::JobStateChanged(event)
    }
}
