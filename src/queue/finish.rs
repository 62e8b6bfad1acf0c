//! While a job runs and when it ends: the lease that fences every write, heartbeats,
//! and the outcomes (success with a result checked against its schema, failure with a
//! backoff, a deferral, cancellation, release at shutdown). The lease itself is in
//! `lease`.

use std::collections::HashMap;
use std::time::Duration;

use rusqlite::Transaction;
use serde_json::Value;

use super::lease::{check_lease_length, fence_of, lost, Heartbeat, Lease};
use super::outcome::{
    clamp_deferral, Deferral, Finished, JobFailure, Outcome, DEFAULT_OFFLINE_RETRY,
};
use super::Queue;
use crate::bus::JobProgress;
use crate::clock::Timestamp;
use crate::db::{Changes, Db};
use crate::error::{Error, Result};
use crate::json::too_deep;
use crate::kinds::KindSpec;
use crate::model::{percent, sanitize_error, JobId, JobStatus, Patterns};
use crate::store::history;
use crate::store::jobs::{self, Attempt, Change, Exit, Fence, Ran};

// ===== impl Queue =====

impl Queue {
    /// Renews a lease for another lease length from now. Fails with
    /// [`Error::LostLease`] when the worker no longer holds it; then the worker must
    /// stop and write nothing.
    pub fn heartbeat(&self, lease: &Lease) -> Result<Heartbeat> {
        check_lease_length("lease.lengthMs", lease.length())?;
        let db = self.db();
        let now = db.now();
        let expires_at = now.saturating_add(lease.length());
        let renewed = db
            .store()
            .write(|tx| jobs::renew(tx, &fence_of(lease), expires_at, now))?;
        match renewed {
            Some(cancel_requested) => Ok(Heartbeat {
                expires_at,
                cancel_requested,
            }),
            None => Err(lost(lease)),
        }
    }

    /// An agent's heartbeat for a caller that may only touch the kinds `reach` allows
    /// (a scoped window): in one transaction the fence and the job's kind are checked,
    /// `progress` (done, total) is stored if given, and the lease is renewed. A job of
    /// another kind is a lost lease, exactly like one no longer held.
    pub(crate) fn heartbeat_within(
        &self,
        lease: &Lease,
        reach: &Patterns,
        progress: Option<(u64, Option<u64>)>,
    ) -> Result<Heartbeat> {
        check_lease_length("lease.lengthMs", lease.length())?;
        let db = self.db();
        let now = db.now();
        let expires_at = now.saturating_add(lease.length());
        let fence = fence_of(lease);
        let renewed = db.store().write(|tx| {
            let Some(attempt) = jobs::fenced(tx, &fence)?.filter(|a| reach.allows(&a.kind)) else {
                return Ok(None);
            };
            if let Some((done, total)) = progress {
                jobs::set_progress(tx, &fence, done, total)?;
            }
            Ok(jobs::renew(tx, &fence, expires_at, now)?.map(|cancel| (attempt.kind, cancel)))
        })?;
        let Some((kind, cancel_requested)) = renewed else {
            return Err(lost(lease));
        };
        if let Some((done, total)) = progress {
            db.bus().publish(JobProgress {
                id: lease.job_id,
                kind,
                attempt: lease.attempt,
                done,
                total,
                percent: total.map(|total| percent(done, total)),
                at: now,
            });
        }
        Ok(Heartbeat {
            expires_at,
            cancel_requested,
        })
    }

    /// [`finish`](Queue::finish) for a caller that may only touch the kinds `reach`
    /// allows: a job of another kind is a lost lease, checked in the transaction.
    pub(crate) fn finish_within(
        &self,
        lease: &Lease,
        outcome: Outcome,
        reach: &Patterns,
    ) -> Result<Finished> {
        let mut results = self
            .finish_and_claim_with::<crate::store::jobs::Start>(
                vec![(lease.clone(), outcome)],
                &[],
                None,
                Some(reach),
                &[],
            )?
            .0;
        results.remove(0)
    }

    /// Stores how far an attempt is and publishes it as a
    /// [`JobProgress`] event: for agents and workers of their
    /// own (the runner does it for handlers, throttled). Fenced like a heartbeat; the
    /// kind comes from the row.
    pub fn report_progress(&self, lease: &Lease, done: u64, total: Option<u64>) -> Result<()> {
        let db = self.db();
        let now = db.now();
        let fence = fence_of(lease);
        let kind = db.store().write(|tx| {
            let Some(attempt) = jobs::fenced(tx, &fence)? else {
                return Ok(None);
            };
            jobs::set_progress(tx, &fence, done, total)?;
            Ok(Some(attempt.kind))
        })?;
        let kind = kind.ok_or_else(|| lost(lease))?;
        db.bus().publish(JobProgress {
            id: lease.job_id,
            kind,
            attempt: lease.attempt,
            done,
            total,
            percent: total.map(|total| percent(done, total)),
            at: now,
        });
        Ok(())
    }

    /// Stores several attempts' progress in one transaction, publishing nothing (the
    /// runner publishes as handlers report). A lease no longer held is skipped.
    pub(crate) fn store_progress(&self, batch: &[(Lease, u64, Option<u64>)]) -> Result<()> {
        self.db().store().write(|tx| {
            for (lease, done, total) in batch {
                jobs::set_progress(tx, &fence_of(lease), *done, *total)?;
            }
            Ok(())
        })
    }

    /// Records a success. The result is checked against the kind's result schema
    /// first; one that does not fit fails the attempt (retried while attempts remain)
    /// and comes back as [`Error::InvalidResult`].
    pub fn complete(&self, lease: &Lease, result: Option<Value>) -> Result<Finished> {
        self.finish(lease, Outcome::Succeeded(result))
    }

    /// Records a failed attempt: retried after a backoff while attempts remain, failed
    /// for good otherwise or when the failure is permanent.
    pub fn fail(&self, lease: &Lease, failure: JobFailure) -> Result<Finished> {
        self.finish(lease, Outcome::Failed(failure))
    }

    /// Ends an attempt, fenced by the lease.
    pub fn finish(&self, lease: &Lease, outcome: Outcome) -> Result<Finished> {
        let mut results = self.finish_batch(vec![(lease.clone(), outcome)])?;
        results.remove(0)
    }

    /// Ends several attempts in one transaction. Each gets its own result (a lost
    /// lease or an invalid result fails only its own entry); the outer error is for
    /// the database itself.
    pub fn finish_batch(&self, batch: Vec<(Lease, Outcome)>) -> Result<Vec<Result<Finished>>> {
        Ok(self.finish_and_claim(batch, None)?.0)
    }
}

/// What the runner knows of an attempt it claimed itself, the row as the claim left
/// it: when the job became runnable and when the attempt started (a job's kind, in
/// its lease, never changes), and whether no job waited for it. With it, a success
/// is written with no read through the fence first (`succeeded_held`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Held {
    pub run_at: Timestamp,
    pub started_at: Timestamp,
    /// No job waited for it at the claim (one that comes to wait while it runs, or a
    /// follow-up queued meanwhile, sends its end down the whole path).
    pub alone: bool,
    /// It was its kind's probe for the network (`store::jobs::Hold`): a success ends
    /// the hold.
    pub probe: bool,
}

// ===== inside the transaction =====

#[allow(clippy::too_many_arguments)]
pub(super) fn finish_one<'t>(
    db: &Db,
    (tx, ends): (&'t Transaction<'_>, &mut jobs::Ends<'t>),
    (lease, reach, held): (&Lease, Option<&Patterns>, Option<Held>),
    outcome: &Outcome,
    refused: Option<&str>,
    specs: &HashMap<String, KindSpec>,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<Result<Finished>> {
    let fence = fence_of(lease);
    if let (Some(held), None, Outcome::Succeeded(result), None) = (held, reach, outcome, refused) {
        if succeeded_held(
            db,
            (tx, ends),
            (lease, &fence, held),
            result.as_ref(),
            specs,
            now,
            changes,
        )? {
            return Ok(Ok(Finished::Succeeded));
        }
    }
    // Anything else comes after the successes before it, as if each had been
    // written alone: the jobs waiting for them counted down first.
    changes.extend(ends.flush(tx, now)?);
    // The lease identifies the attempt; what the job is (its kind, its attempts, a
    // cancel request) comes from the row, never from what the caller presents.
    let Some(attempt) = jobs::fenced(tx, &fence)?.filter(|a| jobs::within(reach, &a.kind)) else {
        return Ok(Err(lost(lease)));
    };
    let spec = specs.get(&attempt.kind);
    let (exit, finished, to) = match outcome {
        Outcome::Succeeded(result) => {
            let checked = match refused {
                Some(reason) => Err(Error::InvalidResult {
                    id: lease.job_id,
                    kind: attempt.kind.clone(),
                    reason: reason.to_owned(),
                }),
                None => check_result(db, lease.job_id, &attempt.kind, result.as_ref(), spec),
            };
            match checked {
                Ok(text) => {
                    let exit = Exit::Succeeded {
                        result: text.as_deref(),
                    };
                    let follow_up =
                        jobs::exit_running(tx, &fence, &exit, now, Some(attempt.followers))?;
                    if attempt.network_held {
                        jobs::end_network_hold(tx, &attempt.kind)?;
                    }
                    changes.push(ended(&attempt, &fence, JobStatus::Succeeded, now));
                    changes.extend(follow_up);
                    return Ok(Ok(Finished::Succeeded));
                }
                Err(invalid) => {
                    let failure = JobFailure::retryable(invalid.to_string());
                    let failed =
                        fail_attempt(db, tx, &fence, &attempt, &failure, spec, now, changes)?;
                    return Ok(failed.and(Err(invalid)));
                }
            }
        }
        Outcome::Failed(failure) => {
            return fail_attempt(db, tx, &fence, &attempt, failure, spec, now, changes);
        }
        Outcome::Cancelled => (Exit::Cancelled, Finished::Cancelled, JobStatus::Cancelled),
        // A release never clears a cancel request: such a job ends cancelled.
        Outcome::Released if attempt.cancel_requested => {
            (Exit::Cancelled, Finished::Cancelled, JobStatus::Cancelled)
        }
        Outcome::Deferred(_) if attempt.cancel_requested => {
            (Exit::Cancelled, Finished::Cancelled, JobStatus::Cancelled)
        }
        Outcome::Deferred(deferral) => {
            return defer_attempt(db, tx, &fence, &attempt, deferral, spec, now, changes);
        }
        Outcome::Released => {
            let follow_up =
                jobs::exit_running(tx, &fence, &Exit::Requeued, now, Some(attempt.followers))?;
            let mut event = change(&attempt.kind, &fence, JobStatus::Running, JobStatus::Queued);
            event.attempt = event.attempt.saturating_sub(1);
            changes.push(event);
            changes.extend(follow_up);
            return Ok(Ok(Finished::Released));
        }
    };
    let follow_up = jobs::exit_running(tx, &fence, &exit, now, Some(attempt.followers))?;
    changes.push(ended(&attempt, &fence, to, now));
    changes.extend(follow_up);
    Ok(Ok(finished))
}

/// The runner's success of an attempt it holds ([`Held`]), when its result passes: one
/// update, fenced like every end, when no job waited for it at the claim (and none
/// came to, nor a follow-up run); else the update and what its followers need, with
/// no read through the fence first. Returns whether it wrote; when not (an invalid
/// result, followers that came while it ran, a fence that no longer holds), nothing
/// changed and [`finish_one`] takes the whole path.
fn succeeded_held<'t>(
    db: &Db,
    (tx, ends): (&'t Transaction<'_>, &mut jobs::Ends<'t>),
    (lease, fence, held): (&Lease, &Fence<'_>, Held),
    result: Option<&Value>,
    specs: &HashMap<String, KindSpec>,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<bool> {
    let spec = specs.get(&lease.kind);
    let Ok(text) = check_result(db, lease.job_id, &lease.kind, result, spec) else {
        return Ok(false);
    };
    if !ends.succeeded(tx, (fence, !held.alone), text.as_deref(), now)? {
        return Ok(false);
    }
    if held.probe {
        jobs::end_network_hold(tx, &lease.kind)?;
    }
    changes.push(Change {
        ran: Some(Ran::between(held.run_at, held.started_at, now)),
        deferred: false,
        ..change(&lease.kind, fence, JobStatus::Running, JobStatus::Succeeded)
    });
    Ok(true)
}

/// Serialises a result after checking its depth (before anything recursive runs), the
/// kind's schema and the size limit.
fn check_result(
    db: &Db,
    id: JobId,
    kind: &str,
    result: Option<&Value>,
    spec: Option<&KindSpec>,
) -> Result<Option<String>> {
    let invalid = |reason: String| Error::InvalidResult {
        id,
        kind: kind.to_owned(),
        reason,
    };
    if let Some(reason) = result.and_then(too_deep) {
        return Err(invalid(reason));
    }
    if let Some(schema) = spec.and_then(|spec| spec.result.as_ref()) {
        schema
            .check(result.unwrap_or(&Value::Null))
            .map_err(invalid)?;
    }
    let text = result.map(Value::to_string);
    let limit = db.kinds().max_payload_bytes;
    if let Some(len) = text.as_ref().map(String::len).filter(|&len| len > limit) {
        return Err(invalid(format!(
            "{len} bytes of JSON, more than the limit of {limit}"
        )));
    }
    Ok(text)
}

#[allow(clippy::too_many_arguments)]
fn fail_attempt(
    db: &Db,
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    attempt: &Attempt,
    failure: &JobFailure,
    spec: Option<&KindSpec>,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<Result<Finished>> {
    let error = sanitize_error(&failure.message);
    let (exit, finished, to) = if attempt.cancel_requested {
        (Exit::Cancelled, Finished::Cancelled, JobStatus::Cancelled)
    } else if failure.permanent || fence.attempt >= attempt.max_attempts {
        (
            Exit::Failed { error: &error },
            Finished::Failed,
            JobStatus::Failed,
        )
    } else {
        let policy = spec.and_then(|spec| spec.retry).unwrap_or(db.kinds().retry);
        let delay = policy.delay_for(fence.attempt, db.random());
        let at = now.saturating_add(delay);
        (
            Exit::Retry { error: &error, at },
            Finished::Retrying { at },
            JobStatus::Queued,
        )
    };
    let follow_up = jobs::exit_running(tx, fence, &exit, now, Some(attempt.followers))?;
    if attempt.network_held {
        // The handler reached something: the network is there.
        jobs::end_network_hold(tx, &attempt.kind)?;
    }
    changes.push(ended(attempt, fence, to, now));
    changes.extend(follow_up);
    Ok(Ok(finished))
}

/// An attempt the handler deferred ([`Outcome::Deferred`]), not cancelled: back to the
/// queue, the attempt not counted. Offline, the kind is held for the network (one job
/// every `offline_retry` until one gets through) and the job, first in line, runs
/// when the hold ends; past its kind's `max_offline` it fails. A snooze or a throttle
/// reached the service: a hold for the network ends, and a throttle holds the kind.
#[allow(clippy::too_many_arguments)]
fn defer_attempt(
    db: &Db,
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    attempt: &Attempt,
    deferral: &Deferral,
    spec: Option<&KindSpec>,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<Result<Finished>> {
    // Where the job goes (`run_at`), whether it found the network gone or is a snooze,
    // what it said, and until when nothing of it runs.
    let (at, offline, snooze, note, held_until) = match deferral {
        Deferral::Offline { message } => {
            let error = sanitize_error(message);
            let since = attempt.offline_since.map(Timestamp::from_millis);
            let limit = attempt
                .max_offline_ms
                .filter(|&ms| ms > 0)
                .map(|ms| Duration::from_millis(ms as u64))
                .or_else(|| spec.and_then(|spec| spec.max_offline));
            let every = spec
                .and_then(|spec| spec.offline_retry)
                .unwrap_or(DEFAULT_OFFLINE_RETRY);
            let until = now.saturating_add(every);
            if let (Some(since), Some(limit)) = (since, limit) {
                // "Offline for `limit`": at the first attempt that finds the network
                // gone when `limit` or more has passed since the first that did.
                if now.duration_since(since) >= limit {
                    let failure = JobFailure::permanent(format!(
                        "offline for longer than its limit of {limit:?}: {error}"
                    ));
                    let failed =
                        fail_attempt(db, tx, fence, attempt, &failure, spec, now, changes)?;
                    if failed.is_ok() {
                        // This probe found the network gone like the others: the kind
                        // stays held, the next job probing one `offline_retry` from now
                        // (the failure ended the hold, as for an attempt that got an
                        // answer).
                        jobs::hold_for_network(tx, &attempt.kind, until, &error, now)?;
                    }
                    return Ok(failed);
                }
            }
            jobs::hold_for_network(tx, &attempt.kind, until, &error, now)?;
            // Runnable at once, first in line, when the kind's hold lets a probe go.
            (now, true, false, error, until)
        }
        Deferral::Later { after, reason } => {
            let at = now.saturating_add(clamp_deferral(*after));
            if attempt.network_held {
                jobs::end_network_hold(tx, &attempt.kind)?;
            }
            (at, false, true, sanitize_error(reason), at)
        }
        Deferral::Kind { after, reason } => {
            let at = now.saturating_add(clamp_deferral(*after));
            if attempt.network_held {
                jobs::end_network_hold(tx, &attempt.kind)?;
            }
            let note = sanitize_error(reason);
            // The kind's hold says why its jobs wait (`WaitingFor::Service`).
            jobs::hold_for_service(tx, &attempt.kind, at, &note, now)?;
            (at, false, false, note, at)
        }
        Deferral::Sleep { until, step } => {
            let at = (*until).max(now);
            (at, false, false, format!("sleeping: step {step:?}"), at)
        }
        Deferral::Signal { name, until } => {
            let at = (*until).max(now);
            (at, false, false, format!("waiting for signal {name:?}"), at)
        }
    };
    let signal = match deferral {
        Deferral::Signal { name, .. } => Some(name.as_str()),
        _ => None,
    };
    let sleep = matches!(deferral, Deferral::Sleep { .. }) || signal.is_some();
    let exit = Exit::Deferred {
        at,
        offline,
        snooze,
        sleep,
        signal,
        note: &note,
        until: held_until,
    };
    let follow_up = jobs::exit_running(tx, fence, &exit, now, Some(attempt.followers))?;
    // Not an end and not a retry: the history counts it apart, as offline or throttled.
    let counted = if offline {
        history::Deferred::Offline
    } else if sleep {
        history::Deferred::Slept
    } else {
        history::Deferred::Throttled
    };
    history::record_deferral(tx, &attempt.kind, counted, now)?;
    let mut event = change(&attempt.kind, fence, JobStatus::Running, JobStatus::Queued);
    event.attempt = event.attempt.saturating_sub(1);
    event.deferred = true;
    changes.push(event);
    changes.extend(follow_up);
    Ok(Ok(Finished::Deferred { at: held_until }))
}

/// The change of an attempt that ended at `now` (finished, or queued for a retry).
fn ended(attempt: &Attempt, fence: &Fence<'_>, to: JobStatus, now: Timestamp) -> Change {
    Change {
        ran: attempt.ran(now),
        deferred: false,
        ..change(&attempt.kind, fence, JobStatus::Running, to)
    }
}

pub(super) fn change(kind: &str, fence: &Fence<'_>, from: JobStatus, to: JobStatus) -> Change {
    Change {
        id: fence.id,
        kind: kind.to_owned(),
        from: Some(from),
        to,
        attempt: fence.attempt,
        ran: None,
        deferred: false,
    }
}
