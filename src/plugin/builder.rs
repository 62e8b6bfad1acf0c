//! The plugin's [`Builder`]: what the app registers (handlers, schedules, sync targets,
//! local kinds, retired and agent kinds, where the files are), and the Tauri plugin it
//! builds; `start` opens everything in `setup` and starts the loops.

mod closing;
mod settings;
mod start;

pub(crate) use start::CONFIG_COMPONENT;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tauri::plugin::TauriPlugin;
use tauri::webview::PageLoadEvent;
use tauri::{Manager, RunEvent, Runtime, WindowEvent};

#[cfg(feature = "sync")]
use super::triggers;
use super::{Jobs, PLUGIN_NAME};
use crate::conditions::ConditionSource;
use crate::config::OnConfigError;
use crate::local::{BoxError, LocalJobContext, LocalKinds};
use crate::queue::Retire;
use crate::runner::Handler;
use crate::scheduler::ScheduleSpec;
use crate::sync::{DynSource, SyncPolicy, SyncSource, SyncTarget};
use crate::typescript::Typescript;

/// Builds the plugin: handlers, schedules, sync targets and the local job kinds the
/// webview may start.
///
/// ```no_run
/// use std::time::Duration;
/// use tauri_plugin_jobs::runner::{Handler, JobContext};
/// use tauri_plugin_jobs::scheduler::ScheduleSpec;
///
/// fn jobs_plugin<R: tauri::Runtime>() -> tauri::plugin::TauriPlugin<R> {
///     tauri_plugin_jobs::Builder::new()
///         .handler(Handler::new("thumbnail", |path: String, _ctx: JobContext| async move {
///             Ok(path.len())
///         }))
///         .schedule(ScheduleSpec::every("cleanup", "thumbnail", Duration::from_secs(3600)))
///         .build()
/// }
/// // tauri::Builder::default().plugin(jobs_plugin())
/// ```
#[derive(Default)]
#[must_use]
pub struct Builder {
    pub(super) handlers: Vec<Handler>,
    pub(super) schedules: Vec<ScheduleSpec>,
    pub(super) targets: Vec<(SyncTarget, SyncPolicy, Arc<dyn DynSource>)>,
    pub(super) local_kinds: LocalKinds,
    pub(crate) database: Option<PathBuf>,
    config: Option<PathBuf>,
    grace: Option<Duration>,
    ignore_network: bool,
    local_jobs_per_window: Option<usize>,
    refresh_floor: Option<Duration>,
    retired: Vec<(String, Retire)>,
    pub(super) agent_kinds: Vec<String>,
    pub(super) typescript: Option<Typescript>,
    conditions: Option<Arc<dyn ConditionSource>>,
    on_config_error: OnConfigError,
    /// Kinds (durable or local) whose running jobs keep the machine awake, with what
    /// the system is told.
    pub(super) keep_awake: std::collections::HashMap<String, String>,
    /// The request they share; the system's when the app gives none.
    pub(super) awake: Option<crate::awake::KeepAwake>,
    /// Whether the app's taskbar or dock entry shows their progress.
    pub(super) taskbar_progress: bool,
    /// How long after the plugin's setup a run loop that has not started its loops,
    /// with jobs queued, is worth a warning; [`RUN_LOOP_NOTICE`] when `None`.
    run_loop_notice: Option<Duration>,
    /// The kinds whose work holds the app's quit, and how long it may.
    pub(super) quit: super::quit::QuitSettings,
    /// The kinds whose ends are told to the user, and what shows them.
    pub(super) notices: std::collections::HashMap<String, super::notices::DoneNotice>,
    pub(super) notifier: Option<Arc<dyn super::notices::Notifier>>,
}

/// How long after its setup the plugin waits for the app's run loop before it warns
/// that jobs are queued and nothing runs them (an app built by `tauri::test` and never
/// run): longer than any app's `setup` should take.
pub(crate) const RUN_LOOP_NOTICE: Duration = Duration::from_secs(5);

impl Builder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a durable job handler.
    pub fn handler(mut self, handler: Handler) -> Self {
        self.handlers.push(handler);
        self
    }

    /// Keeps the machine from sleeping on its idle timer while a job of `kind` runs,
    /// durable or local (for a durable kind, the same as its handler's
    /// [`Handler::keep_awake`]); `reason` is what the system may show ("Importing
    /// mailboxes"). `config.toml`'s `[jobs.keep_awake]` turns it off (or on) per kind:
    /// the user's choice wins. `pluginHealth()` and the inspector say which jobs keep
    /// the machine awake ([`Jobs::keep_awake`](super::Jobs::keep_awake)).
    pub fn keep_awake(mut self, kind: impl Into<String>, reason: impl Into<String>) -> Self {
        self.keep_awake.insert(kind.into(), reason.into());
        self
    }

    /// Shows the progress of the work that keeps the machine awake on the app's
    /// taskbar (Windows) or dock (macOS) entry, as browsers show their downloads: one
    /// bar for all of it (the steps done over the steps in all of the jobs that gave
    /// a total; moving without a figure when none did), cleared when it is done. Set
    /// on the window labelled `main`, else the first (Tauri's `set_progress_bar`; on
    /// Linux only where the desktop has Unity's launcher API; on Android and iOS, which
    /// have neither, it does nothing). Off by default.
    pub fn taskbar_progress(mut self, on: bool) -> Self {
        self.taskbar_progress = on;
        self
    }

    /// Keeps the machine awake through `awake` rather than this system's own means
    /// ([`SystemInhibitor`](crate::awake::SystemInhibitor)): another
    /// [`Inhibitor`](crate::awake::Inhibitor), or a fake in tests.
    pub fn keep_awake_with(mut self, awake: crate::awake::KeepAwake) -> Self {
        self.awake = Some(awake);
        self
    }

    /// Adds (or updates) a schedule at start-up.
    #[cfg(feature = "schedules")]
    #[cfg_attr(docsrs, doc(cfg(feature = "schedules")))]
    pub fn schedule(mut self, schedule: ScheduleSpec) -> Self {
        self.schedules.push(schedule);
        self
    }

    /// Registers a sync target.
    #[cfg(feature = "sync")]
    #[cfg_attr(docsrs, doc(cfg(feature = "sync")))]
    pub fn sync_target<S: SyncSource>(
        mut self,
        target: SyncTarget,
        policy: SyncPolicy,
        source: Arc<S>,
    ) -> Self {
        self.targets.push((target, policy, source));
        self
    }

    /// A local job kind the webview may start by name with JSON arguments.
    #[cfg(feature = "local")]
    #[cfg_attr(docsrs, doc(cfg(feature = "local")))]
    pub fn local_kind<A, T, F, Fut>(self, kind: impl Into<String>, run: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        T: Serialize + Send + 'static,
        F: Fn(A, LocalJobContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, BoxError>> + Send + 'static,
    {
        self.add_local_kind(kind.into(), false, run)
    }

    /// The same, but only one job of the kind at a time.
    #[cfg(feature = "local")]
    #[cfg_attr(docsrs, doc(cfg(feature = "local")))]
    pub fn exclusive_local_kind<A, T, F, Fut>(self, kind: impl Into<String>, run: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        T: Serialize + Send + 'static,
        F: Fn(A, LocalJobContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, BoxError>> + Send + 'static,
    {
        self.add_local_kind(kind.into(), true, run)
    }

    fn add_local_kind<A, T, F, Fut>(mut self, kind: String, exclusive: bool, run: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        T: Serialize + Send + 'static,
        F: Fn(A, LocalJobContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, BoxError>> + Send + 'static,
    {
        self.local_kinds.register(kind, exclusive, run);
        self
    }

    /// How many local jobs of one kind one window may have running at once (jobs it
    /// started through `spawn_local`, `spawn_awaitable` or `run_local`);
    /// [`LOCAL_JOBS_PER_WINDOW`](super::LOCAL_JOBS_PER_WINDOW) by default. More is refused with `limitReached`.
    #[cfg(feature = "local")]
    #[cfg_attr(docsrs, doc(cfg(feature = "local")))]
    pub fn local_jobs_per_window(mut self, limit: usize) -> Self {
        self.local_jobs_per_window = Some(limit);
        self
    }

    /// How close to the end of a target's last run a Refresh (`sync_now` from the
    /// webview) gets that run's outcome instead of a new run; [`REFRESH_FLOOR`](super::REFRESH_FLOOR) by
    /// default, zero for none.
    #[cfg(feature = "sync")]
    #[cfg_attr(docsrs, doc(cfg(feature = "sync")))]
    pub fn refresh_floor(mut self, floor: Duration) -> Self {
        self.refresh_floor = Some(floor);
        self
    }

    /// Retires a job kind no handler of this build runs any more (it was removed in
    /// an update): at start, before anything runs, its queued jobs are cancelled, or
    /// every one of them not running is deleted, in one transaction, with the events a
    /// page follows ([`Queue::retire_kind`](crate::queue::Queue::retire_kind)).
    pub fn retire_kind(mut self, kind: impl Into<String>, how: Retire) -> Self {
        self.retired.push((kind.into(), how));
        self
    }

    /// Declares a job kind that agents (or another process) run, not a handler of
    /// this app: its queued jobs are not shown as waiting for a missing handler.
    pub fn agent_kind(mut self, kind: impl Into<String>) -> Self {
        self.agent_kinds.push(kind.into());
        self
    }

    /// Where `raw.db` lives; the app's data directory by default.
    pub fn database(mut self, path: impl Into<PathBuf>) -> Self {
        self.database = Some(path.into());
        self
    }

    /// Where `config.toml` lives; the app's config directory by default.
    pub fn config(mut self, path: impl Into<PathBuf>) -> Self {
        self.config = Some(path.into());
        self
    }

    /// What to do when `config.toml` is refused (see [`OnConfigError`]): by default
    /// the plugin starts on the last file it took (the built-in settings when it never
    /// took one), logs the error at ERROR and keeps it
    /// as the health of its `config` component; [`OnConfigError::Fail`] fails the
    /// plugin's setup instead.
    pub fn on_config_error(mut self, then: OnConfigError) -> Self {
        self.on_config_error = then;
        self
    }

    /// How long running jobs may finish when the app exits; 5 s by default.
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = Some(grace);
        self
    }

    /// Turns off the native network watch. By default the plugin watches the
    /// machine's network interfaces and, when connectivity comes back, retries offline
    /// sync targets at once (see [`SyncEngine::watch_network`](crate::sync::SyncEngine::watch_network)); the webview's
    /// `online` hint works either way.
    #[cfg(feature = "sync")]
    #[cfg_attr(docsrs, doc(cfg(feature = "sync")))]
    pub fn without_network_watch(mut self) -> Self {
        self.ignore_network = true;
        self
    }

    /// Where the machine's power, network and idle time come from, for jobs with
    /// [`Constraints`](crate::queue::Constraints):
    /// [`SystemConditions`](crate::conditions::SystemConditions) by default (with the
    /// `system-conditions` feature; without it, none: constraints count as met). An
    /// app's tests (or a debug build that lets
    /// a developer play with "on battery") pass a
    /// [`FakeConditions`](crate::conditions::FakeConditions).
    pub fn conditions(mut self, source: impl ConditionSource) -> Self {
        self.conditions = Some(Arc::new(source));
        self
    }

    /// How long after its setup the plugin waits for the app's run loop before it
    /// warns that jobs are queued while nothing runs them; for the crate's own tests.
    #[doc(hidden)]
    pub fn run_loop_notice(mut self, after: Duration) -> Self {
        self.run_loop_notice = Some(after);
        self
    }

    /// The plugin.
    pub fn build<R: Runtime>(self) -> TauriPlugin<R> {
        self.write_declarations_in_debug_builds();
        let notice = self.run_loop_notice.unwrap_or(RUN_LOOP_NOTICE);
        let mut setup = Some(self);
        tauri::plugin::Builder::new(PLUGIN_NAME)
            .invoke_handler(super::dispatch::invoke::<R>)
            .setup(move |app, _api| {
                let builder = setup.take().ok_or("the jobs plugin was set up twice")?;
                let jobs = builder.start(app)?;
                jobs.subscriptions.attach(&jobs.bus);
                app.manage(jobs);
                // Added while the app runs, from another thread, the plugin starts its
                // loops at the end of the run loop's next turn: this gives the loop a
                // turn. On the main thread (a plugin added on the builder or in
                // `setup`) it runs at once and does nothing.
                let _ = app.run_on_main_thread(|| {});
                warn_if_the_loop_never_runs(app.clone(), notice);
                Ok(())
            })
            .on_page_load(|webview, payload| {
                // A new page starts with no subscriptions: the old page's channels
                // have nobody left to read them.
                if payload.event() == PageLoadEvent::Started {
                    if let Some(jobs) = webview.try_state::<Jobs>() {
                        jobs.subscriptions.forget_webview(webview.label());
                    }
                }
            })
            .on_event(|app, event| match event {
                RunEvent::Exit => {
                    if let Some(jobs) = app.try_state::<Jobs>() {
                        jobs.quit.exiting();
                        tauri::async_runtime::block_on(jobs.shutdown());
                    }
                }
                event => on_run_event(app, event),
            })
            .build()
    }
}

/// What the plugin does on an event of the app's run loop, but for `Exit`.
fn on_run_event<R: Runtime>(app: &tauri::AppHandle<R>, event: &RunEvent) {
    let Some(jobs) = app.try_state::<Jobs>() else {
        return;
    };
    if starts_the_loops(event) {
        jobs.start();
    } else if !jobs.is_started() {
        // Before the app's setup has returned: a focus would run a sync source, which
        // may read what the setup manages.
        return;
    }
    match event {
        RunEvent::WindowEvent {
            label,
            event: WindowEvent::Destroyed,
            ..
        } => {
            jobs.subscriptions.forget_webview(label);
            jobs.focus.set(label, false);
        }
        RunEvent::WindowEvent {
            label,
            event: WindowEvent::Focused(focused),
            ..
        } => window_focus(app, &jobs, label, *focused),
        RunEvent::ExitRequested { code, api, .. } if jobs.quit.exit_requested(*code) => {
            api.prevent_exit();
        }
        _ => {}
    }
}

/// Window `label` got (or lost) the focus: no notice while one has it, a sync of the
/// targets due, and a held quit called off when the user is back.
pub(crate) fn window_focus<R: Runtime>(
    app: &tauri::AppHandle<R>,
    jobs: &Jobs,
    label: &str,
    focused: bool,
) {
    jobs.focus.set(label, focused);
    if !focused {
        return;
    }
    // A window the user sees is back (not one the app hid as it started, whose focus
    // may be heard after the hide).
    let shown = app
        .get_webview_window(label)
        .is_some_and(|window| window.is_visible().unwrap_or(true));
    if shown {
        jobs.quit.window_focused();
    }
    #[cfg(feature = "sync")]
    drop(triggers::on_focus(&jobs.sync));
}

/// Whether `event` says the app's own `setup` has returned, so the loops may start.
///
/// `Ready` comes right after it. Other events can come before it: on Linux the run
/// loop's first event is `Resumed` (tao's first turn polls before it delivers `Init`,
/// which Tauri answers by running the setup and then sending `Ready`), and a window
/// made from `tauri.conf.json` may be heard first too. So no event but `Ready` starts
/// the loops, except `MainEventsCleared`, which ends a turn of the loop: every
/// runtime delivers `Ready` within its first turn, so a plugin that hears the end of a
/// turn without having heard `Ready` was added while the app runs (`app.plugin(..)`
/// after the start), when the app's setup returned long ago.
pub(crate) fn starts_the_loops(event: &RunEvent) -> bool {
    matches!(event, RunEvent::Ready | RunEvent::MainEventsCleared)
}

/// Warns once, at WARN, when `after` has passed since the plugin's setup, its loops
/// have not started and jobs are queued: an app that is built and never run (a test's
/// `tauri::test` app) runs no job, and should hear why. Looks every `after` until the
/// loops start or the plugin stops, for at most a minute; in an app that runs, once.
fn warn_if_the_loop_never_runs<R: Runtime>(app: tauri::AppHandle<R>, after: Duration) {
    crate::tasks::spawn_in_app(async move {
        let mut waited = Duration::ZERO;
        while waited < Duration::from_secs(60) {
            tokio::time::sleep(after).await;
            waited += after;
            let Some(jobs) = app.try_state::<Jobs>() else {
                return;
            };
            if jobs.is_started() || jobs.is_stopped() {
                return;
            }
            let queued: u32 = jobs
                .queue
                .counts()
                .map(|counts| {
                    counts
                        .iter()
                        .filter(|count| count.status == crate::queue::JobStatus::Queued)
                        .map(|count| count.count)
                        .sum()
                })
                .unwrap_or(0);
            if queued > 0 {
                tracing::warn!(
                    queued,
                    "jobs are queued and none runs: the plugin starts running jobs at the \
                     app's RunEvent::Ready, which an app that is built and never run (a \
                     tauri::test app) does not send; run it, or use testing::MockApp"
                );
                return;
            }
        }
    });
}
