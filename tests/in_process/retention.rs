//! The runner's retention sweep, on a fake clock: not at the start (the app's start
//! goes first), a minute later, then hourly.

use crate::common;

use std::time::Duration;

use common::Harness;
use serde_json::json;
use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};

const DAY: Duration = Duration::from_secs(24 * 3600);

fn succeeded(h: &Harness) -> u32 {
    h.queue
        .counts()
        .unwrap()
        .iter()
        .filter(|count| count.status == JobStatus::Succeeded)
        .map(|count| count.count)
        .sum()
}

#[test]
fn the_first_sweep_comes_a_minute_after_the_start() {
    let h = Harness::new();
    for n in 0..3 {
        h.queue
            .enqueue("old", &json!({ "n": n }), EnqueueOptions::new())
            .unwrap();
    }
    for job in h
        .queue
        .claim(&ClaimRequest::new("w", ["old"]).max_jobs(3))
        .unwrap()
    {
        h.queue.complete(&job.lease, None).unwrap();
    }
    // A week and a day later the app starts again: the jobs are past retention.
    h.clock.advance(8 * DAY);
    let handler = Handler::new("old", |_: serde_json::Value, _ctx: JobContext| async {
        Ok(())
    });
    let runner = Runner::new(
        h.queue.clone(),
        vec![handler],
        RunnerSettings::for_tests().retention(Some(7 * DAY)),
    )
    .unwrap();
    runner.maintain().unwrap();
    assert_eq!(succeeded(&h), 3, "nothing deleted on the start's path");
    h.clock.advance(Duration::from_secs(59));
    runner.maintain().unwrap();
    assert_eq!(succeeded(&h), 3);
    h.clock.advance(Duration::from_secs(1));
    runner.maintain().unwrap();
    assert_eq!(succeeded(&h), 0, "swept a minute after the start");
    // The next sweep an hour later.
    h.queue
        .enqueue("old", &json!({ "n": 9 }), EnqueueOptions::new())
        .unwrap();
    let job = h
        .queue
        .claim(&ClaimRequest::new("w", ["old"]))
        .unwrap()
        .pop()
        .unwrap();
    h.queue.complete(&job.lease, None).unwrap();
    h.clock.advance(8 * DAY);
    runner.maintain().unwrap();
    assert_eq!(succeeded(&h), 0, "more than an hour since the last sweep");
}
