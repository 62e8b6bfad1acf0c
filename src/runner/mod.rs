//! The runner: async workers that claim durable jobs and run their handlers.
//!
//! One loop per runner does everything, in steps that tests can call one by one:
//! [`finish_pending`](Runner::finish_pending) writes the outcomes of handlers that
//! returned (several in one transaction), [`maintain`](Runner::maintain) renews leases
//! due for renewal (every third of the lease, judged on the injected clock) and acts
//! on cancellations, and [`dispatch`](Runner::dispatch) claims as many jobs as there
//! are free slots and starts their handlers as tokio tasks. The loop sleeps until a
//! job is enqueued in this process, a handler returns, a cancel arrives, or the next
//! due time or poll interval (jobs written by other processes) comes.
//!
//! Tests drive the steps, or [`drain`](Runner::drain), with a fake clock and never
//! sleep; [`start`](Runner::start) is only the loop around them.
//!
//! A handler whose job is cancelled, whose lease was lost, or that outlives the grace
//! period of [`stop`](Runner::stop) has its task aborted (its future is dropped at its
//! next `.await`). A panic in a handler is caught by its task and counted as a failed
//! attempt; the runner lives on.

mod handler;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, Notify};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use handler::{Handler, JobContext, JobError};

use crate::bus::panic_message;
use crate::clock::Timestamp;
use crate::config::JobsConfig;
use crate::error::{Error, Result};
use crate::locks::lock;
use crate::queue::{ClaimRequest, ClaimedJob, Finished, JobFailure, JobId, Lease, Outcome, Queue};

/// How the runner behaves; `config.toml`'s `[jobs]` section fills it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunnerSettings {
    /// Jobs run at once.
    pub workers: u32,
    /// Lease length for kinds that name none.
    pub lease: Duration,
    /// How often to look for jobs written by other processes.
    pub poll_interval: Duration,
    /// Finished jobs older than this are deleted; `None` keeps them.
    pub retention: Option<Duration>,
    /// Caps per kind that win over the handlers' defaults.
    pub kind_limits: HashMap<String, u32>,
    /// This runner's worker id, fencing its leases; unique per process by default.
    pub worker_id: String,
}

impl Default for RunnerSettings {
    fn default() -> Self {
        RunnerSettings {
            workers: 4,
            lease: Duration::from_secs(30),
            poll_interval: Duration::from_secs(1),
            retention: Some(Duration::from_secs(7 * 86_400)),
            kind_limits: HashMap::new(),
            worker_id: format!("runner-{}-{}", std::process::id(), rand::random::<u32>()),
        }
    }
}

impl RunnerSettings {
    /// Defaults overridden by what `config.toml` sets.
    #[must_use]
    pub fn from_config(config: &JobsConfig) -> Self {
        let defaults = RunnerSettings::default();
        RunnerSettings {
            workers: config.workers.unwrap_or(defaults.workers),
            lease: config.lease.unwrap_or(defaults.lease),
            poll_interval: config.poll_interval.unwrap_or(defaults.poll_interval),
            retention: config.retention.or(defaults.retention),
            kind_limits: config.kind_limits.clone(),
            worker_id: defaults.worker_id,
        }
    }
}

/// How one job's attempt ended, as [`drain`](Runner::drain) reports it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Ran {
    /// The job.
    pub id: JobId,
    /// Its kind.
    pub kind: String,
    /// The attempt.
    pub attempt: u32,
    /// Where the job went; `Err` holds the message of an error writing it.
    pub finished: std::result::Result<Finished, String>,
}

/// Why a handler's task is being stopped from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interrupt {
    /// Cancellation was asked for: record `cancelled`.
    Cancel,
    /// Another worker holds the lease now: write nothing.
    LostLease,
    /// Shutdown past its grace: give the job back, attempt not counted.
    Release,
}

struct RunningJob {
    lease: Lease,
    renewed_at: Timestamp,
    token: CancellationToken,
    interrupt: Option<oneshot::Sender<Interrupt>>,
}

/// An attempt whose handler returned, waiting to be written.
struct Done {
    lease: Lease,
    outcome: Option<Outcome>,
}

struct Inner {
    queue: Queue,
    handlers: HashMap<String, Handler>,
    kinds: Vec<String>,
    request: ClaimRequest,
    settings: RunnerSettings,
    running: Mutex<HashMap<JobId, RunningJob>>,
    done_tx: mpsc::UnboundedSender<Done>,
    done_rx: tokio::sync::Mutex<mpsc::UnboundedReceiver<Done>>,
    // Wakes the loop: a handler returned.
    done_ready: Notify,
    cancels: Mutex<tokio::sync::broadcast::Receiver<JobId>>,
    shutdown: CancellationToken,
    loop_task: Mutex<Option<JoinHandle<()>>>,
    // Clock time of the last retention sweep, in ms.
    last_prune: AtomicI64,
    reports: Mutex<Vec<Ran>>,
}

/// Runs durable jobs with registered handlers. Cheap to clone.
#[derive(Clone)]
pub struct Runner {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("kinds", &self.inner.kinds)
            .field("settings", &self.inner.settings)
            .finish_non_exhaustive()
    }
}

impl Runner {
    /// A runner over `queue` with these handlers. Registers each handler's kind with
    /// the queue (schemas, retry, attempts). Fails when a kind is registered twice or
    /// the settings are impossible.
    pub fn new(queue: Queue, handlers: Vec<Handler>, settings: RunnerSettings) -> Result<Runner> {
        if settings.workers == 0 {
            return Err(Error::invalid_argument("workers", "must be at least 1"));
        }
        if settings.lease.is_zero() || settings.poll_interval.is_zero() {
            return Err(Error::invalid_argument(
                "lease",
                "lease and poll interval must be longer than zero",
            ));
        }
        let mut by_kind = HashMap::new();
        let mut request = ClaimRequest::new(settings.worker_id.clone(), Vec::<String>::new())
            .lease(settings.lease);
        for handler in handlers {
            if by_kind.contains_key(&handler.kind) {
                return Err(Error::invalid_argument(
                    "handlers",
                    format!("kind {:?} has two handlers", handler.kind),
                ));
            }
            queue.register_kind(handler.kind.clone(), handler.spec.clone());
            let cap = settings
                .kind_limits
                .get(&handler.kind)
                .copied()
                .or(handler.concurrency);
            if let Some(cap) = cap {
                request = request.limit(handler.kind.clone(), cap);
            }
            if let Some(lease) = handler.lease {
                request = request.kind_lease(handler.kind.clone(), lease);
            }
            by_kind.insert(handler.kind.clone(), handler);
        }
        let mut kinds: Vec<String> = by_kind.keys().cloned().collect();
        kinds.sort();
        request.kinds = kinds.clone();
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        let cancels = queue.cancel_requests();
        Ok(Runner {
            inner: Arc::new(Inner {
                queue,
                handlers: by_kind,
                kinds,
                request,
                settings,
                running: Mutex::new(HashMap::new()),
                done_tx,
                done_rx: tokio::sync::Mutex::new(done_rx),
                done_ready: Notify::new(),
                cancels: Mutex::new(cancels),
                shutdown: CancellationToken::new(),
                loop_task: Mutex::new(None),
                last_prune: AtomicI64::new(i64::MIN),
                reports: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The queue this runner works on.
    #[must_use]
    pub fn queue(&self) -> &Queue {
        &self.inner.queue
    }

    /// The kinds this runner has handlers for.
    #[must_use]
    pub fn kinds(&self) -> &[String] {
        &self.inner.kinds
    }

    /// The cap in force for `kind`, if any.
    #[must_use]
    pub fn limit_for(&self, kind: &str) -> Option<u32> {
        self.inner.request.limits.get(kind).copied()
    }

    /// How many jobs this runner is running now.
    #[must_use]
    pub fn running(&self) -> usize {
        lock(&self.inner.running).len()
    }

    // ===== steps =====

    /// Claims up to the free slots' worth of runnable jobs and starts their handlers.
    /// Returns how many started.
    pub async fn dispatch(&self) -> Result<usize> {
        if self.inner.shutdown.is_cancelled() {
            return Ok(0);
        }
        let free = (self.inner.settings.workers as usize).saturating_sub(self.running());
        if free == 0 || self.inner.kinds.is_empty() {
            return Ok(0);
        }
        let mut request = self.inner.request.clone();
        request.max_jobs = free as u32;
        let queue = self.inner.queue.clone();
        let claimed = blocking(move || queue.claim(&request)).await?;
        let count = claimed.len();
        for job in claimed {
            self.launch(job);
        }
        Ok(count)
    }

    /// Writes the outcomes of handlers that returned, all in one transaction.
    /// Returns how many.
    pub async fn finish_pending(&self) -> Result<usize> {
        let mut batch = Vec::new();
        {
            let mut done_rx = self.inner.done_rx.lock().await;
            while let Ok(done) = done_rx.try_recv() {
                batch.push(done);
            }
        }
        if batch.is_empty() {
            return Ok(0);
        }
        let count = batch.len();
        let writes: Vec<(Lease, Outcome)> = batch
            .iter()
            .filter_map(|done| Some((done.lease.clone(), done.outcome.clone()?)))
            .collect();
        let queue = self.inner.queue.clone();
        let results = blocking(move || queue.finish_batch(writes)).await;
        let mut results = match results {
            Ok(results) => results.into_iter(),
            Err(error) => {
                // Nothing was written: the leases run out and the jobs run again.
                tracing::error!(%error, "could not record finished jobs");
                self.forget(batch.iter().map(|done| done.lease.job_id));
                return Err(error);
            }
        };
        let mut reports = Vec::with_capacity(count);
        for done in &batch {
            let finished = match done.outcome {
                Some(_) => results
                    .next()
                    .map_or(Err("missing result".to_owned()), |r| {
                        r.map_err(|error| error.to_string())
                    }),
                None => Err("lease lost; nothing written".to_owned()),
            };
            if let Err(error) = &finished {
                tracing::warn!(job = %done.lease.job_id, %error, "attempt not recorded");
            }
            reports.push(Ran {
                id: done.lease.job_id,
                kind: done.lease.kind.clone(),
                attempt: done.lease.attempt,
                finished,
            });
        }
        self.forget(batch.iter().map(|done| done.lease.job_id));
        lock(&self.inner.reports).extend(reports);
        Ok(count)
    }

    /// Acts on cancellations asked for through this queue handle, renews leases that
    /// are a third of the way through (on the injected clock), interrupts handlers
    /// whose job was cancelled elsewhere or whose lease was lost, and deletes finished
    /// jobs past retention once an hour.
    pub async fn maintain(&self) -> Result<()> {
        let cancelled: Vec<JobId> = {
            let mut cancels = lock(&self.inner.cancels);
            let mut ids = Vec::new();
            loop {
                match cancels.try_recv() {
                    Ok(id) => ids.push(id),
                    Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {
                        // Some were lost: check every running job on its heartbeat.
                        ids.extend(lock(&self.inner.running).keys().copied());
                    }
                    Err(_) => break,
                }
            }
            ids
        };
        for id in cancelled {
            self.interrupt(id, Interrupt::Cancel);
        }

        let now = self.now();
        let due: Vec<Lease> = lock(&self.inner.running)
            .values()
            .filter(|job| {
                job.interrupt.is_some()
                    && now.duration_since(job.renewed_at) >= job.lease.length() / 3
            })
            .map(|job| job.lease.clone())
            .collect();
        for lease in due {
            let queue = self.inner.queue.clone();
            let beat_lease = lease.clone();
            match blocking(move || queue.heartbeat(&beat_lease)).await {
                Ok(beat) => {
                    if let Some(job) = lock(&self.inner.running).get_mut(&lease.job_id) {
                        job.renewed_at = now;
                        job.lease.expires_at = beat.expires_at;
                    }
                    if beat.cancel_requested {
                        self.interrupt(lease.job_id, Interrupt::Cancel);
                    }
                }
                Err(Error::LostLease { .. }) => self.interrupt(lease.job_id, Interrupt::LostLease),
                Err(error) => {
                    tracing::warn!(job = %lease.job_id, %error, "lease renewal failed; will retry")
                }
            }
        }

        if let Some(retention) = self.inner.settings.retention {
            let last = self.inner.last_prune.load(Ordering::Relaxed);
            if now.as_millis().saturating_sub(last) >= 3_600_000 {
                self.inner
                    .last_prune
                    .store(now.as_millis(), Ordering::Relaxed);
                let queue = self.inner.queue.clone();
                match blocking(move || queue.prune(retention)).await {
                    Ok(0) => {}
                    Ok(pruned) => tracing::debug!(pruned, "deleted finished jobs past retention"),
                    Err(error) => tracing::warn!(%error, "retention sweep failed"),
                }
            }
        }
        Ok(())
    }

    /// Runs until nothing is runnable at the clock's now and nothing is running, and
    /// reports every attempt that ended. For tests: with a fake clock, jobs delayed
    /// into the future stay queued.
    pub async fn drain(&self) -> Result<Vec<Ran>> {
        lock(&self.inner.reports).clear();
        loop {
            self.finish_pending().await?;
            self.maintain().await?;
            let started = self.dispatch().await?;
            if started == 0 && self.running() == 0 {
                break;
            }
            if started == 0 {
                self.inner.done_ready.notified().await;
            }
        }
        Ok(std::mem::take(&mut *lock(&self.inner.reports)))
    }

    // ===== background =====

    /// Starts the loop on the current tokio runtime. Calling it twice does nothing.
    pub fn start(&self) {
        let mut task = lock(&self.inner.loop_task);
        if task.is_some() || self.inner.shutdown.is_cancelled() {
            return;
        }
        let runner = self.clone();
        *task = Some(tokio::spawn(async move { runner.run_loop().await }));
    }

    async fn run_loop(&self) {
        let mut wake_ups = self.inner.queue.wake_ups();
        let mut cancels = self.inner.queue.cancel_requests();
        loop {
            if let Err(error) = self.step().await {
                tracing::warn!(%error, "runner step failed; retrying after the poll interval");
            }
            let wait = self.next_wait();
            tokio::select! {
                _ = self.inner.shutdown.cancelled() => return,
                _ = wake_ups.changed() => {}
                _ = self.inner.done_ready.notified() => {}
                _ = cancels.recv() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    async fn step(&self) -> Result<()> {
        self.finish_pending().await?;
        self.maintain().await?;
        self.dispatch().await?;
        Ok(())
    }

    /// How long the loop may sleep: until the poll interval, the next queued job's
    /// run time, or the next lease renewal, whichever comes first.
    fn next_wait(&self) -> Duration {
        let now = self.now();
        let mut wait = self.inner.settings.poll_interval;
        for job in lock(&self.inner.running).values() {
            let renew_at = job.renewed_at.saturating_add(job.lease.length() / 3);
            wait = wait.min(renew_at.duration_since(now));
        }
        let free = (self.inner.settings.workers as usize) > self.running();
        if free {
            let queue = &self.inner.queue;
            if let Ok(Some(at)) = queue.next_run_at(&self.inner.kinds) {
                wait = wait.min(at.duration_since(now));
            }
        }
        wait
    }

    /// Stops claiming, lets running handlers finish for `grace`, then interrupts the
    /// rest and gives their jobs back without counting the attempt.
    pub async fn stop(&self, grace: Duration) -> Result<()> {
        self.inner.shutdown.cancel();
        let task = lock(&self.inner.loop_task).take();
        if let Some(task) = task {
            let _ = task.await;
        }
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            self.finish_pending().await?;
            if self.running() == 0 {
                return Ok(());
            }
            let notified = self.inner.done_ready.notified();
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                break;
            }
        }
        let ids: Vec<JobId> = lock(&self.inner.running).keys().copied().collect();
        for id in ids {
            self.interrupt(id, Interrupt::Release);
        }
        while self.running() > 0 {
            let notified = self.inner.done_ready.notified();
            if self.finish_pending().await? == 0 {
                notified.await;
            }
        }
        Ok(())
    }

    // ===== helpers =====

    fn now(&self) -> Timestamp {
        self.inner.queue.clock().now()
    }

    fn forget(&self, ids: impl Iterator<Item = JobId>) {
        let mut running = lock(&self.inner.running);
        for id in ids {
            running.remove(&id);
        }
    }

    /// Stops a running handler for `why`. The job's task sends its outcome.
    fn interrupt(&self, id: JobId, why: Interrupt) {
        let mut running = lock(&self.inner.running);
        if let Some(job) = running.get_mut(&id) {
            job.token.cancel();
            if let Some(interrupt) = job.interrupt.take() {
                let _ = interrupt.send(why);
            }
        }
    }

    /// Starts the handler of a claimed job in its own task.
    fn launch(&self, claimed: ClaimedJob) {
        let ClaimedJob { job, lease } = claimed;
        let Some(handler) = self.inner.handlers.get(&job.kind) else {
            // The claim names only our kinds; this cannot happen, but never panic.
            tracing::error!(kind = %job.kind, "claimed a job with no handler");
            return;
        };
        let token = CancellationToken::new();
        let (interrupt_tx, interrupt_rx) = oneshot::channel();
        let ctx = JobContext::new(
            job.id,
            job.kind.clone(),
            lease.attempt,
            job.parent,
            job.actor,
            token.clone(),
        );
        lock(&self.inner.running).insert(
            job.id,
            RunningJob {
                lease: lease.clone(),
                renewed_at: self.now(),
                token,
                interrupt: Some(interrupt_tx),
            },
        );
        let work = tokio::spawn((handler.run)(job.payload, ctx));
        let inner = self.inner.clone();
        tokio::spawn(async move {
            let outcome = supervise(work, interrupt_rx).await;
            let _ = inner.done_tx.send(Done { lease, outcome });
            inner.done_ready.notify_waiters();
            inner.done_ready.notify_one();
        });
    }
}

/// Waits for a handler's task or an interrupt, whichever comes first, and turns the
/// result into what should be written (`None`: write nothing).
async fn supervise(
    mut work: JoinHandle<std::result::Result<Option<serde_json::Value>, JobError>>,
    interrupt: oneshot::Receiver<Interrupt>,
) -> Option<Outcome> {
    let joined = tokio::select! {
        joined = &mut work => joined,
        why = interrupt => {
            work.abort();
            let _ = (&mut work).await;
            return match why {
                Ok(Interrupt::Cancel) => Some(Outcome::Cancelled),
                Ok(Interrupt::Release) => Some(Outcome::Released),
                Ok(Interrupt::LostLease) | Err(_) => None,
            };
        }
    };
    Some(match joined {
        Ok(Ok(result)) => Outcome::Succeeded(result),
        Ok(Err(JobError::Permanent(message))) => Outcome::Failed(JobFailure::permanent(message)),
        Ok(Err(JobError::Retryable(message))) => Outcome::Failed(JobFailure::retryable(message)),
        Err(error) if error.is_panic() => {
            let message = panic_message(&*error.into_panic());
            Outcome::Failed(JobFailure::retryable(format!(
                "handler panicked: {message}"
            )))
        }
        Err(_) => Outcome::Failed(JobFailure::retryable("handler task was cancelled")),
    })
}

/// Runs blocking queue work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) => Err(Error::invalid_argument(
            "runner",
            format!("a database task stopped: {error}"),
        )),
    }
}
