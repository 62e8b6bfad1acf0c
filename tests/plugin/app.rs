//! Handlers, local jobs and sync sources reach the app (its managed state and paths),
//! and the plugin runs nothing before the app's own `setup` has returned: a mock app
//! *run* the way an app runs (`App::run_return`), with jobs queued in `raw.db` before
//! the start.

use std::sync::mpsc;
use std::time::Duration;

use tauri::test::{mock_builder, mock_context, noop_assets, MockRuntime};
use tauri::{Manager, RunEvent, Runtime, WebviewWindowBuilder};
use tauri_plugin_jobs::bus::Event;
use tauri_plugin_jobs::model::JobStatus;
use tauri_plugin_jobs::queue::{EnqueueOptions, JobFilter, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::sync::{SyncContext, SyncError, SyncPolicy, SyncResult, SyncSource};
use tauri_plugin_jobs::sync::{SyncOutcome, SyncReport, SyncTarget};
use tauri_plugin_jobs::JobsExt;

/// What the app manages in its own `setup`.
struct Library {
    name: &'static str,
}

/// A source that reads the app's state, as an app's own would.
struct FromTheApp;

impl SyncSource for FromTheApp {
    async fn sync(&self, ctx: &SyncContext) -> Result<SyncResult, SyncError> {
        let app = ctx.app::<MockRuntime>()?;
        let library = app
            .try_state::<Library>()
            .ok_or_else(|| SyncError::failed("the library is not managed yet"))?;
        assert_eq!(library.name, "podcasts");
        Ok(SyncResult::Updated(SyncReport::changed(1)))
    }
}

/// The plugin as an app generic over its runtime writes it.
fn plugin<R: Runtime>(dir: &std::path::Path) -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_jobs::Builder::new()
        .database(dir.join("raw.db"))
        .config(dir.join("config.toml"))
        .handler(
            Handler::new("download", |episode: u32, ctx: JobContext| async move {
                let app = ctx.app::<R>()?;
                // Not there before the app's setup: the attempt would fail and wait
                // out a backoff.
                let library = app
                    .try_state::<Library>()
                    .ok_or_else(|| JobError::retryable("the library is not managed yet"))?;
                let dir = app.path().app_data_dir().map_err(JobError::permanent)?;
                assert!(dir.is_absolute(), "{}", dir.display());
                Ok(format!("{} #{episode}", library.name))
            })
            .concurrency(2),
        )
        .sync_target(
            SyncTarget::new("feeds", "me", "podcasts"),
            SyncPolicy::every(Duration::from_secs(3600)),
            std::sync::Arc::new(FromTheApp),
        )
        .local_kind("count", |_: (), ctx| async move {
            let app = ctx.app::<R>()?;
            Ok::<_, tauri_plugin_jobs::local::BoxError>(app.state::<Library>().name.len())
        })
        .build()
}

#[test]
fn jobs_queued_before_the_start_reach_the_apps_state_on_their_first_attempt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), "").unwrap();
    {
        let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
        for episode in 1..=6u32 {
            queue
                .enqueue("download", &episode, EnqueueOptions::new())
                .unwrap();
        }
    }
    let (done_tx, done_rx) = mpsc::channel::<String>();
    let app = mock_builder()
        .plugin(plugin::<MockRuntime>(dir.path()))
        .setup(|app| {
            // Slow on purpose would only make an old runner's head start longer; the
            // plugin's loops must wait for this closure whatever it takes.
            app.manage(Library { name: "podcasts" });
            WebviewWindowBuilder::new(app, "main", Default::default()).build()?;
            Ok(())
        })
        .build(mock_context(noop_assets()))
        .expect("the mock app");
    // Nothing ran while the app was built: its setup has not run yet.
    let queue = app.jobs().queue().clone();
    let counts = |queue: &Queue| {
        queue
            .list(&JobFilter::default())
            .unwrap()
            .into_iter()
            .map(|job| (job.status, job.attempts))
            .collect::<Vec<_>>()
    };
    assert!(
        counts(&queue)
            .iter()
            .all(|(status, attempts)| *status == JobStatus::Queued && *attempts == 0),
        "a job ran before the app's setup: {:?}",
        counts(&queue)
    );
    let succeeded = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    {
        let (succeeded, done) = (succeeded.clone(), done_tx.clone());
        app.jobs().bus().add_handler("test", move |event| {
            if let Event::JobStateChanged(change) = event {
                if change.to == JobStatus::Succeeded
                    && succeeded.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 5
                {
                    drop(done.send("jobs".into()));
                }
            }
            Ok(())
        });
    }
    let (seen_tx, seen_rx) = mpsc::channel::<Seen>();
    let checks = std::sync::Mutex::new(Some((done_rx, seen_tx)));
    let ended = app.run_return(move |handle, event| {
        if !matches!(event, RunEvent::Ready) {
            return;
        }
        let Some((done, seen)) = checks.lock().unwrap().take() else {
            return;
        };
        let handle = handle.clone();
        // Off the loop's thread, which goes on running the app meanwhile.
        std::thread::spawn(move || {
            let jobs = done.recv_timeout(Duration::from_secs(30)).is_ok();
            let synced = tauri::async_runtime::block_on(
                handle
                    .jobs()
                    .sync()
                    .sync_now(&SyncTarget::new("feeds", "me", "podcasts")),
            );
            let (_, counted) = handle
                .jobs()
                .local()
                .spawn_awaitable("count", |ctx| async move {
                    let app = ctx.app::<MockRuntime>()?;
                    Ok::<_, tauri_plugin_jobs::local::BoxError>(app.state::<Library>().name.len())
                });
            let counted = tauri::async_runtime::block_on(counted.wait());
            drop(seen.send(Seen {
                jobs,
                synced: synced.map_err(|error| error.to_string()),
                counted: counted.map_err(|error| error.to_string()),
            }));
            // The mock loop ends when its last window is gone.
            handle
                .get_webview_window("main")
                .unwrap()
                .destroy()
                .unwrap();
        });
    });
    assert_eq!(ended, 0);
    let seen = seen_rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the checks ran");
    assert!(seen.jobs, "the six jobs did not all succeed in 30 s");
    assert!(
        matches!(seen.synced, Ok(SyncOutcome::Updated { changed: 1 })),
        "the source reached the app: {:?}",
        seen.synced
    );
    assert_eq!(seen.counted, Ok(8), "a local job reached the app");
    let jobs = queue.list(&JobFilter::default()).unwrap();
    assert_eq!(jobs.len(), 6);
    for job in &jobs {
        assert_eq!(
            (job.status, job.attempts),
            (JobStatus::Succeeded, 1),
            "every first attempt reached the app's state: {job:?}"
        );
        assert!(
            job.result
                .as_ref()
                .is_some_and(|result| result.as_str().is_some_and(|r| r.starts_with("podcasts #"))),
            "{job:?}"
        );
    }
}

/// What the checks on the running app saw.
struct Seen {
    jobs: bool,
    synced: Result<SyncOutcome, String>,
    counted: Result<usize, String>,
}

#[test]
fn a_handler_outside_an_app_is_told_why_it_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let runner = tauri_plugin_jobs::runner::Runner::new(
        queue.clone(),
        vec![Handler::new(
            "needs-app",
            |_: (), ctx: JobContext| async move {
                ctx.app::<MockRuntime>()?;
                Ok(())
            },
        )],
        Default::default(),
    )
    .unwrap();
    let id = queue
        .enqueue("needs-app", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(runner.drain())
        .unwrap();
    let job = queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed, "permanent: no retry");
    let error = job.last_error.unwrap_or_default();
    assert!(error.contains("outside a Tauri app"), "{error}");
}
