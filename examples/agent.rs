//! An external agent: another process that leases jobs from the same `raw.db` through
//! the crate's API, under the same caps and fencing as the app's own runner.
//!
//! ```sh
//! cargo run --example agent -- path/to/raw.db embed thumbnail
//! ```
//!
//! The protocol, for agents in any language that can open SQLite through this crate
//! (or lease over IPC with the `jobs:agents` permission set):
//! 1. claim with a worker id of your own and the kinds you can run;
//! 2. heartbeat every third of the lease; stop at once on a lost lease, and report
//!    `cancelled` when the heartbeat says cancellation was asked for;
//! 3. complete (with a result) or fail (retryable or permanent), presenting the lease.
//!
//! A lost lease means another worker has the job: write nothing. Delivery is at least
//! once, so the work must be idempotent.

use std::time::{Duration, Instant};

use tauri_plugin_jobs::queue::{ClaimRequest, JobFailure, Outcome, Queue, QueueOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: agent <raw.db> <kind>...")?;
    let kinds: Vec<String> = args.collect();
    if kinds.is_empty() {
        return Err("name at least one kind to run".into());
    }
    let queue = Queue::open(&path, QueueOptions::new())?;
    let worker = format!("agent:example-{}", std::process::id());
    let request = ClaimRequest::new(worker.clone(), kinds)
        .lease(Duration::from_secs(30))
        .max_jobs(4);
    println!("{worker} leasing from {path}");
    let mut idle_since = Instant::now();
    while idle_since.elapsed() < Duration::from_secs(10) {
        let claimed = queue.claim(&request)?;
        if claimed.is_empty() {
            std::thread::sleep(Duration::from_millis(500));
            continue;
        }
        idle_since = Instant::now();
        for job in claimed {
            // The "work": a real agent would call a model or a service here, calling
            // queue.heartbeat(&job.lease) every ten seconds while it runs.
            let beat = queue.heartbeat(&job.lease)?;
            let outcome = if beat.cancel_requested {
                Outcome::Cancelled
            } else if job.job.payload.is_null() {
                Outcome::Failed(JobFailure::permanent("a null payload has nothing to do"))
            } else {
                Outcome::Succeeded(Some(
                    serde_json::json!({ "by": worker, "echo": job.job.payload }),
                ))
            };
            match queue.finish(&job.lease, outcome) {
                Ok(finished) => println!("job {} ({}): {finished:?}", job.job.id, job.job.kind),
                Err(error) => println!("job {}: {error}", job.job.id),
            }
        }
    }
    println!("idle for 10 s; done");
    Ok(())
}
