//! A target's sync bookkeeping, and the health verdict drawn from it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::policy::SyncPolicy;
use super::source::ThrottleReason;
use crate::clock::Timestamp;
use crate::model::Health;

/// What the engine remembers about a target, stored as JSON under
/// `acct.<connector>.<account>.sync.<name>` in `raw.db`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", default)]
#[non_exhaustive]
pub struct SyncState {
    /// When the target was first registered.
    pub registered_at: Option<Timestamp>,
    /// When a run last started.
    pub last_attempt: Option<Timestamp>,
    /// When a run last succeeded (updated or not modified).
    pub last_success: Option<Timestamp>,
    /// The last failure's message, cleared by a success.
    pub last_error: Option<String>,
    /// Failures since the last success (offline ones included).
    pub consecutive_failures: u32,
    /// Whether the last run could not reach the service.
    pub offline: bool,
    /// When `run_due` runs it next.
    pub next_due: Option<Timestamp>,
    /// Until when the service asked to be left alone.
    pub throttled_until: Option<Timestamp>,
    /// Why it asked.
    pub throttle_reason: Option<ThrottleReason>,
    /// The stored ETag.
    pub etag: Option<String>,
    /// The stored Last-Modified.
    pub last_modified: Option<String>,
    /// The stored cursor.
    pub cursor: Option<String>,
    /// Items the last updating run changed.
    pub last_changed: u64,
    /// Runs that reached the source, in all.
    pub runs: u32,
}

impl SyncState {
    /// A target that never ran, registered at `at`: what a test of [`health_of`] starts
    /// from.
    #[must_use]
    pub fn registered(at: Timestamp) -> Self {
        SyncState {
            registered_at: Some(at),
            next_due: Some(at),
            ..SyncState::default()
        }
    }

    /// Sets when a run last started.
    #[must_use]
    pub fn last_attempt(mut self, at: Timestamp) -> Self {
        self.last_attempt = Some(at);
        self
    }

    /// Sets when a run last succeeded.
    #[must_use]
    pub fn last_success(mut self, at: Timestamp) -> Self {
        self.last_success = Some(at);
        self
    }

    /// Records `failures` failures in a row, the last with `error`; `offline` when the
    /// service could not be reached.
    #[must_use]
    pub fn failing(mut self, failures: u32, error: impl Into<String>, offline: bool) -> Self {
        self.consecutive_failures = failures;
        self.last_error = Some(error.into());
        self.offline = offline;
        self
    }

    /// Records a server's request to wait until `until`.
    #[must_use]
    pub fn throttled(mut self, until: Timestamp, reason: ThrottleReason) -> Self {
        self.throttled_until = Some(until);
        self.throttle_reason = Some(reason);
        self
    }
}

/// How many failures in a row (not offline) make a target an error, not a warning.
pub const FAILURES_FOR_ERROR: u32 = 3;

/// `at` as an RFC 3339 time to the second, UTC (`2026-12-06T14:05:00Z`).
fn wall(at: Timestamp) -> String {
    crate::model::time::rfc3339_seconds(at).unwrap_or_else(|| format!("{} ms", at.as_millis()))
}

/// The health of a target: a pure function of its bookkeeping, its policy and `now`.
///
/// A target that quietly stopped running (no attempt for twice its interval plus a
/// minute) is a warning, never healthy: silence is not success.
#[must_use]
pub fn health_of(state: &SyncState, policy: &SyncPolicy, now: Timestamp) -> Health {
    let error = state.last_error.as_deref().unwrap_or("unknown error");
    if state.consecutive_failures >= FAILURES_FOR_ERROR && !state.offline {
        return Health::error(format!(
            "{} failures in a row: {error}",
            state.consecutive_failures
        ));
    }
    if state.offline {
        return Health::warning(format!("offline: {error}"));
    }
    if let Some(until) = state.throttled_until.filter(|until| *until > now) {
        let why = match state.throttle_reason {
            Some(ThrottleReason::Quota) => "quota used up",
            _ => "the server asked to wait",
        };
        // An absolute time, not "for N s more": the reason stays the same while the
        // throttle lasts, so the health is published once, not at every check.
        return Health::warning(format!("throttled ({why}) until {}", wall(until)));
    }
    if state.consecutive_failures > 0 {
        return Health::warning(format!(
            "retrying after {} failure(s): {error}",
            state.consecutive_failures
        ));
    }
    let silent_after = policy.every * 2 + Duration::from_secs(60);
    if let Some(since) = state.last_attempt.or(state.registered_at) {
        let quiet = now.duration_since(since);
        if quiet > silent_after {
            return Health::warning(format!(
                "no sync since {} though it should run every {}s",
                wall(since),
                policy.every.as_secs()
            ));
        }
    }
    Health::healthy()
}
