//! What a source implements and returns: it decides how data is fetched and owns no
//! timing.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::target::SyncTarget;
use crate::bus::{EventBus, MessageEvent, MessageStage, ReadStateChanged, SyncProgress};
use crate::clock::Clock;
use crate::progress::Throttle;

/// A boxed future: what a source written before `async fn` in traits returns from
/// [`SyncSource::sync`] (still accepted), and how the engine keeps every source's run.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a source's run returns: `Result<SyncResult>` reads as in the spec.
pub type Result<T = SyncResult, E = SyncError> = std::result::Result<T, E>;

/// Fetches one target's data. The engine decides when; the source decides how.
///
/// One `async fn`, no attribute needed:
///
/// ```
/// use tauri_plugin_jobs::sync::{Result, SyncContext, SyncReport, SyncResult, SyncSource};
///
/// struct Notifications;
///
/// impl SyncSource for Notifications {
///     async fn sync(&self, ctx: &SyncContext) -> Result<SyncResult> {
///         if ctx.etag() == Some("\"v2\"") {
///             return Ok(SyncResult::NotModified);
///         }
///         // ... fetch with If-None-Match: ctx.etag(), store the items ...
///         Ok(SyncResult::Updated(SyncReport::changed(3).with_etag("\"v2\"")))
///     }
/// }
/// ```
///
/// The future must be `Send` (the engine runs it as a tokio task). A source written
/// for earlier releases, `fn sync<'a>(&'a self, ctx: &'a SyncContext) -> BoxFuture<'a,
/// ...>`, still compiles (rustc's `refining_impl_trait` lint notes that it returns a
/// concrete type). `#[async_trait]` is not needed, and not accepted: the trait is not
/// one of its traits. Sources are registered as `Arc<S>` of their own type.
pub trait SyncSource: Send + Sync + 'static {
    /// Runs one sync. Return [`SyncError::offline`] when the service could not be
    /// reached at all: the engine then retries on a short flat timer instead of
    /// backing off; [`SyncError::failed`] for anything else (it backs off).
    fn sync<'a>(
        &'a self,
        ctx: &'a SyncContext,
    ) -> impl Future<Output = Result<SyncResult, SyncError>> + Send + 'a;
}

/// A registered source as the engine keeps it: any [`SyncSource`] behind one pointer
/// type (the trait's `impl Future` keeps it from being a `dyn` trait itself).
pub(crate) trait DynSource: Send + Sync + 'static {
    fn sync_boxed<'a>(
        &'a self,
        ctx: &'a SyncContext,
    ) -> BoxFuture<'a, Result<SyncResult, SyncError>>;
}

impl<S: SyncSource> DynSource for S {
    fn sync_boxed<'a>(
        &'a self,
        ctx: &'a SyncContext,
    ) -> BoxFuture<'a, Result<SyncResult, SyncError>> {
        Box::pin(self.sync(ctx))
    }
}

/// What a source gets: stored validators, cancellation and a progress reporter.
pub struct SyncContext {
    pub(crate) target: SyncTarget,
    pub(crate) etag: Option<String>,
    pub(crate) last_modified: Option<String>,
    pub(crate) cursor: Option<String>,
    pub(crate) cancel: CancellationToken,
    pub(crate) bus: EventBus,
    pub(crate) clock: std::sync::Arc<dyn Clock>,
    pub(crate) progress: Throttle,
    pub(crate) app: crate::app::AppSlot,
}

impl fmt::Debug for SyncContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncContext")
            .field("target", &self.target)
            .field("etag", &self.etag)
            .field("last_modified", &self.last_modified)
            .field("cursor", &self.cursor)
            .finish_non_exhaustive()
    }
}

impl SyncContext {
    /// The Tauri app the plugin runs in (its state, paths and events), as a durable
    /// job's [`JobContext::app`](crate::runner::JobContext::app) gives it; `R` is the
    /// app's runtime. A failed run when there is none on that runtime: an engine made
    /// without the plugin (give it one with [`SyncEngine::set_app`](super::SyncEngine::set_app)).
    pub fn app<R: tauri::Runtime>(&self) -> Result<tauri::AppHandle<R>, SyncError> {
        self.app.get::<R>().map_err(SyncError::failed)
    }

    /// The target being synced.
    #[must_use]
    pub fn target(&self) -> &SyncTarget {
        &self.target
    }

    /// The stored ETag, for `If-None-Match`.
    #[must_use]
    pub fn etag(&self) -> Option<&str> {
        self.etag.as_deref()
    }

    /// The stored Last-Modified, for `If-Modified-Since`.
    #[must_use]
    pub fn last_modified(&self) -> Option<&str> {
        self.last_modified.as_deref()
    }

    /// The stored cursor, for incremental APIs.
    #[must_use]
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }

    /// Whether the run is being cancelled (the account was disconnected).
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Completes when the run is being cancelled.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }

    /// Reports progress, published as a sync-progress event throttled like local job
    /// progress: about one event a percent with a known total, at most one per
    /// [`PROGRESS_INTERVAL`](crate::local::PROGRESS_INTERVAL) without; a report held
    /// back is published when the run ends.
    pub fn progress(&self, done: u32, total: Option<u32>) {
        if self.progress.report(u64::from(done), total.map(u64::from)) {
            self.publish_progress(done, total);
        }
    }

    /// Publishes that message `id` of this target's account reached `stage`
    /// (`messageStored`, `messageParsed`, ...): a source that stored what it fetched
    /// says so here, and pages follow without polling. A window hears it when its
    /// scope reaches every target of the account (`connector/account/*`).
    pub fn message(&self, stage: MessageStage, id: impl Into<String>) {
        self.bus.publish(stage.event(MessageEvent {
            account: self.account(),
            message_id: id.into(),
            at: self.clock.now(),
        }));
    }

    /// Publishes that message `id` of this target's account was marked read or unread
    /// (`readStateChanged`), heard as [`message`](SyncContext::message) is.
    pub fn read_state(&self, id: impl Into<String>, read: bool) {
        self.bus.publish(ReadStateChanged {
            account: self.account(),
            message_id: id.into(),
            read,
            at: self.clock.now(),
        });
    }

    /// The target's account, `connector/account`.
    fn account(&self) -> String {
        format!("{}/{}", self.target.connector(), self.target.account())
    }

    /// Publishes the last report if the throttle held it back.
    pub(crate) fn finish_progress(&self) {
        if let Some((done, total)) = self.progress.held_back() {
            let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
            self.publish_progress(narrow(done), total.map(narrow));
        }
    }

    fn publish_progress(&self, done: u32, total: Option<u32>) {
        self.bus.publish(SyncProgress {
            target: self.target.to_string(),
            done,
            total,
            at: self.clock.now(),
        });
    }
}

/// How a run went, from the source's side.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SyncResult {
    /// Nothing changed since the stored validators (HTTP 304).
    NotModified,
    /// Data was fetched.
    Updated(SyncReport),
    /// The service asked to slow down and returned no data.
    Throttled(SyncThrottle),
}

/// What an updating run reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncReport {
    /// Items changed.
    pub changed: u64,
    /// A new ETag; `None` keeps the stored one.
    pub etag: Option<String>,
    /// A new Last-Modified; `None` keeps the stored one.
    pub last_modified: Option<String>,
    /// A new cursor; `None` keeps the stored one.
    pub cursor: Option<String>,
    /// A request to slow down that came with the data.
    pub throttle: Option<SyncThrottle>,
}

impl SyncReport {
    /// `changed` items changed.
    #[must_use]
    pub fn changed(changed: u64) -> Self {
        SyncReport {
            changed,
            ..SyncReport::default()
        }
    }

    /// With a new ETag.
    #[must_use]
    pub fn with_etag(mut self, etag: impl Into<String>) -> Self {
        self.etag = Some(etag.into());
        self
    }

    /// With a new Last-Modified.
    #[must_use]
    pub fn with_last_modified(mut self, last_modified: impl Into<String>) -> Self {
        self.last_modified = Some(last_modified.into());
        self
    }

    /// With a new cursor.
    #[must_use]
    pub fn with_cursor(mut self, cursor: impl Into<String>) -> Self {
        self.cursor = Some(cursor.into());
        self
    }

    /// With a request to slow down.
    #[must_use]
    pub fn with_throttle(mut self, throttle: SyncThrottle) -> Self {
        self.throttle = Some(throttle);
        self
    }
}

/// Why a service asked to slow down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ThrottleReason {
    /// A consumed quota or rate limit (a `429` with `Retry-After`, a cost budget the
    /// body reports): every run waits, Refresh too, which answers at once that it is
    /// throttled and until when.
    Quota,
    /// How often the service wants to be polled (`X-Poll-Interval`, a `Retry-After`
    /// on a success): it shapes automatic runs only; Refresh runs through it.
    ServerInterval,
}

/// A request to defer the next run, clamped to the policy's `max_throttle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncThrottle {
    /// Why.
    pub reason: ThrottleReason,
    /// How long to wait.
    pub delay: Duration,
}

impl SyncThrottle {
    /// A consumed quota or rate limit that resets after `delay` (a `429` with
    /// `Retry-After`, a cost budget in the body): every run waits, Refresh too.
    #[must_use]
    pub fn quota(delay: Duration) -> Self {
        SyncThrottle {
            reason: ThrottleReason::Quota,
            delay,
        }
    }

    /// The service asks to be polled no more often than every `delay`
    /// (`X-Poll-Interval`): automatic runs wait; Refresh runs through it.
    #[must_use]
    pub fn server_interval(delay: Duration) -> Self {
        SyncThrottle {
            reason: ThrottleReason::ServerInterval,
            delay,
        }
    }
}

/// A failed run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if *.offline { "offline: " } else { "" })]
pub struct SyncError {
    /// The service could not be reached at all.
    pub offline: bool,
    /// What happened.
    pub message: String,
}

impl SyncError {
    /// The service could not be reached: no connection, DNS failure, timeout
    /// connecting. Retried on a short flat timer.
    #[must_use]
    pub fn offline(message: impl fmt::Display) -> Self {
        SyncError {
            offline: true,
            message: message.to_string(),
        }
    }

    /// Anything else: the service answered with an error, the data did not parse.
    /// Retried with exponential backoff.
    #[must_use]
    pub fn failed(message: impl fmt::Display) -> Self {
        SyncError {
            offline: false,
            message: message.to_string(),
        }
    }
}
