//! Claiming: the claim transaction (expired leases first, caps, priority order), and
//! the round that finishes and claims in one commit. What a worker asks for is in
//! `claim_request`.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rusqlite::{Connection, Transaction};
use serde_json::Value;

use super::claim_request::{check_claim, ClaimRequest, ClaimedJob};
use super::finish::{change, finish_one, Held};
use super::lease::{fence_of, new_token, token_text, Lease};
use super::outcome::{Finished, Outcome, DEFAULT_OFFLINE_RETRY};
use super::Queue;
use crate::clock::{duration_millis, Timestamp};
use crate::db::Changes;
use crate::error::{Error, Result};
use crate::json::{drop_deep, too_deep};
use crate::kinds::KindSpec;
use crate::model::{sanitize_error, Conditions, Job, JobId, JobStatus, Patterns, RateState};
use crate::store::history;
use crate::store::jobs::{self, Change, Exit, Fence};

/// How many times in a row a job may lose its worker (its lease runs out without a
/// renewal) before it ends failed, for a kind that stores no number of its own
/// ([`Queue::set_kind_max_lease_expiries`]).
pub const DEFAULT_MAX_LEASE_EXPIRIES: u32 = 3;

/// A job claimed (read back as `R`: the whole [`Job`], or the runner's
/// [`Start`](jobs::Start)), its lease, and what the runner keeps of the attempt.
pub(crate) type Claimed<R> = (R, Lease, Held);

/// What a round wrote: each end's result, and the jobs it claimed.
pub(crate) type Settled<R> = (Vec<Result<Finished>>, Vec<Claimed<R>>);

// ===== impl Queue =====

impl Queue {
    /// Claims up to `request.max_jobs` runnable jobs in one transaction: ends expired
    /// leases first, skips kinds at their cap, then takes the highest priority and,
    /// within a priority, the job that became runnable first. Each claimed job is
    /// running, leased to the worker, with its attempt counted.
    ///
    /// A claimed job whose payload does not fit its kind's schema is failed at once
    /// and not returned.
    pub fn claim(&self, request: &ClaimRequest) -> Result<Vec<ClaimedJob>> {
        Ok(self.finish_and_claim(Vec::new(), Some(request))?.1)
    }

    /// Ends several attempts and claims more jobs in one transaction: what a worker
    /// does between two rounds, for one commit instead of two. The finishes come
    /// first, so the slots and caps they free count for the claim. Each finish gets
    /// its own result, as in [`finish_batch`](Queue::finish_batch).
    pub fn finish_and_claim(
        &self,
        batch: Vec<(Lease, Outcome)>,
        request: Option<&ClaimRequest>,
    ) -> Result<(Vec<Result<Finished>>, Vec<ClaimedJob>)> {
        let (results, claimed) =
            self.finish_and_claim_with::<Job>(batch, &[], request, None, &[])?;
        let claimed = claimed
            .into_iter()
            .map(|(job, lease, _)| ClaimedJob { job, lease })
            .collect();
        Ok((results, claimed))
    }

    /// [`finish_and_claim`](Queue::finish_and_claim), storing the attempts' last
    /// progress first, in the same transaction (the runner's handlers report more
    /// often than it stores). With `reach`, a finish of a job whose kind it does not
    /// allow is a lost lease, checked in the transaction (a scoped window's agent).
    /// `held`, beside `batch` (shorter when not every attempt is known): what the
    /// runner knows of the attempts it claimed itself ([`Held`]).
    pub(crate) fn finish_and_claim_with<R: jobs::ClaimedRow>(
        &self,
        batch: Vec<(Lease, Outcome)>,
        progress: &[(Lease, u64, Option<u64>)],
        request: Option<&ClaimRequest>,
        reach: Option<&Patterns>,
        held: &[Option<Held>],
    ) -> Result<Settled<R>> {
        let mut kinds: Vec<&str> = Vec::new();
        let specs = self.db().kinds().specs();
        let request = match request {
            Some(request) => {
                check_claim(request)?;
                kinds = request.kinds.iter().map(String::as_str).collect();
                kinds.sort_unstable();
                kinds.dedup();
                Some(request).filter(|request| request.max_jobs > 0)
            }
            None => None,
        };
        if batch.is_empty() && request.is_none() {
            return Ok((Vec::new(), Vec::new()));
        }
        // Depth before anything recursive: a result nested too deeply is dropped
        // without recursion here, and its attempt fails as an invalid result.
        let batch: Vec<(Lease, Outcome, Option<String>)> = batch
            .into_iter()
            .map(|(lease, outcome)| match outcome {
                Outcome::Succeeded(Some(value)) => match too_deep(&value) {
                    Some(reason) => {
                        drop_deep(value);
                        (lease, Outcome::Succeeded(None), Some(reason))
                    }
                    None => (lease, Outcome::Succeeded(Some(value)), None),
                },
                other => (lease, other, None),
            })
            .collect();
        let db = self.db();
        let now = db.now();
        let versioned: Vec<(&str, u32)> = match request {
            Some(request) => kinds
                .iter()
                .map(|kind| (*kind, known_version(request, &specs, kind)))
                .collect(),
            None => Vec::new(),
        };
        let sweep = request.is_some() && self.sweep_due(now);
        let gone = if sweep {
            self.gone_holders()?
        } else {
            Vec::new()
        };
        let conditions = db.conditions(now);
        // A wake from sleep seen by this handle gives running leases time to renew.
        let woke_at = db.woke_at();
        if batch.is_empty() && !self.inner.last_claim_found.load(Ordering::Relaxed) {
            // A claim that will find nothing should not take the write lock: an idle
            // runner asks every poll interval, and other processes are writing. After
            // a claim that found work, the next one goes straight to the write: the
            // reads would only add a read transaction to every job.
            let nothing = db.read(|conn| {
                let expired = sweep && (!gone.is_empty() || jobs::any_expired(conn, now)?);
                Ok(!expired && !jobs::any_runnable(conn, &versioned, now, &conditions)?)
            })?;
            if nothing {
                return Ok((Vec::new(), Vec::new()));
            }
        }
        let known_process = self.inner.process_row.load(Ordering::Relaxed);
        let mut store = db.store();
        let (results, claimed, changes, process) = store.write(|tx| {
            let mut changes = Changes::new();
            let mut results = Vec::with_capacity(batch.len());
            let mut ends = jobs::Ends::default();
            for (lease, done, total) in progress {
                jobs::set_progress(tx, &fence_of(lease), *done, *total)?;
            }
            for (i, (lease, outcome, too_deep)) in batch.iter().enumerate() {
                let refused = too_deep.as_deref();
                let held = held.get(i).copied().flatten();
                results.push(finish_one(
                    db,
                    (tx, &mut ends),
                    (lease, reach, held),
                    outcome,
                    refused,
                    &specs,
                    now,
                    &mut changes,
                )?);
            }
            changes.extend(ends.flush(tx, now)?);
            drop(ends);
            let mut process = None;
            let mut reclaimed = 0..0;
            let claimed = match request {
                Some(request) => {
                    process = Self::process_row(tx, known_process)?;
                    if sweep {
                        let from = changes.len();
                        changes.extend(jobs::reclaim_expired(
                            tx,
                            now,
                            DEFAULT_MAX_LEASE_EXPIRIES,
                            woke_at,
                            &gone,
                        )?);
                        reclaimed = from..changes.len();
                    }
                    let at = (now, &conditions);
                    let who = (request, process);
                    claim_in(tx, who, &versioned, &specs, at, &mut changes)?
                }
                None => Vec::new(),
            };
            history::record(tx, &changes, now)?;
            Ok((results, claimed, changes, (process, reclaimed)))
        })?;
        let (process, reclaimed) = process;
        Self::log_retries(&batch, &results);
        Self::log_reclaimed(&changes[reclaimed]);
        self.log_failed(&changes);
        if let Some(process) = process.filter(|_| known_process == 0) {
            self.inner.process_row.store(process, Ordering::Relaxed);
        }
        if request.is_some() {
            self.inner
                .last_claim_found
                .store(!claimed.is_empty(), Ordering::Relaxed);
        }
        db.publish(store, changes, now);
        Ok((results, claimed))
    }
}

// ===== the claim transaction =====

/// How many more jobs of `kind` may start now, in every process, and the kind's rate
/// limit if it has one: zero while the kind is paused or the machine does not meet
/// what the kind needs, else the lower of the room under its cap (the lower of the cap
/// stored for the kind, for every claimer, and the one `request` asks for; `u32::MAX`
/// without a cap) and the starts its rate limit allows at `now`.
pub(super) fn room(
    conn: &Connection,
    request: &ClaimRequest,
    kind: &str,
    (now, conditions): (Timestamp, &Conditions),
) -> Result<Room> {
    let settings = jobs::kind_settings(conn, kind)?;
    let blocked = !settings.needs.is_none() && !conditions.unmet(&settings.needs).is_empty();
    if settings.paused || blocked {
        return Ok(Room {
            now: 0,
            rate: settings.rate,
            rate_bound: false,
            idle_wait: if settings.paused {
                None
            } else {
                conditions.idle_met_in(&settings.needs)
            },
            has_needs: settings.has_needs,
            held_until: None,
            probe: false,
        });
    }
    // Held for the service or the network: nothing until the hold's time; then, for
    // the network, one job (the probe) while the hold lasts.
    let hold = settings
        .hold
        .filter(|hold| hold.network || hold.closed(now));
    if let Some(hold) = hold.filter(|hold| hold.closed(now)) {
        return Ok(Room {
            now: 0,
            rate: settings.rate,
            rate_bound: false,
            idle_wait: None,
            has_needs: settings.has_needs,
            held_until: Some(hold.until),
            probe: false,
        });
    }
    let probe = hold.is_some();
    let cap = match (settings.cap, request.limits.get(kind)) {
        (Some(stored), Some(&asked)) => Some(stored.min(asked)),
        (stored, asked) => stored.or(asked.copied()),
    };
    let under_cap = match cap {
        Some(cap) => cap.saturating_sub(jobs::running_count(conn, kind)?),
        None => u32::MAX,
    };
    let rate_room = settings.rate.map_or(u32::MAX, |rate| rate.room(now));
    let probe_room = if probe { 1 } else { u32::MAX };
    Ok(Room {
        now: under_cap.min(rate_room).min(probe_room),
        rate: settings.rate,
        rate_bound: rate_room == 0 && under_cap > 0,
        idle_wait: None,
        has_needs: settings.has_needs,
        held_until: None,
        probe,
    })
}

/// What [`room`] found for a kind.
pub(super) struct Room {
    /// Jobs that may start now.
    pub(super) now: u32,
    /// The kind's rate limit and its state, if it has one.
    pub(super) rate: Option<RateState>,
    /// Nothing may start only because of the rate limit (not paused, under its cap).
    pub(super) rate_bound: bool,
    /// Nothing may start because the user has not been idle long enough for the
    /// kind's needs: how much longer.
    pub(super) idle_wait: Option<Duration>,
    /// A queued job of the kind may have constraints of its own.
    has_needs: bool,
    /// Nothing may start before then: the kind is held for the service or the
    /// network (`store::jobs::Hold`).
    pub(super) held_until: Option<Timestamp>,
    /// The kind is held for the network and its hold's time has come: one job may
    /// start, the probe, which books the next one.
    pub(super) probe: bool,
}

/// The claim itself, inside a write transaction: skip kinds at their cap, take the
/// best runnable jobs, mark them running under the worker's lease.
fn claim_in<R: jobs::ClaimedRow>(
    tx: &Transaction<'_>,
    (request, process): (&ClaimRequest, Option<i64>),
    kinds: &[(&str, u32)],
    specs: &HashMap<String, KindSpec>,
    (now, conditions): (Timestamp, &Conditions),
    changes: &mut Changes,
) -> Result<Vec<Claimed<R>>> {
    let mut candidates = Vec::new();
    let mut limited = Vec::new();
    let mut probes: Vec<&str> = Vec::new();
    for &(kind, version) in kinds {
        let Room {
            now: room,
            rate,
            has_needs,
            probe,
            ..
        } = room(tx, request, kind, (now, conditions))?;
        let room = room.min(request.max_jobs);
        if let Some(rate) = rate.filter(|_| room > 0) {
            limited.push((kind, rate, 0u32));
        }
        if probe && room > 0 {
            probes.push(kind);
        }
        if room > 0 {
            candidates.extend(
                jobs::candidates::<R>(tx, (kind, version), now, room, (conditions, has_needs))?
                    .into_iter()
                    .map(|(candidate, ahead)| (candidate, ahead, kind)),
            );
        }
    }
    // Best first across the kinds (what each read ahead of the ones cut off is
    // dropped: at most `max_jobs` rows per kind).
    candidates.sort_unstable_by_key(|(candidate, ..)| *candidate);
    candidates.truncate(request.max_jobs as usize);
    let mut claimed = Vec::with_capacity(candidates.len());
    let mut marker = jobs::Marker::<R>::new(tx)?;
    for (candidate, ahead, kind) in candidates {
        let lease_length = request.lease_for(kind);
        let expires_at = now.saturating_add(lease_length);
        let token = new_token();
        let lease = (token, expires_at, duration_millis(lease_length));
        let (row, dependents) = match marker.mark(
            (&candidate, ahead, kind),
            (&request.worker, process),
            lease,
            now,
        ) {
            Ok(claimed) => claimed,
            Err(Error::StoredJson { id, column, reason }) => {
                // A row written by something else that cannot be read back must
                // not block every later claim: fail it, naming why.
                let error = sanitize_error(&format!("stored {column} is not valid JSON: {reason}"));
                let attempt = jobs::fail_unreadable(tx, id, &error, now)?;
                changes.push(Change {
                    id,
                    kind: kind.to_owned(),
                    from: Some(JobStatus::Queued),
                    to: JobStatus::Failed,
                    attempt,
                    ran: None,
                    deferred: false,
                });
                changes.extend(jobs::deps::resolve(tx, id, JobStatus::Failed, now)?);
                continue;
            }
            Err(error) => return Err(error),
        };
        let (id, attempt) = (JobId::from_raw(candidate.id), row.attempts());
        changes.push(Change {
            id,
            kind: kind.to_owned(),
            from: Some(JobStatus::Queued),
            to: JobStatus::Running,
            attempt,
            ran: None,
            deferred: false,
        });
        let fence = Fence {
            id,
            worker: &request.worker,
            attempt,
            token,
        };
        let mut row = row;
        let refusal = match specs.get(kind) {
            Some(spec) => ready_to_run(tx, spec, id, row.payload_mut())?,
            None => None,
        };
        if let Some(error) = refusal {
            let follow_up =
                jobs::exit_running(tx, &fence, &Exit::Failed { error: &error }, now, None)?;
            changes.push(change(kind, &fence, JobStatus::Running, JobStatus::Failed));
            changes.extend(follow_up);
            continue;
        }
        // A start that runs counts against the kind's rate limit; a refused one did
        // not call anything.
        if let Some(entry) = limited.iter_mut().find(|(limited, ..)| *limited == kind) {
            entry.2 += 1;
        }
        let lease = Lease {
            job_id: id,
            kind: kind.to_owned(),
            worker: request.worker.clone(),
            attempt,
            expires_at,
            length_ms: lease_length.as_millis() as u64,
            token: token_text(token),
        };
        let probe = probes.contains(&kind);
        if probe {
            // The next probe waits for this one's time: a long attempt that gets
            // through ends the hold before then.
            let every = specs
                .get(kind)
                .and_then(|spec| spec.offline_retry)
                .unwrap_or(DEFAULT_OFFLINE_RETRY);
            jobs::book_probe(tx, kind, now.saturating_add(every))?;
        }
        let held = Held {
            run_at: row.run_at(),
            // The marker started it now.
            started_at: now,
            alone: !dependents,
            probe,
        };
        claimed.push((row, lease, held));
    }
    // Each start of a rate-limited kind is booked in this transaction: every other
    // claimer sees it at once.
    for (kind, rate, started) in limited {
        if started > 0 {
            jobs::set_rate_next(tx, kind, rate.spent(started, now))?;
        }
    }
    Ok(claimed)
}

/// Brings a claimed job's payload up to this build's version (an older one was
/// written by an earlier build; stored so) and checks it against the kind's schema,
/// before anything runs it. Why it cannot run, if it cannot.
fn ready_to_run(
    tx: &Transaction<'_>,
    spec: &KindSpec,
    id: JobId,
    (payload, version): (&mut Value, &mut u32),
) -> Result<Option<String>> {
    let (from, to) = (*version, spec.version());
    if from < to {
        match spec.upgraded(from, std::mem::take(payload)) {
            Ok(upgraded) => {
                jobs::set_payload(tx, id, &upgraded.to_string(), to)?;
                *payload = upgraded;
                *version = to;
            }
            Err(reason) => {
                return Ok(Some(sanitize_error(&format!(
                    "its payload is version {from} and could not be upgraded to version {to}: \
                     {reason}"
                ))))
            }
        }
    }
    if let Some(Err(reason)) = spec.payload.as_ref().map(|schema| schema.check(payload)) {
        return Ok(Some(sanitize_error(&format!("invalid payload: {reason}"))));
    }
    Ok(None)
}

/// The newest payload version `request` takes for `kind`: the version it names, else
/// the one the kind's spec in this process says, else 1.
pub(super) fn known_version(
    request: &ClaimRequest,
    specs: &HashMap<String, KindSpec>,
    kind: &str,
) -> u32 {
    request
        .versions
        .get(kind)
        .copied()
        .or_else(|| specs.get(kind).map(KindSpec::version))
        .unwrap_or(1)
}
