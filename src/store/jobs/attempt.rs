//! A running attempt's writes, each fenced by job id, worker, attempt and the lease
//! secret: reading it through the fence, progress, renewal, and how it ends.

use rusqlite::{params, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{JobId, JobStatus};

use super::deps::Countdown;
use super::{take_follow_up, Change};

/// The fenced identity of a running attempt: who holds it, which attempt, and the
/// secret handed out with the claim.
pub(crate) struct Fence<'a> {
    pub id: JobId,
    pub worker: &'a str,
    pub attempt: u32,
    pub token: i64,
}

/// A running attempt as seen through its fence.
pub(crate) struct Attempt {
    pub kind: String,
    /// Attempts allowed, the ones lost to a dead worker not counted.
    pub max_attempts: u32,
    pub cancel_requested: bool,
    /// Whether an enqueue left a follow-up run on it, and whether a job waits for it:
    /// what its end has to do besides ([`exit_running`]).
    pub followers: Followers,
    /// When the job became runnable before this attempt, and when the attempt started.
    pub run_at: i64,
    pub started_at: Option<i64>,
    /// When the job's first attempt in a row that found the network gone ended.
    pub offline_since: Option<i64>,
    /// Whether its kind is held for the network (migration 19): an end that got
    /// through ends the hold.
    pub network_held: bool,
    /// How long the job may wait for the network (migration 20); `None`: its kind's.
    pub max_offline_ms: Option<i64>,
}

impl Attempt {
    /// How long this attempt waited and ran, if it ends at `now`.
    pub(crate) fn ran(&self, now: Timestamp) -> Option<super::Ran> {
        let started = Timestamp::from_millis(self.started_at?);
        Some(super::Ran::between(
            Timestamp::from_millis(self.run_at),
            started,
            now,
        ))
    }
}

/// What a running job's end has to do besides moving it: queue a follow-up run,
/// resolve the jobs waiting for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Followers {
    pub follow_up: bool,
    pub dependents: bool,
}

/// Reads a running attempt through its fence; `None` when the fence no longer holds.
pub(crate) fn fenced(tx: &Transaction<'_>, fence: &Fence<'_>) -> Result<Option<Attempt>> {
    Ok(tx
        .prepare_cached(
            "SELECT kind, max_attempts + lost_attempts, cancel_requested, \
             follow_up IS NOT NULL, has_dependents, run_at, started_at, offline_since, \
             coalesce((SELECT hold_reason = 'network' FROM kinds \
                       WHERE kinds.kind = jobs.kind), 0), max_offline_ms FROM jobs \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?4",
        )?
        .query_row(
            params![fence.id.raw(), fence.worker, fence.attempt, fence.token],
            |r| {
                Ok(Attempt {
                    kind: r.get(0)?,
                    max_attempts: r.get(1)?,
                    cancel_requested: r.get(2)?,
                    followers: Followers {
                        follow_up: r.get(3)?,
                        dependents: r.get(4)?,
                    },
                    run_at: r.get(5)?,
                    started_at: r.get(6)?,
                    offline_since: r.get(7)?,
                    network_held: r.get(8)?,
                    max_offline_ms: r.get(9)?,
                })
            },
        )
        .optional()?)
}

/// Stores a running attempt's progress, fenced; returns whether the fence held.
pub(crate) fn set_progress(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    done: u64,
    total: Option<u64>,
) -> Result<bool> {
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    Ok(tx
        .prepare_cached(
            "UPDATE jobs SET progress_done = ?4, progress_total = ?5 \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?6",
        )?
        .execute(params![
            fence.id.raw(),
            fence.worker,
            fence.attempt,
            clamp(done),
            total.map(clamp),
            fence.token
        ])?
        == 1)
}

/// Extends a lease; returns whether cancellation was asked for, or `None` when the
/// fence no longer holds.
pub(crate) fn renew(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    expires_at: Timestamp,
    now: Timestamp,
) -> Result<Option<bool>> {
    let changed = tx
        .prepare_cached(
            "UPDATE jobs SET lease_expires_at = ?4, lease_ms = ?4 - ?5, updated_at = ?5 \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?6",
        )?
        .execute(params![
            fence.id.raw(),
            fence.worker,
            fence.attempt,
            expires_at.as_millis(),
            now.as_millis(),
            fence.token
        ])?;
    if changed == 0 {
        return Ok(None);
    }
    Ok(Some(
        tx.prepare_cached("SELECT cancel_requested FROM jobs WHERE id = ?1")?
            .query_row([fence.id.raw()], |r| r.get(0))?,
    ))
}

// ?1 id, ?2 worker, ?3 attempt, ?4 now, ?5 token; ?6 and ?7 as each statement says.
macro_rules! fenced_update {
    ($set:expr, $also:literal, $follow_up:literal) => {
        concat!(
            "UPDATE jobs SET ",
            $set,
            $also,
            ", lease_owner = NULL, lease_expires_at = NULL, lease_token = NULL, \
             lease_process = NULL, lease_expiries = 0, \
             updated_at = ?4 \
             WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3 \
             AND lease_token = ?5",
            $follow_up
        )
    };
}

/// How a success ends that requires no follow-up and no dependents: the plain update
/// [`exit_running`] tries first.
const SUCCEEDED_PLAIN: &str = fenced_update!(
    "status = 'succeeded', result = ?6, finished_at = ?4, last_error = NULL",
    "",
    " AND follow_up IS NULL AND has_dependents = 0"
);

/// How a success ends that had jobs waiting for it when it was claimed, and no
/// follow-up: the flag goes with the update, and they are counted down after it.
const SUCCEEDED_FLAGGED: &str = fenced_update!(
    "status = 'succeeded', result = ?6, finished_at = ?4, last_error = NULL",
    ", has_dependents = 0",
    " AND follow_up IS NULL"
);

/// The ends of the successes a runner claimed itself, in one transaction: their two
/// statements are prepared once for all of them (looking one up in the connection's
/// cache hashes its text each time), and the jobs waiting for them are counted down
/// once for all of them ([`Countdown`]).
#[derive(Default)]
pub(crate) struct Ends<'t> {
    plain: Option<rusqlite::CachedStatement<'t>>,
    flagged: Option<rusqlite::CachedStatement<'t>>,
    countdown: Countdown<'t>,
}

impl<'t> Ends<'t> {
    /// [`exit_running`] for a success of the runner's own attempt, which knows from
    /// its claim whether jobs waited for it (`waited_for`): only an update that
    /// requires no follow-up (and, for one nobody waited for, no dependents) runs;
    /// the jobs waiting for it are counted at the next [`flush`](Ends::flush). Returns
    /// whether it changed the row; when not, nothing changed (the job has followers it
    /// did not have at the claim, or the fence no longer holds) and the caller takes
    /// the whole path, after a flush.
    ///
    /// Safe without reading the flags first: `has_dependents` is set only when a job
    /// comes to wait for this one, and cleared only by this job's end.
    pub(crate) fn succeeded(
        &mut self,
        tx: &'t Transaction<'_>,
        (fence, waited_for): (&Fence<'_>, bool),
        result: Option<&str>,
        now: Timestamp,
    ) -> Result<bool> {
        let (slot, sql) = if waited_for {
            (&mut self.flagged, SUCCEEDED_FLAGGED)
        } else {
            (&mut self.plain, SUCCEEDED_PLAIN)
        };
        let statement = match slot {
            Some(statement) => statement,
            empty => empty.insert(tx.prepare_cached(sql)?),
        };
        let params = params![
            fence.id.raw(),
            fence.worker,
            fence.attempt,
            now.as_millis(),
            fence.token,
            result
        ];
        let changed = statement.execute(params)? == 1;
        if changed && waited_for {
            self.countdown.succeeded(tx, fence.id)?;
        }
        Ok(changed)
    }

    /// Counts down the jobs waiting for the successes so far; returns the changes of
    /// the ones it freed. Anything else written to jobs in the transaction comes after.
    pub(crate) fn flush(&mut self, tx: &Transaction<'_>, now: Timestamp) -> Result<Vec<Change>> {
        self.countdown.flush(tx, now)
    }
}

/// How a fenced running job leaves the running state.
pub(crate) enum Exit<'a> {
    Succeeded {
        result: Option<&'a str>,
    },
    Failed {
        error: &'a str,
    },
    Retry {
        error: &'a str,
        at: Timestamp,
    },
    Cancelled,
    /// Back to the queue, the attempt not counted.
    Requeued,
    /// Back to the queue for `at`, the attempt not counted: the handler deferred it
    /// (`Outcome::Deferred`). `offline`: it found the network gone (its
    /// `offline_since` is kept, or set to now); else the service was reached.
    Deferred {
        at: Timestamp,
        offline: bool,
        /// A snooze of this job alone: `at` is marked as its `snoozed_until`.
        snooze: bool,
        /// A durable sleep of its handler (or a wait for a signal): `at` is marked as
        /// its `sleep_until`.
        sleep: bool,
        /// The signal its handler waits for (its `awaits_signal`). One sent while the
        /// attempt ran (after its handler looked) makes the job runnable at once: read
        /// in this update, no send can fall between the look and the wait.
        signal: Option<&'a str>,
        /// What the handler said (redacted), and until when nothing of the job runs
        /// (`at`, or the kind's next probe): kept in the job's attempts timeline.
        note: &'a str,
        until: Timestamp,
    },
}

/// Moves a running job out of `running`, fenced; nothing changes when the fence no
/// longer holds. Returns the changes that came of it: the follow-up run it queued, if
/// an enqueue asked for one while it ran (see `take_follow_up`), and the jobs waiting
/// for it that it freed or cancelled, if it ended (see `deps::resolve`).
pub(crate) fn exit_running(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    exit: &Exit<'_>,
    now: Timestamp,
    known: Option<Followers>,
) -> Result<Vec<Change>> {
    Ok(exit_fenced(tx, fence, exit, now, known)?.1)
}

/// [`exit_running`], also saying whether the fenced update changed the row.
fn exit_fenced(
    tx: &Transaction<'_>,
    fence: &Fence<'_>,
    exit: &Exit<'_>,
    now: Timestamp,
    known: Option<Followers>,
) -> Result<(bool, Vec<Change>)> {
    // Nearly every job has no follow-up (migration 10) and no job waiting for it
    // (migration 13): the statement that requires neither is the only one that runs
    // for them, so the check costs nothing. When it changes no row, either the job
    // has one of them or the fence no longer holds; the same statement without the
    // condition tells which. (A `RETURNING` clause,
    // or a lookup after the update, cost 4 % and 1 % of a claim + complete in
    // instructions, measured with callgrind.)
    // `$also`: what else the update that knows the job has followers sets (an end
    // clears the flag of dependents, resolved below; a return to the queue keeps it).
    macro_rules! exit_with {
        ($set:expr, $also:literal, $params:expr) => {{
            // Read through the fence in this transaction, the flags are as they are.
            let plain = match known {
                Some(Followers {
                    follow_up: false,
                    dependents: false,
                })
                | None => tx
                    .prepare_cached(fenced_update!(
                        $set,
                        "",
                        " AND follow_up IS NULL AND has_dependents = 0"
                    ))?
                    .execute($params)?,
                Some(_) => 0,
            };
            if plain == 1 {
                (true, None)
            } else if known == Some(Followers::default()) {
                (false, None)
            } else {
                // Read before the update, which clears the flag of dependents: they
                // are resolved below, once.
                let flags: Option<(bool, bool)> = match known {
                    Some(known) => Some((known.follow_up, known.dependents)),
                    None => tx
                        .prepare_cached(
                            "SELECT follow_up IS NOT NULL, has_dependents FROM jobs WHERE id = ?1",
                        )?
                        .query_row([fence.id.raw()], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()?,
                };
                let held = tx
                    .prepare_cached(fenced_update!($set, $also, ""))?
                    .execute($params)?;
                (held == 1, flags.filter(|_| held == 1))
            }
        }};
    }
    let id = fence.id.raw();
    let (worker, attempt, now, token) = (fence.worker, fence.attempt, now.as_millis(), fence.token);
    let (changed, flags) = match exit {
        Exit::Succeeded { result } => exit_with!(
            "status = 'succeeded', result = ?6, finished_at = ?4, last_error = NULL",
            ", has_dependents = 0",
            params![id, worker, attempt, now, token, result]
        ),
        Exit::Failed { error } => exit_with!(
            concat!(
                "status = 'failed', last_error = ?6, finished_at = ?4, ",
                append_error!("?4", "?6")
            ),
            ", has_dependents = 0",
            params![id, worker, attempt, now, token, error]
        ),
        Exit::Retry { error, at } => exit_with!(
            concat!(
                "status = 'queued', last_error = ?6, run_at = ?7, offline_since = NULL, ",
                append_error!("?4", "?6")
            ),
            "",
            params![id, worker, attempt, now, token, error, at.as_millis()]
        ),
        Exit::Cancelled => exit_with!(
            "status = 'cancelled', finished_at = ?4",
            ", has_dependents = 0",
            params![id, worker, attempt, now, token]
        ),
        Exit::Requeued => exit_with!(
            "status = 'queued', attempts = attempts - 1",
            "",
            params![id, worker, attempt, now, token]
        ),
        Exit::Deferred {
            at,
            offline,
            snooze,
            sleep,
            signal,
            note,
            until,
        } => exit_with!(
            concat!(
                "status = 'queued', attempts = attempts - 1, \
                 run_at = CASE WHEN ?13 IS NOT NULL AND EXISTS (SELECT 1 FROM job_signals \
                   WHERE job_id = ?1 AND name = ?13 AND payload IS NOT NULL) THEN ?4 ELSE ?6 END, \
                 offline_since = CASE WHEN ?7 THEN coalesce(offline_since, ?4) END, \
                 snoozed_until = CASE WHEN ?8 THEN ?6 END, \
                 sleep_until = CASE WHEN ?12 THEN ?6 END, awaits_signal = ?13, errors = ",
                deferral_noted!()
            ),
            "",
            params![
                id,
                worker,
                attempt,
                now,
                token,
                at.as_millis(),
                offline,
                snooze,
                note,
                if *offline {
                    "offline"
                } else if *snooze {
                    "snoozed"
                } else if signal.is_some() {
                    "signal"
                } else if *sleep {
                    "slept"
                } else {
                    "throttled"
                },
                until.as_millis(),
                sleep,
                signal
            ]
        ),
    };
    let finished = match exit {
        Exit::Succeeded { .. } => Some(JobStatus::Succeeded),
        Exit::Failed { .. } => Some(JobStatus::Failed),
        Exit::Cancelled => Some(JobStatus::Cancelled),
        Exit::Retry { .. } | Exit::Requeued | Exit::Deferred { .. } => None,
    };
    if !changed {
        return Ok((false, Vec::new()));
    }
    // The end is counted from its change, in the kind's minute (`history::record`).
    let Some((follow_up, dependents)) = flags else {
        return Ok((true, Vec::new()));
    };
    let now = Timestamp::from_millis(now);
    let mut changes = Vec::new();
    if follow_up {
        changes.extend(take_follow_up(tx, fence.id, now)?);
    }
    if let Some(status) = finished.filter(|_| dependents) {
        changes.extend(super::deps::resolve_flagged(tx, fence.id, status, now)?);
    }
    Ok((true, changes))
}
