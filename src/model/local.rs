//! Process-local jobs as the webview and the bus see them: their id, status and
//! record. The jobs themselves run in [`crate::local`].

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Timestamp;

/// A process-local job's id. Crosses IPC as a string such as `"local-7"`, so it can
/// never be mistaken for a durable job's numeric id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[cfg_attr(feature = "specta", specta(type = String))]
pub struct LocalJobId(pub(crate) u64);

impl fmt::Display for LocalJobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "local-{}", self.0)
    }
}

impl Serialize for LocalJobId {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Where a process-local job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LocalJobStatus {
    /// Running.
    Running,
    /// Returned well.
    Succeeded,
    /// Returned an error or panicked.
    Failed,
    /// Stopped after cancellation was asked for.
    Cancelled,
}

/// A process-local job's record: kind-agnostic and safe to send to the webview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LocalJob {
    /// Unique in this process, counting up from `local-1`.
    pub id: LocalJobId,
    /// What the app called the work when it spawned it.
    pub kind: String,
    /// Running, or how it ended.
    pub status: LocalJobStatus,
    /// Steps done, as last reported.
    pub done: u64,
    /// Steps in all, when known.
    pub total: Option<u64>,
    /// Whether cancellation was asked for.
    pub cancel_requested: bool,
    /// Why it failed (redacted), when it did.
    pub error: Option<String>,
    /// When it started.
    pub started_at: Timestamp,
    /// When it ended.
    pub finished_at: Option<Timestamp>,
    /// What it returned, once it succeeded: for jobs whose value is JSON (the kinds
    /// the webview starts by name) and at most [`MAX_LOCAL_RESULT_BYTES`] of it, 64
    /// levels deep at most. A larger one still reaches whoever awaits the job.
    pub result: Option<serde_json::Value>,
}

/// The largest result a [`LocalJob`] record keeps: the durable results' default cap.
pub const MAX_LOCAL_RESULT_BYTES: usize = 1024 * 1024;

/// What the caller that started a local job hears of it, and nobody else: its
/// progress (throttled like the bus events) and its end, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum LocalRunEvent {
    /// How far it is.
    #[serde(rename_all = "camelCase")]
    Progress {
        /// Steps done.
        done: u64,
        /// Steps in all, when known.
        total: Option<u64>,
        /// Whole percent, when the total is known.
        percent: Option<u8>,
    },
    /// It ended; the last message.
    #[serde(rename_all = "camelCase")]
    Finished {
        /// How.
        status: LocalJobStatus,
        /// What it returned, when it succeeded (whatever its size).
        result: Option<serde_json::Value>,
        /// Why it failed (redacted), when it did.
        error: Option<String>,
    },
}
