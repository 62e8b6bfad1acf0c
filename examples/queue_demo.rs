//! A headless tour of the durable queue: priorities, dedupe, a capped kind, retries
//! with backoff, a payload refused by its schema, and every state change as it
//! happens. `raw.db` lives in `target/demo/` (or the path given as the first argument)
//! and keeps its history between runs.
//!
//! Run it with `scripts/run.sh` or `cargo run --example queue_demo`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobFailure, JobFilter, KindSpec, Outcome, Priority, Queue,
    QueueOptions, RetryPolicy, Schema,
};

#[derive(Deserialize)]
#[allow(dead_code)]
struct Thumbnail {
    path: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/demo/raw.db".to_owned());
    let bus = EventBus::new();
    bus.add_handler("print", |event: &Event| {
        if let Event::JobStateChanged(change) = event {
            let from = change.from.map_or("new".to_owned(), |s| s.to_string());
            println!(
                "  job {:>4} {:<10} {:>9} -> {:<9} (attempt {})",
                change.id, change.kind, from, change.to, change.attempt
            );
        }
        Ok(())
    });
    let queue = Queue::open(&path, QueueOptions::new().bus(bus))?;
    println!("raw.db: {path}");

    queue.register_kind(
        "thumbnail",
        KindSpec::new().payload(Schema::of::<Thumbnail>()),
    );
    queue.register_kind(
        "flaky",
        KindSpec::new()
            .retry(RetryPolicy::new(
                Duration::from_millis(200),
                Duration::from_secs(2),
                0.2,
            )?)
            .max_attempts(3),
    );

    println!("\nenqueue:");
    for i in 0..3 {
        queue.enqueue("ingest", &json!({ "batch": i }), EnqueueOptions::new())?;
    }
    let backfill = EnqueueOptions::new().priority(Priority::BACKFILL);
    queue.enqueue("backfill", &json!({ "year": 2019 }), backfill)?;
    for name in ["a.png", "b.png", "c.png"] {
        let options = EnqueueOptions::new()
            .priority(Priority::USER)
            .dedupe_key(name);
        queue.enqueue("thumbnail", &json!({ "path": name }), options)?;
    }
    let options = EnqueueOptions::new().dedupe_key("a.png");
    let again = queue.enqueue("thumbnail", &json!({ "path": "a.png" }), options)?;
    println!(
        "  a.png again: job {} (created: {})",
        again.id, again.created
    );
    queue.enqueue("flaky", &json!({ "fails": 2 }), EnqueueOptions::new())?;
    if let Err(error) = queue.enqueue("thumbnail", &json!({ "size": 3 }), EnqueueOptions::new()) {
        println!("  refused: {error}");
    }

    println!("\nrun (two workers, one thumbnail at a time):");
    let flaky_failures = Arc::new(AtomicU32::new(0));
    let kinds = ["ingest", "backfill", "thumbnail", "flaky"];
    let workers: Vec<_> = (0..2)
        .map(|w| {
            let queue = queue.clone();
            let flaky_failures = flaky_failures.clone();
            let request = ClaimRequest::new(format!("demo-worker-{w}"), kinds)
                .limit("thumbnail", 1)
                .lease(Duration::from_secs(10));
            thread::spawn(move || -> tauri_plugin_jobs::Result<()> {
                let mut idle = 0;
                while idle < 40 {
                    let Some(job) = queue.claim(&request)?.pop() else {
                        idle += 1;
                        thread::sleep(Duration::from_millis(50));
                        continue;
                    };
                    idle = 0;
                    thread::sleep(Duration::from_millis(30)); // the "work"
                    if queue.heartbeat(&job.lease)?.cancel_requested {
                        queue.finish(&job.lease, Outcome::Cancelled)?;
                    } else if job.job.kind == "flaky"
                        && flaky_failures.fetch_add(1, Ordering::Relaxed) < 2
                    {
                        let failure = JobFailure::retryable("upstream said 503 (token=s3cret)");
                        queue.fail(&job.lease, failure)?;
                    } else {
                        queue.complete(&job.lease, Some(json!({ "worker": w })))?;
                    }
                }
                Ok(())
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker thread")?;
    }

    println!("\ncounts in raw.db (this run and earlier ones):");
    for count in queue.counts()? {
        println!("  {:<10} {:<9} {}", count.kind, count.status, count.count);
    }
    if let Some(job) = queue
        .list(&JobFilter::new().kind("flaky").limit(1))?
        .first()
    {
        println!(
            "\nlast flaky job: {} after {} attempts; its stored error was {:?}",
            job.status, job.attempts, job.last_error
        );
    }
    Ok(())
}
