//! Each job's changes reach every listener in the order they were committed, whatever
//! threads write: enqueuing threads and a running runner with many workers, on the bus
//! (a handler and a stream) and on a webview's channel. Real threads and real time,
//! bounded: each round waits at most 60 s for its jobs to end.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tauri_plugin_jobs::testing::MockApp;

const THREADS: u64 = 4;
const JOBS_PER_THREAD: u64 = 100;
const ROUNDS: usize = 8;
const ROUND_DEADLINE: Duration = Duration::from_secs(60);

fn echo() -> Handler {
    Handler::new("echo", |n: u64, _ctx: JobContext| async move { Ok(n) })
}

/// One heard change of a job: `(from, to)`.
type Change = (Option<JobStatus>, JobStatus);

/// Each job's changes, as heard.
type Heard = HashMap<i64, Vec<Change>>;

/// Every job's changes must chain: the first comes from nothing, each later one from
/// where the one before went, and the last is `succeeded`. Returns the jobs that broke it.
fn broken(heard: &Heard) -> Vec<(i64, Vec<Change>)> {
    let mut broken: Vec<_> = heard
        .iter()
        .filter(|(_, changes)| {
            let mut at = None;
            for (from, to) in changes.iter() {
                if *from != at {
                    return true;
                }
                at = Some(*to);
            }
            at != Some(JobStatus::Succeeded)
        })
        .map(|(id, changes)| (*id, changes.clone()))
        .collect();
    broken.sort_by_key(|(id, _)| *id);
    broken
}

/// Four threads enqueue 100 jobs each, one per call, through `queue`.
fn enqueue_from_threads(queue: &Queue, round: usize) {
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let queue = queue.clone();
            scope.spawn(move || {
                for n in 0..JOBS_PER_THREAD {
                    let payload = (round as u64) << 32 | thread << 16 | n;
                    queue
                        .enqueue("echo", &payload, EnqueueOptions::new())
                        .expect("enqueue");
                }
            });
        }
    });
}

fn succeeded(queue: &Queue) -> u32 {
    queue
        .counts()
        .expect("counts")
        .iter()
        .filter(|count| count.status == JobStatus::Succeeded)
        .map(|count| count.count)
        .sum()
}

fn wait_for_succeeded(queue: &Queue, want: u32) {
    let deadline = Instant::now() + ROUND_DEADLINE;
    while succeeded(queue) < want {
        assert!(
            Instant::now() < deadline,
            "only {} of {want} jobs succeeded within {ROUND_DEADLINE:?}",
            succeeded(queue)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Adds what `stream` has heard so far to `heard`.
fn hear(stream: &mut tauri_plugin_jobs::bus::EventStream, heard: &mut Heard) {
    while let Some(event) = stream.try_next() {
        if let Event::JobStateChanged(change) = &*event {
            heard
                .entry(change.id.raw())
                .or_default()
                .push((change.from, change.to));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jobs_changes_reach_handlers_and_streams_in_commit_order() {
    let dir = tempfile::tempdir().unwrap();
    let bus = EventBus::new();
    let by_handler: Arc<Mutex<Heard>> = Arc::default();
    let sink = by_handler.clone();
    bus.add_handler("order", move |event: &Event| {
        if let Event::JobStateChanged(change) = event {
            sink.lock()
                .unwrap()
                .entry(change.id.raw())
                .or_default()
                .push((change.from, change.to));
        }
        Ok(())
    });
    let mut stream = bus.subscribe(1 << 16);
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new().bus(bus)).unwrap();
    let settings = RunnerSettings::default().workers(8);
    let runner = Runner::new(queue.clone(), vec![echo()], settings).unwrap();
    runner.start();
    let mut by_stream = Heard::new();
    for round in 0..ROUNDS {
        let blocking = queue.clone();
        tokio::task::spawn_blocking(move || {
            enqueue_from_threads(&blocking, round);
            wait_for_succeeded(
                &blocking,
                (round as u64 + 1) as u32 * (THREADS * JOBS_PER_THREAD) as u32,
            );
        })
        .await
        .unwrap();
        hear(&mut stream, &mut by_stream);
    }
    runner.stop(Duration::from_secs(5)).await.unwrap();
    // A commit is seen by the count a moment before its events are published; the
    // stop joins the runner's thread, so the last round's are all out by now.
    hear(&mut stream, &mut by_stream);
    let total = ROUNDS * (THREADS * JOBS_PER_THREAD) as usize;
    let by_handler = by_handler.lock().unwrap().clone();
    assert_eq!(
        by_handler.len(),
        total,
        "every job was heard by the handler"
    );
    assert_eq!(
        broken(&by_handler),
        vec![],
        "the handler heard jobs out of order"
    );
    assert_eq!(stream.dropped(), 0);
    assert_eq!(by_stream.len(), total, "every job was heard on the stream");
    assert_eq!(
        broken(&by_stream),
        vec![],
        "the stream heard jobs out of order"
    );
}

fn status(text: &Value) -> Option<JobStatus> {
    text.as_str().map(|text| text.parse().expect("a status"))
}

#[test]
fn a_jobs_changes_reach_a_webview_channel_in_commit_order() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _entered = runtime.enter();
    let app = MockApp::new(
        tauri_plugin_jobs::Builder::new().handler(echo()),
        json!([{ "identifier": "jobs:default", "allow": [{ "kind": "echo" }] }]),
    );
    let events = app.subscribe("main");
    let queue = app.jobs().queue().clone();
    let mut heard = Heard::new();
    for round in 0..ROUNDS {
        enqueue_from_threads(&queue, round);
        wait_for_succeeded(
            &queue,
            (round as u64 + 1) as u32 * (THREADS * JOBS_PER_THREAD) as u32,
        );
        // Every job of the round ended: its end is on its way to the channel.
        let want = (round + 1) * (THREADS * JOBS_PER_THREAD) as usize;
        let deadline = Instant::now() + ROUND_DEADLINE;
        while heard
            .values()
            .filter(|changes| changes.iter().any(|(_, to)| *to == JobStatus::Succeeded))
            .count()
            < want
        {
            assert!(Instant::now() < deadline, "the channel stopped short");
            let Some(message) = events.next_within(Duration::from_secs(1)) else {
                continue;
            };
            assert_eq!(message["dropped"], json!(0), "the channel dropped changes");
            let event = &message["event"];
            if event["type"] == "jobStateChanged" {
                heard
                    .entry(event["id"].as_i64().expect("an id"))
                    .or_default()
                    .push((
                        status(&event["from"]),
                        status(&event["to"]).expect("a status"),
                    ));
            }
        }
    }
    assert_eq!(
        broken(&heard),
        vec![],
        "the webview heard jobs out of order"
    );
}
