//! Runner and bus benchmark: prints figures, asserts nothing.
//!
//! `cargo bench --bench runner`. Knobs: `BENCH_JOBS` (default 20000), `BENCH_REPEAT`
//! (default 3, median printed), `BENCH_EVENTS` (default 1000000),
//! `BENCH_IDLE_SECS` (default 30).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::bus::{Event, EventBus, JobStateChanged};
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::queue::{ClaimRequest, JobId, JobStatus, NewJob, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tokio::sync::Notify;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn row(name: &str, value: String, target: &str) {
    println!("{name:<66} {value:>16}   {target}");
}

fn enqueue(queue: &Queue, n: usize) {
    for start in (0..n).step_by(1000) {
        queue
            .enqueue_batch((start..(start + 1000).min(n)).map(|i| NewJob::new("noop", json!(i))))
            .unwrap();
    }
}

/// The queue's own claim + complete, one job per step, as the reference.
fn raw_claim_complete(n: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    enqueue(&queue, n);
    let request = ClaimRequest::new("w", ["noop"]);
    let started = Instant::now();
    while let Some(job) = queue.claim(&request).unwrap().pop() {
        queue.complete(&job.lease, None).unwrap();
    }
    n as f64 / started.elapsed().as_secs_f64()
}

/// Enqueue `n`, then let a started runner with a no-op handler run them all.
async fn through_runner(n: usize, workers: u32) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let bus = EventBus::new();
    let succeeded = Arc::new(AtomicUsize::new(0));
    let all_done = Arc::new(Notify::new());
    let (count, done) = (succeeded.clone(), all_done.clone());
    bus.add_handler("count", move |event: &Event| {
        if let Event::JobStateChanged(change) = event {
            if change.to == JobStatus::Succeeded && count.fetch_add(1, Ordering::Relaxed) + 1 == n {
                done.notify_one();
            }
        }
        Ok(())
    });
    let _stream = bus.subscribe(1024);
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new().bus(bus)).unwrap();
    let noop = Handler::new(
        "noop",
        |_: serde_json::Value, _ctx: JobContext| async move { Ok(()) },
    );
    let mut settings = RunnerSettings::default();
    settings.workers = workers;
    let runner = Runner::new(queue.clone(), vec![noop], settings).unwrap();
    enqueue(&queue, n);
    let started = Instant::now();
    runner.start();
    all_done.notified().await;
    let rate = n as f64 / started.elapsed().as_secs_f64();
    runner.stop(Duration::from_secs(5)).await.unwrap();
    rate
}

fn sample_event(i: usize) -> JobStateChanged {
    JobStateChanged {
        id: JobId::from_raw(i as i64),
        kind: "bench".into(),
        from: Some(JobStatus::Queued),
        to: JobStatus::Running,
        attempt: 1,
        at: Timestamp::from_millis(i as i64),
    }
}

fn publish_rate(events: usize, live_streams: usize, stalled_streams: usize) -> f64 {
    let bus = EventBus::new();
    let stalled: Vec<_> = (0..stalled_streams).map(|_| bus.subscribe(1024)).collect();
    let mut live: Vec<_> = (0..live_streams).map(|_| bus.subscribe(1024)).collect();
    let started = Instant::now();
    for i in 0..events {
        bus.publish(sample_event(i));
        if i % 512 == 0 {
            for stream in &mut live {
                while stream.try_next().is_some() {}
            }
        }
    }
    let rate = events as f64 / started.elapsed().as_secs_f64();
    assert!(
        stalled.iter().all(|s| s.dropped() == 0),
        "drops are counted on read"
    );
    rate
}

fn process_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n = env_usize("BENCH_JOBS", 20_000);
    let repeat = env_usize("BENCH_REPEAT", 3).max(1);
    let events = env_usize("BENCH_EVENTS", 1_000_000);
    let idle_secs = env_usize("BENCH_IDLE_SECS", 30) as u64;
    println!("runner benchmark: {n} jobs, median of {repeat}, synchronous=NORMAL, WAL");
    println!("{:<66} {:>16}   target", "scenario", "result");

    let raw = median((0..repeat).map(|_| raw_claim_complete(n)).collect());
    row(
        "queue claim + complete, one job per step (jobs/s)",
        format!("{raw:.0}"),
        "reference",
    );
    for workers in [1, 4, 8] {
        let mut rates = Vec::new();
        for _ in 0..repeat {
            rates.push(through_runner(n, workers).await);
        }
        let rate = median(rates);
        row(
            &format!("runner, no-op handler, {workers} worker(s), events on (jobs/s)"),
            format!("{rate:.0} ({:.0}%)", 100.0 * rate / raw),
            ">= 80% of reference",
        );
    }

    let none = median((0..repeat).map(|_| publish_rate(events, 0, 0)).collect());
    let seven = median((0..repeat).map(|_| publish_rate(events, 7, 0)).collect());
    let eight = median((0..repeat).map(|_| publish_rate(events, 7, 1)).collect());
    row(
        "bus publish, no streams (events/s)",
        format!("{none:.0}"),
        "",
    );
    row(
        "bus publish, 7 live streams (events/s)",
        format!("{seven:.0}"),
        "",
    );
    row(
        "bus publish, 7 live + 1 stalled stream (events/s)",
        format!("{eight:.0} ({:+.1}%)", 100.0 * (eight / seven - 1.0)),
        "the stalled one costs < 10%",
    );
    row(
        "  memory: each stream holds at most its capacity",
        "1024 events".into(),
        "bounded",
    );

    // Idle: a started runner with nothing to do.
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let noop = Handler::new(
        "noop",
        |_: serde_json::Value, _ctx: JobContext| async move { Ok(()) },
    );
    let runner = Runner::new(queue, vec![noop], RunnerSettings::default()).unwrap();
    runner.start();
    // Let the earlier scenarios' threads and the runner's first round settle.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = process_cpu();
    tokio::time::sleep(Duration::from_secs(idle_secs)).await;
    let used = process_cpu() - before;
    runner.stop(Duration::from_secs(1)).await.unwrap();
    row(
        &format!("idle runner, CPU over {idle_secs} s (ms)"),
        format!("{:.1}", used.as_secs_f64() * 1000.0),
        "< 50 ms per 30 s",
    );
}
