//! The guide's crate-level snippets (`docs/`), word for word inside functions
//! (`tests/in_process/readme.rs` checks every block of the README and the guide is in a compiled
//! file), so they compile and run: `cargo run --example guide`. The quick start for
//! apps is in `ci/quickstart`, which CI builds from the packaged crate.

use std::error::Error;

/// "The durable queue".
#[rustfmt::skip]
fn durable_queue() -> Result<(), Box<dyn Error>> {
    use std::time::Duration;
    use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, Priority, Queue, QueueOptions};

    let queue = Queue::open("raw.db", QueueOptions::new())?;
    queue.enqueue("thumbnail", &serde_json::json!({"path": "a.png"}),
        EnqueueOptions::new().priority(Priority::USER).dedupe_key("a.png"))?;

    let request = ClaimRequest::new("worker-1", ["thumbnail"])
        .limit("thumbnail", 1)            // at most one running, across every process
        .lease(Duration::from_secs(30))
        .max_jobs(8);                     // several jobs in one transaction
    for job in queue.claim(&request)? {
        // work; call queue.heartbeat(&job.lease) every third of the lease
        queue.complete(&job.lease, Some(serde_json::json!({"bytes": 1234})))?;
    }
    Ok(())
}

/// "Debounce and replace".
#[rustfmt::skip]
fn debounce_and_replace() -> Result<(), Box<dyn Error>> {
use std::time::Duration;
use tauri_plugin_jobs::queue::{EnqueueOptions, EnqueueOutcome, OnDuplicate, Queue, QueueOptions};

let queue = Queue::open("raw.db", QueueOptions::new())?;
// "Reindex once the user has stopped typing for 2 s": every keystroke enqueues.
let debounce = EnqueueOptions::new()
    .dedupe_key("notes")
    .on_duplicate(OnDuplicate::Debounce(Duration::from_secs(2)));
let first = queue.enqueue("reindex", &"draft 1", debounce.clone())?;
let again = queue.enqueue("reindex", &"draft 2", debounce)?;
assert_eq!((first.outcome, again.outcome), (EnqueueOutcome::Created, EnqueueOutcome::Replaced));
// "The latest settings win": a queued save takes the newest payload, when it was due.
let replace = EnqueueOptions::new().dedupe_key("settings").on_duplicate(OnDuplicate::Replace);
queue.enqueue("save-settings", &serde_json::json!({"theme": "dark"}), replace)?;
    Ok(())
}

/// "Rate limits".
#[rustfmt::skip]
fn rate_limits() -> Result<(), Box<dyn Error>> {
use std::time::Duration;
use tauri_plugin_jobs::queue::{Queue, QueueOptions, RateLimit};
use tauri_plugin_jobs::runner::{Handler, JobContext};

// A mail API that takes 60 requests a minute: the handler says so...
let send = Handler::new("send-mail", |to: String, _ctx: JobContext| async move { Ok(to) })
    .rate_limit(60, Duration::from_secs(60));
// ...or any process sets it in the file.
let queue = Queue::open("raw.db", QueueOptions::new())?;
queue.set_rate_limit("send-mail", Some(RateLimit::new(60, Duration::from_secs(60))))?;
    drop(send);
    Ok(())
}

/// "Constraints".
#[rustfmt::skip]
fn constraints() -> Result<(), Box<dyn Error>> {
use std::time::Duration;
use tauri_plugin_jobs::conditions::FakeConditions;
use tauri_plugin_jobs::queue::{Constraints, EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext};

// Every re-embed waits for a charger: the handler says so...
let reembed = Handler::new("reembed", |mailbox: String, _ctx: JobContext| async move { Ok(mailbox) })
    .constraints(Constraints::none().ac_power());
// ...and one download waits for an unmetered network and a user away for 5 minutes.
let conditions = FakeConditions::new(); // the plugin reads the OS (SystemConditions)
let queue = Queue::open("raw.db", QueueOptions::new().conditions(conditions.clone()))?;
let needs = Constraints::none().unmetered_network().user_idle_for(Duration::from_secs(300));
queue.enqueue("download-model", &"llm-7b", EnqueueOptions::new().constraints(needs))?;
conditions.set_metered_network(Some(true)); // a phone's hotspot: it waits
    drop(reembed);
    Ok(())
}

/// "Workflows: fan out, fan in".
#[rustfmt::skip]
fn workflows() -> Result<(), Box<dyn Error>> {
use serde_json::json;
use tauri_plugin_jobs::queue::{
    DependencyFailure, EnqueueOptions, NewJob, Queue, QueueOptions, Workflow,
};

let queue = Queue::open("raw.db", QueueOptions::new())?;
// Import a mailbox: embed each message, then rebuild the search index once.
let import = Workflow::new(NewJob::new("import", json!({"mailbox": "inbox"})))
    .pieces((0..100).map(|n| NewJob::new("embed", json!({"message": n}))))
    .then(NewJob::new("reindex", json!({})));
let ids = queue.enqueue_workflow(import)?;
// One progress bar for the whole: pieces ended, of all.
let state = queue.workflow(ids.parent)?.expect("just enqueued");
assert_eq!(state.progress.total, Some(101));
// Or by hand: a report that runs once both jobs have ended, whatever became of them.
let report = EnqueueOptions::new()
    .after([ids.pieces[0], ids.pieces[1]])
    .on_dependency_failure(DependencyFailure::Run);
queue.enqueue("report", &json!({}), report)?;
    Ok(())
}

/// "The runner".
#[rustfmt::skip]
async fn runner() -> Result<(), Box<dyn Error>> {
    use tauri_plugin_jobs::config::Config;
    use tauri_plugin_jobs::queue::{Queue, QueueOptions};
    use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};

    #[derive(serde::Deserialize)]
    struct Embed { message_id: String }

    let config = Config::load("config.toml")?;            // missing file: defaults
    let queue = Queue::open("raw.db", QueueOptions::new().config(&config.jobs))?;
    let embed = Handler::new("embed", |job: Embed, ctx: JobContext| async move {
        if job.message_id.is_empty() {
            return Err(JobError::permanent("no message id"));
        }
        if ctx.is_cancelled() {                            // at safe points
            return Err(JobError::retryable("cancelled"));
        }
        Ok(vec![0.1f32, 0.2])                              // the result type is its schema
    })
    .concurrency(1);                                       // one GPU: one at a time, all processes
    let runner = Runner::new(queue, vec![embed], RunnerSettings::from_config(&config.jobs))?;
    runner.start();                                        // inside a tokio runtime
    // ... on exit:
    runner.stop(std::time::Duration::from_secs(10)).await?;
    Ok(())
}

/// "Sleep and updates": a handler that reads the payloads of an earlier build.
#[rustfmt::skip]
fn payload_versions() -> tauri_plugin_jobs::runner::Handler {
    use tauri_plugin_jobs::runner::{Handler, JobContext};

    #[derive(serde::Deserialize)]
    struct ThumbnailV1 { path: String }
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Thumbnail { path: String, width: u32 }

    Handler::new("thumbnail", |job: Thumbnail, _ctx: JobContext| async move { Ok(job.width) })
        .payload_version(2)
        .upgrade(1, |old: ThumbnailV1| Ok::<_, String>(Thumbnail { path: old.path, width: 256 }))
}

/// "Constraints, rate limits and debounce": pretend to be on battery.
#[rustfmt::skip]
fn pretend_on_battery() {
    use tauri_plugin_jobs::conditions::{Overridden, SystemConditions};

let conditions = Overridden::new(SystemConditions::default());
let plugin = tauri_plugin_jobs::Builder::new().conditions(conditions.clone());
// A settings switch, or a debug command of the app:
conditions.set_on_ac_power(Some(false)); // on battery, whatever the machine says
conditions.set_on_ac_power(None); // as the machine says again
    drop(plugin);
}

/// "Refresh, focus and network sync": a source with a real HTTP client, and how it
/// fails.
#[rustfmt::skip]
mod feed_source {
use std::path::PathBuf;
use std::time::Duration;

use reqwest::header::{ETAG, IF_NONE_MATCH, RETRY_AFTER};
use reqwest::StatusCode;
use tauri_plugin_jobs::clock::{Clock, SystemClock};
use tauri_plugin_jobs::sync::{self, retry_after, SyncContext, SyncError, SyncReport};
use tauri_plugin_jobs::sync::{SyncResult, SyncSource, SyncThrottle};

/// A feed, fetched with the app's `reqwest::Client`; its items are kept in a file in
/// the app's data directory, so they outlive a restart as the ETag in raw.db does.
pub struct Feed {
    pub http: reqwest::Client,
    pub url: String,
    pub file: PathBuf,
}

impl SyncSource for Feed {
    async fn sync(&self, ctx: &SyncContext) -> sync::Result<SyncResult> {
        let mut request = self.http.get(&self.url).timeout(Duration::from_secs(30));
        if let Some(etag) = ctx.etag() {
            request = request.header(IF_NONE_MATCH, etag); // a 304 when nothing changed
        }
        let response = match request.send().await {
            Ok(response) => response,
            // No answer at all: offline, retried on a short flat timer, no backoff.
            Err(error) if error.is_connect() || error.is_timeout() => {
                return Err(SyncError::offline(error))
            }
            Err(error) => return Err(SyncError::failed(error)),
        };
        let header = |name| {
            response.headers().get(name).and_then(|value| value.to_str().ok()).map(str::to_owned)
        };
        match response.status() {
            StatusCode::NOT_MODIFIED => Ok(SyncResult::NotModified),
            StatusCode::OK => {
                let etag = header(ETAG);
                let body = response.bytes().await.map_err(SyncError::offline)?;
                // Store the items first, and where they last as long as the ETag.
                std::fs::write(&self.file, &body).map_err(SyncError::failed)?;
                let mut report = SyncReport::changed(1);
                if let Some(etag) = etag {
                    report = report.with_etag(etag);
                }
                Ok(SyncResult::Updated(report))
            }
            // The service asks to wait: every automatic run waits, Refresh is told until when.
            StatusCode::TOO_MANY_REQUESTS => {
                let delay = header(RETRY_AFTER).as_deref()
                    .and_then(|value| retry_after(value, SystemClock.now()))
                    .unwrap_or(Duration::from_secs(60));
                Ok(SyncResult::Throttled(SyncThrottle::quota(delay)))
            }
            // A 5xx or anything else: failed, retried with exponential backoff.
            status => Err(SyncError::failed(format!("HTTP {status}"))),
        }
    }
}
}

/// "Keep the machine awake": an overnight import that the idle timer must not stop.
#[rustfmt::skip]
mod keep_awake {
use tauri::Runtime;
use tauri_plugin_jobs::runner::{Handler, JobContext};

pub fn import_mailbox() -> Handler {
    Handler::new("import-mailbox", |mailbox: String, ctx: JobContext| async move {
        for part in 1..=40u64 {
            // ... fetch and store one part of `mailbox` ...
            ctx.progress(part, Some(40));
        }
        Ok(mailbox)
    })
    // While a job of this kind runs, the system does not sleep on its idle timer.
    .keep_awake("Importing mail")
}

pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_jobs::Builder::new()
        .handler(import_mailbox())
        // A local kind (or any kind by name) asks the same way.
        .local_kind("export-archive", |path: String, _ctx| async move { Ok(path) })
        .keep_awake("export-archive", "Exporting the archive")
        // One bar on the taskbar (or the dock) for all of it, cleared when done.
        .taskbar_progress(true)
        .build()
}
}

/// "An outbox": the user's changes as durable jobs that wait offline.
#[rustfmt::skip]
mod outbox {
use std::time::Duration;

use tauri::{Manager, Runtime};
use tauri_plugin_jobs::runner::{error_chain, retry_after, Handler, JobContext, JobError};

/// One change the user made, as the page sends it: the note and its new text.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct SaveNote { pub id: u32, pub text: String }

/// What the app manages in its `setup()`: its HTTP client and the server's address.
pub struct Api { pub http: reqwest::Client, pub base: String }

pub fn save_note<R: Runtime>() -> Handler {
    Handler::new("save-note", |note: SaveNote, ctx: JobContext| async move {
        let app = ctx.app::<R>()?;
        let api = app.state::<Api>();
        let url = format!("{}/notes/{}", api.base, note.id);
        // The same key in every attempt of this change, after a crash too: a server
        // that took the request before the app died answers it again, not twice.
        let sent = api.http.put(url).header("Idempotency-Key", ctx.idempotency_key())
            .body(note.text).timeout(Duration::from_secs(30)).send().await;
        let response = match sent {
            Ok(response) => response,
            // No answer (no network, no route, a train's tunnel): not a failure. The
            // kind waits for the network; one change tries every 15 s meanwhile. The
            // chain says why ("... tcp connect error: Connection refused").
            Err(error) if error.is_connect() || error.is_timeout() => {
                return Err(JobError::offline(error_chain(&error)))
            }
            Err(error) => return Err(JobError::retryable(error_chain(&error))),
        };
        let status = response.status().as_u16();
        match status {
            200..=299 => Ok(()),
            // The server asks every client to slow down: the whole kind waits.
            429 => {
                let wait = response.headers().get("retry-after")
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| retry_after(value, ctx.now()))
                    .unwrap_or(Duration::from_secs(60));
                Err(JobError::throttle_kind(wait, "HTTP 429"))
            }
            // A change the server will never take: say so now.
            400..=499 => Err(JobError::permanent(format!("HTTP {status}"))),
            _ => Err(JobError::retryable(format!("HTTP {status}"))),
        }
    })
    .max_attempts(10) // ten answers that were errors; offline waits count none
}
}

/// "Handlers, retries and errors": a handler that reaches the app, and where the
/// plugin is added.
#[rustfmt::skip]
mod reach_the_app {
use tauri::{Emitter, Manager, Runtime};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};

/// What the app manages in its own `setup`: its HTTP client, its database pool...
pub struct Library { pub folder: String }

pub fn download<R: Runtime>() -> Handler {
    Handler::new("download", |url: String, ctx: JobContext| async move {
        let app = ctx.app::<R>()?;                    // the app's AppHandle
        let library = app.state::<Library>();         // managed in the app's setup()
        let dir = app.path().app_data_dir().map_err(JobError::permanent)?.join(&library.folder);
        // ... fetch `url` into `dir`, then tell every window:
        app.emit("downloaded", &url)?;
        Ok(dir.join("episode.mp3").display().to_string())
    })
}

pub fn app<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder
        .setup(|app| {
            app.manage(Library { folder: "episodes".into() });
            Ok(())
        })
        .plugin(tauri_plugin_jobs::Builder::new().handler(download::<R>()).build())
}
}

/// "Sleep and updates": ready for an update (the updater's calls around it in
/// comments: tauri-plugin-updater is not a dependency here).
#[rustfmt::skip]
async fn before_an_update<R: tauri::Runtime>(app: tauri::AppHandle<R>) -> Result<(), Box<dyn Error>> {
    use std::time::Duration;
    use tauri_plugin_jobs::JobsExt;

// let update = app.updater()?.check().await?.expect("an update");
let ready = app.jobs().prepare_for_update(Duration::from_secs(10)).await?;
println!("{} jobs will run again after the update", ready.released.len());
// update.download_and_install(|_, _| {}, || {}).await?;
// app.restart();
    Ok(())
}

/// "When the window closes": an uploader that finishes in the tray, says when it is
/// done and comes back after a reboot (the tray and notification plugins' calls in
/// comments: neither is a dependency here).
#[rustfmt::skip]
mod closing {
use std::time::Duration;
use tauri::{Manager, Runtime};
use tauri_plugin_jobs::plugin::notices::{DoneNotice, Notice};
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::JobsExt;

pub fn upload() -> Handler {
    Handler::new("upload", |file: String, ctx: JobContext| async move {
        for part in 1..=20u64 {
            // ... send one part of `file` ...
            ctx.progress(part, Some(20));
        }
        Ok(file)
    })
    .concurrency(2)
    .keep_awake("Uploading")
}

pub fn jobs<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_jobs::Builder::new()
        .handler(upload())
        // Closing the last window (or Quit) waits for the uploads: 30 minutes at most.
        .finish_before_quit("upload")
        .quit_deadline(Duration::from_secs(30 * 60))
        // Said when they end while the app is not in front; ends close together make one.
        .notify_when_done("upload", DoneNotice::new()
            .success(|files| match files {
                [one] => format!("{} uploaded", one.result.as_ref().and_then(|r| r.as_str()).unwrap_or("A file")),
                many => format!("{} files uploaded", many.len()),
            })
            .failure(|files| format!("Upload failed: {}", files[0].error.as_deref().unwrap_or("no reason given"))))
        .notifier(|notice: &Notice| {
            // With tauri-plugin-notification:
            // notice.app::<R>()?.notification().builder().title(&notice.title).body(&notice.body).show()
            println!("{}: {}", notice.title, notice.body);
        })
        .build()
}

pub fn app<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.plugin(jobs()).setup(|app| {
        // Started at login by tauri-plugin-autostart, with `--hidden` among its args.
        if std::env::args().any(|arg| arg == "--hidden") {
            if let Some(window) = app.get_webview_window("main") {
                window.hide()?;
            }
            // Finishes what the last run left, then quits (at once when nothing is left).
            if !app.jobs().pending_work()?.is_empty() {
                app.jobs().quit_when_done();
            } else {
                app.handle().exit(0);
            }
        }
        Ok(())
    })
}

/// The tray's tooltip, when an upload starts, progresses or ends; its "Quit now" item.
pub fn tray_line<R: Runtime>(app: &tauri::AppHandle<R>) -> String {
    // tray.set_tooltip(Some(tray_line(app)))?;
    app.jobs().running_work(&["upload"]).to_string() // "3 running, 40 %"
}

pub fn quit_now<R: Runtime>(app: &tauri::AppHandle<R>) {
    // On the menu item's click: what runs is given back, and runs at the next start.
    app.jobs().quit_now();
}
}

/// "Typed kinds": types from the app's own bindings, and the check in a test (not run
/// here: the file it checks is an app's).
#[rustfmt::skip]
fn typed_kinds(jobs: tauri_plugin_jobs::Builder) -> Result<(), Box<dyn Error>> {
use tauri_plugin_jobs::typescript::Typescript;

// The app's tauri-specta (or ts-rs) already writes its types to src/bindings.ts:
// the declarations import them by their Rust names.
let declarations = Typescript::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/jobs-kinds.d.ts"))
    .types_from("./bindings")
    .sync_targets_like("mail/${string}/inbox") // targets for accounts added at run time
    .schedule("nightly"); // a schedule only config.toml sets
// In one of the app's tests: fails when a handler changed and the file did not.
jobs.check_typescript(&declarations)?;
Ok(())
}

/// "History: what happened, per kind".
#[rustfmt::skip]
fn history(queue: &tauri_plugin_jobs::queue::Queue) -> Result<(), Box<dyn Error>> {
use tauri_plugin_jobs::queue::HistoryRange;

let now = queue.clock().now();
for point in queue.history("thumbnail", HistoryRange::last_hour(now))? {
    println!(
        "{}: {} ok, {} failed, {} retried, run p95 {:?} ms",
        point.at, point.succeeded, point.failed, point.retries, point.run_p95_ms
    );
}
Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let _ = typed_kinds;
    let _ = payload_versions();
    pretend_on_battery();
    let _ = feed_source::Feed {
        http: reqwest::Client::new(),
        url: "https://example.com/feed.json".into(),
        file: "feed.json".into(),
    };
    let _ = before_an_update::<tauri::test::MockRuntime>;
    let _ = reach_the_app::app::<tauri::test::MockRuntime>;
    let _ = outbox::save_note::<tauri::test::MockRuntime>;
    let _ = keep_awake::plugin::<tauri::test::MockRuntime>;
    let _ = closing::app::<tauri::test::MockRuntime>;
    let _ = closing::tray_line::<tauri::test::MockRuntime>;
    let _ = closing::quit_now::<tauri::test::MockRuntime>;
    let _ = outbox::SaveNote {
        id: 1,
        text: String::new(),
    };
    let _ = outbox::Api {
        http: reqwest::Client::new(),
        base: String::new(),
    };
    // The snippets write raw.db and read config.toml where they run.
    let dir = tempfile::tempdir()?;
    std::env::set_current_dir(dir.path())?;
    durable_queue()?;
    debounce_and_replace()?;
    rate_limits()?;
    constraints()?;
    workflows()?;
    tokio::runtime::Runtime::new()?.block_on(runner())?;
    let queue = tauri_plugin_jobs::queue::Queue::open(
        "raw.db",
        tauri_plugin_jobs::queue::QueueOptions::new(),
    )?;
    history(&queue)?;
    println!("the README's snippets ran");
    Ok(())
}
