//! A job another process enqueues starts at once, not at the runner's next poll: the
//! runner watches `raw.db`'s write-ahead log while it is idle. The runner here polls
//! once an hour, so only the watch can start the jobs within the test's bound. Skipped,
//! with the reason printed, where the platform refuses a file watch.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings, WATCH_AFTER_IDLE};
use tokio::sync::Notify;

const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_ENQUEUER_DB";
const CHILD_KIND: &str = "TAURI_PLUGIN_JOBS_ENQUEUER_KIND";
/// Far more than a watch needs, far less than the hour the runner would poll after.
const BOUND: Duration = Duration::from_secs(30);

/// Enqueues one job from a child process (this test binary, run again).
fn enqueue_from_another_process(path: &std::path::Path, kind: &str) {
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_enqueuer", "--ignored", "--nocapture"])
        .env(CHILD_DB, path)
        .env(CHILD_KIND, kind)
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_from_another_process_start_without_waiting_for_the_poll() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let ran = Arc::new(Notify::new());
    let handler = Handler::new("from-afar", {
        let ran = ran.clone();
        move |_: serde_json::Value, _ctx: JobContext| {
            let ran = ran.clone();
            async move {
                ran.notify_one();
                Ok(())
            }
        }
    });
    let settings = RunnerSettings::for_tests().poll_interval(Duration::from_secs(3600));
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    // Asked on another handle: the runner's own handle watches only while idle.
    let probe = Queue::open(&path, QueueOptions::new()).unwrap();
    if !probe.watch_other_processes() {
        refused();
        return;
    }
    drop(probe);
    runner.start();

    // Idle: the first job wakes the runner through the watch.
    let started = Instant::now();
    enqueue_from_another_process(&path, "from-afar");
    tokio::time::timeout(BOUND, ran.notified())
        .await
        .expect("the first job started before the poll");
    // Right after a job: the runner watches again once it has been idle a moment, and
    // looks for what came meanwhile.
    enqueue_from_another_process(&path, "from-afar");
    tokio::time::timeout(BOUND, ran.notified())
        .await
        .expect("the second job started before the poll");
    assert!(started.elapsed() < BOUND + WATCH_AFTER_IDLE);

    runner.stop(Duration::from_secs(5)).await.unwrap();
    let done = queue
        .list(&tauri_plugin_jobs::queue::JobFilter::new().status(JobStatus::Succeeded))
        .unwrap();
    assert_eq!(done.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wake_ups_hear_other_connections_once_watching() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    if !queue.watch_other_processes() {
        refused();
        return;
    }
    let mut wake_ups = queue.wake_ups();
    wake_ups.borrow_and_update();
    enqueue_from_another_process(&path, "anything");
    tokio::time::timeout(BOUND, wake_ups.changed())
        .await
        .expect("a wake-up for another process's job")
        .unwrap();
}

/// A job waiting for a signal runs within moments of another process sending it, by
/// the watch: the runner polls once an hour. Prints how long it took.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_from_another_process_wakes_its_job_without_waiting_for_the_poll() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let probe = Queue::open(&path, QueueOptions::new()).unwrap();
    if !probe.watch_other_processes() {
        refused();
        return;
    }
    drop(probe);
    let (waiting, answered) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let handler = Handler::new("approval", {
        let (waiting, answered) = (waiting.clone(), answered.clone());
        move |_: serde_json::Value, ctx: JobContext| {
            let (waiting, answered) = (waiting.clone(), answered.clone());
            async move {
                waiting.notify_one();
                let answer: Option<String> = ctx
                    .wait_for_signal("approved", Duration::from_secs(86_400))
                    .await?;
                answered.notify_one();
                Ok(answer)
            }
        }
    })
    .signal("approved");
    let settings = RunnerSettings::for_tests().poll_interval(Duration::from_secs(3600));
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    let id = queue
        .enqueue("approval", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.start();
    tokio::time::timeout(BOUND, waiting.notified())
        .await
        .expect("the job began to wait");
    // The handler says it waits a moment before the runner writes the wait: the
    // signal must find it written (a signal before the wait is kept, not a wake-up).
    tokio::time::timeout(BOUND, async {
        while queue.get(id).unwrap().unwrap().awaits_signal.as_deref() != Some("approved") {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the wait was written");
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_signaler", "--ignored", "--nocapture"])
        .env(CHILD_DB, &path)
        .env(CHILD_KIND, id.raw().to_string())
        .output()
        .unwrap();
    assert!(status.status.success());
    tokio::time::timeout(BOUND, answered.notified())
        .await
        .expect("the signal woke the job before the poll");
    let woke_at = std::time::SystemTime::now();
    let sent_at: u64 = String::from_utf8_lossy(&status.stdout)
        .lines()
        .find_map(|line| line.split("SENT ").nth(1)?.trim().parse().ok())
        .expect("the child said when it sent");
    let woke = woke_at
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let took = Duration::from_millis(woke.saturating_sub(sent_at));
    eprintln!("a signal from another process woke its job in {took:?} (poll: an hour)");
    runner.stop(Duration::from_secs(5)).await.unwrap();
    let job = queue.get(id).unwrap().unwrap();
    assert_eq!(job.result, Some(serde_json::json!("yes")));
}

#[test]
#[ignore = "started by the tests above"]
fn child_signaler() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let id: i64 = std::env::var(CHILD_KIND).unwrap().parse().unwrap();
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    std::thread::sleep(Duration::from_millis(250));
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    println!("SENT {at}");
    let sent = queue
        .signal(id.into(), "approved", &serde_json::json!("yes"))
        .unwrap();
    assert!(sent.woke);
}

#[test]
#[ignore = "started by the tests above"]
fn child_enqueuer() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let kind = std::env::var(CHILD_KIND).unwrap();
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    // Long after the runner's last look of its own (it looks again a few ms after
    // going idle): only the watch can see this one before the poll.
    std::thread::sleep(Duration::from_millis(250));
    queue.enqueue(&kind, &0, EnqueueOptions::new()).unwrap();
}

/// Says that the platform refused a watch, and why the test cannot go on. Under
/// `CI=true` (Linux, and Windows under Wine) it fails instead: both watch.
fn refused() {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "this platform refused a watch on the database's directory, under CI"
    );
    eprintln!("skipped: this platform refuses a watch on the database's directory");
}
