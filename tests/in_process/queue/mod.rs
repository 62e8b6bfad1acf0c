//! The durable queue's behaviour, on a fake clock. Nothing here sleeps.

use crate::common;

use std::time::Duration;

use common::{Harness, START};
use serde::Deserialize;
use serde_json::json;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::queue::{
    Actor, CancelOutcome, ClaimRequest, EnqueueOptions, Finished, JobFailure, JobFilter, JobId,
    JobStatus, KindSpec, NewJob, Outcome, Priority, Queue, QueueOptions, RetryPolicy, Schema,
};
use tauri_plugin_jobs::Error;

const SEC: Duration = Duration::from_secs(1);

fn claim_one(
    queue: &Queue,
    worker: &str,
    kind: &str,
) -> Option<tauri_plugin_jobs::queue::ClaimedJob> {
    let mut claimed = queue
        .claim(&ClaimRequest::new(worker, [kind]).lease(30 * SEC))
        .unwrap();
    assert!(claimed.len() <= 1);
    claimed.pop()
}

fn status(queue: &Queue, id: JobId) -> JobStatus {
    queue.get(id).unwrap().expect("job exists").status
}

/// The fake clock's time, read through the harness.
trait Now {
    fn clock_now(&self) -> Timestamp;
}

impl Now for Harness {
    fn clock_now(&self) -> Timestamp {
        use tauri_plugin_jobs::clock::Clock;
        self.clock.now()
    }
}

mod attempts;
mod cancel;
mod claims;
mod constraints;
mod duplicates;
mod enqueue;
mod rate_limits;
mod reads;
mod workflow_admin;
mod workflows;
