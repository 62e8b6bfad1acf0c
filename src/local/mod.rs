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

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::bus::{EventBus, LocalJobChanged, LocalJobProgress};
use crate::clock::{Clock, SystemClock};
use crate::error::{Error, Result};
use crate::json::too_deep;
use crate::locks::lock;
use crate::model::sanitize_error;
use crate::panics::{panic_message, CatchUnwind};

pub use crate::model::{
    LocalJob, LocalJobId, LocalJobStatus, LocalRunEvent, MAX_LOCAL_RESULT_BYTES,
};

pub use crate::progress::PROGRESS_INTERVAL;
use crate::progress::{percent, Throttle};
pub(crate) use kinds::LocalKinds;

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

    /// Reports `done` steps of `total` (if known). Cheap: events are throttled.
    pub async fn progress(&self, done: u64, total: Option<u64>) {
        self.progress.report(done, total);
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
///         ctx.progress(step, Some(10)).await;
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
                records: Mutex::new(Records::default()),
            }),
        }
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

    fn start<T, F, Fut>(
        &self,
        kind: String,
        exclusive: bool,
        body: F,
        result: Option<oneshot::Sender<std::result::Result<T, LocalJobFailure>>>,
        observer: Option<Observer>,
        json: fn(&T) -> Option<serde_json::Value>,
    ) -> Result<LocalJobId>
    where
        T: Send + 'static,
        F: FnOnce(LocalJobContext) -> Fut,
        Fut: Future<Output = std::result::Result<T, BoxError>> + Send + 'static,
    {
        let now = self.inner.clock.now();
        // Relaxed: ids only have to be distinct.
        let id = LocalJobId(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let token = CancellationToken::new();
        let progress = Arc::new(Progress::new(
            id,
            kind.clone(),
            self.inner.bus.clone(),
            self.inner.clock.clone(),
            observer,
        ));
        {
            let mut records = lock(&self.inner.records);
            if exclusive
                && records
                    .entries
                    .values()
                    .any(|e| e.record.kind == kind && e.record.status == LocalJobStatus::Running)
            {
                return Err(Error::AlreadyRunning { kind });
            }
            records.entries.insert(
                id,
                Entry {
                    record: LocalJob {
                        id,
                        kind: kind.clone(),
                        status: LocalJobStatus::Running,
                        done: 0,
                        total: None,
                        cancel_requested: false,
                        error: None,
                        started_at: now,
                        finished_at: None,
                        result: None,
                    },
                    token: token.clone(),
                    progress: progress.clone(),
                },
            );
        }
        self.publish(id, &kind, LocalJobStatus::Running, None);

        let context = LocalJobContext {
            id,
            token: token.clone(),
            progress,
        };
        // A body whose closure panics before it returns its future is a job that
        // panicked, recorded like a panic inside the future, never a panic here.
        type BodyFuture<T> =
            std::pin::Pin<Box<dyn Future<Output = std::result::Result<T, BoxError>> + Send>>;
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(context)))
            .map(|future| -> BodyFuture<T> { Box::pin(future) })
            .map_err(|panic| panic_message(&*panic));
        let this = self.clone();
        let task = async move {
            let outcome = match made {
                Ok(future) => CatchUnwind(future).await,
                Err(message) => Err(message),
            };
            let cancelled = token.is_cancelled();
            let (status, error, value) = match outcome {
                Ok(Ok(value)) if !cancelled => (LocalJobStatus::Succeeded, None, Ok(value)),
                Ok(Err(error)) if !cancelled => {
                    let message = sanitize_error(&error.to_string());
                    (
                        LocalJobStatus::Failed,
                        Some(message.clone()),
                        Err(LocalJobFailure::Failed(message)),
                    )
                }
                Err(panic) => {
                    let message = sanitize_error(&panic);
                    (
                        LocalJobStatus::Failed,
                        Some(message.clone()),
                        Err(LocalJobFailure::Panicked(message)),
                    )
                }
                Ok(_) => (
                    LocalJobStatus::Cancelled,
                    None,
                    Err(LocalJobFailure::Cancelled),
                ),
            };
            // A JSON value goes on the record and to the observer too; a typed one
            // only to whoever awaits it.
            let shown = value
                .as_ref()
                .ok()
                .and_then(json)
                .map_or(Shown::None, Shown::of);
            this.finish(id, status, error, shown);
            if let Some(sender) = result {
                let _ = sender.send(value);
            }
        };
        match self
            .inner
            .runtime
            .clone()
            .or_else(|| Handle::try_current().ok())
        {
            Some(runtime) => {
                runtime.spawn(task);
            }
            None => {
                // Never panic over a missing runtime: record it as the failure it is.
                self.finish(
                    id,
                    LocalJobStatus::Failed,
                    Some("no tokio runtime to run the job on".into()),
                    Shown::None,
                );
            }
        }
        Ok(id)
    }

    fn finish(&self, id: LocalJobId, status: LocalJobStatus, error: Option<String>, shown: Shown) {
        let now = self.inner.clock.now();
        let (kept, sent) = shown.split();
        let kind = {
            let mut records = lock(&self.inner.records);
            let Some(entry) = records.entries.get_mut(&id) else {
                return;
            };
            let (done, total) = entry.progress.current();
            let record = &mut entry.record;
            record.status = status;
            record.error.clone_from(&error);
            record.finished_at = Some(now);
            record.done = done;
            record.total = total;
            record.result = kept;
            let kind = record.kind.clone();
            records.finished.push_back(id);
            while records.finished.len() > self.inner.keep_finished {
                if let Some(old) = records.finished.pop_front() {
                    records.entries.remove(&old);
                }
            }
            kind
        };
        let progress = lock(&self.inner.records)
            .entries
            .get(&id)
            .map(|entry| entry.progress.clone());
        if status == LocalJobStatus::Succeeded {
            // The last progress event, if the body never reported completion.
            if let Some(progress) = &progress {
                progress.finish();
            }
        }
        self.publish(id, &kind, status, error.clone());
        if let Some(observer) = progress.and_then(|progress| progress.observer.clone()) {
            observer(LocalRunEvent::Finished {
                status,
                result: sent,
                error,
            });
        }
    }

    fn publish(&self, id: LocalJobId, kind: &str, status: LocalJobStatus, error: Option<String>) {
        self.inner.bus.publish(LocalJobChanged {
            id,
            kind: kind.to_owned(),
            status,
            error,
            at: self.inner.clock.now(),
        });
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

/// A local job's progress: the shared throttle, publishing `LocalJobProgress`.
struct Progress {
    id: LocalJobId,
    kind: String,
    bus: EventBus,
    clock: Arc<dyn Clock>,
    throttle: Throttle,
    observer: Option<Observer>,
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.throttle.fmt(f)
    }
}

impl Progress {
    fn new(
        id: LocalJobId,
        kind: String,
        bus: EventBus,
        clock: Arc<dyn Clock>,
        observer: Option<Observer>,
    ) -> Self {
        Progress {
            id,
            kind,
            bus,
            throttle: Throttle::new(clock.clone()),
            clock,
            observer,
        }
    }

    fn current(&self) -> (u64, Option<u64>) {
        self.throttle.current()
    }

    fn report(&self, done: u64, total: Option<u64>) {
        if self.throttle.report(done, total) {
            self.send(done, total);
        }
    }

    /// Sends the last report if it was held back.
    fn finish(&self) {
        if let Some((done, total)) = self.throttle.held_back() {
            self.send(done, total);
        }
    }

    fn send(&self, done: u64, total: Option<u64>) {
        let percent = total.map(|total| percent(done, total));
        self.bus.publish(LocalJobProgress {
            id: self.id,
            kind: self.kind.clone(),
            done,
            total,
            percent,
            at: self.clock.now(),
        });
        if let Some(observer) = &self.observer {
            observer(LocalRunEvent::Progress {
                done,
                total,
                percent,
            });
        }
    }
}

// ===== results kept on the record =====

/// A value of a typed job: not JSON, so nothing to keep.
fn no_json<T>(_: &T) -> Option<serde_json::Value> {
    None
}

/// What a succeeded job's value becomes on its record and for its observer.
enum Shown {
    None,
    /// Kept on the record and sent.
    Kept(serde_json::Value),
    /// Too large or deep for the record; sent to the observer only.
    SentOnly(serde_json::Value),
}

impl Shown {
    /// Kept when it fits the record's caps.
    fn of(value: serde_json::Value) -> Self {
        let fits = too_deep(&value).is_none()
            && serde_json::to_vec(&value).is_ok_and(|bytes| bytes.len() <= MAX_LOCAL_RESULT_BYTES);
        if fits {
            Shown::Kept(value)
        } else {
            Shown::SentOnly(value)
        }
    }

    /// What the record keeps, and what the observer hears.
    fn split(self) -> (Option<serde_json::Value>, Option<serde_json::Value>) {
        match self {
            Shown::None => (None, None),
            Shown::Kept(value) => (Some(value.clone()), Some(value)),
            Shown::SentOnly(value) => (None, Some(value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::{json, Value};

    use super::*;

    fn observed() -> (Observer, Arc<Mutex<Vec<LocalRunEvent>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let observer: Observer = Arc::new(move |event| sink.lock().unwrap().push(event));
        (observer, seen)
    }

    #[tokio::test]
    async fn a_json_job_keeps_its_result_and_its_observer_hears_progress_then_the_end() {
        let jobs = LocalJobs::new(EventBus::new());
        let (observer, seen) = observed();
        let (id, result) = jobs
            .spawn_json(
                "count".into(),
                false,
                |ctx: LocalJobContext| async move {
                    for done in 0..=1000 {
                        ctx.progress(done, Some(1000)).await;
                    }
                    Ok(json!({"rows": 1000}))
                },
                Some(observer),
            )
            .unwrap();
        assert_eq!(result.wait().await.unwrap(), json!({"rows": 1000}));
        assert_eq!(jobs.get(id).unwrap().result, Some(json!({"rows": 1000})));
        let seen = seen.lock().unwrap();
        let progress = seen
            .iter()
            .filter(|event| matches!(event, LocalRunEvent::Progress { .. }))
            .count();
        assert_eq!(progress, 101, "one a percent, like the bus");
        assert_eq!(
            seen.last(),
            Some(&LocalRunEvent::Finished {
                status: LocalJobStatus::Succeeded,
                result: Some(json!({"rows": 1000})),
                error: None,
            })
        );
    }

    #[tokio::test]
    async fn a_result_past_the_cap_is_not_kept_but_still_delivered() {
        let jobs = LocalJobs::new(EventBus::new());
        let (observer, seen) = observed();
        let big = Value::String("x".repeat(MAX_LOCAL_RESULT_BYTES));
        let sent = big.clone();
        let (id, result) = jobs
            .spawn_json(
                "big".into(),
                false,
                move |_ctx| async move { Ok(sent) },
                Some(observer),
            )
            .unwrap();
        assert_eq!(result.wait().await.unwrap(), big);
        let record = jobs.get(id).unwrap();
        assert_eq!(record.status, LocalJobStatus::Succeeded);
        assert_eq!(record.result, None);
        assert!(matches!(
            seen.lock().unwrap().last(),
            Some(LocalRunEvent::Finished { result: Some(value), .. }) if *value == big
        ));
    }

    #[tokio::test]
    async fn a_failure_reaches_the_observer_redacted_and_typed_jobs_keep_no_result() {
        let jobs = LocalJobs::new(EventBus::new());
        let (observer, seen) = observed();
        let (_, result) = jobs
            .spawn_json(
                "fails".into(),
                false,
                |_ctx| async move { Err::<Value, BoxError>("token=abc123secret".into()) },
                Some(observer),
            )
            .unwrap();
        assert!(result.wait().await.is_err());
        match seen.lock().unwrap().last() {
            Some(LocalRunEvent::Finished {
                status: LocalJobStatus::Failed,
                result: None,
                error: Some(error),
            }) => assert!(!error.contains("abc123secret"), "{error}"),
            other => panic!("{other:?}"),
        }
        let (id, typed) =
            jobs.spawn_awaitable("typed", |_ctx| async move { Ok::<_, BoxError>(7u32) });
        assert_eq!(typed.wait().await.unwrap(), 7);
        assert_eq!(jobs.get(id).unwrap().result, None);
    }
}
