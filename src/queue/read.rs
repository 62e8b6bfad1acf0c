//! Reading jobs (one, a page, counts) and deleting finished ones past retention.

use std::time::Duration;

use super::Queue;
use crate::bus::JobsPruned;
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};

use crate::model::{
    reasons, Conditions, Constraints, Job, JobFilter, JobId, JobStatus, KindCount, Patterns,
    WaitingFor,
};
use crate::store::jobs;

/// The most jobs a page of [`Queue::list`] may ask for.
pub const MAX_PAGE_JOBS: u32 = 1000;
/// About the most bytes of payloads and results one page of [`Queue::list`] carries:
/// past it the page ends early (with at least one job).
pub const MAX_PAGE_BYTES: usize = 4 << 20;

/// How many jobs [`Queue::prune`] reads (and at most deletes) per transaction.
const PRUNE_BATCH: u32 = 2_000;
/// The smallest batch [`Queue::prune`] shrinks to on a full disk.
const SMALLEST_PRUNE_BATCH: u32 = 16;

impl Queue {
    /// One job.
    pub fn get(&self, id: JobId) -> Result<Option<Job>> {
        let mut job = self.db().read(|conn| {
            let Some(mut job) = jobs::get(conn, id)? else {
                return Ok(None);
            };
            job.steps = jobs::steps::of_job(conn, id)?
                .into_iter()
                .map(super::steps::shown)
                .collect();
            Ok(Some(job))
        })?;
        if let Some(job) = &mut job {
            self.mark_handled(std::slice::from_mut(job));
        }
        Ok(job)
    }

    /// Marks queued jobs of kinds this process registered no spec for (a runner
    /// registers one per handler; `Builder::agent_kind` one for a kind agents run),
    /// those of kinds at their rate limit with the time it frees a start, and those
    /// whose constraints (or their kind's) the machine does not meet now.
    fn mark_handled(&self, jobs: &mut [Job]) {
        let specs = self.db().kinds().specs();
        let marks = self.marks(jobs.iter().any(|job| job.status == JobStatus::Queued));
        for job in jobs {
            let queued = job.status == JobStatus::Queued;
            job.handler_missing = queued && !specs.contains_key(&job.kind);
            job.rate_limited_until = marks.limited.get(&job.kind).copied().filter(|_| queued);
            if queued {
                let kind = marks.needs.get(&job.kind).copied().unwrap_or_default();
                job.waiting_for = marks.conditions.unmet(&job.constraints.and(kind));
                if job.waiting_on_jobs > 0 {
                    job.waiting_for.push(WaitingFor::Jobs {
                        left: job.waiting_on_jobs,
                    });
                }
                if let Some((held, because)) = marks.held.get(&job.kind) {
                    job.waiting_for.push(*held);
                    job.held_because.clone_from(because);
                }
                if let (Some(_), Some(until)) = (&job.awaits_signal, job.sleeping_until) {
                    job.waiting_for.push(WaitingFor::Signal { until });
                }
                // Runnable but for the cap: a slot is what it waits for.
                let runnable = job.waiting_for.is_empty() && job.run_at <= marks.now;
                if let Some(slot) = marks.full.get(&job.kind).filter(|_| runnable) {
                    job.waiting_for.push(*slot);
                }
            }
        }
    }

    /// What the marks of queued jobs are read from: the kinds at their rate limit now
    /// (with the time each frees a start), what each kind needs, and the machine's
    /// conditions. Read only when `any_queued` (only queued jobs are marked). A failed
    /// read leaves the marks off rather than failing the read they decorate.
    fn marks(&self, any_queued: bool) -> Marks {
        let now = self.db().now();
        if !any_queued {
            return Marks::default();
        }
        let (limits, needs, full, holds) = self
            .db()
            .read(|conn| {
                Ok((
                    jobs::rate_limits(conn)?,
                    jobs::kind_needs(conn)?,
                    jobs::full_caps(conn)?,
                    jobs::holds(conn, now)?,
                ))
            })
            .unwrap_or_default();
        Marks {
            now,
            full: slots(full, now),
            held: held(holds),
            limited: limits
                .into_iter()
                .filter(|(_, rate)| rate.room(now) == 0)
                .filter_map(|(kind, rate)| Some((kind, rate.free_at()?)))
                .collect(),
            needs: needs.into_iter().collect(),
            conditions: self.db().conditions(now),
        }
    }

    /// One job as a caller reads it who may see only the kinds `kinds` allows (a
    /// scoped window): a job of another kind is not there, and nothing in the one
    /// returned names a job of another kind (see [`list_matching`](Queue::list_matching)).
    pub(crate) fn get_matching(&self, id: JobId, kinds: &Patterns) -> Result<Option<Job>> {
        let Some(job) = self.get(id)?.filter(|job| kinds.allows(&job.kind)) else {
            return Ok(None);
        };
        let mut one = [job];
        self.as_seen_by(&mut one, kinds);
        let [job] = one;
        Ok(Some(job))
    }

    /// Makes `jobs` read as a caller who may see only the kinds `kinds` allows: a
    /// reason the queue wrote that names a job of another kind (a job it waited for, its
    /// workflow) reads without it, and a parent of another kind (or gone, or that could
    /// not be read) is not there. It cannot fail: what it cannot tell it hides.
    pub(crate) fn as_seen_by(&self, jobs: &mut [Job], kinds: &Patterns) {
        if kinds.is_open() {
            return;
        }
        for job in jobs.iter_mut() {
            let seen = job
                .last_error
                .as_deref()
                .and_then(|error| reasons::as_seen(error, kinds));
            if seen.is_some() {
                job.last_error = seen;
            }
        }
        let mut parents: Vec<JobId> = jobs.iter().filter_map(|job| job.parent).collect();
        if parents.is_empty() {
            return;
        }
        parents.sort_unstable();
        parents.dedup();
        let visible: HashSet<JobId> = self
            .db()
            .read(|conn| {
                let mut visible = HashSet::new();
                for parent in parents {
                    if jobs::kind_within(conn, parent, Some(kinds))?.is_some() {
                        visible.insert(parent);
                    }
                }
                Ok(visible)
            })
            .unwrap_or_default();
        for job in jobs {
            if job.parent.is_some_and(|parent| !visible.contains(&parent)) {
                job.parent = None;
            }
        }
    }

    /// A page of jobs, newest first.
    pub fn list(&self, filter: &JobFilter) -> Result<Vec<Job>> {
        self.list_matching(filter, &Patterns::open())
    }

    /// A page of jobs, newest first, of the kinds `kinds` allows only: a full page when
    /// there are enough, however many jobs of other kinds lie between them. For a UI
    /// scoped to some kinds ([`Patterns::closed`] lists nothing): nothing in the page
    /// names a job of another kind (a job's `parent` of such a kind is `None`, a
    /// `last_error` the queue wrote about one says "one this window cannot see"), and
    /// the pieces of a parent of such a kind are not listed.
    ///
    /// A page holds at most `filter.limit` jobs and ends early, after at least one,
    /// once their payloads and results pass [`MAX_PAGE_BYTES`]: a page shorter than
    /// the limit is not the end of the list, an empty one is.
    pub fn list_matching(&self, filter: &JobFilter, kinds: &Patterns) -> Result<Vec<Job>> {
        let limit = filter.limit.unwrap_or(50);
        if limit == 0 || limit > MAX_PAGE_JOBS {
            return Err(Error::invalid_argument(
                "limit",
                format!("{limit} is not from 1 to {MAX_PAGE_JOBS}"),
            ));
        }
        let mut page = self.db().read(|conn| {
            // A parent of a kind the caller may not see is not there, nor its pieces.
            if let Some(parent) = filter.parent.filter(|_| !kinds.is_open()) {
                if jobs::kind_within(conn, parent, Some(kinds))?.is_none() {
                    return Ok(Vec::new());
                }
            }
            jobs::list(conn, filter, limit, kinds, MAX_PAGE_BYTES)
        })?;
        self.mark_handled(&mut page);
        self.as_seen_by(&mut page, kinds);
        Ok(page)
    }

    /// How many jobs there are of each kind in each status.
    ///
    /// Queued jobs of a kind this process registers nothing for (no handler, not
    /// declared as run by agents) are counted with `handler_missing` set: they wait
    /// for a build that has a handler, or for their kind to be retired.
    pub fn counts(&self) -> Result<Vec<KindCount>> {
        let mut counts = self.db().read(jobs::counts)?;
        let specs = self.db().kinds().specs();
        let marks = self.marks(counts.iter().any(|count| count.status == JobStatus::Queued));
        for count in &mut counts {
            let queued = count.status == JobStatus::Queued;
            count.handler_missing = queued && !specs.contains_key(&count.kind);
            count.rate_limited_until = marks.limited.get(&count.kind).copied().filter(|_| queued);
            if let Some(needs) = marks.needs.get(&count.kind).filter(|_| queued) {
                count.waiting_for = marks.conditions.unmet(needs);
            }
            if let Some((held, because)) = marks.held.get(&count.kind).filter(|_| queued) {
                count.waiting_for.push(*held);
                count.held_because.clone_from(because);
            }
            if let Some(slot) = marks.full.get(&count.kind).filter(|_| queued) {
                count.waiting_for.push(*slot);
            }
        }
        Ok(counts)
    }

    /// Deletes finished jobs that finished more than `older_than` ago, a batch per
    /// transaction so other writers are not held up. Returns how many, and publishes
    /// a [`JobsPruned`] per kind that lost any, so counts and lists shown elsewhere
    /// follow. On a full disk
    /// the batches shrink (a delete needs room in the log too) until one fits, so that
    /// pruning is what makes room rather than what fails for the lack of it.
    pub fn prune(&self, older_than: Duration) -> Result<u64> {
        self.prune_until(older_than, None).map(|(pruned, _)| pruned)
    }

    /// [`prune`](Queue::prune), stopping after the batch that ends past `deadline`:
    /// how many went, and whether none is left. What is left goes at a later call
    /// (each starts over from the oldest job, which the deleted ones no longer slow).
    pub(crate) fn prune_until(
        &self,
        older_than: Duration,
        deadline: Option<std::time::Instant>,
    ) -> Result<(u64, bool)> {
        let db = self.db();
        let before = db.now().saturating_sub(older_than);
        let (mut after, mut batch) = (0, PRUNE_BATCH);
        let mut pruned_kinds: Vec<(String, u64)> = Vec::new();
        let publish = |pruned_kinds: Vec<(String, u64)>| {
            let at = db.now();
            let total = pruned_kinds.iter().map(|(_, n)| n).sum();
            for (kind, count) in pruned_kinds {
                db.bus().publish(JobsPruned { kind, count, at });
            }
            total
        };
        loop {
            let pruned = db.store().write(|tx| jobs::prune(tx, before, after, batch));
            let (deleted, next) = match pruned {
                Err(Error::Full { .. }) if batch > SMALLEST_PRUNE_BATCH => {
                    batch = (batch / 4).max(SMALLEST_PRUNE_BATCH);
                    continue;
                }
                Err(error) => {
                    // What went before is gone: listeners hear of it all the same.
                    publish(pruned_kinds);
                    return Err(error);
                }
                Ok(pruned) => pruned,
            };
            for (kind, count) in deleted {
                match pruned_kinds.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, n)) => *n += count,
                    None => pruned_kinds.push((kind, count)),
                }
            }
            match next {
                Some(_) if deadline.is_some_and(|at| std::time::Instant::now() >= at) => {
                    return Ok((publish(pruned_kinds), false))
                }
                Some(next) => after = next,
                None => return Ok((publish(pruned_kinds), true)),
            }
        }
    }
}

// ===== waiting for a job's end =====

/// How often [`Queue::finished`] looks at the file, for a job another process
/// finishes: in this process the end is seen at once.
pub const FINISHED_POLL: Duration = Duration::from_secs(1);

impl Queue {
    /// Waits until job `id` has finished (succeeded, failed or cancelled), whoever ran
    /// it, and returns it: a handler in this process is seen at once, another process
    /// at the next look at the file ([`FINISHED_POLL`]). Use
    /// [`Job::result_as`](crate::model::Job::result_as) for its typed result.
    pub async fn finished(&self, id: JobId) -> Result<Job> {
        let mut changes = self.bus().subscribe(64);
        loop {
            let queue = self.clone();
            let job = tokio::task::spawn_blocking(move || queue.get(id))
                .await
                .map_err(|error| {
                    Error::invalid_argument("id", format!("a read of job {id} stopped: {error}"))
                })??
                .ok_or(Error::JobNotFound(id))?;
            if job.status.is_finished() {
                return Ok(job);
            }
            let ended = async {
                while let Some(event) = changes.next().await {
                    if let crate::bus::Event::JobStateChanged(change) = &*event {
                        if change.id == id && change.to.is_finished() {
                            return;
                        }
                    }
                }
            };
            tokio::select! {
                () = ended => {}
                () = tokio::time::sleep(FINISHED_POLL) => {}
            }
        }
    }
}

/// What queued jobs are marked with ([`Queue::marks`]).
#[derive(Default)]
struct Marks {
    limited: HashMap<String, Timestamp>,
    needs: HashMap<String, Constraints>,
    conditions: Conditions,
    now: Timestamp,
    /// Kinds whose cap is full: what their queued jobs wait for.
    full: HashMap<String, WaitingFor>,
    /// Kinds held for the network or the service (migration 19): what their queued
    /// jobs wait for, and what was said when the kind was held.
    held: HashMap<String, (WaitingFor, Option<String>)>,
}

/// What a queued job of a held kind waits for.
fn held(holds: Vec<jobs::HeldKind>) -> HashMap<String, (WaitingFor, Option<String>)> {
    holds
        .into_iter()
        .map(|held| {
            let waits = if held.hold.network {
                WaitingFor::Network {
                    next_try: held.hold.until,
                }
            } else {
                WaitingFor::Service {
                    until: held.hold.until,
                }
            };
            (held.kind, (waits, held.note))
        })
        .collect()
}

/// What a queued job of each kind whose cap `held` fills waits for, at `now`.
fn slots(held: Vec<jobs::HeldSlot>, now: Timestamp) -> HashMap<String, WaitingFor> {
    let mut full = HashMap::new();
    // Each holder's process looked at once, however many jobs it holds.
    let mut gone: HashMap<String, bool> = HashMap::new();
    for slot in held {
        let stale = slot.lease_expires_at.is_some_and(|at| at <= now)
            || slot.holder.is_some_and(|mark| {
                *gone
                    .entry(mark)
                    .or_insert_with_key(|mark| crate::holder::is_gone(mark))
            });
        let waiting = full.entry(slot.kind).or_insert(WaitingFor::Slot {
            cap: slot.cap,
            running: 0,
            stale: 0,
            lease_ends_at: None,
        });
        if let WaitingFor::Slot {
            running,
            stale: count,
            lease_ends_at,
            ..
        } = waiting
        {
            *running += 1;
            *count += u32::from(stale);
            if let Some(at) = slot.lease_expires_at {
                *lease_ends_at = Some(lease_ends_at.map_or(at, |e: Timestamp| e.min(at)));
            }
        }
    }
    full
}
