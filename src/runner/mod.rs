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
//! due, or the poll interval (jobs written by other processes) passes. Those timed
//! deadlines are worked out once after each round and kept until the next: a wake-up
//! that brings no round (a write to the file's log that shows no other connection's
//! commit) never postpones them.
//!
//! Compared with running each query through `spawn_blocking`, the thread costs two
//! thread hand-offs per job instead of six, and none for a handler that finishes in
//! its first poll.
//!
//! Tests drive the steps, or [`drain`](Runner::drain), with a fake clock and never
//! sleep; [`start`](Runner::start) is only the loop around them.
//!
//! A handler whose job is cancelled, whose lease was lost, or that outlives the grace
//! period of [`stop`](Runner::stop) is interrupted: its future is dropped at its next
//! `.await`. A panic in a handler is caught and counted as a failed attempt.

mod handler;
mod job_error;
mod launch;
mod progress;
mod settings;
mod signals;
mod steps;
mod thread;
mod upkeep;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::{oneshot, Notify};
use tokio_util::sync::CancellationToken;

pub use crate::http::retry_after;
pub use handler::{Handler, JobContext};
pub use job_error::{error_chain, is_unreachable, JobError};
pub use progress::PROGRESS_STORE_INTERVAL;
pub use settings::{Ran, RunnerSettings};
pub use signals::LogLevel;
pub use steps::StepError;
pub use thread::WATCH_AFTER_IDLE;

use crate::awake::KeepAwake;
use crate::clock::{duration_millis, Timestamp};
use crate::db::Notice;
use crate::error::{Error, Result};
use crate::locks::lock;
use crate::model::{sanitize_error, JobId};
use crate::queue::{ClaimRequest, Finished, Held, Lease, Outcome, Queue};
use crate::store::jobs::Start;

/// How often the runner deletes finished jobs past their retention.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// How long after the runner is made its first retention sweep comes.
const PRUNE_AFTER_START: Duration = Duration::from_secs(60);
/// How long one round's retention sweep may go on; the rest goes at later rounds.
const PRUNE_SLICE: Duration = Duration::from_millis(20);

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
    /// The row as the claim left it, for the write of the attempt's end.
    held: Held,
    renewed_at: Timestamp,
    token: CancellationToken,
    interrupt: Option<oneshot::Sender<Interrupt>>,
    progress: Arc<progress::AttemptProgress>,
}

/// An attempt whose handler returned, its outcome (`None`: write nothing) waiting
/// for a round to write it.
struct Ended {
    lease: Lease,
    outcome: Option<Outcome>,
    /// For a handler that returned in its first poll, which never entered `running`:
    /// what the claim knew of the attempt and the last progress it reported.
    known: Option<(Held, Option<Reported>)>,
}

/// A progress report: steps done, of a total if known.
type Reported = (u64, Option<u64>);

impl Ended {
    fn done(lease: Lease, outcome: Option<Outcome>) -> Self {
        Ended {
            lease,
            outcome,
            known: None,
        }
    }
}

/// What wakes the runner's thread.
enum Signal {
    /// A handler returned; `None` outcome: write nothing.
    Done(Lease, Option<Outcome>),
    /// Jobs may be runnable: run a round.
    Wake,
    /// The file's write-ahead log was written, perhaps by another process: run a round
    /// if another connection committed.
    Written,
    /// Cancellation of a job was asked for through this queue handle.
    Cancel(JobId),
    /// Leave the loop.
    Stop,
}

struct Inner {
    queue: Queue,
    // The worker id of every lease this runner takes, shared by its attempts' steps.
    worker: Arc<str>,
    // Lines logged by attempts that ended, to store before their outcomes (`settle`).
    // Mutex: pushed as attempts end, taken by the next write.
    ended_logs: Mutex<Vec<(JobId, String, Vec<crate::queue::PendingLine>)>>,
    handlers: HashMap<String, Handler>,
    kinds: Vec<String>,
    request: ClaimRequest,
    // The kinds claimed while the app finishes some of its work before quitting
    // (`None`: every kind of `request`). Mutex: set at a quit, read by each claim.
    only: Mutex<Option<Vec<String>>>,
    settings: RunnerSettings,
    running: Mutex<HashMap<JobId, RunningJob>>,
    signals: mpsc::Sender<Signal>,
    // Mutex: only one of the loop thread, drain() and stop() reads at a time.
    inbox: Mutex<mpsc::Receiver<Signal>>,
    // Outcomes of handlers that returned in their first poll, on the thread that
    // launched them: written by the next round without a trip through the inbox.
    // Mutex: filled by a round, taken by the next one (or by drain() and stop()).
    ready: Mutex<Vec<Ended>>,
    // Wakes drain() and stop(), which wait in async code, when a handler returns.
    done_ready: Notify,
    stopping: CancellationToken,
    runtime: Mutex<Option<Handle>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    // Clock time of the last retention sweep, in ms; Relaxed: only this runner's
    // rounds read it, one at a time.
    last_prune: AtomicI64,
    // Set while a Wake is in the inbox; the thread clears it when it takes one.
    wake_pending: Arc<AtomicBool>,
    // The same for Written.
    written_pending: Arc<AtomicBool>,
    // Sends a coalesced Wake; for what asks for a round from outside (progress).
    wake: Arc<dyn Fn() -> bool + Send + Sync>,
    // What ended while drain() runs; `None` otherwise, so a started runner keeps none.
    reports: Mutex<Option<Vec<Ran>>>,
    // The Tauri app handlers reach through `JobContext::app`; set once by the plugin.
    app: std::sync::OnceLock<crate::app::AppSlot>,
    // The kinds whose running jobs keep the machine awake, with what the system is
    // told (`None`: their kind's name), and the request they share; `None` when no
    // kind asks.
    awake: Option<(KeepAwake, HashMap<String, Option<String>>)>,
    // How many rounds the thread ran, for the tests of when it runs them.
    #[cfg(test)]
    rounds: std::sync::atomic::AtomicU64,
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
    /// the queue (schemas, retry, attempts) and stores each kind's cap in effect and
    /// its number of lease expiries, its rate limit and its constraints in the file
    /// ([`Queue::set_kind_limit`], [`Queue::set_kind_max_lease_expiries`],
    /// [`Queue::set_rate_limit`], [`Queue::set_constraints`]; `None` clears them). Fails when a kind has two
    /// handlers, the settings are impossible or the file cannot be written.
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
        // The caps in effect go into the file, where every claimer obeys them: other
        // processes and agents that name no cap (or a higher one) included.
        for kind in &kinds {
            queue.set_kind_limit(kind, request.limits.get(kind).copied())?;
            queue.set_kind_max_lease_expiries(kind, by_kind[kind].max_lease_expiries)?;
            let rate = settings.rate_limits.get(kind).copied();
            queue.set_rate_limit(kind, rate.or(by_kind[kind].rate_limit))?;
            queue.set_constraints(kind, by_kind[kind].constraints)?;
        }
        request.kinds = kinds.clone();
        let awake = awake_kinds(&by_kind, &settings);
        let (signals, inbox) = mpsc::channel();
        let stopping = CancellationToken::new();
        let wake_pending = Arc::new(AtomicBool::new(false));
        // Wake-ups go straight into the inbox, coalesced: while one is waiting, more
        // would only wake the thread for nothing. Returns whether the inbox is open.
        let wake: Arc<dyn Fn() -> bool + Send + Sync> = {
            let (signals, pending) = (signals.clone(), wake_pending.clone());
            Arc::new(move || {
                // AcqRel: pairs with the thread's clearing store, so a wake-up sent
                // after the thread took the last one is never skipped.
                pending.swap(true, Ordering::AcqRel) || signals.send(Signal::Wake).is_ok()
            })
        };
        let written_pending = Arc::new(AtomicBool::new(false));
        // Notices come from the committing thread, or the file watch's.
        {
            let (signals, stopping, wake) = (signals.clone(), stopping.clone(), wake.clone());
            let written = written_pending.clone();
            queue.db().subscribe(move |notice| {
                if stopping.is_cancelled() {
                    return false;
                }
                match notice {
                    Notice::Runnable => wake(),
                    // Coalesced like Wake (one write makes several events).
                    Notice::Written => {
                        written.swap(true, Ordering::AcqRel)
                            || signals.send(Signal::Written).is_ok()
                    }
                    Notice::CancelRequested(id) => signals.send(Signal::Cancel(id)).is_ok(),
                }
            });
        }
        // The first sweep a minute after the start: the app's start first.
        let first_prune = queue
            .clock()
            .now()
            .as_millis()
            .saturating_sub(duration_millis(PRUNE_EVERY))
            .saturating_add(duration_millis(PRUNE_AFTER_START));
        Ok(Runner {
            inner: Arc::new(Inner {
                worker: Arc::from(settings.worker_id.as_str()),
                ended_logs: Mutex::new(Vec::new()),
                queue,
                handlers: by_kind,
                kinds,
                request,
                only: Mutex::new(None),
                settings,
                running: Mutex::new(HashMap::new()),
                signals,
                inbox: Mutex::new(inbox),
                ready: Mutex::new(Vec::new()),
                done_ready: Notify::new(),
                stopping,
                runtime: Mutex::new(None),
                thread: Mutex::new(None),
                last_prune: AtomicI64::new(first_prune),
                reports: Mutex::new(None),
                app: std::sync::OnceLock::new(),
                awake,
                wake_pending,
                written_pending,
                wake,
                #[cfg(test)]
                rounds: std::sync::atomic::AtomicU64::new(0),
            }),
        })
    }

    /// Hands `app` to every handler this runner runs, as [`JobContext::app`]: the
    /// plugin does it before the runner starts; a runner of one's own (a test of a
    /// handler that reaches the app) does it here. Once: a second call changes nothing
    /// and returns `false`.
    pub fn set_app<R: tauri::Runtime>(&self, app: &tauri::AppHandle<R>) -> bool {
        self.inner.app.set(crate::app::AppSlot::of(app)).is_ok()
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

    /// From now on, claims only jobs of `kinds` (`None`: of every kind it runs, again):
    /// while the app finishes the work of some kinds before it quits.
    pub(crate) fn claim_only(&self, kinds: Option<Vec<String>>) {
        *lock(&self.inner.only) = kinds;
    }

    /// The jobs this runner runs now, each with its kind and its last progress (steps
    /// done, of a total when known).
    pub(crate) fn running_jobs(&self) -> Vec<(JobId, String, (u64, Option<u64>))> {
        lock(&self.inner.running)
            .iter()
            .map(|(id, job)| (*id, job.lease.kind.clone(), job.progress.current()))
            .collect()
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
        let mut batch = std::mem::take(&mut *lock(&self.inner.ready));
        for signal in lock(&self.inner.inbox).try_iter() {
            self.sort(signal, &mut batch);
        }
        Ok(self.settle(batch, false)?.0)
    }

    /// Writes `batch` and, with `claim`, claims jobs for the slots free once it is
    /// written, in one transaction; launches what it claimed. Returns how many attempts
    /// ended and how many jobs started.
    fn settle(&self, batch: Vec<Ended>, claim: bool) -> Result<(usize, usize)> {
        // The ends of attempts still in `running` free their slots with this write.
        let leaving = batch.iter().filter(|ended| ended.known.is_none()).count();
        let free = (self.inner.settings.workers as usize)
            .saturating_sub(self.running().saturating_sub(leaving));
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
        // What the attempts that ended logged goes first, in one transaction of its
        // own (only when they logged anything).
        self.store_ended_logs();
        if batch.is_empty() && runtime.is_none() {
            return Ok((0, 0));
        }
        // The last progress an attempt reported goes with its outcome; what the claim
        // knew of each attempt spares its end a read.
        let mut writes: Vec<(Lease, Outcome)> = Vec::with_capacity(batch.len());
        let mut progress: Vec<(Lease, u64, Option<u64>)> = Vec::new();
        let mut held: Vec<Option<Held>> = Vec::with_capacity(batch.len());
        let running = lock(&self.inner.running);
        for ended in &batch {
            let Some(outcome) = &ended.outcome else {
                continue;
            };
            let lease = &ended.lease;
            let (known, last) = match ended.known {
                Some((known, last)) => (Some(known), last),
                None => match running.get(&lease.job_id) {
                    Some(job) => {
                        let same =
                            job.lease.attempt == lease.attempt && job.lease.token == lease.token;
                        (same.then_some(job.held), job.progress.take_last())
                    }
                    None => (None, None),
                },
            };
            if let Some((done, total)) = last {
                progress.push((lease.clone(), done, total));
            }
            held.push(known);
            writes.push((lease.clone(), outcome.clone()));
        }
        drop(running);
        let mut request = self.inner.request.clone();
        request.max_jobs = free as u32;
        if let Some(only) = lock(&self.inner.only).as_ref() {
            request.kinds.retain(|kind| only.contains(kind));
        }
        let settled = self.inner.queue.finish_and_claim_with::<Start>(
            writes,
            &progress,
            // Nothing to claim while the app finishes other kinds' work to quit.
            runtime
                .as_ref()
                .filter(|_| !request.kinds.is_empty())
                .map(|_| &request),
            None,
            &held,
        );
        self.forget(
            batch
                .iter()
                .filter(|ended| ended.known.is_none())
                .map(|ended| ended.lease.job_id),
        );
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
            let mut ready: Vec<_> = claimed
                .into_iter()
                .filter_map(|(job, lease, held)| self.launch(&runtime, job, lease, held))
                .collect();
            if !ready.is_empty() {
                lock(&self.inner.ready).append(&mut ready);
                self.inner.done_ready.notify_one();
            }
        }
        Ok((batch.len(), started))
    }

    /// Keeps what happened to each attempt for [`drain`](Runner::drain).
    fn report(&self, batch: &[Ended], results: Vec<Result<Finished>>) {
        let mut results = results.into_iter();
        let mut reports = lock(&self.inner.reports);
        for Ended { lease, outcome, .. } in batch {
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
}

/// The kinds whose jobs keep the machine awake (their handler's ask, unless
/// `config.toml` says otherwise) and the request they share.
fn awake_kinds(
    handlers: &HashMap<String, Handler>,
    settings: &RunnerSettings,
) -> Option<(KeepAwake, HashMap<String, Option<String>>)> {
    let kinds: HashMap<String, Option<String>> = handlers
        .iter()
        .filter(|(kind, handler)| {
            settings
                .keep_awake
                .get(*kind)
                .copied()
                .unwrap_or(handler.keep_awake.is_some())
        })
        .map(|(kind, handler)| (kind.clone(), handler.keep_awake.clone()))
        .collect();
    if kinds.is_empty() {
        return None;
    }
    Some((
        settings.awake.clone().unwrap_or_else(KeepAwake::system),
        kinds,
    ))
}
