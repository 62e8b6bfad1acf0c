//! When a claimer should look again: the earliest time a job it could claim becomes
//! runnable, and the earliest lease of any process to run out. The runner sleeps until
//! then; compared with a poll, a backlog held back by a cap, a pause or the machine
//! is no reason to wake.

use super::claim::{known_version, room};
use super::{ClaimRequest, Queue};
use crate::clock::Timestamp;
use crate::error::Result;
use crate::kinds::KindSpec;
use crate::store::jobs;

impl Queue {
    /// About the earliest time a queued job of one of `kinds` becomes runnable, if any
    /// is queued: exact for short queues, the earliest of the first few hundred in
    /// claim order for long ones. Jobs that are runnable now count as now-or-earlier.
    pub fn next_run_at(&self, kinds: &[String]) -> Result<Option<Timestamp>> {
        let specs = self.db().kinds().specs();
        self.db().read(|conn| {
            let mut earliest: Option<Timestamp> = None;
            for kind in kinds {
                let version = specs.get(kind).map_or(1, KindSpec::version);
                if let Some(at) = jobs::next_run_at(conn, kind, version, None)? {
                    earliest = Some(earliest.map_or(at, |e| e.min(at)));
                }
            }
            Ok(earliest)
        })
    }

    /// When the earliest lease of a running job runs out, in any process, if any job
    /// is running: an idle claimer wakes then, so that a dead or frozen worker's job
    /// is reclaimed whether or not anything else happens in the file. A live worker
    /// renews before then, and the claimer goes back to sleep.
    pub fn next_lease_expiry(&self) -> Result<Option<Timestamp>> {
        self.db().read(jobs::next_lease_expiry)
    }

    /// About the earliest time a job that `request` could claim becomes runnable: as
    /// [`next_run_at`](Queue::next_run_at), over the kinds of the request that are
    /// neither paused nor at their cap (in every process) right now, and the jobs
    /// whose constraints the machine meets (or will, if the user stays idle). `None`
    /// when no queued job could be claimed before something else changes (a slot
    /// frees, a cap or a pause changes, a charger is plugged in, another process
    /// writes): a worker then has no reason to wake for the backlog.
    pub fn next_claimable_at(&self, request: &ClaimRequest) -> Result<Option<Timestamp>> {
        let specs = self.db().kinds().specs();
        let now = self.db().now();
        let conditions = self.db().conditions(now);
        let met = Some(&conditions);
        self.db().read(|conn| {
            let mut earliest: Option<Timestamp> = None;
            let mut sooner = |at: Timestamp| earliest = Some(earliest.map_or(at, |e| e.min(at)));
            let mut rate_bound = Vec::new();
            for kind in &request.kinds {
                let room = room(conn, request, kind, (now, &conditions))?;
                let version = known_version(request, &specs, kind);
                match (room.now, room.rate.and_then(|rate| rate.free_at())) {
                    // Held for the service or the network: claimable when the hold's
                    // time comes. Looked at last, as a rate limit.
                    (0, _) if room.held_until.is_some() => {
                        rate_bound.push((kind, room.held_until.unwrap_or(now)));
                    }
                    // At its rate limit: claimable again when the limit frees a start
                    // (the claimer sleeps until then, not a poll). Looked at last.
                    (0, Some(free)) if room.rate_bound => rate_bound.push((kind, free)),
                    (0, _) => {
                        // The kind waits for the user to be idle long enough.
                        if let Some(wait) = room.idle_wait {
                            if let Some(at) = jobs::next_run_at(conn, kind, version, met)? {
                                sooner(at.max(now.saturating_add(wait)));
                            }
                        }
                    }
                    _ => {
                        if let Some(at) = jobs::next_run_at(conn, kind, version, met)? {
                            sooner(at);
                        }
                        // A job that waits for the user to be idle longer than now.
                        if let Some(wait) = jobs::idle_wait(conn, kind, &conditions)? {
                            sooner(now.saturating_add(wait));
                        }
                    }
                }
            }
            // A kind whose limit frees a start only after the earliest found so far
            // cannot move it: its backlog is not read at all.
            for (kind, free) in rate_bound {
                if earliest.is_some_and(|e| e <= free) {
                    continue;
                }
                let version = known_version(request, &specs, kind);
                if let Some(at) = jobs::next_run_at(conn, kind, version, met)? {
                    let at = at.max(free);
                    earliest = Some(earliest.map_or(at, |e| e.min(at)));
                }
                // Jobs that wait for the user's idle time as well as the limit.
                if let Some(wait) = jobs::idle_wait(conn, kind, &conditions)? {
                    let at = free.max(now.saturating_add(wait));
                    earliest = Some(earliest.map_or(at, |e| e.min(at)));
                }
            }
            Ok(earliest)
        })
    }
}
