//! For the end-to-end run's tests of the app's life in a real webview: where the
//! plugin is added and how long the app's own `setup` takes (from the command line
//! tauri-driver passes: `--plugin-at=builder|setup|running`, `--slow-setup-ms=N`), a
//! kind whose handler reads what `setup` manages, a kind that takes its time (for a
//! quit and an update), `upload`, whose jobs finish before the app quits (the quit
//! held at most `--quit-deadline-ms=N`), a start at login (`--hidden`: the window
//! hidden, the uploads left by the last run finished, then the app quits), and the
//! demo commands the run drives them with.

use std::time::Duration;

use serde::Serialize;
use tauri::{AppHandle, Manager};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobFilter};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::{Jobs, JobsExt};

/// Where the plugin is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginAt {
    /// On the builder, `.plugin(..)`: the usual place.
    Builder,
    /// From the app's `setup`, first thing, before what `setup` manages.
    Setup,
    /// While the app runs: from a thread, half a second after `setup`.
    Running,
}

impl PluginAt {
    fn name(self) -> &'static str {
        match self {
            PluginAt::Builder => "builder",
            PluginAt::Setup => "setup",
            PluginAt::Running => "running",
        }
    }
}

/// How this start of the app was asked to go.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    pub plugin_at: PluginAt,
    pub slow_setup: Duration,
    /// How long a quit waits for the uploads; the plugin's default when `None`.
    pub quit_deadline: Option<Duration>,
    /// Started at login (the autostart plugin passes it): no window shown.
    pub hidden: bool,
}

impl Start {
    /// From the command line; the plugin on the builder and a quick setup otherwise.
    pub fn from_args() -> Start {
        let mut start = Start {
            plugin_at: PluginAt::Builder,
            slow_setup: Duration::ZERO,
            quit_deadline: None,
            hidden: false,
        };
        for arg in std::env::args().skip(1) {
            if let Some(at) = arg.strip_prefix("--plugin-at=") {
                start.plugin_at = match at {
                    "setup" => PluginAt::Setup,
                    "running" => PluginAt::Running,
                    _ => PluginAt::Builder,
                };
            } else if let Some(ms) = arg.strip_prefix("--slow-setup-ms=") {
                start.slow_setup = Duration::from_millis(ms.parse().unwrap_or(0));
            } else if let Some(ms) = arg.strip_prefix("--quit-deadline-ms=") {
                start.quit_deadline = ms.parse().ok().map(Duration::from_millis);
            } else if arg == "--hidden" {
                start.hidden = true;
            }
        }
        start
    }
}

/// What the app manages at the end of its own `setup`: the handler of `after-setup`
/// reads it.
pub struct SetupDone {
    plugin_at: PluginAt,
}

/// The end of the app's `setup`, however long it was asked to take.
pub fn finish_setup(app: &tauri::App, start: Start) {
    std::thread::sleep(start.slow_setup);
    app.manage(SetupDone {
        plugin_at: start.plugin_at,
    });
}

/// A job that needs what `setup` manages: it fails for good (one attempt) if it runs
/// before `setup` has returned, as a handler's `app.state::<T>()` would panic.
pub fn after_setup_handler() -> Handler {
    Handler::new("after-setup", |n: u32, ctx: JobContext| async move {
        let app: AppHandle = ctx.app()?;
        let Some(done) = app.try_state::<SetupDone>() else {
            return Err(JobError::permanent(
                "ran before the app's setup had returned",
            ));
        };
        Ok(format!(
            "job {n} after setup (plugin at {}, pid {})",
            done.plugin_at.name(),
            std::process::id()
        ))
    })
    .max_attempts(1)
}

/// A job that takes `ms` milliseconds, and says which process finished it.
pub fn slow_handler() -> Handler {
    Handler::new("slow", |ms: u64, _ctx: JobContext| async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(format!("slept {ms} ms in pid {}", std::process::id()))
    })
}

/// An upload that takes `ms` milliseconds, one at a time (a capped kind), and says
/// which process finished it. Its jobs finish before the app quits.
pub fn upload_handler() -> Handler {
    Handler::new("upload", |ms: u64, ctx: JobContext| async move {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ms)) => {}
            // Cancelled (the run is done with it): ends at once.
            () = ctx.cancelled() => return Err(JobError::permanent("cancelled")),
        }
        Ok(format!("uploaded in {ms} ms in pid {}", std::process::id()))
    })
    .concurrency(1)
}

/// A start at login (`--hidden`): the window hidden, and the uploads the last run
/// left (cut short by a reboot) finished before the app quits; with none, it quits
/// at once. From the app's `setup`, with the plugin on the builder.
pub fn start_hidden(app: &tauri::App) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.hide();
    }
    let Some(jobs) = app.try_state::<Jobs>() else {
        return;
    };
    match jobs.pending_work() {
        Ok(pending) => {
            tracing::info!(?pending, "started hidden");
            // Exits once they are done (now, when there are none).
            jobs.quit_when_done();
        }
        Err(error) => tracing::warn!(%error, "could not tell what is pending"),
    }
}

/// A job as the end-to-end run reads it.
#[derive(Serialize)]
pub struct JobLine {
    id: i64,
    status: String,
    attempts: u32,
    result: Option<serde_json::Value>,
    error: Option<String>,
}

fn jobs(app: &AppHandle) -> Result<&Jobs, String> {
    app.try_state::<Jobs>()
        .map(|jobs| jobs.inner())
        .ok_or_else(|| "the jobs plugin is not added yet".to_owned())
}

/// This process's id.
#[tauri::command]
pub fn pid() -> u32 {
    std::process::id()
}

/// Enqueues `count` jobs of `kind` (`after-setup`: numbered payloads; `slow` and
/// `upload`: `ms`)
/// that may start in `delay_ms`.
#[tauri::command]
pub fn enqueue_probe(
    app: AppHandle,
    kind: String,
    count: u32,
    ms: u64,
    delay_ms: u64,
) -> Result<Vec<i64>, String> {
    let queue = jobs(&app)?.queue();
    (0..count)
        .map(|n| {
            let options = EnqueueOptions::new().delay(Duration::from_millis(delay_ms));
            let enqueued = match kind.as_str() {
                "slow" => queue.enqueue("slow", &ms, options),
                "upload" => queue.enqueue("upload", &ms, options),
                _ => queue.enqueue("after-setup", &n, options),
            };
            enqueued
                .map(|enqueued| enqueued.id.raw())
                .map_err(|error| error.to_string())
        })
        .collect()
}

/// Every job of `kind`, oldest first.
#[tauri::command]
pub fn jobs_of_kind(app: AppHandle, kind: String) -> Result<Vec<JobLine>, String> {
    let mut list = jobs(&app)?
        .queue()
        .list(&JobFilter::new().kind(kind))
        .map_err(|error| error.to_string())?;
    list.sort_by_key(|job| job.id);
    Ok(list
        .into_iter()
        .map(|job| JobLine {
            id: job.id.raw(),
            status: job.status.to_string(),
            attempts: job.attempts,
            result: job.result,
            error: job.last_error,
        })
        .collect())
}

/// Cancels job `id` (a `slow` job the run is done with).
#[tauri::command]
pub fn cancel_job(app: AppHandle, id: i64) -> Result<(), String> {
    jobs(&app)?
        .queue()
        .cancel(tauri_plugin_jobs::queue::JobId::from(id))
        .map(drop)
        .map_err(|error| error.to_string())
}

/// Closes the main window a moment after answering, as a user does: the last
/// window, so the app quits (`ExitRequested`, then `Exit`, where the plugin gives
/// running jobs their grace). The answer goes first: WebDriver waits for it.
#[tauri::command]
pub fn close_main_window(app: AppHandle) -> Result<(), String> {
    let window = app.get_webview_window("main").ok_or("no main window")?;
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        if let Err(error) = window.close() {
            tracing::warn!(%error, "the main window would not close");
        }
    });
    Ok(())
}

/// What `prepare_for_update` did.
#[derive(Serialize)]
pub struct Prepared {
    released: Vec<i64>,
    checkpointed: bool,
}

/// Readies the app for an update as an updater would, before installing it.
#[tauri::command]
pub async fn prepare_update(app: AppHandle, grace_ms: u64) -> Result<Prepared, String> {
    let ready = jobs(&app)?
        .prepare_for_update(Duration::from_millis(grace_ms))
        .await
        .map_err(|error| error.to_string())?;
    Ok(Prepared {
        released: ready.released.iter().map(|id| id.raw()).collect(),
        checkpointed: ready.checkpointed,
    })
}

/// Quits the app as its own Quit menu item would (`app.exit(0)`), a moment after
/// answering; a second call while uploads hold the quit ends it at once.
#[tauri::command]
pub fn quit_app(app: AppHandle) {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        app.exit(0);
    });
}

/// What the plugin says a held quit is finishing, if one is.
#[tauri::command]
pub fn finishing(app: AppHandle) -> Option<String> {
    app.jobs().finishing().map(|finishing| finishing.describe())
}
