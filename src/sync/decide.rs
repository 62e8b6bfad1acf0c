//! The engine's decisions as pure functions of the stored state, the policy and the
//! time: whether a run may start ([`skip_reason`]), and what a run's result does to the
//! state ([`apply`]: validators kept, backoff, offline retry, server throttles).

use super::{
    SkipReason, StartedBy, SyncError, SyncOutcome, SyncPolicy, SyncResult, SyncState,
    ThrottleReason, Trigger,
};
use crate::clock::Timestamp;
use crate::model::sanitize_error;

/// Which entry point asks for a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// [`run_due`](super::SyncEngine::run_due): only when due.
    Due,
    /// [`sync_if_due`](super::SyncEngine::sync_if_due), from an automatic trigger.
    IfDue(Trigger),
    /// [`sync_now`](super::SyncEngine::sync_now): the user asked.
    Now,
}

impl Mode {
    /// What a run this mode starts says started it.
    pub(super) fn started_by(self) -> StartedBy {
        match self {
            Mode::Due => StartedBy::Schedule,
            Mode::Now => StartedBy::Refresh,
            Mode::IfDue(Trigger::Focus) => StartedBy::Focus,
            Mode::IfDue(Trigger::NetworkBack) => StartedBy::NetworkBack,
            Mode::IfDue(Trigger::Wake) => StartedBy::Wake,
        }
    }
}

/// Why `mode` should not start a run now, if it should not.
pub(super) fn skip_reason(
    state: &SyncState,
    policy: &SyncPolicy,
    mode: Mode,
    now: Timestamp,
) -> Option<SkipReason> {
    if let Some(until) = state.throttled_until.filter(|until| *until > now) {
        // A server's polling interval shapes automatic runs; a person who pressed
        // Refresh gets a run through it. A consumed quota would only earn another
        // refusal: Refresh is told at once until when.
        let refresh_through =
            mode == Mode::Now && state.throttle_reason == Some(ThrottleReason::ServerInterval);
        if !refresh_through {
            return Some(SkipReason::Throttled { until });
        }
    }
    match mode {
        Mode::Now => None,
        Mode::Due => state
            .next_due
            .filter(|at| *at > now)
            .map(|until| SkipReason::NotDue { until }),
        Mode::IfDue(trigger) => {
            if trigger == Trigger::NetworkBack && state.offline {
                return None;
            }
            if state.consecutive_failures > 0 && !state.offline {
                if let Some(until) = state.next_due.filter(|at| *at > now) {
                    return Some(SkipReason::BackingOff { until });
                }
            }
            let until = state.last_attempt?.saturating_add(policy.min_interval);
            (until > now).then_some(SkipReason::MinInterval { until })
        }
    }
}

/// Folds a run's result into the state and says how it went.
pub(super) fn apply(
    state: &mut SyncState,
    policy: &SyncPolicy,
    result: std::result::Result<SyncResult, SyncError>,
    attempt_at: Timestamp,
    now: Timestamp,
    random: f64,
) -> SyncOutcome {
    state.last_attempt = Some(attempt_at);
    state.runs = state.runs.saturating_add(1);
    let mut throttle = None;
    let outcome = match result {
        Ok(SyncResult::NotModified) => SyncOutcome::NotModified,
        Ok(SyncResult::Updated(report)) => {
            // Validators survive: a response without them keeps the stored ones.
            if report.etag.is_some() {
                state.etag = report.etag;
            }
            if report.last_modified.is_some() {
                state.last_modified = report.last_modified;
            }
            if report.cursor.is_some() {
                state.cursor = report.cursor;
            }
            state.last_changed = report.changed;
            throttle = report.throttle;
            SyncOutcome::Updated {
                changed: report.changed,
            }
        }
        Ok(SyncResult::Throttled(requested)) => {
            throttle = Some(requested);
            SyncOutcome::Throttled { until: now }
        }
        Err(error) => {
            let message = sanitize_error(&error.message);
            state.consecutive_failures = state.consecutive_failures.saturating_add(1);
            state.offline = error.offline;
            state.last_error = Some(message.clone());
            let delay = if error.offline {
                policy.offline_retry
            } else {
                policy.delay_for(state.consecutive_failures, random)
            };
            let retry_at = now.saturating_add(delay);
            state.next_due = Some(retry_at);
            return SyncOutcome::Failed {
                offline: error.offline,
                error: message,
                retry_at,
            };
        }
    };
    // A success, or a throttle (the service answered: it is reachable and working).
    state.consecutive_failures = 0;
    state.offline = false;
    state.last_error = None;
    if !matches!(outcome, SyncOutcome::Throttled { .. }) {
        state.last_success = Some(now);
    }
    let mut next_due = now.saturating_add(policy.every);
    match throttle {
        Some(throttle) => {
            let until = now.saturating_add(policy.clamp_throttle(throttle.delay));
            state.throttled_until = Some(until);
            state.throttle_reason = Some(throttle.reason);
            next_due = next_due.max(until);
            if let SyncOutcome::Throttled { .. } = outcome {
                state.next_due = Some(next_due);
                return SyncOutcome::Throttled { until };
            }
        }
        None => {
            state.throttled_until = None;
            state.throttle_reason = None;
        }
    }
    state.next_due = Some(next_due);
    outcome
}
