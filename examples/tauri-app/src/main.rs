//! The tauri-plugin-jobs demo: a sync target backed by a loopback HTTP feed with a
//! Refresh button and focus-triggered sync, a long local "export" with a progress bar
//! and Cancel, durable "ingest" jobs with progress bars, priorities, retries, live
//! states and admin actions (retry now, delete, cancel, pause the kind), and a
//! schedule to run now or pause, a "reembed" kind that waits for a charger (with a
//! switch to pretend the machine is on battery), and a mailbox import as a workflow
//! (an import, a piece per message, an index rebuilt once after the last, one bar).
//! `raw.db` lives in the app's data directory (or `JOBS_DEMO_DB`), `config.toml` in
//! its config directory (or `JOBS_DEMO_CONFIG`); a config.toml the plugin refuses
//! leaves the app running on the built-in settings, and the page says why.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod conditions;
mod lifecycle;
mod server;
mod source;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tauri::{Manager, State};
use tauri_plugin_jobs::local::BoxError;
use tauri_plugin_jobs::queue::{Constraints, Retire, RetryPolicy};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::scheduler::ScheduleSpec;
use tauri_plugin_jobs::sync::{SyncPolicy, SyncTarget};
use tauri_plugin_jobs::typescript::Typescript;

use conditions::DemoConditions;
use lifecycle::PluginAt;
use server::Feed;
use source::FeedSource;

// Its TypeScript is the page's own (`src-ui/types.ts`, written by specta), which the
// plugin's declarations import by name.
/// An ingest batch; it fails its first `fail_first` attempts, as a flaky API would.
#[derive(Debug, Deserialize, specta::Type)]
struct Ingest {
    batch: u32,
    #[serde(default)]
    fail_first: u32,
}

#[derive(Debug, Serialize, Deserialize, specta::Type)]
struct Ingested {
    batch: u32,
    items: u32,
}

/// What the page shows about the demo server.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerInfo {
    address: String,
    failing: bool,
}

struct DemoServer {
    address: String,
    feed: Arc<Feed>,
}

#[tauri::command]
fn server_info(server: State<'_, DemoServer>) -> ServerInfo {
    ServerInfo {
        address: server.address.clone(),
        failing: server.feed.failing.load(Ordering::Relaxed),
    }
}

#[tauri::command]
fn set_server_failing(server: State<'_, DemoServer>, failing: bool) -> ServerInfo {
    server.feed.failing.store(failing, Ordering::Relaxed);
    server_info(server)
}

#[tauri::command]
fn set_server_throttling(server: State<'_, DemoServer>, throttling: bool) {
    server.feed.throttling.store(throttling, Ordering::Relaxed);
}

/// For the end-to-end run: a second window to move focus to (its page calls nothing).
#[tauri::command]
fn open_focus_window(app: tauri::AppHandle) -> Result<(), String> {
    if app.get_webview_window("second").is_none() {
        tauri::WebviewWindowBuilder::new(
            &app,
            "second",
            tauri::WebviewUrl::App("second.html".into()),
        )
        .title("second window")
        .inner_size(320.0, 200.0)
        .build()
        .map_err(|error| error.to_string())?;
    }
    Ok(())
}

/// For the end-to-end run: gives a window the focus, as a person clicking it would.
#[tauri::command]
fn focus_window(app: tauri::AppHandle, label: String) -> Result<(), String> {
    let window = app
        .get_webview_window(&label)
        .ok_or_else(|| format!("no window {label:?}"))?;
    window.set_focus().map_err(|error| error.to_string())
}

/// A job kind the demo no longer runs (see `retire_kind` in `main`).
const LEGACY_KIND: &str = "legacy-resize";

/// For the end-to-end run: a job of a kind an earlier build ran, as that build left it.
#[tauri::command]
fn enqueue_legacy_job(app: tauri::AppHandle) -> Result<i64, String> {
    use tauri_plugin_jobs::JobsExt;
    app.jobs()
        .queue()
        .enqueue(
            LEGACY_KIND,
            &serde_json::json!({ "path": "old.png" }),
            tauri_plugin_jobs::queue::EnqueueOptions::new(),
        )
        .map(|enqueued| enqueued.id.raw())
        .map_err(|error| error.to_string())
}

/// The page's "Pretend on battery" switch: a command of the demo, not of the plugin.
#[tauri::command]
fn set_pretend_on_battery(conditions: State<'_, DemoConditions>, on_battery: bool) {
    conditions::pretend_on_battery(&conditions, on_battery);
}

/// Re-embeds a mailbox: only on a charger (the kind's constraint).
fn reembed_handler() -> Handler {
    Handler::new("reembed", |mailbox: String, _ctx: JobContext| async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        Ok(format!("re-embedded {mailbox}"))
    })
    .constraints(Constraints::none().ac_power())
}

/// The mailbox import's workflow: the import itself, an embed per message, and the
/// index rebuilt once every message is embedded (enqueued by the page, in one call).
fn import_handlers() -> [Handler; 3] {
    [
        Handler::new(
            "import-mailbox",
            |mailbox: String, _ctx: JobContext| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok(format!("imported {mailbox}"))
            },
        ),
        Handler::new(
            "embed-message",
            |_message: u32, _ctx: JobContext| async move {
                tokio::time::sleep(Duration::from_millis(40)).await;
                Ok(())
            },
        )
        .concurrency(2),
        Handler::new(
            "rebuild-index",
            |_nothing: (), _ctx: JobContext| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Ok("index rebuilt".to_owned())
            },
        ),
    ]
}

#[tauri::command]
fn bump_feed(server: State<'_, DemoServer>) {
    server.feed.version.fetch_add(1, Ordering::Relaxed);
}

/// Steps of an ingest batch, each reported as progress.
const INGEST_STEPS: u64 = 20;

fn ingest_handler() -> Handler {
    Handler::new("ingest", |job: Ingest, ctx: JobContext| async move {
        for step in 1..=INGEST_STEPS {
            tokio::time::sleep(Duration::from_millis(60)).await;
            if ctx.attempt <= job.fail_first && step == INGEST_STEPS / 2 {
                break;
            }
            ctx.progress(step, Some(INGEST_STEPS));
        }
        if ctx.attempt <= job.fail_first {
            return Err(JobError::retryable(format!(
                "upstream answered 502 for batch {} (api_key=demo-secret-123)",
                job.batch
            )));
        }
        Ok(Ingested {
            batch: job.batch,
            items: 10 + job.batch % 7,
        })
    })
    .concurrency(2)
    .max_attempts(4)
    .retry(
        RetryPolicy::new(Duration::from_secs(2), Duration::from_secs(10), 0.2)
            .expect("a valid policy"),
    )
}

/// The page's types for the demo's kinds, targets and schedules: `tsc` refuses a kind
/// name with a typo or a payload of the wrong shape (`src-ui/jobs-kinds.d.ts`, written
/// in debug builds when a registration changes, checked by the test below).
fn declarations() -> Typescript {
    Typescript::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src-ui/jobs-kinds.d.ts"
    ))
    // The page imports the webview API from the checkout, not from the package.
    .module("../../../guest-js/index")
    .types_from("./types")
}

/// Everything the demo registers on the plugin.
fn jobs_builder(address: String, conditions: DemoConditions) -> tauri_plugin_jobs::Builder {
    let mut jobs = tauri_plugin_jobs::Builder::new()
        .handler(ingest_handler())
        .handler(reembed_handler())
        .conditions(conditions.clone())
        // A kind an earlier version of the demo ran and this one does not: its jobs
        // show as waiting for a handler until the next start retires them.
        .retire_kind(LEGACY_KIND, Retire::Cancel)
        .schedule(
            // On the machine's wall clock (daylight saving and travel included); a
            // config.toml `[schedules.ingest-every-minute]` section changes it.
            ScheduleSpec::cron("ingest-every-minute", "ingest", "* * * * *")
                .expect("a valid expression")
                .zone("local")
                .payload(serde_json::json!({ "batch": 0 }))
                .dedupe_key("scheduled-ingest"),
        )
        .sync_target(
            SyncTarget::new("demo", "local", "feed"),
            SyncPolicy::every(Duration::from_secs(30))
                .min_interval(Duration::from_secs(5))
                .backoff(Duration::from_secs(5), Duration::from_secs(60))
                .offline_retry(Duration::from_secs(5)),
            Arc::new(FeedSource { address }),
        )
        .exclusive_local_kind("export", |steps: u64, ctx| async move {
            for step in 1..=steps {
                if ctx.is_cancelled() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(15)).await;
                ctx.progress(step, Some(steps));
            }
            Ok::<_, BoxError>(format!("exported {steps} rows"))
        })
        .typescript(declarations());
    for handler in import_handlers() {
        jobs = jobs.handler(handler);
    }
    jobs.handler(lifecycle::after_setup_handler())
        .handler(lifecycle::slow_handler())
        .handler(lifecycle::upload_handler())
        // Closing the last window (or the app's quit) waits for the uploads.
        .finish_before_quit("upload")
}

fn main() {
    let (address, feed) = server::start().expect("the demo feed starts on loopback");
    let conditions = DemoConditions::new(Default::default());
    let mut jobs = jobs_builder(address.clone(), conditions.clone());
    if let Some(path) = std::env::var_os("JOBS_DEMO_DB") {
        jobs = jobs.database(path);
    }
    if let Some(path) = std::env::var_os("JOBS_DEMO_CONFIG") {
        jobs = jobs.config(path);
    }
    // On the builder, as apps do; the end-to-end run also starts the demo with the
    // plugin added from `setup` or while it runs (`lifecycle`).
    let start = lifecycle::Start::from_args();
    if let Some(deadline) = start.quit_deadline {
        jobs = jobs.quit_deadline(deadline);
    }
    let mut app = tauri::Builder::default();
    let mut later = None;
    match start.plugin_at {
        PluginAt::Builder => app = app.plugin(jobs.build()),
        PluginAt::Setup | PluginAt::Running => later = Some(jobs),
    }
    app.manage(DemoServer { address, feed })
        .manage(conditions)
        .setup(move |app| {
            if let Some(jobs) = later {
                if start.plugin_at == PluginAt::Setup {
                    app.handle().plugin(jobs.build())?;
                } else {
                    let handle = app.handle().clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(500));
                        handle
                            .plugin(jobs.build())
                            .expect("the plugin added while the app runs");
                    });
                }
            }
            lifecycle::finish_setup(app, start);
            if start.hidden {
                lifecycle::start_hidden(app);
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            server_info,
            set_server_failing,
            set_server_throttling,
            open_focus_window,
            enqueue_legacy_job,
            focus_window,
            set_pretend_on_battery,
            bump_feed,
            lifecycle::pid,
            lifecycle::enqueue_probe,
            lifecycle::jobs_of_kind,
            lifecycle::close_main_window,
            lifecycle::cancel_job,
            lifecycle::prepare_update,
            lifecycle::quit_app,
            lifecycle::finishing,
        ])
        .run(tauri::generate_context!())
        .expect("the demo app runs");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src-ui/types.ts`: the demo's own types, as specta writes them.
    fn export_types() -> String {
        let dir = std::env::temp_dir().join(format!("jobs-demo-types-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("types.ts");
        tauri_specta::Builder::<tauri::Wry>::new()
            .typ::<Ingest>()
            .typ::<Ingested>()
            .export(
                specta_typescript::Typescript::default().header(
                    "// The demo's own types, written by specta. Do not edit: run\n\
                     // `UPDATE_BINDINGS=1 cargo test -p jobs-demo` to refresh.\n",
                ),
                &path,
            )
            .unwrap();
        let types = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        types
    }

    /// A handler, target or schedule changed without the page's declarations fails
    /// here (`UPDATE_BINDINGS=1` writes both files again).
    #[test]
    fn the_pages_declarations_are_what_the_demo_registers() {
        let jobs = jobs_builder(
            "127.0.0.1:9".into(),
            DemoConditions::new(Default::default()),
        );
        let types_path = concat!(env!("CARGO_MANIFEST_DIR"), "/src-ui/types.ts");
        let types = export_types();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(types_path, &types).unwrap();
            jobs.write_typescript(&declarations()).unwrap();
        }
        assert!(
            std::fs::read_to_string(types_path).unwrap_or_default() == types,
            "src-ui/types.ts is stale: run `UPDATE_BINDINGS=1 cargo test -p jobs-demo` and commit it"
        );
        if let Err(error) = jobs.check_typescript(&declarations()) {
            panic!("{error}: run `UPDATE_BINDINGS=1 cargo test -p jobs-demo` and commit it");
        }
    }
}
