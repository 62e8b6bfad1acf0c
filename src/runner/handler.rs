//! Handlers: what runs a durable job of one kind, with a typed payload and result.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::backoff::RetryPolicy;
use crate::json::{call_json, without_values, JsonCallError};
use crate::kinds::{KindSpec, Schema};
use crate::model::{Actor, Constraints, JobId, RateLimit};
use crate::queue::Queue;
use crate::typescript::RustType;

use super::job_error::JobError;
use super::progress::AttemptProgress;

/// What a handler knows about the job it runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JobContext {
    /// The job being run.
    pub id: JobId,
    /// Its kind: the handler's own.
    pub kind: String,
    /// This attempt, from 1.
    pub attempt: u32,
    /// The job this one is a piece of.
    pub parent: Option<JobId>,
    /// Who asked for it.
    pub actor: Actor,
    pub(super) cancel: CancellationToken,
    pub(super) progress: Option<Arc<AttemptProgress>>,
    pub(super) queue: Queue,
    pub(super) app: crate::app::AppSlot,
    // The payload as stored, hashed: the end of the idempotency key.
    pub(super) payload_hash: u64,
}

impl JobContext {
    /// The Tauri app the plugin runs in, to reach its managed state
    /// (`app.state::<T>()`), its paths (`app.path().app_data_dir()`) and its events
    /// (`app.emit(..)`). The plugin starts running jobs only once the app's own
    /// `setup` has returned, so what the app manages there is there on a job's first
    /// attempt, after a restart too.
    ///
    /// `R` is the app's runtime: `tauri::Wry` in an app (`let app: AppHandle =
    /// ctx.app()?;`), the `R` of a `fn jobs_plugin<R: Runtime>()` so the same handler
    /// runs in a mock app's tests. A permanent error when there is no app on that
    /// runtime: a runner opened without the plugin (give it one with
    /// [`Runner::set_app`](super::Runner::set_app)), or another runtime.
    ///
    /// ```no_run
    /// use tauri::{Manager, Runtime};
    /// use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
    ///
    /// struct Library { root: std::path::PathBuf }
    ///
    /// fn download<R: Runtime>() -> Handler {
    ///     Handler::new("download", |url: String, ctx: JobContext| async move {
    ///         let app = ctx.app::<R>()?;
    ///         let dir = app.path().app_data_dir().map_err(JobError::permanent)?;
    ///         let library = app.state::<Library>();
    ///         Ok(format!("{url} -> {} ({})", dir.display(), library.root.display()))
    ///     })
    /// }
    /// ```
    pub fn app<R: tauri::Runtime>(&self) -> Result<tauri::AppHandle<R>, JobError> {
        self.app.get::<R>().map_err(JobError::permanent)
    }

    /// Now, by the queue's clock (a test's fake clock in tests): what
    /// [`retry_after`](crate::runner::retry_after) takes to read an HTTP-date.
    #[must_use]
    pub fn now(&self) -> crate::clock::Timestamp {
        self.queue.db().now()
    }

    /// The queue the job was claimed from (its `raw.db`), for a handler that enqueues:
    /// a parent that must run before its pieces lists what there is to do, then
    /// enqueues each as its piece (`EnqueueOptions::parent(ctx.id)`) and the job after
    /// them (`after_pieces_of(ctx.id)`); `watchJob(parent)` in the webview follows them
    /// once the parent has ended.
    #[must_use]
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// A key that names this job, and this job only, to a server: the same in every
    /// attempt of the job, in every process on `raw.db`, after a crash, a restart or
    /// an update; different for every other job of this file and of any other file.
    /// Send it where the service takes one (an `Idempotency-Key` header) and a
    /// request the server answered before the attempt's end was written (a crash, a
    /// lost lease, a timeout) is not done twice: the queue runs a job at least once,
    /// the key makes its effect once.
    ///
    /// It is the job's id, then a hash of the file's own id (drawn when `raw.db` was
    /// made) and of the payload as stored: a payload replaced by a later enqueue
    /// (`OnDuplicate::Replace`, an outbox's next edit of the same note) gets a new
    /// key, since the server must not take the new text for a repeat of the old; the
    /// same payload again keeps it. A copy of `raw.db` (a backup restored) keeps its
    /// jobs' keys. About 20 ASCII characters: `"42-9f0c3a1b2c3d4e5f"`.
    ///
    /// ```no_run
    /// use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
    ///
    /// let send = Handler::new("send", |text: String, ctx: JobContext| async move {
    ///     let key = ctx.idempotency_key();
    ///     // http.post(url).header("Idempotency-Key", &key).body(text).send().await
    ///     Ok(key)
    /// });
    /// ```
    #[must_use]
    pub fn idempotency_key(&self) -> String {
        idempotency_key(self.id, self.queue.db().file_id(), self.payload_hash)
    }

    /// Reports `done` steps of `total` (`None` when the total is unknown). Cheap: it
    /// is published as a [`JobProgress`](crate::bus::JobProgress) event about once a
    /// percent (at most 101 per attempt with a known total; one per 250 ms without),
    /// and stored with the job at most once a second while it runs and once with its
    /// outcome, where `get` and `list` read it.
    ///
    /// A local job's context has the same call; awaiting what it returns is allowed
    /// and waits for nothing (see [`Reported`](crate::local::Reported)).
    pub fn progress(&self, done: u64, total: Option<u64>) -> crate::local::Reported {
        if let Some(progress) = &self.progress {
            progress.report(done, total);
        }
        crate::local::Reported
    }

    /// Whether the job is being cancelled (cancel asked for, lease lost, shutdown past
    /// its grace). The runner also drops the handler's future; this lets a handler
    /// notice first, at a point of its choosing.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Completes when the job is being cancelled.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }
}

/// `"<id>-<16 hex digits>"`: the hash (FNV-1a) of the file's id and the payload's.
fn idempotency_key(id: JobId, file_id: &str, payload_hash: u64) -> String {
    let hash = file_id.bytes().fold(payload_hash, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{id}-{hash:016x}")
}

pub(crate) type HandlerFuture =
    Pin<Box<dyn Future<Output = Result<Option<Value>, JobError>> + Send>>;
pub(crate) type ErasedHandler = dyn Fn(Value, JobContext) -> HandlerFuture + Send + Sync;

/// A handler for one kind of durable job: a typed async function plus its defaults.
///
/// The payload type is the payload schema and the result type is the result schema:
/// a payload that does not deserialize fails the job at once, without retries.
///
/// The runner calls the closure and polls its future for the first time on its own
/// thread, inside the tokio runtime's context, and hands the future to the runtime
/// only if it has to wait: a handler that finishes at once costs no thread hand-off.
/// A panic in either place is a failed attempt. As in any async code, do
/// not block before an `.await`; move heavy synchronous work to
/// `tokio::task::spawn_blocking`, or the runner's database work waits behind it.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
///
/// #[derive(Deserialize)]
/// struct Resize { path: String, width: u32 }
///
/// #[derive(Serialize, Deserialize)]
/// struct Resized { bytes: u64 }
///
/// let handler = Handler::new("resize", |job: Resize, ctx: JobContext| async move {
///     if job.width == 0 {
///         return Err(JobError::permanent("width must not be zero"));
///     }
///     if ctx.is_cancelled() {
///         return Err(JobError::retryable("cancelled"));
///     }
///     Ok(Resized { bytes: 1024 })
/// })
/// .concurrency(2)
/// .max_attempts(3);
/// ```
#[derive(Clone)]
#[must_use]
pub struct Handler {
    pub(crate) kind: String,
    pub(crate) run: Arc<ErasedHandler>,
    pub(crate) spec: KindSpec,
    pub(crate) concurrency: Option<u32>,
    pub(crate) lease: Option<Duration>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_lease_expiries: Option<u32>,
    pub(crate) rate_limit: Option<RateLimit>,
    pub(crate) constraints: Option<Constraints>,
    /// What the system is told while a job of the kind keeps the machine awake.
    pub(crate) keep_awake: Option<String>,
    /// The Rust types of the payload and the result, for the TypeScript declarations.
    pub(crate) types: (RustType, RustType),
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handler")
            .field("kind", &self.kind)
            .field("spec", &self.spec)
            .field("concurrency", &self.concurrency)
            .field("lease", &self.lease)
            .field("timeout", &self.timeout)
            .field("max_lease_expiries", &self.max_lease_expiries)
            .field("rate_limit", &self.rate_limit)
            .field("constraints", &self.constraints)
            .field("keep_awake", &self.keep_awake)
            .finish_non_exhaustive()
    }
}

impl Handler {
    /// A handler for `kind` running `run` with the payload deserialized into `P`.
    pub fn new<P, R, F, Fut>(kind: impl Into<String>, run: F) -> Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + DeserializeOwned + 'static,
        F: Fn(P, JobContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, JobError>> + Send + 'static,
    {
        let erased = move |payload: Value, ctx: JobContext| -> HandlerFuture {
            match call_json(&run, payload, ctx) {
                Ok(future) => Box::pin(async move {
                    match future.await {
                        Ok(Value::Null) => Ok(None),
                        Ok(value) => Ok(Some(value)),
                        Err(JsonCallError::Failed(error)) => Err(error),
                        Err(JsonCallError::Output(error)) => Err(JobError::permanent(format!(
                            "the result could not be serialized: {error}"
                        ))),
                    }
                }),
                Err(error) => Box::pin(std::future::ready(Err(JobError::permanent(format!(
                    "invalid payload: {}",
                    without_values(&error.to_string())
                ))))),
            }
        };
        Handler {
            kind: kind.into(),
            run: Arc::new(erased),
            spec: KindSpec::new()
                .payload(Schema::of::<P>())
                .result(Schema::of::<R>()),
            concurrency: None,
            lease: None,
            timeout: None,
            max_lease_expiries: None,
            rate_limit: None,
            constraints: None,
            keep_awake: None,
            types: (RustType::traced::<P>(), RustType::traced::<R>()),
        }
    }

    /// The kind.
    #[must_use]
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// Asks that the system not sleep on its idle timer while a job of this kind runs
    /// (an overnight import, a large download); `reason` is what the system may show
    /// ("Importing mailboxes"; the first job's, when the request is taken). The process
    /// holds one request with the system while any such job runs, and lets go when
    /// the last one ends, however it ends (see [`KeepAwake`](crate::awake::KeepAwake));
    /// a job that finishes within its first poll takes none. The display may still sleep. `config.toml`'s
    /// `[jobs.keep_awake]` turns it off (or on) per kind: the user's choice wins.
    pub fn keep_awake(mut self, reason: impl Into<String>) -> Self {
        self.keep_awake = Some(reason.into());
        self
    }

    /// The default cap on running jobs of this kind across every process;
    /// `[jobs] kind_limits` in `config.toml` wins over it.
    pub fn concurrency(mut self, cap: u32) -> Self {
        self.concurrency = Some(cap);
        self
    }

    /// Attempts for jobs of this kind enqueued without their own number.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.spec.max_attempts = Some(attempts.max(1));
        self
    }

    /// The version of the payload this handler takes (1 by default). Jobs remember
    /// the version they were enqueued with: an older one is upgraded, through the
    /// steps given to [`upgrade`](Handler::upgrade), before the handler sees it (and
    /// stored so); one that cannot be ends failed, naming both versions. A process
    /// whose handler takes an older version never claims a newer job.
    pub fn payload_version(mut self, version: u32) -> Self {
        self.spec = self.spec.payload_version(version);
        self
    }

    /// How a payload of version `from` becomes one of `from + 1`, typed: from the old
    /// type to the new one (see [`KindSpec::upgrade`]). Steps chain up to this
    /// handler's [`payload_version`](Handler::payload_version).
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use tauri_plugin_jobs::runner::{Handler, JobContext};
    ///
    /// #[derive(Deserialize)]
    /// struct ThumbnailV1 { path: String }
    /// #[derive(Serialize, Deserialize)]
    /// struct Thumbnail { path: String, width: u32 }
    ///
    /// let handler = Handler::new("thumbnail", |job: Thumbnail, _ctx: JobContext| async move {
    ///     Ok(format!("{}@{}", job.path, job.width))
    /// })
    /// .payload_version(2)
    /// .upgrade(1, |old: ThumbnailV1| Ok::<_, String>(Thumbnail { path: old.path, width: 256 }));
    /// ```
    pub fn upgrade<Old, New, F, E>(mut self, from: u32, step: F) -> Self
    where
        Old: serde::de::DeserializeOwned,
        New: Serialize,
        F: Fn(Old) -> Result<New, E> + Send + Sync + 'static,
        E: fmt::Display,
    {
        self.spec = self.spec.upgrade(from, step);
        self
    }

    /// Backoff between attempts of this kind.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.spec.retry = Some(policy);
        self
    }

    /// How many times in a row a job of this kind may lose its worker (the process
    /// died or froze, and its lease ran out) before it ends failed, saying so;
    /// [`DEFAULT_MAX_LEASE_EXPIRIES`](crate::queue::DEFAULT_MAX_LEASE_EXPIRIES) by
    /// default. An attempt lost this way runs again and is not counted against
    /// [`max_attempts`](Handler::max_attempts); the count starts over when an attempt
    /// ends by its handler. Stored in `raw.db`, so every process's sweep obeys it.
    pub fn max_lease_expiries(mut self, expiries: u32) -> Self {
        self.max_lease_expiries = Some(expiries.max(1));
        self
    }

    /// At most `starts` starts of this kind per `per`, spread evenly (one every
    /// `per / starts`; [`rate_burst`](Handler::rate_burst) lets some go at once),
    /// across every runner, agent and process on the file: for a service with a
    /// quota (a mail API's 60 a minute). The
    /// runner stores it in `raw.db` when it is made ([`Queue::set_rate_limit`]); jobs
    /// beyond it wait queued, and an idle runner sleeps until a start is free.
    ///
    /// [`Queue::set_rate_limit`]: crate::queue::Queue::set_rate_limit
    pub fn rate_limit(mut self, starts: u32, per: Duration) -> Self {
        let burst = self.rate_limit.map_or(1, |limit| limit.burst);
        self.rate_limit = Some(RateLimit::new(starts, per).burst(burst));
        self
    }

    /// Lets the kind's [`rate_limit`](Handler::rate_limit) start up to `burst` jobs
    /// at once (at most its `starts`: the whole budget), the budget coming back one
    /// start per interval ([`RateLimit::burst`]): `.rate_limit(5, minute).rate_burst(5)`
    /// starts five at once, then one every 12 s. Without a rate limit it does nothing.
    pub fn rate_burst(mut self, burst: u32) -> Self {
        self.rate_limit = self.rate_limit.map(|limit| limit.burst(burst));
        self
    }

    /// What every job of this kind needs of the machine before it starts: a charger,
    /// a battery level, an unmetered network, an idle user ([`Constraints`]). The
    /// runner stores it in `raw.db` when it is made ([`Queue::set_constraints`]), so
    /// every claimer obeys it; a job waits queued until the machine meets it, and a
    /// change of power or network wakes the runner.
    ///
    /// [`Queue::set_constraints`]: crate::queue::Queue::set_constraints
    pub fn constraints(mut self, constraints: Constraints) -> Self {
        self.constraints = Some(constraints);
        self
    }

    /// How often the kind tries one job while its service cannot be reached (a
    /// handler returned [`JobError::Offline`]): the attempt is the probe, and when it
    /// gets through every job of the kind starts again.
    /// [`DEFAULT_OFFLINE_RETRY`](crate::queue::DEFAULT_OFFLINE_RETRY) (15 s) by
    /// default.
    pub fn offline_retry(mut self, every: Duration) -> Self {
        self.spec = self.spec.offline_retry(every);
        self
    }

    /// Declares a signal this kind's handler waits for
    /// ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)):
    /// one sent before the job waits for it is kept, and read when it does. A signal
    /// of a name no handler of the kind declares is refused
    /// ([`SignalRefusal::NotAwaited`](crate::model::SignalRefusal::NotAwaited)) unless
    /// the job waits for it at the time.
    pub fn signal(mut self, name: impl Into<String>) -> Self {
        self.spec = self.spec.signal(name);
        self
    }

    /// How long a job of this kind may wait for the network, from its first attempt
    /// that found it gone: its first attempt that finds it gone again when `limit` or
    /// more has passed fails it for good (the kind stays held: the next job probes
    /// one `offline_retry` later). No limit by default: an outbox keeps the user's changes for as long as
    /// the machine is offline.
    pub fn max_offline(mut self, limit: Duration) -> Self {
        self.spec = self.spec.max_offline(limit);
        self
    }

    /// Lease length for jobs of this kind (renewed every third of it).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = Some(lease);
        self
    }

    /// A time limit for each attempt of this kind: a handler still running then is
    /// dropped at its next `.await`, and the attempt fails with a timeout error that is
    /// retried like any failure (its lease is no longer renewed). A job's own
    /// [`EnqueueOptions::timeout`](crate::queue::EnqueueOptions::timeout) wins. None by
    /// default: a handler may run as long as it keeps its lease.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }
}
