//! External agents over IPC (their own permission set, never in the default one):
//! enqueue, claim, heartbeat, complete, fail, defer. Their leases belong to `agent:<name>`
//! and carry the secret handed out with the claim; a job outside the window's scope
//! is a lost lease, checked in the transaction that writes.

use std::time::Duration;

use serde_json::Value;
use tauri::State;

use super::durable::enqueue_as;
use super::{
    blocking, invalid, CommandResult, MAX_AGENT_CLAIM, MAX_AGENT_KINDS, MAX_AGENT_NAME_BYTES,
};
use crate::model::JobProgressValue;
use crate::plugin::models::{AgentClaimArgs, AgentDeferral, AgentFinished, EnqueueArgs};
use crate::plugin::scope::{ReadableKinds, Scope};
use crate::plugin::Jobs;
use crate::queue::{
    Actor, ClaimRequest, ClaimedJob, Deferral, Enqueued, Heartbeat, JobFailure, Lease, Outcome,
    MAX_DEFERRAL, MAX_LEASE,
};

const AGENT_PREFIX: &str = "agent:";

/// Refuses a lease that is not an agent's: a webview can never write for a job the
/// app's runner holds.
fn agents_own(lease: &Lease) -> CommandResult<()> {
    if lease.worker.starts_with(AGENT_PREFIX) {
        Ok(())
    } else {
        Err(invalid("lease", "is not an agent's lease"))
    }
}

/// Enqueues a durable job on behalf of an external agent: as `enqueue`, with the
/// actor `agent`.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_enqueue(
    jobs: State<'_, Jobs>,
    scope: Scope,
    reads: ReadableKinds,
    kind: String,
    payload: Value,
    options: Option<EnqueueArgs>,
) -> CommandResult<Enqueued> {
    enqueue_as(&jobs, &scope, reads, kind, payload, options, Actor::Agent).await
}

/// Claims jobs for an external agent through the same protocol as the app's runner:
/// caps, fencing and at-least-once hold exactly as for internal workers.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_claim(
    jobs: State<'_, Jobs>,
    scope: Scope,
    request: AgentClaimArgs,
) -> CommandResult<Vec<ClaimedJob>> {
    let name_bytes = request.agent.len();
    if name_bytes == 0 || name_bytes > MAX_AGENT_NAME_BYTES {
        return Err(invalid(
            "request.agent",
            format!("{name_bytes} bytes; an agent's name is 1 to {MAX_AGENT_NAME_BYTES}"),
        ));
    }
    if request.kinds.len() > MAX_AGENT_KINDS {
        return Err(invalid(
            "request.kinds",
            format!(
                "{} kinds, more than the {MAX_AGENT_KINDS} one claim may name",
                request.kinds.len()
            ),
        ));
    }
    for kind in &request.kinds {
        scope.kind(kind)?;
    }
    let limits = request.limits.unwrap_or_default();
    if limits.len() > MAX_AGENT_KINDS {
        return Err(invalid(
            "request.limits",
            format!(
                "{} caps, more than the {MAX_AGENT_KINDS} one claim may set",
                limits.len()
            ),
        ));
    }
    let lease_ms = request.lease_ms.unwrap_or(30_000);
    if lease_ms == 0 || u128::from(lease_ms) > MAX_LEASE.as_millis() {
        return Err(invalid(
            "request.leaseMs",
            format!("{lease_ms} is not from 1 to {}", MAX_LEASE.as_millis()),
        ));
    }
    let max_jobs = request.max_jobs.unwrap_or(1);
    if !(1..=MAX_AGENT_CLAIM).contains(&max_jobs) {
        return Err(invalid(
            "request.maxJobs",
            format!("{max_jobs} is not from 1 to {MAX_AGENT_CLAIM}"),
        ));
    }
    let mut claim = ClaimRequest::new(format!("{AGENT_PREFIX}{}", request.agent), request.kinds)
        .lease(Duration::from_millis(lease_ms))
        .max_jobs(max_jobs);
    claim.limits = limits;
    let queue = jobs.queue.clone();
    blocking(move || {
        let mut claimed = queue.claim(&claim)?;
        // What the agent reads of its jobs names no job of a kind outside its scope.
        for one in &mut claimed {
            queue.as_seen_by(std::slice::from_mut(&mut one.job), scope.kinds());
        }
        Ok(claimed)
    })
    .await
}

/// Renews an agent's lease; with `progress`, stores and publishes how far it is.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_heartbeat(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    progress: Option<JobProgressValue>,
) -> CommandResult<Heartbeat> {
    agents_own(&lease)?;
    let queue = jobs.queue.clone();
    let progress = progress.map(|progress| (progress.done, progress.total));
    blocking(move || queue.heartbeat_within(&lease, scope.kinds(), progress)).await
}

/// Records an agent's success; the result is checked against the kind's schema.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_complete(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    result: Value,
) -> CommandResult<AgentFinished> {
    agents_own(&lease)?;
    let result = (!result.is_null()).then_some(result);
    finish(&jobs, scope, lease, Outcome::Succeeded(result)).await
}

/// Records an agent's failed attempt.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_fail(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    error: String,
    permanent: bool,
) -> CommandResult<AgentFinished> {
    agents_own(&lease)?;
    let failure = if permanent {
        JobFailure::permanent(error)
    } else {
        JobFailure::retryable(error)
    };
    finish(&jobs, scope, lease, Outcome::Failed(failure)).await
}

/// Defers an agent's attempt without failing it: offline (the kind waits for the
/// network), a snooze of this job, or a throttle of its whole kind. The attempt is
/// not counted; waits are clamped from a second to a day.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn agent_defer(
    jobs: State<'_, Jobs>,
    scope: Scope,
    lease: Lease,
    deferral: AgentDeferral,
) -> CommandResult<AgentFinished> {
    agents_own(&lease)?;
    // A wait past the clamp is not refused (a service may ask for a week): the queue
    // clamps it to a day; only what is not a duration is.
    let wait = |ms: f64| {
        if ms.is_finite() && ms > MAX_DEFERRAL.as_millis() as f64 {
            Ok(MAX_DEFERRAL)
        } else {
            super::millis("deferral.afterMs", ms, MAX_DEFERRAL)
        }
    };
    let deferral = match deferral {
        AgentDeferral::Offline { message } => Deferral::Offline { message },
        AgentDeferral::RetryAfter { after_ms, reason } => Deferral::Later {
            after: wait(after_ms)?,
            reason,
        },
        AgentDeferral::ThrottleKind { after_ms, reason } => Deferral::Kind {
            after: wait(after_ms)?,
            reason,
        },
    };
    finish(&jobs, scope, lease, Outcome::Deferred(deferral)).await
}

/// Writes an agent's outcome for `lease`, its kind checked against the window's scope
/// in the transaction that writes.
async fn finish(
    jobs: &Jobs,
    scope: Scope,
    lease: Lease,
    outcome: Outcome,
) -> CommandResult<AgentFinished> {
    let queue = jobs.queue.clone();
    blocking(move || queue.finish_within(&lease, outcome, scope.kinds()))
        .await
        .map(AgentFinished::from)
}
