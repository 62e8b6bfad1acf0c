//! Keeping the machine awake while work that asked for it runs: the runner and local
//! jobs with a counting inhibitor (every system), logind's `Inhibit` through a fake
//! logind on a private D-Bus bus, a killed process's request let go with it, and a
//! second process taking its own (Linux: `keep_awake/linux.rs`), and Windows' power
//! request made and let go (run under Wine in CI, whose power calls are stubs).

mod common;

#[path = "support/counting.rs"]
mod counting;
#[cfg(target_os = "linux")]
#[path = "keep_awake/linux.rs"]
mod linux;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::Harness;
use counting::Counting;
use serde_json::json;
use tauri_plugin_jobs::awake::KeepAwake;
use tauri_plugin_jobs::bus::EventBus;
use tauri_plugin_jobs::local::{BoxError, LocalJobContext, LocalJobs};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};
use tokio::sync::Semaphore;

const SETTLE: Duration = Duration::from_secs(10);

/// A handler that waits for `go` (so it runs until the test says), then does what
/// its payload says: `ok`, `fail` or `panic`. `go` has no permits: the test closes it,
/// which lets every job through, one that had not come to wait yet included (telling
/// a `Notify`'s waiters would miss that one and leave the test waiting for ever).
fn waiting(kind: &str, go: Arc<Semaphore>) -> Handler {
    Handler::new(kind, move |what: String, _ctx: JobContext| {
        let go = go.clone();
        async move {
            let _ = go.acquire().await;
            match what.as_str() {
                "fail" => Err(JobError::permanent("it failed")),
                "panic" => panic!("the handler panicked"),
                _ => Ok(()),
            }
        }
    })
}

fn settings(awake: &KeepAwake) -> RunnerSettings {
    RunnerSettings::for_tests().workers(8).awake(awake.clone())
}

/// Waits (bounded) until `done`.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + SETTLE;
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what} within {SETTLE:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kind_that_asks_keeps_the_machine_awake_exactly_while_its_jobs_run() {
    let h = Harness::new();
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let go = Arc::new(Semaphore::new(0));
    let handlers = vec![
        waiting("import", go.clone()).keep_awake("Importing mailboxes"),
        waiting("other", go.clone()),
        Handler::new("quick", |_: String, _ctx: JobContext| async move { Ok(()) })
            .keep_awake("Quick"),
    ];
    let runner = Runner::new(h.queue.clone(), handlers, settings(&awake)).unwrap();
    // Told of every change the keep-awake thread acts on: a job joining or leaving.
    let changes = Arc::new(AtomicU32::new(0));
    let told = changes.clone();
    awake.on_change(move |_| {
        told.fetch_add(1, Ordering::SeqCst);
    });

    // A job that finishes in its first poll takes nothing (not even a part let go at
    // once: nothing changed); neither does a kind that did not ask.
    h.queue
        .enqueue("quick", &"ok", EnqueueOptions::new())
        .unwrap();
    h.queue
        .enqueue("other", &"ok", EnqueueOptions::new())
        .unwrap();
    runner.dispatch().unwrap();
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.taken(), 0);
    assert_eq!(changes.load(Ordering::SeqCst), 0, "no job held it");
    assert_eq!(runner.running(), 1, "the other kind's job waits");

    // Three jobs of the kind: one request while any runs, whichever way each ends.
    for what in ["ok", "fail", "panic"] {
        h.queue
            .enqueue("import", &what, EnqueueOptions::new())
            .unwrap();
    }
    runner.dispatch().unwrap();
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 1, "one request for three jobs");
    let status = awake.status();
    assert!(status.held);
    assert_eq!(status.jobs.len(), 3);
    assert!(status
        .jobs
        .iter()
        .all(|job| job.kind == "import" && !job.local));
    // The first job's reason ("(and 2 more)" when the others had started by the
    // time the request was taken).
    let reasons = counting.reasons();
    assert_eq!(reasons.len(), 1);
    assert!(reasons[0].starts_with("Importing mailboxes"), "{reasons:?}");
    let draining = tokio::spawn({
        let runner = runner.clone();
        async move { runner.drain().await.unwrap() }
    });
    go.close();
    let ran = draining.await.unwrap();
    assert!(ran.len() >= 4, "{ran:?}");
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 0, "let go when the last one ended");
    assert!(!awake.status().held);
    assert_eq!(counting.taken(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_job_lets_go_and_the_users_config_wins() {
    let h = Harness::new();
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let go = Arc::new(Semaphore::new(0));
    let handlers = vec![
        waiting("import", go.clone()).keep_awake("Importing"),
        waiting("export", go.clone()).keep_awake("Exporting"),
        waiting("backup", go.clone()),
    ];
    // The user turned it off for `export` and on for `backup` (config.toml's
    // `[jobs.keep_awake]`).
    let settings = settings(&awake)
        .keep_awake("export", false)
        .keep_awake("backup", true);
    let runner = Runner::new(h.queue.clone(), handlers, settings).unwrap();
    let export = h
        .queue
        .enqueue("export", &"ok", EnqueueOptions::new())
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.taken(), 0, "off for export");
    let backup = h
        .queue
        .enqueue("backup", &"ok", EnqueueOptions::new())
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 1, "on for backup");
    assert_eq!(counting.reasons()[0], "Running backup");

    // Cancelled while it runs: the handler is interrupted and the request goes.
    let import = h
        .queue
        .enqueue("import", &"ok", EnqueueOptions::new())
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    h.queue.cancel(backup).unwrap();
    h.queue.cancel(import).unwrap();
    runner.maintain().unwrap();
    until("the cancelled jobs end", || {
        runner.finish_pending().unwrap();
        runner.running() == 1
    })
    .await;
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 0);
    assert_eq!(
        h.queue.get(import).unwrap().unwrap().status,
        JobStatus::Cancelled
    );
    let draining = tokio::spawn({
        let runner = runner.clone();
        async move { runner.drain().await.unwrap() }
    });
    go.close();
    draining.await.unwrap();
    assert_eq!(
        h.queue.get(export).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_runner_lets_go_of_its_jobs_request() {
    let h = Harness::new();
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let go = Arc::new(Semaphore::new(0));
    let handlers = vec![waiting("import", go.clone()).keep_awake("Importing")];
    let runner = Runner::new(h.queue.clone(), handlers, settings(&awake)).unwrap();
    runner.start();
    h.queue
        .enqueue("import", &"ok", EnqueueOptions::new())
        .unwrap();
    until("the job runs", || counting.open() == 1).await;
    // The app quits: the handler outlives the grace period and is dropped.
    runner.stop(Duration::from_millis(10)).await.unwrap();
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_jobs_of_a_kind_that_asks_keep_the_machine_awake() {
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let jobs = LocalJobs::new(EventBus::new());
    assert!(jobs.keep_awake(
        awake.clone(),
        [("render".to_owned(), Some("Rendering".to_owned()))]
    ));
    let go = Arc::new(Semaphore::new(0));
    let waiting = |go: Arc<Semaphore>, panics: bool| {
        move |_ctx: LocalJobContext| async move {
            let _ = go.acquire().await;
            if panics {
                panic!("the body panicked");
            }
            Ok::<_, BoxError>(json!(1))
        }
    };
    let (_, first) = jobs.spawn_awaitable("render", waiting(go.clone(), false));
    let (_, second) = jobs.spawn_awaitable("render", waiting(go.clone(), true));
    let (_, other) = jobs.spawn_awaitable("thumbnail", waiting(go.clone(), false));
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 1);
    let status = awake.status();
    assert_eq!(status.jobs.len(), 2, "the two render jobs: {status:?}");
    assert!(status
        .jobs
        .iter()
        .all(|job| job.local && job.kind == "render"));
    go.close();
    assert!(first.wait().await.is_ok());
    assert!(second.wait().await.is_err(), "a panic ends it too");
    assert!(other.wait().await.is_ok());
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open(), 0);
    assert!(counting.reasons()[0].starts_with("Rendering"));
}

/// Windows: a power request is made and let go without an error. Wine lacks power
/// requests and stubs `SetThreadExecutionState`, which stands in: what is seen there
/// is that the calls answer.
#[cfg(windows)]
#[test]
fn windows_takes_and_lets_go_of_a_power_request() {
    use tauri_plugin_jobs::awake::{AwakeJob, SystemInhibitor};
    use tauri_plugin_jobs::queue::JobId;

    let awake = KeepAwake::new(SystemInhibitor::new().who("keep_awake test"));
    let guard = awake.hold(AwakeJob::durable("import", JobId::from_raw(1)), None);
    assert!(awake.settle(SETTLE));
    let status = awake.status();
    assert_eq!(status.error, None, "{status:?}");
    assert!(status.held);
    drop(guard);
    assert!(awake.settle(SETTLE));
    assert!(!awake.status().held);
}

#[cfg(not(any(target_os = "linux", windows)))]
#[test]
fn the_systems_request_is_tested_on_linux_and_windows_here() {
    eprintln!("skipped: this system's request is compiled here, not made");
}
