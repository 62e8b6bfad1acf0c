//! The Tauri layer: the plugin [`Builder`], the [`JobsExt`] extension trait, typed
//! commands and events, and the automatic sync triggers.
//!
//! In `setup` the plugin opens `raw.db` (the app's data directory by default) and
//! reads `config.toml` (the app's config directory by default), starts the runner,
//! the scheduler and the sync engine, forwards bus events to the webview, and watches
//! window focus, waking from sleep and the network coming back. On app exit it stops them, letting running
//! jobs finish for a grace period. There is no business logic here.

pub mod commands;
mod error;
mod events;
mod limits;
pub mod models;
mod outbox;
mod scope;
mod triggers;

use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tauri::plugin::TauriPlugin;
use tauri::webview::PageLoadEvent;
use tauri::{Manager, RunEvent, Runtime, State, WindowEvent};
use tokio_util::sync::CancellationToken;

pub use error::{CommandError, ErrorCode};
pub use events::{JobsEvent, MAX_SUBSCRIPTIONS_PER_WEBVIEW, WEBVIEW_STREAM_CAPACITY};
pub use limits::{LOCAL_JOBS_PER_WINDOW, REFRESH_FLOOR};
pub use scope::{CallingWebview, ReadScopes, ReadableKinds, Scope, ScopeEntry};

use crate::bus::EventBus;
use crate::config::Config;
use crate::local::{BoxError, LocalJobContext, LocalJobs, LocalKinds};
use crate::locks::lock;
use crate::queue::{JobId, KindSpec, Queue, QueueOptions, Retire};
use crate::runner::{Handler, Runner, RunnerSettings};
use crate::scheduler::{ScheduleSpec, Scheduler};
use crate::sync::{NetworkWatch, SyncEngine, SyncPolicy, SyncSource, SyncTarget, NETWORK_DEBOUNCE};

/// The plugin's name: commands are `plugin:jobs|<command>`.
pub const PLUGIN_NAME: &str = "jobs";

/// Every IPC command, as build.rs lists them for permissions (one file for both).
pub const COMMANDS: &[&str] = &include!("command_names.rs");

/// Calls the macro given by its path with every command: the invoke handler and the
/// typed bindings take the one list.
macro_rules! every_command {
    ($($macro:tt)+) => {
        $($macro)+![
            commands::durable::enqueue,
            commands::durable::get_job,
            commands::durable::list_jobs,
            commands::durable::job_counts,
            commands::durable::cancel,
            commands::local::spawn_local,
            commands::local::spawn_awaitable,
            commands::local::run_local,
            commands::local::get_local_job,
            commands::local::list_local_jobs,
            commands::sync::sync_now,
            commands::sync::sync_if_due,
            commands::sync::sync_status,
            commands::sync::network_hint,
            commands::schedules::list_schedules,
            commands::sync::disconnect_account,
            commands::durable::prune_jobs,
            commands::admin::retry_job,
            commands::admin::delete_job,
            commands::admin::pause_kind,
            commands::admin::resume_kind,
            commands::schedules::paused_kinds,
            commands::schedules::run_schedule_now,
            commands::schedules::pause_schedule,
            commands::schedules::resume_schedule,
            commands::agents::agent_enqueue,
            commands::agents::agent_claim,
            commands::agents::agent_heartbeat,
            commands::agents::agent_complete,
            commands::agents::agent_fail,
            commands::events::subscribe,
            commands::events::unsubscribe,
        ]
    };
}

/// The tauri-specta builder with every command and event, which
/// `guest-js/bindings.ts` is exported from. Only with the `specta` feature, which this
/// repository's tests turn on: apps get the committed bindings and need no specta of
/// ours, whatever tauri-specta release they use themselves, or none.
///
/// 64-bit integers are exported as `number`, on purpose: durable job ids count up
/// from 1, times are milliseconds since the epoch and counters count events, all far
/// below 2^53 where JavaScript numbers stay exact; integers inside JSON payloads
/// (`serde_json::Value`) are JavaScript numbers anyway. Local job ids are strings.
#[cfg(feature = "specta")]
#[must_use]
pub fn specta_builder<R: Runtime>() -> tauri_specta::Builder<R> {
    tauri_specta::Builder::<R>::new()
        .plugin_name(PLUGIN_NAME)
        .dangerously_cast_bigints_to_number()
        // One TypeScript type per Rust type: what the webview sends and receives.
        .disable_serde_phases()
        .commands(every_command!(tauri_specta::collect_commands))
        // Events reach a page on the channel it subscribes with (see `subscribe`),
        // never as a Tauri event any window could listen to or emit.
        .typ::<JobsEvent>()
}

/// Everything the plugin runs, managed as Tauri state. Reach it with
/// [`JobsExt::jobs`].
pub struct Jobs {
    pub(crate) queue: Queue,
    pub(crate) runner: Runner,
    pub(crate) scheduler: Scheduler,
    pub(crate) sync: SyncEngine,
    pub(crate) local: LocalJobs,
    pub(crate) bus: EventBus,
    pub(crate) local_kinds: LocalKinds,
    pub(crate) subscriptions: events::Subscriptions,
    pub(crate) local_slots: limits::LocalSlots,
    pub(crate) network_pass: limits::NetworkPass,
    pub(crate) refresh_floor: Duration,
    grace: Duration,
    stop: CancellationToken,
    // Mutex: set once at start, taken at shutdown.
    network: Mutex<Option<NetworkWatch>>,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs").finish_non_exhaustive()
    }
}

impl Jobs {
    /// The durable queue.
    #[must_use]
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// The runner of durable jobs.
    #[must_use]
    pub fn runner(&self) -> &Runner {
        &self.runner
    }

    /// The scheduler.
    #[must_use]
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    /// The sync engine.
    #[must_use]
    pub fn sync(&self) -> &SyncEngine {
        &self.sync
    }

    /// Process-local jobs.
    #[must_use]
    pub fn local(&self) -> &LocalJobs {
        &self.local
    }

    /// The event bus.
    #[must_use]
    pub fn bus(&self) -> &EventBus {
        &self.bus
    }

    /// Readies the app for an update about to be installed (and the restart that
    /// follows): stops the scheduler and the sync loop so nothing new starts, stops
    /// claiming, lets running jobs finish for `grace`, gives the rest back to the
    /// queue without counting their attempt (their last progress stored with them),
    /// and checkpoints `raw.db`'s write-ahead log so the next start opens a clean
    /// file. Returns the jobs it gave back: they run again after the restart.
    ///
    /// ```no_run
    /// # async fn install(app: tauri::AppHandle) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use tauri_plugin_jobs::JobsExt;
    ///
    /// let ready = app.jobs().prepare_for_update(Duration::from_secs(10)).await?;
    /// println!("{} jobs will run again after the update", ready.released.len());
    /// // then: update.download_and_install(...), app.restart()
    /// # Ok(()) }
    /// ```
    pub async fn prepare_for_update(&self, grace: Duration) -> crate::Result<UpdateReady> {
        self.scheduler.stop().await;
        self.sync.stop().await;
        let released = self.runner.stop_releasing(grace).await?;
        let queue = self.queue.clone();
        let checkpointed = tauri::async_runtime::spawn_blocking(move || queue.checkpoint())
            .await
            .map_err(|error| crate::Error::invalid_argument("checkpoint", error.to_string()))??;
        Ok(UpdateReady {
            released,
            checkpointed,
        })
    }

    /// Stops the runner (with the grace period), the scheduler and the sync loop.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        if let Err(error) = self.runner.stop(self.grace).await {
            tracing::warn!(%error, "runner did not stop cleanly");
        }
        self.scheduler.stop().await;
        self.sync.stop().await;
        drop(lock(&self.network).take());
    }
}

/// What [`Jobs::prepare_for_update`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpdateReady {
    /// Jobs still running when the grace ran out, given back to the queue: they run
    /// again after the restart, the attempt not counted.
    pub released: Vec<JobId>,
    /// Whether the whole write-ahead log went into the main file (another process
    /// reading meanwhile can hold part of it back; harmless).
    pub checkpointed: bool,
}

/// `app.jobs()` on anything that is a [`Manager`].
pub trait JobsExt<R: Runtime> {
    /// The plugin's state.
    ///
    /// # Panics
    ///
    /// When the plugin was not registered.
    fn jobs(&self) -> State<'_, Jobs>;
}

impl<R: Runtime, T: Manager<R>> JobsExt<R> for T {
    fn jobs(&self) -> State<'_, Jobs> {
        self.state::<Jobs>()
    }
}

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
    handlers: Vec<Handler>,
    schedules: Vec<ScheduleSpec>,
    targets: Vec<(SyncTarget, SyncPolicy, Arc<dyn SyncSource>)>,
    local_kinds: LocalKinds,
    database: Option<PathBuf>,
    config: Option<PathBuf>,
    grace: Option<Duration>,
    ignore_network: bool,
    local_jobs_per_window: Option<usize>,
    refresh_floor: Option<Duration>,
    retired: Vec<(String, Retire)>,
    agent_kinds: Vec<String>,
}

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

    /// Adds (or updates) a schedule at start-up.
    pub fn schedule(mut self, schedule: ScheduleSpec) -> Self {
        self.schedules.push(schedule);
        self
    }

    /// Registers a sync target.
    pub fn sync_target(
        mut self,
        target: SyncTarget,
        policy: SyncPolicy,
        source: Arc<dyn SyncSource>,
    ) -> Self {
        self.targets.push((target, policy, source));
        self
    }

    /// A local job kind the webview may start by name with JSON arguments.
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
    /// [`LOCAL_JOBS_PER_WINDOW`] by default. More is refused with `limitReached`.
    pub fn local_jobs_per_window(mut self, limit: usize) -> Self {
        self.local_jobs_per_window = Some(limit);
        self
    }

    /// How close to the end of a target's last run a Refresh (`sync_now` from the
    /// webview) gets that run's outcome instead of a new run; [`REFRESH_FLOOR`] by
    /// default, zero for none.
    pub fn refresh_floor(mut self, floor: Duration) -> Self {
        self.refresh_floor = Some(floor);
        self
    }

    /// Retires a job kind no handler of this build runs any more (it was removed in
    /// an update): at start, before anything runs, its queued jobs are cancelled, or
    /// every one of them not running is deleted, in one transaction, with the events a
    /// page follows ([`Queue::retire_kind`]).
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

    /// How long running jobs may finish when the app exits; 5 s by default.
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = Some(grace);
        self
    }

    /// Turns off the native network watch. By default the plugin watches the
    /// machine's network interfaces and, when connectivity comes back, retries offline
    /// sync targets at once (see [`SyncEngine::watch_network`]); the webview's
    /// `online` hint works either way.
    pub fn without_network_watch(mut self) -> Self {
        self.ignore_network = true;
        self
    }

    /// The plugin.
    pub fn build<R: Runtime>(self) -> TauriPlugin<R> {
        let mut setup = Some(self);
        tauri::plugin::Builder::new(PLUGIN_NAME)
            .invoke_handler(every_command!(tauri::generate_handler))
            .setup(move |app, _api| {
                let builder = setup.take().ok_or("the jobs plugin was set up twice")?;
                let jobs = builder.start(app)?;
                jobs.subscriptions.attach(&jobs.bus);
                triggers::watch_wake(jobs.sync.clone(), jobs.stop.clone());
                app.manage(jobs);
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
                RunEvent::WindowEvent {
                    label,
                    event: WindowEvent::Destroyed,
                    ..
                } => {
                    if let Some(jobs) = app.try_state::<Jobs>() {
                        jobs.subscriptions.forget_webview(label);
                    }
                }
                RunEvent::WindowEvent {
                    event: WindowEvent::Focused(true),
                    ..
                } => {
                    if let Some(jobs) = app.try_state::<Jobs>() {
                        drop(triggers::on_focus(&jobs.sync));
                    }
                }
                RunEvent::Exit => {
                    if let Some(jobs) = app.try_state::<Jobs>() {
                        tauri::async_runtime::block_on(jobs.shutdown());
                    }
                }
                _ => {}
            })
            .build()
    }

    /// Opens everything and starts the loops.
    fn start<R: Runtime>(self, app: &tauri::AppHandle<R>) -> crate::Result<Jobs> {
        let paths = app.path();
        let config_path = match self.config {
            Some(path) => path,
            None => paths
                .app_config_dir()
                .map_err(|error| crate::Error::invalid_argument("config", error.to_string()))?
                .join("config.toml"),
        };
        let database = match self.database {
            Some(path) => path,
            None => paths
                .app_data_dir()
                .map_err(|error| crate::Error::invalid_argument("database", error.to_string()))?
                .join("raw.db"),
        };
        let config = Config::load(&config_path)?;
        let bus = EventBus::new();
        let queue = Queue::open(
            &database,
            QueueOptions::new().bus(bus.clone()).config(&config.jobs),
        )?;
        for (kind, how) in &self.retired {
            let retired = queue.retire_kind(kind, *how)?;
            tracing::info!(kind = %kind, ?retired, "retired a job kind");
        }
        for kind in self.agent_kinds {
            queue.register_kind(kind, KindSpec::new());
        }
        let runner = Runner::new(
            queue.clone(),
            self.handlers,
            RunnerSettings::from_config(&config.jobs),
        )?;
        let scheduler = Scheduler::new(queue.clone());
        // The code's schedules as config.toml changes them, and the file's own.
        scheduler.declare(self.schedules, &config)?;
        let sync = SyncEngine::new(queue.clone());
        for (target, policy, source) in with_sync_config(self.targets, &config)? {
            sync.register(target, policy, source)?;
        }
        let local = LocalJobs::new(bus.clone());
        let jobs = Jobs {
            queue,
            runner: runner.clone(),
            scheduler: scheduler.clone(),
            sync: sync.clone(),
            local,
            bus,
            local_kinds: self.local_kinds,
            subscriptions: events::Subscriptions::default(),
            local_slots: limits::LocalSlots::new(
                self.local_jobs_per_window.unwrap_or(LOCAL_JOBS_PER_WINDOW),
            ),
            network_pass: limits::NetworkPass::default(),
            refresh_floor: self.refresh_floor.unwrap_or(REFRESH_FLOOR),
            grace: self.grace.unwrap_or(Duration::from_secs(5)),
            stop: CancellationToken::new(),
            network: Mutex::new(None),
        };
        let watch_network = !self.ignore_network;
        let network = tauri::async_runtime::block_on(async move {
            runner.start();
            scheduler.start();
            let network = watch_network.then(|| sync.watch_network(NETWORK_DEBOUNCE));
            sync.start();
            network
        });
        match network {
            Some(Ok(watch)) => *lock(&jobs.network) = Some(watch),
            // A machine that will not say: the webview's hint and the retries remain.
            Some(Err(error)) => tracing::warn!(%error, "no native network trigger"),
            None => {}
        }
        Ok(jobs)
    }
}

type Targets = Vec<(SyncTarget, SyncPolicy, Arc<dyn SyncSource>)>;

/// The app's sync targets with the policies `config.toml` changes; a section for a
/// target the app does not register is an error naming it.
fn with_sync_config(targets: Targets, config: &Config) -> crate::Result<Targets> {
    let mut sections = config.sync.clone();
    let targets = targets
        .into_iter()
        .map(|(target, policy, source)| {
            let policy = match sections.remove(&target.to_string()) {
                Some(section) => policy.with_config(&section),
                None => policy,
            };
            (target, policy, source)
        })
        .collect();
    match sections.keys().next() {
        Some(target) => Err(config.error(
            &format!("sync.\"{target}\""),
            "the app registers no sync target by this name",
        )),
        None => Ok(targets),
    }
}

/// The plugin with nothing registered: a queue, scheduler and sync engine for the
/// app's own Rust code to fill through [`JobsExt`].
#[must_use]
pub fn init<R: Runtime>() -> TauriPlugin<R> {
    Builder::new().build()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::sync::testing::FakeSource;

    #[test]
    fn config_changes_a_registered_targets_policy_and_refuses_an_unknown_one() {
        let config = Config::parse(
            "[sync.\"demo/me/feed\"]\nevery = \"10m\"\nmax_backoff = \"10s\"",
            "/etc/app/config.toml",
        )
        .unwrap();
        let targets: Targets = vec![(
            SyncTarget::new("demo", "me", "feed"),
            SyncPolicy::every(Duration::from_secs(60)),
            Arc::new(FakeSource::new()),
        )];
        let changed = with_sync_config(targets, &config).unwrap();
        let policy = changed[0].1;
        assert_eq!(policy.interval(), Duration::from_secs(600));
        assert_eq!(
            policy.delay_for(5, 0.5),
            Duration::from_secs(10),
            "capped at 10 s"
        );
        assert!(policy.validate().is_ok(), "the base came down to the cap");

        let Err(refused) = with_sync_config(Vec::new(), &config) else {
            panic!("a section for no registered target was accepted");
        };
        let refused = refused.to_string();
        assert!(refused.contains("sync.\"demo/me/feed\""), "{refused}");
        assert!(refused.contains("registers no sync target"), "{refused}");
    }
}
