//! Process-local jobs for UI work: an export, a report render, a repository scan.
//!
//! Unlike the durable [`queue`](crate::queue), these live in the process and nothing
//! survives a restart (nothing pretends to). They run as tokio tasks; their records
//! ([`LocalJob`]) are kind-agnostic and IPC-safe, and every state change and
//! (throttled) progress report is published on the bus.
//!
//! - [`spawn`](LocalJobs::spawn) is fire-and-forget.
//! - [`spawn_exclusive`](LocalJobs::spawn_exclusive) refuses to start while a job of
//!   the same kind runs ([`Error::AlreadyRunning`]); other kinds are unaffected.
//! - [`spawn_awaitable`](LocalJobs::spawn_awaitable) also returns a [`JobResult`]
//!   whose [`wait`](JobResult::wait) gives the body's typed value. Dropping it
//!   without waiting is fine.
//!
//! Cancellation is cooperative: [`cancel`](LocalJobs::cancel) records the request and
//! the body stops when it can do so safely, by checking
//! [`is_cancelled`](LocalJobContext::is_cancelled). A body that returns after
//! cancellation was asked for is recorded `cancelled`. A body that panics is recorded
//! `failed` with the panic message: a job shown as running forever is worse than one
//! reporting an error.
//!
//! Progress is throttled to about one event per percent (always the first and the
//! last) when the total is known, and to one per [`PROGRESS_INTERVAL`] of clock time
//! when it is not. A progress call that publishes nothing costs a few atomic
//! operations and no lock.

mod kinds;
mod progress;
mod run;

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::awake::KeepAwake;
use crate::bus::EventBus;
use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::locks::lock;

pub use crate::model::{
    LocalJob, LocalJobId, LocalJobStatus, LocalRunEvent, MAX_LOCAL_RESULT_BYTES,
};

pub use crate::progress::{Reported, PROGRESS_INTERVAL};
pub(crate) use kinds::LocalKinds;
use progress::Progress;
use run::no_json;

/// How many finished records [`LocalJobs`] keeps by default, oldest dropped first.
pub const DEFAULT_KEEP_FINISHED: usize = 200;

/// What a job body returns on failure.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Hears one job's progress and end (see [`LocalRunEvent`]); called on the thread
/// that reports, so it must be quick.
pub(crate) type Observer = Arc<dyn Fn(LocalRunEvent) + Send + Sync>;

// ===== ids =====

impl std::str::FromStr for LocalJobId {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        text.strip_prefix("local-")
            .and_then(|n| n.parse().ok())
            .map(LocalJobId)
            .ok_or_else(|| Error::invalid_argument("id", format!("{text:?} is not a local job id")))
    }
}

impl<'de> Deserialize<'de> for LocalJobId {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Why an awaitable job gave no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LocalJobFailure {
    /// The body returned an error.
    #[error("job failed: {0}")]
    Failed(String),
    /// The body panicked.
    #[error("job panicked: {0}")]
    Panicked(String),
    /// It stopped after cancellation was asked for.
    #[error("job was cancelled")]
    Cancelled,
}

/// The typed outcome of an awaitable job.
#[derive(Debug)]
#[must_use = "call wait() for the value, or drop it: the job runs either way"]
pub struct JobResult<T> {
    receiver: oneshot::Receiver<std::result::Result<T, LocalJobFailure>>,
}

impl<T> JobResult<T> {
    /// Waits for the job and gives what its body returned.
    pub async fn wait(self) -> std::result::Result<T, LocalJobFailure> {
        self.receiver
            .await
            .unwrap_or_else(|_| Err(LocalJobFailure::Failed("the job's task was dropped".into())))
    }
}

// ===== context =====

/// What a job body gets: cancellation and progress.
#[derive(Debug, Clone)]
pub struct LocalJobContext {
    id: LocalJobId,
    token: CancellationToken,
    progress: Arc<Progress>,
    app: crate::app::AppSlot,
}

impl LocalJobContext {
    /// The job's id.
    #[must_use]
    pub fn id(&self) -> LocalJobId {
        self.id
    }

    /// Whether cancellation was asked for. Check it where stopping is safe.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Completes when cancellation is asked for.
    pub async fn cancelled(&self) {
        self.token.cancelled().await;
    }

    /// The Tauri app the plugin runs in (its state, paths and events), as a durable
    /// job's [`JobContext::app`](crate::runner::JobContext::app) gives it; `R` is the
    /// app's runtime. An error when there is none on that runtime: local jobs made
    /// without the plugin (give them one with [`LocalJobs::set_app`]).
    pub fn app<R: tauri::Runtime>(&self) -> Result<tauri::AppHandle<R>> {
        self.app.get::<R>()
    }

    /// Reports `done` steps of `total` (if known), as a durable job's context does.
    /// Cheap: events are throttled. Awaiting what it returns is allowed and waits for
    /// nothing (see [`Reported`]).
    pub fn progress(&self, done: u64, total: Option<u64>) -> Reported {
        self.progress.report(done, total);
        Reported
    }
}

// ===== LocalJobs =====

struct Entry {
    record: LocalJob,
    token: CancellationToken,
    progress: Arc<Progress>,
}

#[derive(Default)]
struct Records {
    entries: HashMap<LocalJobId, Entry>,
    finished: VecDeque<LocalJobId>,
}

struct Inner {
    bus: EventBus,
    clock: Arc<dyn Clock>,
    runtime: Option<Handle>,
    keep_finished: usize,
    next_id: AtomicU64,
    // The app bodies reach through `LocalJobContext::app`; set once by the plugin.
    app: std::sync::OnceLock<crate::app::AppSlot>,
    // The kinds whose jobs keep the machine awake while they run, with what the
    // system is told (`None`: the kind's name), and the request they share.
    awake: std::sync::OnceLock<(KeepAwake, HashMap<String, Option<String>>)>,
    // Mutex: spawn checks exclusivity and inserts in one step; nothing slow runs under
    // it (events are published after it is released).
    records: Mutex<Records>,
}

/// Process-local jobs. Cheap to clone.
///
/// ```
/// use tauri_plugin_jobs::local::LocalJobs;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let jobs = LocalJobs::new(Default::default());
/// let (_id, result) = jobs.spawn_awaitable("render", |ctx| async move {
///     for step in 1..=10 {
///         if ctx.is_cancelled() {
///             break;
///         }
///         ctx.progress(step, Some(10));
///     }
///     Ok::<_, tauri_plugin_jobs::local::BoxError>("report.pdf".to_owned())
/// });
/// assert_eq!(result.wait().await.unwrap(), "report.pdf");
/// # });
/// ```
#[derive(Clone)]
pub struct LocalJobs {
    inner: Arc<Inner>,
}

impl fmt::Debug for LocalJobs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalJobs").finish_non_exhaustive()
    }
}

impl LocalJobs {
    /// Local jobs publishing on `bus`, on the system clock, spawning on the tokio
    /// runtime current now (or, failing that, at each spawn).
    #[must_use]
    pub fn new(bus: EventBus) -> Self {
        Self::with_clock(bus, SystemClock)
    }

    /// The same with another clock (progress throttling and record times read it).
    #[must_use]
    pub fn with_clock(bus: EventBus, clock: impl Clock) -> Self {
        LocalJobs {
            inner: Arc::new(Inner {
                bus,
                clock: Arc::new(clock),
                runtime: Handle::try_current().ok(),
                keep_finished: DEFAULT_KEEP_FINISHED,
                next_id: AtomicU64::new(1),
                app: std::sync::OnceLock::new(),
                awake: std::sync::OnceLock::new(),
                records: Mutex::new(Records::default()),
            }),
        }
    }

    /// Hands `app` to every job body started here, as [`LocalJobContext::app`]: the
    /// plugin does it; local jobs of one's own do it here. Once: a second call changes
    /// nothing and returns `false`.
    pub fn set_app<R: tauri::Runtime>(&self, app: &tauri::AppHandle<R>) -> bool {
        self.inner.app.set(crate::app::AppSlot::of(app)).is_ok()
    }

    /// Makes the jobs of these kinds keep the machine awake while they run, through
    /// `awake` (each kind with what the system is told; `None`: "Running" and the kind). The
    /// plugin does it for `Builder::keep_awake`; once: a second call changes nothing
    /// and returns `false`.
    pub fn keep_awake(
        &self,
        awake: KeepAwake,
        kinds: impl IntoIterator<Item = (String, Option<String>)>,
    ) -> bool {
        self.inner
            .awake
            .set((awake, kinds.into_iter().collect()))
            .is_ok()
    }

    /// Starts `body` as a job of `kind`. Fire-and-forget.
    #[track_caller]
    pub fn spawn<F, Fut>(&self, kind: impl Into<String>, body: F) -> LocalJobId
    where
        F: FnOnce(LocalJobContext) -> Fut,
        Fut: Future<Output = std::result::Result<(), BoxError>> + Send + 'static,
    {
        self.start(kind.into(), false, body, None, None, no_json)
            .expect("a non-exclusive spawn is never refused")
    }

    /// Starts `body` unless a job of `kind` is running; then
    /// [`Error::AlreadyRunning`].
    pub fn spawn_exclusive<F, Fut>(&self, kind: impl Into<String>, body: F) -> Result<LocalJobId>
    where
        F: FnOnce(LocalJobContext) -> Fut,
        Fut: Future<Output = std::result::Result<(), BoxError>> + Send + 'static,
    {
        self.start(kind.into(), true, body, None, None, no_json)
    }

    /// Starts `body`; the [`JobResult`] gives what it returns.
    pub fn spawn_awaitable<T, F, Fut>(
        &self,
        kind: impl Into<String>,
        body: F,
    ) -> (LocalJobId, JobResult<T>)
    where
        T: Send + 'static,
        F: FnOnce(LocalJobContext) -> Fut,
        Fut: Future<Output = std::result::Result<T, BoxError>> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let id = self
            .start(kind.into(), false, body, Some(sender), None, no_json)
            .expect("a non-exclusive spawn is never refused");
        (id, JobResult { receiver })
    }

    /// Both at once: refused while a job of `kind` runs, and awaitable.
    pub fn spawn_exclusive_awaitable<T, F, Fut>(
        &self,
        kind: impl Into<String>,
        body: F,
    ) -> Result<(LocalJobId, JobResult<T>)>
    where
        T: Send + 'static,
        F: FnOnce(LocalJobContext) -> Fut,
        Fut: Future<Output = std::result::Result<T, BoxError>> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let id = self.start(kind.into(), true, body, Some(sender), None, no_json)?;
        Ok((id, JobResult { receiver }))
    }

    /// A job whose value is JSON: its record keeps the value (within the caps), and
    /// `observer`, if any, hears its progress and its end.
    pub(crate) fn spawn_json<F, Fut>(
        &self,
        kind: String,
        exclusive: bool,
        body: F,
        observer: Option<Observer>,
    ) -> Result<(LocalJobId, JobResult<serde_json::Value>)>
    where
        F: FnOnce(LocalJobContext) -> Fut,
        Fut: Future<Output = std::result::Result<serde_json::Value, BoxError>> + Send + 'static,
    {
        let (sender, receiver) = oneshot::channel();
        let id = self.start(kind, exclusive, body, Some(sender), observer, |value| {
            Some(value.clone())
        })?;
        Ok((id, JobResult { receiver }))
    }

    /// Asks a running job to stop. Returns whether it was running.
    pub fn cancel(&self, id: LocalJobId) -> bool {
        let mut records = lock(&self.inner.records);
        match records.entries.get_mut(&id) {
            Some(entry) if entry.record.status == LocalJobStatus::Running => {
                entry.record.cancel_requested = true;
                entry.token.cancel();
                true
            }
            _ => false,
        }
    }

    /// One job's record, with its latest progress.
    #[must_use]
    pub fn get(&self, id: LocalJobId) -> Option<LocalJob> {
        lock(&self.inner.records).entries.get(&id).map(snapshot)
    }

    /// Every job still on record (running, and the most recent finished ones), oldest
    /// first.
    #[must_use]
    pub fn list(&self) -> Vec<LocalJob> {
        let mut jobs: Vec<LocalJob> = lock(&self.inner.records)
            .entries
            .values()
            .map(snapshot)
            .collect();
        jobs.sort_by_key(|job| job.id);
        jobs
    }
}

fn snapshot(entry: &Entry) -> LocalJob {
    let mut record = entry.record.clone();
    if record.status == LocalJobStatus::Running {
        let (done, total) = entry.progress.current();
        record.done = done;
        record.total = total;
    }
    record
}

#[cfg(test)]
mod tests;
