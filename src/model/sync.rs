//! How a sync run ended, or why it did not happen, as every caller waiting on it and
//! every listener of the bus sees it.

use serde::{Deserialize, Serialize};

use super::Timestamp;

/// Why a run did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "reason", rename_all = "camelCase")]
#[non_exhaustive]
pub enum SkipReason {
    /// Not due before this time.
    NotDue {
        /// When it is due.
        until: Timestamp,
    },
    /// An automatic trigger came within `min_interval` of the last run.
    MinInterval {
        /// When triggers may start a run again.
        until: Timestamp,
    },
    /// Backing off after failures.
    BackingOff {
        /// When the next attempt is due.
        until: Timestamp,
    },
    /// The server asked to wait.
    Throttled {
        /// Until when.
        until: Timestamp,
    },
}

/// What started a sync run, as its `syncFinished` event says: a page can say "synced
/// when you came back" (`wake`) or "refreshed" (`refresh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum StartedBy {
    /// The policy's own cadence (the engine's loop, `run_due`).
    Schedule,
    /// The user pressed Refresh (`sync_now`).
    Refresh,
    /// A window gained focus.
    Focus,
    /// The network came back.
    NetworkBack,
    /// The machine woke from sleep.
    Wake,
}

/// How a run ended, as every caller waiting on it sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "outcome", rename_all = "camelCase")]
#[non_exhaustive]
pub enum SyncOutcome {
    /// Data was fetched.
    Updated {
        /// Items changed.
        changed: u64,
    },
    /// Nothing changed.
    NotModified,
    /// The server asked to wait; the next run is deferred.
    Throttled {
        /// Until when.
        until: Timestamp,
    },
    /// The run failed.
    #[serde(rename_all = "camelCase")]
    Failed {
        /// Whether the service could not be reached.
        offline: bool,
        /// What happened (redacted).
        error: String,
        /// When the engine tries again.
        retry_at: Timestamp,
    },
    /// No run happened.
    Skipped(SkipReason),
    /// The run was cancelled (its account was disconnected).
    Cancelled,
}
