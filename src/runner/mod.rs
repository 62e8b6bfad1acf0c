//! The runner: claims durable jobs and runs their handlers as tokio tasks.
//!
//! SQLite work is blocking, so each started runner owns one thread for it. That
//! thread loops over three steps, which tests can also call one by one:
//! [`finish_pending`](Runner::finish_pending) writes the outcomes of handlers that
//! returned (all of them in one transaction), [`maintain`](Runner::maintain) renews
//! leases a third of the way through (judged on the injected clock) and acts on
//! cancellations, and [`dispatch`](Runner::dispatch) claims as many jobs as there are
//! free slots (in one transaction) and starts their handlers: each handler's future
//! is polled once right there, inside the runtime's context, and spawned on the tokio
//! runtime only if it has to wait.
//! Between rounds the thread sleeps until a handler returns, a job is enqueued or a
//! cancel is asked for in this process, a lease is due for renewal, a queued job falls
//! due, or the poll interval (jobs written by other processes) passes.
//!
//! Compared with running each query through `spawn_blocking`, the thread costs two
//! thread hand-offs per job instead of six, and none for a handler that finishes in
//! its first poll; hand-offs were most of a short job's cost (measured in
//! `benches/suite`: 20,000 queued no-op jobs, 4 workers, 15k jobs/s with both
//! hand-offs, 34-42k with the first poll on the thread).
//!
//! Tests drive the steps, or [`drain`](Runner::drain), with a fake clock and never
//! sleep; [`start`](Runner::start) is only the loop around them.
//!
//! A handler whose job is cancelled, whose lease was lost, or that outlives the grace
//! period of [`stop`](Runner::stop) is interrupted: its future is dropped at its next
//! `.await`. A panic in a handler is caught and counted as a failed attempt.

mod handler;

use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::{oneshot, Notify};
use tokio_util::sync::CancellationToken;

use handler::HandlerFuture;
pub use handler::{Handler, JobContext, JobError};

use crate::clock::Timestamp;
use crate::config::JobsConfig;
use crate::error::{Error, Result};
use crate::locks::lock;
use crate::panics::{panic_message, CatchUnwind};
use crate::queue::sanitize_error;
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
    /// Where the job went; `Err` holds why nothing (or not that) was written.
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

/// What wakes the runner's thread.
enum Signal {
    /// A handler returned; `None` outcome: write nothing.
    Done(Lease, Option<Outcome>),
    /// Jobs may be runnable, or a cancel was asked for: run a round.
    Wake,
    /// Leave the loop.
    Stop,
}

struct Inner {
    queue: Queue,
    handlers: HashMap<String, Handler>,
    kinds: Vec<String>,
    request: ClaimRequest,
    settings: RunnerSettings,
    running: Mutex<HashMap<JobId, RunningJob>>,
    signals: mpsc::Sender<Signal>,
    // Mutex: only one of the loop thread, drain() and stop() reads at a time.
    inbox: Mutex<mpsc::Receiver<Signal>>,
    // Wakes drain() and stop(), which wait in async code, when a handler returns.
    done_ready: Notify,
    cancels: Mutex<tokio::sync::broadcast::Receiver<JobId>>,
    stopping: CancellationToken,
    runtime: Mutex<Option<Handle>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    // Clock time of the last retention sweep, in ms; Relaxed: only this runner's
    // rounds read it, one at a time.
    last_prune: AtomicI64,
    // Set while a Wake is in the inbox; the thread clears it when it takes one.
    wake_pending: Arc<AtomicBool>,
    // What ended while drain() runs; `None` otherwise, so a started runner keeps none.
    reports: Mutex<Option<Vec<Ran>>>,
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
    /// the queue (schemas, retry, attempts). Fails when a kind has two handlers or the
    /// settings are impossible.
    pub fn new(queue: Queue, handlers: Vec<Handler>, settings: RunnerSettings) -> Result<Runner> {
        if settings.workers == 0 {
            return Err(Error::invalid_argument("workers", "must be at least 1"));
        }
        if settings.lease.is_zero() {
            return Err(Error::invalid_argument("lease", "must be longer than zero"));
        }
        if settings.poll_interval.is_zero() {
            return Err(Error::invalid_argument(
                "poll_interval",
                "must be longer than zero",
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
        let (signals, inbox) = mpsc::channel();
        let cancels = queue.cancel_requests();
        Ok(Runner {
            inner: Arc::new(Inner {
                queue,
                handlers: by_kind,
                kinds,
                request,
                settings,
                running: Mutex::new(HashMap::new()),
                signals,
                inbox: Mutex::new(inbox),
                done_ready: Notify::new(),
                cancels: Mutex::new(cancels),
                stopping: CancellationToken::new(),
                runtime: Mutex::new(None),
                thread: Mutex::new(None),
                last_prune: AtomicI64::new(i64::MIN),
                reports: Mutex::new(None),
                wake_pending: Arc::new(AtomicBool::new(false)),
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

    /// Claims up to the free slots' worth of runnable jobs in one transaction and
    /// spawns their handlers on the tokio runtime (the one [`start`](Runner::start)
    /// ran on, else the current one). Returns how many started.
    ///
    /// Blocks on SQLite: call it from a test or a blocking context.
    pub fn dispatch(&self) -> Result<usize> {
        Ok(self.settle(Vec::new(), true)?.1)
    }

    /// Writes the outcomes of handlers that returned, all in one transaction.
    /// Returns how many attempts ended.
    ///
    /// Blocks on SQLite: call it from a test or a blocking context.
    pub fn finish_pending(&self) -> Result<usize> {
        let mut batch = Vec::new();
        for signal in lock(&self.inner.inbox).try_iter() {
            if let Signal::Done(lease, outcome) = signal {
                batch.push((lease, outcome));
            }
        }
        Ok(self.settle(batch, false)?.0)
    }

    /// Writes `batch` and, with `claim`, claims jobs for the slots free once it is
    /// written, in one transaction; launches what it claimed. Returns how many attempts
    /// ended and how many jobs started.
    fn settle(&self, batch: Vec<(Lease, Option<Outcome>)>, claim: bool) -> Result<(usize, usize)> {
        let free = (self.inner.settings.workers as usize)
            .saturating_sub(self.running().saturating_sub(batch.len()));
        let claiming = claim
            && free > 0
            && !self.inner.stopping.is_cancelled()
            && !self.inner.kinds.is_empty();
        let runtime = if claiming {
            Some(match lock(&self.inner.runtime).clone() {
                Some(handle) => handle,
                None => Handle::try_current().map_err(|_| {
                    Error::invalid_argument("runtime", "dispatch needs a tokio runtime")
                })?,
            })
        } else {
            None
        };
        if batch.is_empty() && runtime.is_none() {
            return Ok((0, 0));
        }
        let writes: Vec<(Lease, Outcome)> = batch
            .iter()
            .filter_map(|(lease, outcome)| Some((lease.clone(), outcome.clone()?)))
            .collect();
        let mut request = self.inner.request.clone();
        request.max_jobs = free as u32;
        let settled = self
            .inner
            .queue
            .finish_and_claim(writes, runtime.as_ref().map(|_| &request));
        self.forget(batch.iter().map(|(lease, _)| lease.job_id));
        let (results, claimed) = match settled {
            Ok(settled) => settled,
            Err(error) => {
                // Nothing was written: the leases run out and the jobs run again.
                tracing::error!(%error, "could not record finished jobs");
                return Err(error);
            }
        };
        self.report(&batch, results);
        let started = claimed.len();
        if let Some(runtime) = runtime {
            for job in claimed {
                self.launch(&runtime, job);
            }
        }
        Ok((batch.len(), started))
    }

    /// Keeps what happened to each attempt for [`drain`](Runner::drain).
    fn report(&self, batch: &[(Lease, Option<Outcome>)], results: Vec<Result<Finished>>) {
        let mut results = results.into_iter();
        let mut reports = lock(&self.inner.reports);
        for (lease, outcome) in batch {
            let finished = match outcome {
                Some(_) => results
                    .next()
                    .map_or(Err("missing result".to_owned()), |r| {
                        r.map_err(|e| e.to_string())
                    }),
                None => Err("lease lost; nothing written".to_owned()),
            };
            if let Err(error) = &finished {
                tracing::warn!(job = %lease.job_id, error = %sanitize_error(error), "attempt not recorded");
            }
            if let Some(reports) = reports.as_mut() {
                reports.push(Ran {
                    id: lease.job_id,
                    kind: lease.kind.clone(),
                    attempt: lease.attempt,
                    finished,
                });
            }
        }
    }

    /// Acts on cancellations asked for through this queue handle, renews leases that
    /// are a third of the way through (on the injected clock), interrupts handlers
    /// whose job was cancelled elsewhere or whose lease was lost, and deletes finished
    /// jobs past retention once an hour of clock time.
    ///
    /// Blocks on SQLite: call it from a test or a blocking context.
    pub fn maintain(&self) -> Result<()> {
        let cancelled: Vec<JobId> = {
            let mut cancels = lock(&self.inner.cancels);
            let mut ids = Vec::new();
            loop {
                match cancels.try_recv() {
                    Ok(id) => ids.push(id),
                    Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {
                        // Some were lost: ask about every running job now.
                        self.renew(
                            lock(&self.inner.running)
                                .values()
                                .map(|j| j.lease.clone())
                                .collect(),
                        );
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
        self.renew(due);

        if let Some(retention) = self.inner.settings.retention {
            let last = self.inner.last_prune.load(Ordering::Relaxed);
            if now.as_millis().saturating_sub(last) >= 3_600_000 {
                self.inner
                    .last_prune
                    .store(now.as_millis(), Ordering::Relaxed);
                match self.inner.queue.prune(retention) {
                    Ok(0) => {}
                    Ok(pruned) => tracing::debug!(pruned, "deleted finished jobs past retention"),
                    Err(error) => tracing::warn!(%error, "retention sweep failed"),
                }
            }
        }
        Ok(())
    }

    fn renew(&self, leases: Vec<Lease>) {
        let now = self.now();
        for lease in leases {
            match self.inner.queue.heartbeat(&lease) {
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
                    tracing::warn!(job = %lease.job_id, %error, "lease renewal failed; will retry");
                }
            }
        }
    }

    /// Runs rounds until nothing is runnable at the clock's now and nothing is
    /// running, and reports every attempt that ended. For tests: with a fake clock,
    /// jobs delayed into the future stay queued. Do not call it on a started runner.
    pub async fn drain(&self) -> Result<Vec<Ran>> {
        *lock(&self.inner.reports) = Some(Vec::new());
        loop {
            // Registered before the round, so a handler returning meanwhile is seen.
            let done = self.inner.done_ready.notified();
            self.finish_pending()?;
            self.maintain()?;
            let started = self.dispatch()?;
            if started == 0 && self.running() == 0 {
                break;
            }
            if started == 0 {
                done.await;
            }
        }
        Ok(lock(&self.inner.reports).take().unwrap_or_default())
    }

    // ===== background =====

    /// Starts the runner's thread; handlers run on the current tokio runtime.
    /// Calling it again, or after [`stop`](Runner::stop), does nothing.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub fn start(&self) {
        let mut thread = lock(&self.inner.thread);
        if thread.is_some() || self.inner.stopping.is_cancelled() {
            return;
        }
        *lock(&self.inner.runtime) = Some(Handle::current());
        // In-process wake-ups (enqueue, cancel) go straight to the thread, one at a
        // time: while one is waiting, more would only wake it for nothing.
        let signals = self.inner.signals.clone();
        let stopping = self.inner.stopping.clone();
        let pending = self.inner.wake_pending.clone();
        self.inner.queue.on_wake(move || {
            if stopping.is_cancelled() {
                return false;
            }
            if pending.swap(true, Ordering::AcqRel) {
                return true;
            }
            signals.send(Signal::Wake).is_ok()
        });
        let runner = self.clone();
        let spawned = std::thread::Builder::new()
            .name("jobs-runner".into())
            .spawn(move || runner.run_loop());
        match spawned {
            Ok(handle) => *thread = Some(handle),
            Err(error) => tracing::error!(%error, "could not start the runner thread"),
        }
    }

    fn run_loop(&self) {
        let mut batch = Vec::new();
        loop {
            let saturated = match self.round(std::mem::take(&mut batch)) {
                Ok(saturated) => saturated,
                Err(error) => {
                    tracing::warn!(%error, "runner round failed; trying again after the poll interval");
                    false
                }
            };
            let inbox = lock(&self.inner.inbox);
            // Work already waiting (often a handler that finished during its first
            // poll) needs no wait, nor the query that works out how long to wait.
            let first = match inbox.try_recv() {
                Ok(signal) => signal,
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => match inbox.recv_timeout(self.next_wait(saturated)) {
                    Ok(signal) => signal,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
            };
            // Take everything that is waiting: several outcomes make one transaction.
            for signal in std::iter::once(first).chain(inbox.try_iter()) {
                match signal {
                    Signal::Done(lease, outcome) => batch.push((lease, outcome)),
                    Signal::Wake => self.inner.wake_pending.store(false, Ordering::Release),
                    Signal::Stop => {
                        drop(inbox);
                        if let Err(error) = self.settle(batch, false) {
                            tracing::warn!(%error, "could not record finished jobs at stop");
                        }
                        return;
                    }
                }
            }
        }
    }

    /// One round of the loop: lease upkeep, then the finished attempts written and
    /// the freed slots refilled in one transaction. Returns whether every slot is busy.
    fn round(&self, batch: Vec<(Lease, Option<Outcome>)>) -> Result<bool> {
        self.maintain()?;
        self.settle(batch, true)?;
        Ok(self.running() >= self.inner.settings.workers as usize)
    }

    /// How long the thread may sleep: until the poll interval, the next lease
    /// renewal, or (when a slot is free) the next queued job's run time.
    fn next_wait(&self, saturated: bool) -> Duration {
        let now = self.now();
        let mut wait = self.inner.settings.poll_interval;
        for job in lock(&self.inner.running).values() {
            let renew_at = job.renewed_at.saturating_add(job.lease.length() / 3);
            wait = wait.min(renew_at.duration_since(now));
        }
        if !saturated {
            if let Ok(Some(at)) = self.inner.queue.next_run_at(&self.inner.kinds) {
                wait = wait.min(at.duration_since(now));
            }
        }
        // Never spin: a job due "now" that a cap keeps back is retried shortly.
        wait.max(Duration::from_millis(1))
    }

    /// Stops claiming, lets running handlers finish for `grace`, then interrupts the
    /// rest and gives their jobs back without counting the attempt.
    pub async fn stop(&self, grace: Duration) -> Result<()> {
        self.inner.stopping.cancel();
        let thread = lock(&self.inner.thread).take();
        if let Some(thread) = thread {
            let _ = self.inner.signals.send(Signal::Stop);
            // Joining a thread blocks; it ends within one round.
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let done = self.inner.done_ready.notified();
            self.finish_pending()?;
            if self.running() == 0 {
                return Ok(());
            }
            if tokio::time::timeout_at(deadline, done).await.is_err() {
                break;
            }
        }
        let ids: Vec<JobId> = lock(&self.inner.running).keys().copied().collect();
        for id in ids {
            self.interrupt(id, Interrupt::Release);
        }
        while self.running() > 0 {
            let done = self.inner.done_ready.notified();
            if self.finish_pending()? == 0 {
                done.await;
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

    /// Stops a running handler for `why`; its task then reports the outcome.
    fn interrupt(&self, id: JobId, why: Interrupt) {
        if let Some(job) = lock(&self.inner.running).get_mut(&id) {
            job.token.cancel();
            if let Some(interrupt) = job.interrupt.take() {
                let _ = interrupt.send(why);
            }
        }
    }

    /// Spawns the handler of a claimed job as one task that also catches its panic
    /// and listens for interrupts.
    fn launch(&self, runtime: &Handle, claimed: ClaimedJob) {
        let ClaimedJob { job, lease } = claimed;
        let Some(handler) = self.inner.handlers.get(&job.kind) else {
            // A claim names only our kinds; never panic over it all the same.
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
        // The handler's closure and its future's first poll run here, on this thread,
        // inside the runtime's context (a closure may call `tokio::spawn` before
        // returning its future). A panic in either is a failed attempt, never the end
        // of this thread.
        let _context = runtime.enter();
        let made = std::panic::catch_unwind(AssertUnwindSafe(|| (handler.run)(job.payload, ctx)));
        let future: HandlerFuture = match made {
            Ok(future) => future,
            Err(panic) => {
                let message = format!("handler panicked: {}", panic_message(&*panic));
                Box::pin(std::future::ready(Err(JobError::retryable(message))))
            }
        };
        let work = CatchUnwind(future);
        let mut task: Pin<Box<dyn Future<Output = Option<Outcome>> + Send>> = Box::pin(
            async move {
                tokio::select! {
                    joined = work => Some(match joined {
                        Ok(Ok(result)) => Outcome::Succeeded(result),
                        Ok(Err(JobError::Permanent(message))) => Outcome::Failed(JobFailure::permanent(message)),
                        Ok(Err(JobError::Retryable(message))) => Outcome::Failed(JobFailure::retryable(message)),
                        Err(panic) => Outcome::Failed(JobFailure::retryable(format!("handler panicked: {panic}"))),
                    }),
                    why = interrupt_rx => match why {
                        Ok(Interrupt::Cancel) => Some(Outcome::Cancelled),
                        Ok(Interrupt::Release) => Some(Outcome::Released),
                        Ok(Interrupt::LostLease) | Err(_) => None,
                    },
                }
            },
        );
        // The first poll: a handler that finishes without waiting costs no thread
        // hand-off at all, which is most of a short job's cost. One that waits is
        // handed to the runtime as it stands; the runtime polls it again at once, so
        // no wake-up is lost to this poll's no-op waker.
        let first = task
            .as_mut()
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        let inner = self.inner.clone();
        match first {
            Poll::Ready(outcome) => inner.done(lease, outcome),
            Poll::Pending => {
                runtime.spawn(async move {
                    let outcome = task.await;
                    inner.done(lease, outcome);
                });
            }
        }
    }
}

impl Inner {
    /// Hands a handler's outcome to whoever writes it: the thread, or drain/stop. A
    /// closed inbox means the runner is gone and the lease will simply run out.
    fn done(&self, lease: Lease, outcome: Option<Outcome>) {
        let _ = self.signals.send(Signal::Done(lease, outcome));
        self.done_ready.notify_one();
    }
}
