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
mod instances;
mod limits;
pub mod models;
pub mod notices;
mod outbox;
pub mod quit;
mod scope;
pub mod summary;
// A phone has no taskbar or dock entry to draw on.
#[cfg(desktop)]
mod taskbar;
#[cfg(feature = "sync")]
mod triggers;

#[cfg(feature = "sync")]
use std::sync::Mutex;
use std::time::Duration;

use tauri::plugin::TauriPlugin;
use tauri::{Manager, Runtime};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "testing")]
pub(crate) use builder::window_focus;
pub use builder::Builder;
pub use error::{CommandError, ErrorCode};
pub use events::{JobsEvent, MAX_SUBSCRIPTIONS_PER_WEBVIEW, WEBVIEW_STREAM_CAPACITY};
pub use limits::{LOCAL_JOBS_PER_WINDOW, REFRESH_FLOOR};
pub use scope::{CallingWebview, ReadScopes, ReadableKinds, Scope, ScopeEntry};

use crate::bus::EventBus;
#[cfg(feature = "local")]
use crate::local::{LocalJobs, LocalKinds};
#[cfg(feature = "sync")]
use crate::locks::lock;
use crate::model::Health;
use crate::queue::{JobId, Queue};
use crate::runner::Runner;
#[cfg(feature = "schedules")]
use crate::scheduler::Scheduler;
#[cfg(feature = "sync")]
use crate::sync::{NetworkWatch, SyncEngine};

/// The plugin's name: commands are `plugin:jobs|<command>`.
pub const PLUGIN_NAME: &str = "jobs";

/// Every IPC command, as build.rs lists them for permissions (one file for both).
pub const COMMANDS: &[&str] = &include!("command_names.rs");

/// Calls `$then!` with every command the build has: its name, the feature it needs as
/// a `#[cfg]` (Cargo.toml), its function and the keys of its arguments as the webview
/// sends them (camelCase; `jobs`, `scope`, `reads` and `caller` Tauri supplies). The
/// invoke handler and the typed bindings take the one list.
macro_rules! every_command {
    ($then:ident) => {
        $then! {
            "enqueue" => commands::durable::enqueue(jobs, scope, reads, kind, payload, options),
            "get_job" => commands::durable::get_job(jobs, scope, id),
            "list_jobs" => commands::durable::list_jobs(jobs, scope, filter),
            "job_counts" => commands::durable::job_counts(jobs, scope),
            "job_history" => commands::history::job_history(jobs, scope, kind, span),
            "cancel" => commands::durable::cancel(jobs, scope, job),
            #[cfg(feature = "local")] "spawn_local" => commands::local::spawn_local(jobs, scope, caller, kind, args),
            #[cfg(feature = "local")] "spawn_awaitable" => commands::local::spawn_awaitable(jobs, scope, caller, kind, args),
            #[cfg(feature = "local")] "run_local" => commands::local::run_local(jobs, scope, caller, kind, args, onEvent),
            #[cfg(feature = "local")] "get_local_job" => commands::local::get_local_job(jobs, scope, id),
            #[cfg(feature = "local")] "list_local_jobs" => commands::local::list_local_jobs(jobs, scope),
            #[cfg(feature = "sync")] "sync_now" => commands::sync::sync_now(jobs, scope, target),
            #[cfg(feature = "sync")] "sync_if_due" => commands::sync::sync_if_due(jobs, scope, target, trigger),
            #[cfg(feature = "sync")] "sync_status" => commands::sync::sync_status(jobs, scope),
            #[cfg(feature = "sync")] "sync_history" => commands::history::sync_history(jobs, scope, target, span),
            #[cfg(feature = "sync")] "network_hint" => commands::sync::network_hint(jobs, scope, online),
            #[cfg(feature = "schedules")] "list_schedules" => commands::schedules::list_schedules(jobs, scope),
            #[cfg(feature = "sync")] "disconnect_account" => commands::sync::disconnect_account(jobs, scope, connector, account),
            "prune_jobs" => commands::durable::prune_jobs(jobs, scope, olderThanMs),
            "retry_job" => commands::admin::retry_job(jobs, scope, id),
            "delete_job" => commands::admin::delete_job(jobs, scope, id),
            "pause_kind" => commands::admin::pause_kind(jobs, scope, kind),
            "resume_kind" => commands::admin::resume_kind(jobs, scope, kind),
            "paused_kinds" => commands::admin::paused_kinds(jobs, scope),
            #[cfg(feature = "schedules")] "run_schedule_now" => commands::schedules::run_schedule_now(jobs, scope, name),
            #[cfg(feature = "schedules")] "pause_schedule" => commands::schedules::pause_schedule(jobs, scope, name),
            #[cfg(feature = "schedules")] "resume_schedule" => commands::schedules::resume_schedule(jobs, scope, name),
            "agent_enqueue" => commands::agents::agent_enqueue(jobs, scope, reads, kind, payload, options),
            "agent_claim" => commands::agents::agent_claim(jobs, scope, request),
            "agent_heartbeat" => commands::agents::agent_heartbeat(jobs, scope, lease, progress),
            "agent_complete" => commands::agents::agent_complete(jobs, scope, lease, result),
            "agent_fail" => commands::agents::agent_fail(jobs, scope, lease, error, permanent),
            "agent_defer" => commands::agents::agent_defer(jobs, scope, lease, deferral),
            "subscribe" => commands::events::subscribe(jobs, reads, onEvent),
            "unsubscribe" => commands::events::unsubscribe(jobs, caller, id),
            "enqueue_workflow" => commands::workflows::enqueue_workflow(jobs, scope, reads, workflow),
            "get_workflow" => commands::workflows::get_workflow(jobs, scope, parent),
            "cancel_workflow" => commands::workflows::cancel_workflow(jobs, scope, parent),
            "retry_workflow" => commands::workflows::retry_workflow(jobs, scope, parent),
            "job_dependencies" => commands::workflows::job_dependencies(jobs, scope, id),
            "plugin_health" => commands::health::plugin_health(jobs, reads),
            "signal_job" => commands::signals::signal_job(jobs, scope, id, name, payload),
            "get_job_logs" => commands::signals::get_job_logs(jobs, scope, id, after),
        }
    };
}

/// The typed bindings' commands: all of them (the `specta` feature turns on every
/// other, so no `#[cfg]` is left out).
#[cfg(feature = "specta")]
macro_rules! specta_commands {
    ($($(#[$cfg:meta])* $command:literal => commands::$module:ident::$name:ident($($key:ident),*),)*) => {
        tauri_specta::collect_commands![$(commands::$module::$name),*]
    };
}

#[cfg(feature = "specta")]
macro_rules! command_keys {
    ($($(#[$cfg:meta])* $command:literal => commands::$module:ident::$name:ident($($key:ident),*),)*) => {
        [$(($command, &[$(stringify!($key)),*] as &[&str])),*]
    };
}

/// Every command with the keys of its arguments, for the test that holds them to
/// the typed bindings.
#[cfg(feature = "specta")]
#[doc(hidden)]
pub const COMMAND_KEYS: &[(&str, &[&str])] = &every_command!(command_keys);

mod dispatch;

// After the macro, which it uses.
mod builder;
mod declarations;

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
        .commands(every_command!(specta_commands))
        // Events reach a page on the channel it subscribes with (see `subscribe`),
        // never as a Tauri event any window could listen to or emit.
        .typ::<JobsEvent>()
}

/// Everything the plugin runs, managed as Tauri state. Reach it with
/// [`JobsExt::jobs`].
pub struct Jobs {
    pub(crate) queue: Queue,
    pub(crate) runner: Runner,
    #[cfg(feature = "schedules")]
    pub(crate) scheduler: Scheduler,
    #[cfg(feature = "sync")]
    pub(crate) sync: SyncEngine,
    #[cfg(feature = "local")]
    pub(crate) local: LocalJobs,
    // The process's request to keep the machine awake, shared by the runner and
    // the local jobs.
    pub(crate) awake: crate::awake::KeepAwake,
    pub(crate) bus: EventBus,
    #[cfg(feature = "local")]
    pub(crate) local_kinds: LocalKinds,
    pub(crate) subscriptions: events::Subscriptions,
    #[cfg(feature = "local")]
    pub(crate) local_slots: limits::LocalSlots,
    #[cfg(feature = "sync")]
    pub(crate) network_pass: limits::NetworkPass,
    #[cfg(feature = "sync")]
    pub(crate) refresh_floor: Duration,
    // Whether config.toml was refused at start, and why.
    pub(crate) config_health: Health,
    // Where config.toml is read from.
    pub(crate) config_path: std::path::PathBuf,
    grace: Duration,
    stop: CancellationToken,
    // Mutex: set once at start, taken at shutdown.
    #[cfg(feature = "sync")]
    network: Mutex<Option<NetworkWatch>>,
    #[cfg(feature = "sync")]
    watch_network: bool,
    // The loops start once, when the app runs (see `start`).
    started: std::sync::Once,
    // This instance's note in raw.db, and the app's other instances seen on it.
    pub(crate) instances: std::sync::Arc<instances::Instances>,
    // The work that holds the app's quit.
    pub(crate) quit: std::sync::Arc<quit::Quit>,
    // Which windows have the focus (notices are not shown while one has).
    pub(crate) focus: std::sync::Arc<notices::Focus>,
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
    #[cfg(feature = "schedules")]
    #[cfg_attr(docsrs, doc(cfg(feature = "schedules")))]
    #[must_use]
    pub fn scheduler(&self) -> &Scheduler {
        &self.scheduler
    }

    /// The sync engine.
    #[cfg(feature = "sync")]
    #[cfg_attr(docsrs, doc(cfg(feature = "sync")))]
    #[must_use]
    pub fn sync(&self) -> &SyncEngine {
        &self.sync
    }

    /// Process-local jobs.
    #[cfg(feature = "local")]
    #[cfg_attr(docsrs, doc(cfg(feature = "local")))]
    #[must_use]
    pub fn local(&self) -> &LocalJobs {
        &self.local
    }

    /// The event bus.
    #[must_use]
    pub fn bus(&self) -> &EventBus {
        &self.bus
    }

    /// Whether `config.toml` was taken at start: healthy, or an error saying what in
    /// it was refused (the last file taken applies then, or the built-in settings if
    /// none was; see
    /// [`OnConfigError`](crate::config::OnConfigError)).
    #[must_use]
    pub fn config_health(&self) -> &Health {
        &self.config_health
    }

    /// The process's request to keep the machine awake: whether it is held now and
    /// for which jobs ([`KeepAwake::status`](crate::awake::KeepAwake::status)), and its
    /// health, as `pluginHealth()` gives it (component `awake`).
    #[must_use]
    pub fn keep_awake(&self) -> &crate::awake::KeepAwake {
        &self.awake
    }

    /// Sends signal `name` with `payload` to job `id` (see
    /// [`Queue::signal`](crate::queue::Queue::signal)): from the app's own Rust code, a
    /// deep link's handler, a tray menu.
    pub fn signal(
        &self,
        id: JobId,
        name: &str,
        payload: &serde_json::Value,
    ) -> crate::Result<crate::queue::SignalSent> {
        self.queue.signal(id, name, payload)
    }

    /// The quit held now while the work of
    /// [`Builder::finish_before_quit`]'s kinds finishes, if one is: since when, until
    /// when, and what is left.
    #[must_use]
    pub fn finishing(&self) -> Option<quit::Finishing> {
        self.quit.finishing()
    }

    /// The work of [`Builder::finish_before_quit`]'s kinds there is now: jobs running
    /// (in any process: one whose holder crashed runs again), queued ones that could
    /// start within [`FINISH_SOON`](quit::FINISH_SOON), local jobs running. Empty when
    /// there is none: an app started at login (`--hidden`, by the autostart plugin)
    /// reads it in its `setup` to decide whether to finish the work in the tray
    /// ([`quit_when_done`](Jobs::quit_when_done)) or quit at once.
    pub fn pending_work(&self) -> crate::Result<Vec<crate::queue::PendingKind>> {
        self.quit.pending()
    }

    /// Quits the app once the work of [`Builder::finish_before_quit`]'s kinds is done
    /// (or at [the deadline](Builder::quit_deadline)), as if its last window had
    /// closed: for an app started hidden to finish what a reboot cut short. Returns
    /// `false` when there is none: the app exits now. A window that gets the focus
    /// meanwhile calls it off (the user is back).
    pub fn quit_when_done(&self) -> bool {
        self.quit.quit_when_done()
    }

    /// Quits the app now, whatever a held quit waits for: what still runs is given
    /// back and runs again at the next start (a tray's "Quit now"). `app.exit` while a
    /// quit is held does the same.
    pub fn quit_now(&self) {
        self.quit.quit_now();
    }

    /// Where the plugin reads `config.toml` (the app's config directory, or
    /// [`Builder::config`]): to show a user which file to edit. `raw.db` is
    /// [`queue().path()`](Queue::path).
    #[must_use]
    pub fn config_path(&self) -> &std::path::Path {
        &self.config_path
    }

    /// Readies the app for an update about to be installed (and the restart that
    /// follows): stops the scheduler and the sync loop so nothing new starts, stops
    /// claiming, lets running jobs finish for `grace`, gives the rest back to the
    /// queue without counting their attempt (their last progress stored with them),
    /// and checkpoints `raw.db`'s write-ahead log so the next start opens a clean
    /// file. Returns the jobs it gave back: they run again after the restart.
    ///
    /// ```no_run
    /// # async fn install<R: tauri::Runtime>(app: tauri::AppHandle<R>) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use tauri_plugin_jobs::JobsExt;
    ///
    /// let ready = app.jobs().prepare_for_update(Duration::from_secs(10)).await?;
    /// println!("{} jobs will run again after the update", ready.released.len());
    /// // then: update.download_and_install(...), app.restart()
    /// # Ok(()) }
    /// ```
    pub async fn prepare_for_update(&self, grace: Duration) -> crate::Result<UpdateReady> {
        #[cfg(feature = "schedules")]
        self.scheduler.stop().await;
        #[cfg(feature = "sync")]
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

    /// Starts the runner, the scheduler and the sync engine (with the network and
    /// wake watches), once; nothing after [`shutdown`](Jobs::shutdown). The plugin
    /// calls it at `RunEvent::Ready`, which comes after the app's own `setup`
    /// returned (never at an earlier event of the run loop: see
    /// `builder::starts_the_loops`): a handler never runs before what the app manages
    /// there is in place, on the first attempt after a restart too.
    pub(crate) fn start(&self) {
        self.started.call_once(|| {
            if self.stop.is_cancelled() {
                return;
            }
            self.instances.start(&self.queue);
            tauri::async_runtime::block_on(async {
                self.runner.start();
                #[cfg(feature = "schedules")]
                self.scheduler.start();
                #[cfg(feature = "sync")]
                {
                    // Android has no native watch (docs/mobile.md): the retries,
                    // focus and the webview's hint stand in, with nothing to warn of.
                    if self.watch_network && !cfg!(target_os = "android") {
                        match self.sync.watch_network(crate::sync::NETWORK_DEBOUNCE) {
                            Ok(watch) => *lock(&self.network) = Some(watch),
                            // A machine that will not say: the webview's hint and the
                            // retries remain.
                            Err(error) => tracing::warn!(%error, "no native network trigger"),
                        }
                    }
                    self.sync.start();
                    triggers::watch_wake(self.sync.clone(), self.stop.clone());
                }
            });
        });
    }

    /// Whether [`shutdown`](Jobs::shutdown) has begun.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Whether [`start`](Jobs::start) has run.
    pub(crate) fn is_started(&self) -> bool {
        self.started.is_completed()
    }

    /// Stops the runner (with the grace period), the scheduler and the sync loop.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        // A second quit, or "quit now": what runs is given back at once.
        let grace = if self.quit.without_grace() {
            Duration::ZERO
        } else {
            self.grace
        };
        if let Err(error) = self.runner.stop(grace).await {
            tracing::warn!(%error, "runner did not stop cleanly");
        }
        #[cfg(feature = "schedules")]
        self.scheduler.stop().await;
        #[cfg(feature = "sync")]
        {
            self.sync.stop().await;
            drop(lock(&self.network).take());
        }
        if self.is_started() {
            self.instances.stop(&self.queue);
        }
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
    ///
    /// A reference for as long as the app (or window) it was reached through, so
    /// `let queue = app.jobs().queue();` holds no temporary.
    fn jobs(&self) -> &Jobs;
}

impl<R: Runtime, T: Manager<R>> JobsExt<R> for T {
    fn jobs(&self) -> &Jobs {
        self.state::<Jobs>().inner()
    }
}

/// The plugin with nothing registered: a queue, scheduler and sync engine for the
/// app's own Rust code to fill through [`JobsExt`].
#[must_use]
pub fn init<R: Runtime>() -> TauriPlugin<R> {
    Builder::new().build()
}
