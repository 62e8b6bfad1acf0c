//! Running a local job: its task started on tokio (exclusivity checked and the record
//! made in one step), its end recorded and published, and what a succeeded job's value
//! becomes on its record.

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::progress::Progress;
use super::{
    BoxError, Entry, LocalJob, LocalJobContext, LocalJobFailure, LocalJobId, LocalJobStatus,
    LocalJobs, LocalRunEvent, Observer, MAX_LOCAL_RESULT_BYTES,
};
use crate::awake::AwakeJob;
use crate::bus::LocalJobChanged;
use crate::error::{Error, Result};
use crate::json::too_deep;
use crate::locks::lock;
use crate::model::sanitize_error;
use crate::panics::{panic_message, CatchUnwind};

impl LocalJobs {
    pub(super) fn start<T, F, Fut>(
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
            app: self.inner.app.get().cloned().unwrap_or_default(),
        };
        // A body whose closure panics before it returns its future is a job that
        // panicked, recorded like a panic inside the future, never a panic here.
        type BodyFuture<T> =
            std::pin::Pin<Box<dyn Future<Output = std::result::Result<T, BoxError>> + Send>>;
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(context)))
            .map(|future| -> BodyFuture<T> { Box::pin(future) })
            .map_err(|panic| panic_message(&*panic));
        let this = self.clone();
        // Held while the job runs, if its kind keeps the machine awake; dropped with
        // the task, however it ends.
        let awake = self.inner.awake.get().and_then(|(awake, kinds)| {
            let reason = kinds.get(&kind)?;
            Some(awake.hold(AwakeJob::local(&kind, id), reason.clone()))
        });
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
            drop(awake);
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
                crate::tasks::spawn_on(&runtime, task);
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

    pub(super) fn finish(
        &self,
        id: LocalJobId,
        status: LocalJobStatus,
        error: Option<String>,
        shown: Shown,
    ) {
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

    pub(super) fn publish(
        &self,
        id: LocalJobId,
        kind: &str,
        status: LocalJobStatus,
        error: Option<String>,
    ) {
        self.inner.bus.publish(LocalJobChanged {
            id,
            kind: kind.to_owned(),
            status,
            error,
            at: self.inner.clock.now(),
        });
    }
}

/// A value of a typed job: not JSON, so nothing to keep.
pub(super) fn no_json<T>(_: &T) -> Option<serde_json::Value> {
    None
}

/// What a succeeded job's value becomes on its record and for its observer.
pub(super) enum Shown {
    None,
    /// Kept on the record and sent.
    Kept(serde_json::Value),
    /// Too large or deep for the record; sent to the observer only.
    SentOnly(serde_json::Value),
}

impl Shown {
    /// Kept when it fits the record's caps.
    pub(super) fn of(value: serde_json::Value) -> Self {
        let fits = too_deep(&value).is_none()
            && serde_json::to_vec(&value).is_ok_and(|bytes| bytes.len() <= MAX_LOCAL_RESULT_BYTES);
        if fits {
            Shown::Kept(value)
        } else {
            Shown::SentOnly(value)
        }
    }

    /// What the record keeps, and what the observer hears.
    pub(super) fn split(self) -> (Option<serde_json::Value>, Option<serde_json::Value>) {
        match self {
            Shown::None => (None, None),
            Shown::Kept(value) => (Some(value.clone()), Some(value)),
            Shown::SentOnly(value) => (None, Some(value)),
        }
    }
}
