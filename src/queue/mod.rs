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
//!
//! The files split the queue by role, in the order of a job's life: `options` (how
//! a queue is opened), `enqueue`, `claim`, `finish` (heartbeats, progress and outcomes),
//! `admin` (retry now, delete),
//! `cancel`, `read` (reads and retention), `history` (what happened, per kind and period), `settings` (per-kind settings stored in
//! the file) and `retire` (ending the jobs of a kind no build runs any more).

mod admin;
mod cancel;
mod claim;
mod claim_request;
mod enqueue;
mod finish;
pub(crate) mod history;
mod insert;
mod lease;
mod logs;
mod options;
mod outcome;
mod pending;
pub use pending::PendingKind;
mod prepare;
mod read;
pub use read::{FINISHED_POLL, MAX_PAGE_BYTES, MAX_PAGE_JOBS};
mod retire;
pub use retire::{Retire, Retired};
mod settings;
pub(crate) use settings::network_back_in;
mod signals;
pub(crate) use signals::{check_signal_name, PendingLine};
pub use signals::{SignalSent, DEFAULT_LOG_LINES, MAX_SIGNAL_NAME_BYTES};
pub(crate) mod steps;
pub(crate) use steps::check_step_name;
pub use steps::{StepOutput, MAX_STEP_NAME_BYTES};
mod sweep;
mod wakes;
mod workflow;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, watch};

use crate::bus::EventBus;
use crate::clock::Clock;
use crate::db::{Db, Notice};
use crate::error::Result;

pub use crate::backoff::{RetryPolicy, RetryPolicyError};
pub use crate::json::MAX_JSON_DEPTH;
pub use crate::kinds::{KindSpec, Schema};
pub use crate::model::{
    redact, sanitize_error, Actor, AttemptError, AttemptOutcome, Conditions, Constraints,
    DependencyFailure, EnqueueOutcome, Job, JobEnded, JobFilter, JobId, JobProgressValue,
    JobStatus, KindCount, OnDuplicate, Priority, RateLimit, WaitingFor, MAX_ERROR_CHARS,
};
pub use crate::model::{Input, JobLogLine, JobStep, SignalRefusal};
pub use crate::store::integrity::{Integrity, BACKGROUND_BUDGET as INTEGRITY_BUDGET};
pub use admin::RetryOutcome;
pub use cancel::CancelOutcome;
pub use claim::DEFAULT_MAX_LEASE_EXPIRIES;
pub use claim_request::{ClaimRequest, ClaimedJob};
pub use enqueue::{EnqueueOptions, Enqueued, NewJob, MAX_KEY_BYTES, MAX_KIND_BYTES};
pub(crate) use finish::Held;
pub use history::{HistoryKeep, HistoryPoint, HistoryRange, HistoryStep, MAX_HISTORY_SPAN};
pub(crate) use insert::enqueue_in;
pub(crate) use lease::token_from_text;
pub use lease::{Heartbeat, Lease, MAX_LEASE};
pub use options::{QueueOptions, DEFAULT_MAX_PAYLOAD_BYTES};
pub use outcome::{
    Deferral, Finished, JobFailure, Outcome, DEFAULT_OFFLINE_RETRY, MAX_DEFERRAL, MIN_DEFERRAL,
};
pub(crate) use prepare::{check_kind, check_new};
pub use workflow::{
    JobDependencies, Workflow, WorkflowCancelled, WorkflowIds, WorkflowRetried, WorkflowState,
    MAX_LISTED_DEPENDENCIES,
};

/// How often, in clock time, a claim first sweeps for expired leases. A job whose lease
/// expired is therefore claimable again at most this long after the expiry.
pub const LEASE_SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// A handle on the durable queue in one `raw.db`. Cheap to clone; clones share one
/// connection. Open the same file again (or from another process) for another
/// connection: caps and fencing hold across all of them.
#[derive(Clone, Debug)]
pub struct Queue {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: Db,
    // The clock time of the last sweep for expired leases, in ms. Relaxed: a stale
    // read only means one sweep more or less.
    last_reclaim: AtomicI64,
    // Whether this handle's last claim found a job. Relaxed: only a hint for whether
    // the next one should look with reads before taking the write lock.
    last_claim_found: AtomicBool,
    // This process's row in `processes`, once a claim of this handle wrote or found
    // it (0: not yet). Relaxed: set once, after the commit that made the row.
    process_row: AtomicI64,
}

impl Queue {
    /// Opens the queue in the database at `path`, creating and migrating it as needed.
    ///
    /// A file that is not a database, is corrupt or comes from a newer version is
    /// refused with a typed error and left untouched.
    pub fn open(path: impl AsRef<std::path::Path>, options: QueueOptions) -> Result<Queue> {
        let kinds = options.kinds();
        let db = Db::open(
            path.as_ref(),
            &options.store,
            options.clock,
            options.random,
            options.bus,
            kinds,
            options.conditions,
        )?;
        Ok(Queue {
            inner: Arc::new(Inner {
                db,
                last_reclaim: AtomicI64::new(i64::MIN),
                last_claim_found: AtomicBool::new(false),
                process_row: AtomicI64::new(0),
            }),
        })
    }

    /// The database handle the queue works on, for the services that share it.
    pub(crate) fn db(&self) -> &Db {
        &self.inner.db
    }

    /// The bus state changes are published on.
    #[must_use]
    pub fn bus(&self) -> &EventBus {
        self.db().bus()
    }

    /// The clock the queue reads.
    #[must_use]
    pub fn clock(&self) -> &Arc<dyn Clock> {
        self.db().clock()
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.db().path().to_owned()
    }

    /// What the integrity check of the file found so far. A small file was checked
    /// whole at open ([`Integrity::Ok`]: damage refused the open); a larger one is
    /// checked on a thread of its own after open, for up to
    /// [`INTEGRITY_BUDGET`], and damage found there
    /// is logged and published as the health of the component `raw.db`.
    #[must_use]
    pub fn integrity(&self) -> Integrity {
        self.db().integrity().state()
    }

    /// Waits up to `timeout` for the integrity check to settle (see
    /// [`integrity`](Queue::integrity)); what it found by then.
    #[must_use]
    pub fn wait_for_integrity(&self, timeout: Duration) -> Integrity {
        self.db().integrity().wait(timeout)
    }

    /// Declares what the queue should know about `kind`: schemas, retry policy,
    /// default attempts. Registering again replaces the previous spec.
    pub fn register_kind(&self, kind: impl Into<String>, spec: KindSpec) {
        self.db().kinds().register(kind.into(), spec);
    }

    /// Whether this handle has a spec for `kind`: a runner registers one per handler,
    /// `Builder::agent_kind` one for a kind agents run. The webview's enqueue refuses
    /// a kind without one (`unknownKind`); [`Queue::enqueue`] does not ask, since
    /// another process may run it.
    #[must_use]
    pub fn is_registered(&self, kind: &str) -> bool {
        self.db().kinds().specs().contains_key(kind)
    }

    /// A receiver that changes whenever jobs may have become runnable through this
    /// handle (enqueued, retried, released, requeued after an expired lease) and, once
    /// [`watch_other_processes`](Queue::watch_other_processes) runs, whenever any
    /// process writes the file.
    #[must_use]
    pub fn wake_ups(&self) -> watch::Receiver<u64> {
        let (sender, receiver) = watch::channel(0u64);
        self.db().subscribe(move |notice| {
            if matches!(notice, Notice::Runnable | Notice::Written) {
                sender.send_modify(|count| *count = count.wrapping_add(1));
            }
            !sender.is_closed()
        });
        receiver
    }

    /// Watches `raw.db`'s write-ahead log for writes by other processes (an agent, a
    /// second app instance, a CLI), so that [`wake_ups`](Queue::wake_ups) and a
    /// [`Runner`](crate::runner::Runner) started on this handle hear of their jobs at
    /// once instead of at the next poll. A started runner does this itself. Returns
    /// whether the watch runs: where the platform refuses one (no inotify instances
    /// left, a network file system), polling goes on as before and the reason is logged.
    pub fn watch_other_processes(&self) -> bool {
        self.db().want_writes_forever()
    }

    /// A receiver of the ids of running jobs whose cancellation was asked for through
    /// this handle. Workers elsewhere learn it from their next heartbeat.
    #[must_use]
    pub fn cancel_requests(&self) -> broadcast::Receiver<JobId> {
        let (sender, receiver) = broadcast::channel(256);
        self.db().subscribe(move |notice| {
            if let Notice::CancelRequested(id) = notice {
                return sender.send(id).is_ok();
            }
            sender.receiver_count() > 0
        });
        receiver
    }
}
