//! Telling the user that work is done: a system notification when jobs of the kinds
//! an app names ([`Builder::notify_when_done`]) end while none of its windows has the
//! focus, with the app's texts, the ends of one kind that come together grouped into
//! one ("12 photos imported").
//!
//! The plugin shows nothing itself: it hands each [`Notice`] to the app's
//! [`Notifier`] ([`Builder::notifier`]), a closure that calls Tauri's notification
//! plugin, a tray balloon, or a test's recorder. Quiet by default: nothing is said
//! about a kind the app did not name.
//!
//! [`Builder::notify_when_done`]: super::Builder::notify_when_done
//! [`Builder::notifier`]: super::Builder::notifier

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::app::AppSlot;
use crate::bus::{Event, EventBus};
#[cfg(feature = "local")]
use crate::local::LocalJobs;
use crate::locks::lock;
use crate::model::JobStatus;
#[cfg(feature = "local")]
use crate::model::LocalJobStatus;
use crate::queue::Queue;

/// How long the ends of one kind are gathered into one notice, by default
/// ([`DoneNotice::group_within`]).
pub const NOTICE_GROUP: Duration = Duration::from_secs(2);

/// A job that ended, for a notice's text.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct EndedJob {
    /// The job's id: a durable job's number (`"42"`), a local job's (`"local-3"`).
    pub id: String,
    /// Its kind.
    pub kind: String,
    /// Whether it is a process-local job.
    pub local: bool,
    /// What it returned, when it succeeded (a local job's when its value is JSON).
    pub result: Option<Value>,
    /// Why it failed (redacted), when it did.
    pub error: Option<String>,
}

/// A notification for the app's [`Notifier`] to show.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Notice {
    /// The kind whose jobs ended.
    pub kind: String,
    /// Whether they succeeded (else they failed).
    pub succeeded: bool,
    /// The title: the [`DoneNotice`]'s, else the app's name.
    pub title: String,
    /// The text the app's [`DoneNotice`] made of the jobs.
    pub body: String,
    /// The jobs the notice is about, in the order they ended.
    pub jobs: Vec<EndedJob>,
    app: AppSlot,
}

impl Notice {
    /// The app, to show the notice with (`notice.app::<R>()?.notification()` with
    /// Tauri's notification plugin): on its runtime `R`.
    pub fn app<R: tauri::Runtime>(&self) -> crate::Result<tauri::AppHandle<R>> {
        self.app.get()
    }
}

/// Shows a [`Notice`]: the app's, through Tauri's notification plugin or its own
/// means. Called on a task of the plugin's; keep it quick.
pub trait Notifier: Send + Sync + 'static {
    /// Shows `notice`.
    fn notify(&self, notice: &Notice);
}

impl<F: Fn(&Notice) + Send + Sync + 'static> Notifier for F {
    fn notify(&self, notice: &Notice) {
        self(notice);
    }
}

type Text = Arc<dyn Fn(&[EndedJob]) -> String + Send + Sync>;

/// What to say when jobs of a kind end ([`Builder::notify_when_done`](super::Builder::notify_when_done)):
/// a text for the ends that succeeded, one for those that failed (an end without a
/// text says nothing), each given every job of the kind that ended within
/// [`group_within`](DoneNotice::group_within) of the first.
///
/// ```
/// use tauri_plugin_jobs::plugin::notices::DoneNotice;
///
/// let notice = DoneNotice::new()
///     .title("Photos")
///     .success(|jobs| match jobs {
///         [one] => format!("Imported {}", one.result.as_ref().and_then(|r| r["name"].as_str()).unwrap_or("a photo")),
///         many => format!("{} photos imported", many.len()),
///     })
///     .failure(|jobs| format!("{} imports failed: {}", jobs.len(), jobs[0].error.as_deref().unwrap_or("")));
/// ```
#[derive(Clone, Default)]
#[must_use]
pub struct DoneNotice {
    title: Option<String>,
    success: Option<Text>,
    failure: Option<Text>,
    even_when_focused: bool,
    group: Option<Duration>,
}

impl std::fmt::Debug for DoneNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DoneNotice")
            .field("title", &self.title)
            .field("success", &self.success.is_some())
            .field("failure", &self.failure.is_some())
            .field("even_when_focused", &self.even_when_focused)
            .finish_non_exhaustive()
    }
}

impl DoneNotice {
    /// Says nothing until given a text.
    pub fn new() -> Self {
        Self::default()
    }

    /// The notices' title; the app's name by default.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The text when jobs of the kind succeed: made of the jobs (one or more; their
    /// results in [`EndedJob::result`]).
    pub fn success(mut self, text: impl Fn(&[EndedJob]) -> String + Send + Sync + 'static) -> Self {
        self.success = Some(Arc::new(text));
        self
    }

    /// The text when jobs of the kind fail for good (no retry left): made of the jobs
    /// (their errors in [`EndedJob::error`]). A cancelled job says nothing.
    pub fn failure(mut self, text: impl Fn(&[EndedJob]) -> String + Send + Sync + 'static) -> Self {
        self.failure = Some(Arc::new(text));
        self
    }

    /// Notifies while a window of the app has the focus too (by default not: the user
    /// sees the app).
    pub fn even_when_focused(mut self) -> Self {
        self.even_when_focused = true;
        self
    }

    /// How long after the first end of a group the others are gathered into the same
    /// notice: [`NOTICE_GROUP`] by default.
    pub fn group_within(mut self, within: Duration) -> Self {
        self.group = Some(within);
        self
    }
}

/// Which windows of the app have the focus now, from the run loop's window events.
#[derive(Debug, Default)]
pub(crate) struct Focus(Mutex<HashSet<String>>);

impl Focus {
    pub(crate) fn set(&self, window: &str, focused: bool) {
        let mut windows = lock(&self.0);
        if focused {
            windows.insert(window.to_owned());
        } else {
            windows.remove(window);
        }
    }

    pub(crate) fn any(&self) -> bool {
        !lock(&self.0).is_empty()
    }
}

/// The ends gathered for each (kind, succeeded), with when the group closes.
#[derive(Default)]
pub(crate) struct Groups {
    open: BTreeMap<(String, bool), (Instant, Vec<EndedJob>)>,
}

impl Groups {
    /// Adds `job`, ended at `now`, to its group, which closes `within` after its first.
    pub(crate) fn push(&mut self, job: EndedJob, succeeded: bool, now: Instant, within: Duration) {
        self.open
            .entry((job.kind.clone(), succeeded))
            .or_insert_with(|| (now + within, Vec::new()))
            .1
            .push(job);
    }

    /// The groups closed by `now`, taken out.
    pub(crate) fn closed(&mut self, now: Instant) -> Vec<(String, bool, Vec<EndedJob>)> {
        let keys: Vec<(String, bool)> = self
            .open
            .iter()
            .filter(|(_, (closes, _))| *closes <= now)
            .map(|(key, _)| key.clone())
            .collect();
        keys.into_iter()
            .filter_map(|key| self.open.remove(&key).map(|(_, jobs)| (key.0, key.1, jobs)))
            .collect()
    }

    /// When the next group closes.
    pub(crate) fn next_close(&self) -> Option<Instant> {
        self.open.values().map(|(closes, _)| *closes).min()
    }
}

/// What the notices task needs.
pub(crate) struct Notices {
    pub kinds: HashMap<String, DoneNotice>,
    pub notifier: Arc<dyn Notifier>,
    pub app_name: String,
    pub app: AppSlot,
    pub focus: Arc<Focus>,
    pub queue: Queue,
    #[cfg(feature = "local")]
    pub local: LocalJobs,
}

impl Notices {
    /// The job an event says ended, if it is of a kind to notify about, and whether it
    /// succeeded.
    fn ended(&self, event: &Event) -> Option<(EndedJob, bool)> {
        match event {
            Event::JobStateChanged(change) if self.kinds.contains_key(&change.kind) => {
                let succeeded = match change.to {
                    JobStatus::Succeeded => true,
                    JobStatus::Failed => false,
                    _ => return None,
                };
                let job = self.queue.get(change.id).ok().flatten();
                Some((
                    EndedJob {
                        id: change.id.to_string(),
                        kind: change.kind.clone(),
                        local: false,
                        result: job.as_ref().and_then(|job| job.result.clone()),
                        error: job.and_then(|job| job.last_error),
                    },
                    succeeded,
                ))
            }
            #[cfg(feature = "local")]
            Event::LocalJobChanged(change) if self.kinds.contains_key(&change.kind) => {
                let succeeded = match change.status {
                    LocalJobStatus::Succeeded => true,
                    LocalJobStatus::Failed => false,
                    _ => return None,
                };
                Some((
                    EndedJob {
                        id: change.id.to_string(),
                        kind: change.kind.clone(),
                        local: true,
                        result: self.local.get(change.id).and_then(|job| job.result),
                        error: change.error.clone(),
                    },
                    succeeded,
                ))
            }
            _ => None,
        }
    }

    /// The notice for a closed group, if its kind has a text for it and no window
    /// has the focus (unless the kind asks to be heard anyway).
    fn notice(&self, kind: String, succeeded: bool, jobs: Vec<EndedJob>) -> Option<Notice> {
        let done = self.kinds.get(&kind)?;
        if self.focus.any() && !done.even_when_focused {
            return None;
        }
        let text = if succeeded {
            &done.success
        } else {
            &done.failure
        };
        let body = text.as_ref()?(&jobs);
        Some(Notice {
            title: done.title.clone().unwrap_or_else(|| self.app_name.clone()),
            kind,
            succeeded,
            body,
            jobs,
            app: self.app.clone(),
        })
    }

    fn group_within(&self, kind: &str) -> Duration {
        self.kinds
            .get(kind)
            .and_then(|done| done.group)
            .unwrap_or(NOTICE_GROUP)
    }

    /// Listens on `bus` until `stop`, and shows the notices as their groups close.
    pub(crate) fn watch(self, bus: &EventBus, stop: CancellationToken) {
        let mut events = bus.subscribe(1024);
        crate::tasks::spawn_in_app(async move {
            let mut groups = Groups::default();
            loop {
                let sleep = groups.next_close().map_or(Duration::from_secs(3600), |at| {
                    at.saturating_duration_since(Instant::now())
                });
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(sleep) => {}
                    event = events.next() => match event {
                        Some(event) => {
                            if let Some((job, succeeded)) = self.ended(&event) {
                                let within = self.group_within(&job.kind);
                                groups.push(job, succeeded, Instant::now(), within);
                            }
                        }
                        None => break,
                    },
                }
                for (kind, succeeded, jobs) in groups.closed(Instant::now()) {
                    if let Some(notice) = self.notice(kind, succeeded, jobs) {
                        self.notifier.notify(&notice);
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(kind: &str, id: u32) -> EndedJob {
        EndedJob {
            id: id.to_string(),
            kind: kind.to_owned(),
            local: false,
            result: None,
            error: None,
        }
    }

    #[test]
    fn ends_within_the_window_make_one_group_per_kind_and_outcome() {
        let start = Instant::now();
        let within = Duration::from_secs(2);
        let mut groups = Groups::default();
        for id in 0..12 {
            groups.push(
                job("import", id),
                true,
                start + Duration::from_millis(100 * u64::from(id)),
                within,
            );
        }
        groups.push(job("import", 99), false, start, within);
        groups.push(
            job("upload", 1),
            true,
            start + Duration::from_secs(1),
            within,
        );
        assert!(groups
            .closed(start + Duration::from_millis(1999))
            .is_empty());
        let closed = groups.closed(start + within);
        assert_eq!(closed.len(), 2, "{closed:?}");
        assert!(closed
            .iter()
            .any(|(kind, ok, jobs)| kind == "import" && *ok && jobs.len() == 12));
        assert!(closed
            .iter()
            .any(|(kind, ok, jobs)| kind == "import" && !*ok && jobs.len() == 1));
        assert_eq!(groups.next_close(), Some(start + Duration::from_secs(3)));
        // An end after a group closed starts the next one.
        groups.push(job("import", 100), true, start + within, within);
        assert_eq!(groups.closed(start + Duration::from_secs(3)).len(), 1);
        assert_eq!(groups.closed(start + Duration::from_secs(4)).len(), 1);
        assert_eq!(groups.next_close(), None);
    }
}
