//! The durable job queue in `raw.db`.
//!
//! Producers [`enqueue`](Queue::enqueue); workers [`claim`](Queue::claim) jobs, keep
//! their leases alive with [`heartbeat`](Queue::heartbeat) and end each attempt with
//! [`finish`](Queue::finish). Every write after the claim is fenced by the worker's id
//! and the attempt number, so a worker that lost its lease can never record an outcome.
//! Delivery is at least once: a job whose worker died runs again once its lease
//! expires, so handlers must be idempotent.
//!
//! Per-kind caps are enforced inside the claim transaction, against the running rows
//! in the file, so they hold across every worker and every process on the same file.
//! Batches ([`enqueue_batch`](Queue::enqueue_batch), a claim of several jobs,
//! [`finish_batch`](Queue::finish_batch)) share one commit; commits are what a queue
//! on SQLite pays for.
//!
//! Every state change is published on the [`EventBus`] as a
//! [`JobStateChanged`](crate::bus::JobStateChanged) after it is committed.
//!
//! The queue is synchronous (SQLite is): from async code, call it from
//! `spawn_blocking` or a dedicated thread, as the runner does.

mod kind;
mod model;
mod redact;
mod retry;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use rusqlite::Transaction;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, watch};

use crate::bus::{EventBus, JobStateChanged};
use crate::clock::{duration_millis, Clock, SystemClock, Timestamp};
use crate::config::JobsConfig;
use crate::error::{Error, Result};
use crate::locks::{lock, read, write};
use crate::random::{RandomSource, ThreadRandom};
use crate::store::jobs::{self, Change, Exit, Fence, NewRow};
use crate::store::{Store, StoreOptions, Synchronous};

pub use kind::{KindSpec, Schema};
pub use model::{
    Actor, CancelOutcome, ClaimRequest, ClaimedJob, EnqueueOptions, Enqueued, Finished, Heartbeat,
    Job, JobFailure, JobFilter, JobId, JobStatus, KindCount, Lease, NewJob, Outcome, Priority,
};
pub use redact::{redact, sanitize_error, MAX_ERROR_CHARS};
pub use retry::{RetryPolicy, RetryPolicyError};

/// The longest kind name, in bytes.
pub const MAX_KIND_BYTES: usize = 128;
/// The longest dedupe key or worker id, in bytes.
pub const MAX_KEY_BYTES: usize = 512;
/// The default cap on a payload's or result's JSON size: 1 MiB.
pub const DEFAULT_MAX_PAYLOAD_BYTES: usize = 1 << 20;

/// How often, in clock time, a claim first sweeps for expired leases. A job whose lease
/// expired is therefore claimable again at most this long after the expiry.
pub const LEASE_SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// How many jobs [`Queue::prune`] reads (and at most deletes) per transaction.
const PRUNE_BATCH: u32 = 2_000;

// ===== QueueOptions =====

/// How a [`Queue`] is opened.
///
/// ```
/// use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
/// use tauri_plugin_jobs::queue::{Queue, QueueOptions};
/// use tauri_plugin_jobs::random::FixedRandom;
///
/// let dir = tempfile::tempdir()?;
/// let clock = FakeClock::new(Timestamp::from_millis(0));
/// let queue = Queue::open(
///     dir.path().join("raw.db"),
///     QueueOptions::new().clock(clock.clone()).random(FixedRandom(0.5)),
/// )?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct QueueOptions {
    store: StoreOptions,
    clock: Arc<dyn Clock>,
    random: Arc<dyn RandomSource>,
    bus: EventBus,
    max_attempts: u32,
    retry: RetryPolicy,
    max_payload_bytes: usize,
}

impl Default for QueueOptions {
    fn default() -> Self {
        QueueOptions {
            store: StoreOptions::default(),
            clock: Arc::new(SystemClock),
            random: Arc::new(ThreadRandom),
            bus: EventBus::new(),
            max_attempts: 5,
            retry: RetryPolicy::default(),
            max_payload_bytes: DEFAULT_MAX_PAYLOAD_BYTES,
        }
    }
}

impl QueueOptions {
    /// System clock, thread randomness, a new bus, `synchronous = NORMAL`, 5 attempts,
    /// [`RetryPolicy::default`], payloads up to 1 MiB.
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock every time decision reads.
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Where jitter comes from.
    pub fn random(mut self, random: impl RandomSource) -> Self {
        self.random = Arc::new(random);
        self
    }

    /// The bus state changes are published on.
    pub fn bus(mut self, bus: EventBus) -> Self {
        self.bus = bus;
        self
    }

    /// Durability of each commit; see [`Synchronous`].
    pub fn synchronous(mut self, synchronous: Synchronous) -> Self {
        self.store.synchronous = synchronous;
        self
    }

    /// How long one statement waits for another connection's write lock.
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.store.busy_timeout = timeout;
        self
    }

    /// How long a write keeps retrying a locked database before it fails with
    /// [`Error::Busy`]; one minute by default.
    pub fn busy_deadline(mut self, deadline: Duration) -> Self {
        self.store.busy_deadline = deadline;
        self
    }

    /// Caps `raw.db` at this many pages (4 KiB each): writes past it fail with
    /// [`Error::Full`] and change nothing, like a full disk.
    pub fn max_page_count(mut self, pages: u64) -> Self {
        self.store.max_page_count = Some(pages);
        self
    }

    /// Attempts for jobs whose kind and options name none.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// Backoff for kinds that name none.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The largest payload or result, as JSON bytes.
    pub fn max_payload_bytes(mut self, bytes: usize) -> Self {
        self.max_payload_bytes = bytes;
        self
    }

    /// Applies what `config.toml`'s `[jobs]` section sets: `synchronous`,
    /// `max_attempts` and the `backoff_*` keys. Unset keys leave these options alone.
    pub fn config(mut self, config: &JobsConfig) -> Self {
        if let Some(synchronous) = config.synchronous {
            self.store.synchronous = synchronous;
        }
        if let Some(attempts) = config.max_attempts {
            self = self.max_attempts(attempts);
        }
        if let Some(policy) = config.retry {
            self.retry = policy;
        }
        self
    }
}

// ===== Queue =====

/// A handle on the durable queue in one `raw.db`. Cheap to clone; clones share one
/// connection. Open the same file again (or from another process) for another
/// connection: caps and fencing hold across all of them.
#[derive(Clone, Debug)]
pub struct Queue {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    // Mutex: one connection, one transaction at a time; SQLite serialises writers anyway.
    store: Mutex<Store>,
    // RwLock over an Arc: kinds are registered at start-up (copy on write) and read on
    // every enqueue, claim and finish, which only clone the Arc.
    kinds: RwLock<Arc<HashMap<String, KindSpec>>>,
    // The clock time of the last sweep for expired leases, in ms. Relaxed: a stale
    // read only means one sweep more or less.
    last_reclaim: AtomicI64,
    // Whether this handle's last claim found a job. Relaxed: only a hint for whether
    // the next one should look with reads before taking the write lock.
    last_claim_found: AtomicBool,
    // Bumped whenever jobs may have become runnable in this process, so runners
    // wake at once instead of polling. A watch never loses a wake-up.
    wake: watch::Sender<u64>,
    // Running jobs whose cancellation was asked for through this handle.
    cancels: broadcast::Sender<JobId>,
    // Called on the same occasions, from the committing thread: how a runner's own
    // thread is woken without a hop through an async task.
    wake_hooks: WakeHooks,
    options: QueueOptions,
}

/// Callbacks run when jobs may have become runnable or a cancel was asked for; each
/// stays registered while it returns `true`.
#[derive(Default)]
struct WakeHooks(Mutex<Vec<Box<dyn Fn() -> bool + Send + Sync>>>);

impl std::fmt::Debug for WakeHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WakeHooks({})", lock(&self.0).len())
    }
}

impl WakeHooks {
    fn call(&self) {
        lock(&self.0).retain(|hook| hook());
    }
}

/// What a transaction changed, to publish once it is committed.
pub(crate) type Changes = Vec<Change>;

impl Queue {
    /// Opens the queue in the database at `path`, creating and migrating it as needed.
    ///
    /// A file that is not a database, is corrupt or comes from a newer version is
    /// refused with a typed error and left untouched.
    pub fn open(path: impl AsRef<Path>, options: QueueOptions) -> Result<Queue> {
        let store = Store::open(path.as_ref(), &options.store)?;
        Ok(Queue {
            inner: Arc::new(Inner {
                store: Mutex::new(store),
                kinds: RwLock::new(Arc::new(HashMap::new())),
                last_reclaim: AtomicI64::new(i64::MIN),
                last_claim_found: AtomicBool::new(false),
                wake: watch::Sender::new(0),
                cancels: broadcast::Sender::new(256),
                wake_hooks: WakeHooks::default(),
                options,
            }),
        })
    }

    /// The bus state changes are published on.
    #[must_use]
    pub fn bus(&self) -> &EventBus {
        &self.inner.options.bus
    }

    /// The clock the queue reads.
    #[must_use]
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.options.clock
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> std::path::PathBuf {
        self.store().path().to_owned()
    }

    /// Declares what the queue should know about `kind`: schemas, retry policy,
    /// default attempts. Registering again replaces the previous spec.
    pub fn register_kind(&self, kind: impl Into<String>, spec: KindSpec) {
        let mut kinds = write(&self.inner.kinds);
        let mut updated = HashMap::clone(&kinds);
        updated.insert(kind.into(), spec);
        *kinds = Arc::new(updated);
    }

    // ----- enqueue -----

    /// Enqueues one job. With a dedupe key that a queued or running job of the same
    /// kind holds, nothing is added and that job's id comes back with `created: false`.
    ///
    /// ```
    /// # use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new())?;
    /// let first = queue.enqueue("sync", &"inbox", EnqueueOptions::new().dedupe_key("inbox"))?;
    /// let again = queue.enqueue("sync", &"inbox", EnqueueOptions::new().dedupe_key("inbox"))?;
    /// assert_eq!(first.id, again.id);
    /// assert!(first.created && !again.created);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn enqueue<P: Serialize + ?Sized>(
        &self,
        kind: &str,
        payload: &P,
        options: EnqueueOptions,
    ) -> Result<Enqueued> {
        let payload = serde_json::to_value(payload).map_err(|error| Error::InvalidPayload {
            kind: kind.to_owned(),
            reason: error.to_string(),
        })?;
        let mut done = self.enqueue_batch([NewJob {
            kind: kind.to_owned(),
            payload,
            options,
        }])?;
        Ok(done.remove(0))
    }

    /// Enqueues several jobs in one transaction: all of them or, on any error, none.
    /// Results come back in input order.
    pub fn enqueue_batch(&self, jobs: impl IntoIterator<Item = NewJob>) -> Result<Vec<Enqueued>> {
        let now = self.now();
        let prepared = self.prepare_new(jobs, now)?;
        self.transact(now, |tx, changes| {
            prepared
                .iter()
                .map(|job| insert_prepared(tx, job, now, changes))
                .collect()
        })
    }

    /// Runs `work` in one write transaction and publishes the state changes it
    /// collected once it has committed. For the modules that write jobs together with
    /// rows of their own (the scheduler).
    pub(crate) fn transact<T>(
        &self,
        now: Timestamp,
        mut work: impl FnMut(&Transaction<'_>, &mut Changes) -> Result<T>,
    ) -> Result<T> {
        let (value, changes) = self.store().write(|tx| {
            let mut changes = Changes::new();
            let value = work(tx, &mut changes)?;
            Ok((value, changes))
        })?;
        self.publish(changes, now);
        Ok(value)
    }

    /// Runs `read` on the connection. For the modules that keep rows of their own in
    /// the same file (scheduler, sync state).
    pub(crate) fn read<T>(
        &self,
        read: impl FnOnce(&rusqlite::Connection) -> Result<T>,
    ) -> Result<T> {
        read(self.store().conn())
    }

    /// Checks and serialises new jobs before any transaction starts.
    pub(crate) fn prepare_new(
        &self,
        jobs: impl IntoIterator<Item = NewJob>,
        now: Timestamp,
    ) -> Result<Vec<PreparedJob>> {
        let kinds = read(&self.inner.kinds);
        let options = &self.inner.options;
        jobs.into_iter()
            .map(|job| {
                check_kind(&job.kind)?;
                let spec = kinds.get(&job.kind);
                if let Some(schema) = spec.and_then(|spec| spec.payload.as_ref()) {
                    schema
                        .check(&job.payload)
                        .map_err(|reason| Error::InvalidPayload {
                            kind: job.kind.clone(),
                            reason,
                        })?;
                }
                if let Some(reason) = too_deep(&job.payload) {
                    return Err(Error::InvalidPayload {
                        kind: job.kind,
                        reason,
                    });
                }
                let payload = job.payload.to_string();
                if payload.len() > options.max_payload_bytes {
                    return Err(Error::InvalidPayload {
                        kind: job.kind,
                        reason: format!(
                            "{} bytes of JSON, more than the limit of {}",
                            payload.len(),
                            options.max_payload_bytes
                        ),
                    });
                }
                if let Some(key) = &job.options.dedupe_key {
                    check_key("dedupe_key", key)?;
                }
                let max_attempts = job
                    .options
                    .max_attempts
                    .or_else(|| spec.and_then(|spec| spec.max_attempts))
                    .unwrap_or(options.max_attempts);
                if max_attempts == 0 {
                    return Err(Error::invalid_argument(
                        "max_attempts",
                        "must be at least 1",
                    ));
                }
                let run_at = match (job.options.run_at, job.options.delay) {
                    (Some(at), _) => at,
                    (None, Some(delay)) => now.saturating_add(delay),
                    (None, None) => now,
                };
                Ok(PreparedJob {
                    kind: job.kind,
                    payload,
                    priority: job.options.priority,
                    run_at,
                    max_attempts,
                    dedupe_key: job.options.dedupe_key,
                    parent: job.options.parent,
                    actor: job.options.actor,
                })
            })
            .collect()
    }

    // ----- claim -----

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
        let mut kinds: Vec<&str> = Vec::new();
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
        let now = self.now();
        let specs = self.kinds();
        let sweep = request.is_some() && self.sweep_due(now);
        if batch.is_empty() && !self.inner.last_claim_found.load(Ordering::Relaxed) {
            // A claim that will find nothing should not take the write lock: an idle
            // runner asks every poll interval, and other processes are writing. After
            // a claim that found work, the next one goes straight to the write: the
            // reads would only add a read transaction to every job.
            let store = self.store();
            let expired = sweep && jobs::any_expired(store.conn(), now)?;
            if !expired && !jobs::any_runnable(store.conn(), &kinds, now)? {
                return Ok((Vec::new(), Vec::new()));
            }
        }
        let (results, claimed, changes) = self.store().write(|tx| {
            let mut changes = Changes::new();
            let mut results = Vec::with_capacity(batch.len());
            for (lease, outcome) in &batch {
                let spec = specs.get(&lease.kind);
                results.push(self.finish_one(tx, lease, outcome, spec, now, &mut changes)?);
            }
            let claimed = match request {
                Some(request) => {
                    if sweep {
                        changes.extend(jobs::reclaim_expired(tx, now)?);
                    }
                    claim_in(tx, request, &kinds, &specs, now, &mut changes)?
                }
                None => Vec::new(),
            };
            Ok((results, claimed, changes))
        })?;
        if request.is_some() {
            self.inner
                .last_claim_found
                .store(!claimed.is_empty(), Ordering::Relaxed);
        }
        self.publish(changes, now);
        Ok((results, claimed))
    }

    /// Ends every expired lease now, as a claim would first. Returns how many.
    pub fn reclaim_expired(&self) -> Result<usize> {
        let now = self.now();
        let changes = self.store().write(|tx| jobs::reclaim_expired(tx, now))?;
        let count = changes.len();
        self.publish(changes, now);
        Ok(count)
    }

    // ----- while running -----

    /// Renews a lease for another lease length from now. Fails with
    /// [`Error::LostLease`] when the worker no longer holds it; then the worker must
    /// stop and write nothing.
    pub fn heartbeat(&self, lease: &Lease) -> Result<Heartbeat> {
        let now = self.now();
        let expires_at = now.saturating_add(lease.length());
        let renewed = self
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

    fn finish_one(
        &self,
        tx: &Transaction<'_>,
        lease: &Lease,
        outcome: &Outcome,
        spec: Option<&KindSpec>,
        now: Timestamp,
        changes: &mut Changes,
    ) -> Result<Result<Finished>> {
        let fence = fence_of(lease);
        let (exit, finished, to) = match outcome {
            Outcome::Succeeded(result) => {
                let text = match self.check_result(lease, result.as_ref(), spec) {
                    Ok(text) => text,
                    Err(invalid) => {
                        let failure = JobFailure::retryable(invalid.to_string());
                        return Ok(self
                            .fail_attempt(tx, &fence, &lease.kind, &failure, spec, now, changes)?
                            .and(Err(invalid)));
                    }
                };
                let exit = Exit::Succeeded {
                    result: text.as_deref(),
                };
                if !jobs::exit_running(tx, &fence, &exit, now)? {
                    return Ok(Err(lost(lease)));
                }
                changes.push(change(
                    &lease.kind,
                    &fence,
                    JobStatus::Running,
                    JobStatus::Succeeded,
                ));
                return Ok(Ok(Finished::Succeeded));
            }
            Outcome::Failed(failure) => {
                return self.fail_attempt(tx, &fence, &lease.kind, failure, spec, now, changes);
            }
            Outcome::Cancelled => (Exit::Cancelled, Finished::Cancelled, JobStatus::Cancelled),
            Outcome::Released => (Exit::Released, Finished::Released, JobStatus::Queued),
        };
        if !jobs::exit_running(tx, &fence, &exit, now)? {
            return Ok(Err(lost(lease)));
        }
        let mut event = change(&lease.kind, &fence, JobStatus::Running, to);
        if matches!(exit, Exit::Released) {
            event.attempt = event.attempt.saturating_sub(1);
        }
        changes.push(event);
        Ok(Ok(finished))
    }

    /// Serialises a result after checking it against the kind's schema and the size
    /// limit.
    fn check_result(
        &self,
        lease: &Lease,
        result: Option<&Value>,
        spec: Option<&KindSpec>,
    ) -> Result<Option<String>> {
        let invalid = |reason: String| Error::InvalidResult {
            id: lease.job_id,
            kind: lease.kind.clone(),
            reason,
        };
        if let Some(schema) = spec.and_then(|spec| spec.result.as_ref()) {
            schema
                .check(result.unwrap_or(&Value::Null))
                .map_err(invalid)?;
        }
        if let Some(reason) = result.and_then(too_deep) {
            return Err(invalid(reason));
        }
        let text = result.map(Value::to_string);
        let limit = self.inner.options.max_payload_bytes;
        if let Some(len) = text.as_ref().map(String::len).filter(|&len| len > limit) {
            return Err(invalid(format!(
                "{len} bytes of JSON, more than the limit of {limit}"
            )));
        }
        Ok(text)
    }

    #[allow(clippy::too_many_arguments)]
    fn fail_attempt(
        &self,
        tx: &Transaction<'_>,
        fence: &Fence<'_>,
        kind: &str,
        failure: &JobFailure,
        spec: Option<&KindSpec>,
        now: Timestamp,
        changes: &mut Changes,
    ) -> Result<Result<Finished>> {
        let Some(attempt) = jobs::fenced(tx, fence)? else {
            return Ok(Err(Error::LostLease {
                id: fence.id,
                worker: fence.worker.to_owned(),
                attempt: fence.attempt,
            }));
        };
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
            let policy = spec
                .and_then(|spec| spec.retry)
                .unwrap_or(self.inner.options.retry);
            let delay = policy.delay_for(fence.attempt, self.inner.options.random.unit());
            let at = now.saturating_add(delay);
            (
                Exit::Retry { error: &error, at },
                Finished::Retrying { at },
                JobStatus::Queued,
            )
        };
        jobs::exit_running(tx, fence, &exit, now)?;
        changes.push(change(kind, fence, JobStatus::Running, to));
        Ok(Ok(finished))
    }

    // ----- cancel -----

    /// Cancels a job: a queued one at once, a running one by asking its worker to stop
    /// (it learns on its next heartbeat, or sooner from the runner).
    pub fn cancel(&self, id: JobId) -> Result<CancelOutcome> {
        let now = self.now();
        let found = self.store().write(|tx| jobs::cancel(tx, id, now))?;
        match found {
            jobs::CancelFound::Cancelled(kind, attempt) => {
                self.publish(
                    vec![Change {
                        id,
                        kind,
                        from: Some(JobStatus::Queued),
                        to: JobStatus::Cancelled,
                        attempt,
                    }],
                    now,
                );
                Ok(CancelOutcome::Cancelled)
            }
            jobs::CancelFound::Requested => {
                // No receiver (no runner in this process) is fine: the worker learns
                // it from its next heartbeat.
                let _ = self.inner.cancels.send(id);
                self.inner.wake_hooks.call();
                Ok(CancelOutcome::Requested)
            }
            jobs::CancelFound::Finished(status) => Ok(CancelOutcome::AlreadyFinished(status)),
            jobs::CancelFound::Missing => Err(Error::JobNotFound(id)),
        }
    }

    // ----- notifications for runners -----

    /// A receiver that changes whenever jobs may have become runnable through this
    /// handle (enqueued, retried, released, requeued after an expired lease).
    #[must_use]
    pub fn wake_ups(&self) -> watch::Receiver<u64> {
        self.inner.wake.subscribe()
    }

    /// Runs `hook` on the committing thread whenever [`wake_ups`](Queue::wake_ups) or
    /// [`cancel_requests`](Queue::cancel_requests) would fire; it stays registered
    /// while it returns `true`. It must be quick and must not call back into the queue.
    pub(crate) fn on_wake(&self, hook: impl Fn() -> bool + Send + Sync + 'static) {
        lock(&self.inner.wake_hooks.0).push(Box::new(hook));
    }

    /// A receiver of the ids of running jobs whose cancellation was asked for through
    /// this handle. Workers elsewhere learn it from their next heartbeat.
    #[must_use]
    pub fn cancel_requests(&self) -> broadcast::Receiver<JobId> {
        self.inner.cancels.subscribe()
    }

    /// About the earliest time a queued job of one of `kinds` becomes runnable, if any
    /// is queued: exact for short queues, the earliest of the first few hundred in
    /// claim order for long ones. Jobs that are runnable now count as now-or-earlier.
    pub fn next_run_at(&self, kinds: &[String]) -> Result<Option<Timestamp>> {
        let store = self.store();
        let mut earliest: Option<Timestamp> = None;
        for kind in kinds {
            if let Some(at) = jobs::next_run_at(store.conn(), kind)? {
                earliest = Some(earliest.map_or(at, |e| e.min(at)));
            }
        }
        Ok(earliest)
    }

    // ----- reads -----

    /// One job.
    pub fn get(&self, id: JobId) -> Result<Option<Job>> {
        jobs::get(self.store().conn(), id)
    }

    /// A page of jobs, newest first.
    pub fn list(&self, filter: &JobFilter) -> Result<Vec<Job>> {
        let limit = filter.limit.unwrap_or(50);
        if limit == 0 || limit > 1000 {
            return Err(Error::invalid_argument("limit", "must be from 1 to 1000"));
        }
        jobs::list(self.store().conn(), filter, limit)
    }

    /// How many jobs there are of each kind in each status.
    pub fn counts(&self) -> Result<Vec<KindCount>> {
        jobs::counts(self.store().conn())
    }

    // ----- retention -----

    /// Deletes finished jobs that finished more than `older_than` ago, a batch per
    /// transaction so other writers are not held up. Returns how many.
    pub fn prune(&self, older_than: Duration) -> Result<u64> {
        let before = self.now().saturating_sub(older_than);
        let (mut total, mut after) = (0, 0);
        loop {
            let (deleted, next) = self
                .store()
                .write(|tx| jobs::prune(tx, before, after, PRUNE_BATCH))?;
            total += deleted;
            match next {
                Some(next) => after = next,
                None => return Ok(total),
            }
        }
    }

    // ----- helpers -----

    fn now(&self) -> Timestamp {
        self.inner.options.clock.now()
    }

    fn kinds(&self) -> Arc<HashMap<String, KindSpec>> {
        read(&self.inner.kinds).clone()
    }

    /// Whether a claim at `now` should first sweep for expired leases: at most once per
    /// [`LEASE_SWEEP_INTERVAL`] of clock time per queue handle.
    fn sweep_due(&self, now: Timestamp) -> bool {
        let last = self.inner.last_reclaim.load(Ordering::Relaxed);
        let due = now.as_millis().saturating_sub(last) >= duration_millis(LEASE_SWEEP_INTERVAL);
        if due {
            self.inner
                .last_reclaim
                .store(now.as_millis(), Ordering::Relaxed);
        }
        due
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.inner.store)
    }

    fn publish(&self, changes: Changes, at: Timestamp) {
        if changes.iter().any(|change| change.to == JobStatus::Queued) {
            self.inner
                .wake
                .send_modify(|count| *count = count.wrapping_add(1));
            self.inner.wake_hooks.call();
        }
        let bus = &self.inner.options.bus;
        for change in changes {
            bus.publish(JobStateChanged {
                id: change.id,
                kind: change.kind,
                from: change.from,
                to: change.to,
                attempt: change.attempt,
                at,
            });
        }
    }
}

/// Inserts a checked job in `tx`, unless its dedupe key is taken.
pub(crate) fn insert_prepared(
    tx: &Transaction<'_>,
    job: &PreparedJob,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<Enqueued> {
    if let Some(parent) = job.parent {
        if jobs::get(tx, parent)?.is_none() {
            return Err(Error::JobNotFound(parent));
        }
    }
    let (id, created) = jobs::insert(
        tx,
        &NewRow {
            kind: &job.kind,
            payload: &job.payload,
            priority: job.priority,
            run_at: job.run_at,
            max_attempts: job.max_attempts,
            dedupe_key: job.dedupe_key.as_deref(),
            parent: job.parent,
            actor: job.actor,
            now,
        },
    )?;
    if created {
        changes.push(Change {
            id,
            kind: job.kind.clone(),
            from: None,
            to: JobStatus::Queued,
            attempt: 0,
        });
    }
    Ok(Enqueued { id, created })
}

/// A new job, checked and serialised.
pub(crate) struct PreparedJob {
    kind: String,
    payload: String,
    priority: Priority,
    run_at: Timestamp,
    max_attempts: u32,
    dedupe_key: Option<String>,
    parent: Option<JobId>,
    actor: Actor,
}

/// Checks a claim request before any transaction starts.
fn check_claim(request: &ClaimRequest) -> Result<()> {
    check_key("worker", &request.worker)?;
    if request.kinds.is_empty() {
        return Err(Error::invalid_argument("kinds", "name at least one kind"));
    }
    if request.lease.is_zero() || request.kind_leases.values().any(Duration::is_zero) {
        return Err(Error::invalid_argument("lease", "must be longer than zero"));
    }
    Ok(())
}

/// The claim itself, inside a write transaction: skip kinds at their cap, take the
/// best runnable jobs, mark them running under the worker's lease.
fn claim_in(
    tx: &Transaction<'_>,
    request: &ClaimRequest,
    kinds: &[&str],
    specs: &HashMap<String, KindSpec>,
    now: Timestamp,
    changes: &mut Changes,
) -> Result<Vec<ClaimedJob>> {
    let mut candidates = Vec::new();
    for kind in kinds {
        let mut room = request.max_jobs;
        if let Some(&cap) = request.limits.get(*kind) {
            room = room.min(cap.saturating_sub(jobs::running_count(tx, kind)?));
        }
        if room > 0 {
            candidates.extend(
                jobs::candidates(tx, kind, now, room)?
                    .into_iter()
                    .map(|candidate| (candidate, *kind)),
            );
        }
    }
    candidates.sort_unstable();
    candidates.truncate(request.max_jobs as usize);
    let mut claimed = Vec::with_capacity(candidates.len());
    for (candidate, kind) in candidates {
        let lease_length = request.lease_for(kind);
        let expires_at = now.saturating_add(lease_length);
        let job = match jobs::mark_running(tx, candidate.id, &request.worker, expires_at, now) {
            Ok(job) => job,
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
                });
                continue;
            }
            Err(error) => return Err(error),
        };
        changes.push(Change {
            id: job.id,
            kind: job.kind.clone(),
            from: Some(JobStatus::Queued),
            to: JobStatus::Running,
            attempt: job.attempts,
        });
        let fence = Fence {
            id: job.id,
            worker: &request.worker,
            attempt: job.attempts,
        };
        let payload_schema = specs.get(&job.kind).and_then(|spec| spec.payload.as_ref());
        if let Some(Err(reason)) = payload_schema.map(|schema| schema.check(&job.payload)) {
            let error = sanitize_error(&format!("invalid payload: {reason}"));
            jobs::exit_running(tx, &fence, &Exit::Failed { error: &error }, now)?;
            changes.push(change(
                &job.kind,
                &fence,
                JobStatus::Running,
                JobStatus::Failed,
            ));
            continue;
        }
        let lease = Lease {
            job_id: job.id,
            kind: job.kind.clone(),
            worker: request.worker.clone(),
            attempt: job.attempts,
            expires_at,
            length_ms: lease_length.as_millis() as u64,
        };
        claimed.push(ClaimedJob { job, lease });
    }
    Ok(claimed)
}

fn fence_of(lease: &Lease) -> Fence<'_> {
    Fence {
        id: lease.job_id,
        worker: &lease.worker,
        attempt: lease.attempt,
    }
}

fn lost(lease: &Lease) -> Error {
    Error::LostLease {
        id: lease.job_id,
        worker: lease.worker.clone(),
        attempt: lease.attempt,
    }
}

fn change(kind: &str, fence: &Fence<'_>, from: JobStatus, to: JobStatus) -> Change {
    Change {
        id: fence.id,
        kind: kind.to_owned(),
        from: Some(from),
        to,
        attempt: fence.attempt,
    }
}

/// The deepest nesting a payload or result may have. Deeper JSON could be stored but
/// not read back (the parser stops at 128 levels), which would make the job a poison
/// pill for every claim.
pub const MAX_JSON_DEPTH: usize = 64;

/// Why `value` nests too deeply, if it does.
fn too_deep(value: &Value) -> Option<String> {
    let mut stack = vec![(value, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_JSON_DEPTH {
            return Some(format!("JSON nested deeper than {MAX_JSON_DEPTH} levels"));
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(fields) => stack.extend(fields.values().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    None
}

fn check_kind(kind: &str) -> Result<()> {
    if kind.is_empty() {
        return Err(Error::invalid_argument("kind", "must not be empty"));
    }
    if kind.len() > MAX_KIND_BYTES {
        return Err(Error::invalid_argument(
            "kind",
            format!(
                "{} bytes, more than the limit of {MAX_KIND_BYTES}",
                kind.len()
            ),
        ));
    }
    Ok(())
}

fn check_key(name: &'static str, key: &str) -> Result<()> {
    if key.is_empty() {
        return Err(Error::invalid_argument(name, "must not be empty"));
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(Error::invalid_argument(
            name,
            format!(
                "{} bytes, more than the limit of {MAX_KEY_BYTES}",
                key.len()
            ),
        ));
    }
    Ok(())
}
