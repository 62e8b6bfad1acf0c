//! What a window reading the queue waits while the runner is busy: the inspector's
//! and a status bar's reads (`list_jobs` page, `job_counts`, `get_job`,
//! `sync_status`) sent through the plugin's commands (the mock runtime's IPC, real
//! threads), while the runner drains 20,000 queued jobs with 4 workers, and while a
//! producer enqueues them in batches of 1000 for the runner to run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tauri_plugin_jobs::plugin::Builder;
use tauri_plugin_jobs::queue::NewJob;
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{SyncPolicy, SyncTarget};
use tauri_plugin_jobs::testing::MockApp;

use crate::report::{ms, percentile, Report};

#[derive(Clone, Copy, PartialEq)]
enum Busy {
    /// Every job queued first, then the runner set loose on them.
    Draining,
    /// A producer enqueues batches of 1000 while the runner runs them.
    Producing,
}

const READS: [(&str, &str); 4] = [
    ("list_jobs", "a page of 50"),
    ("job_counts", "counts"),
    ("get_job", "one job"),
    ("sync_status", "sync status"),
];

pub fn measure(report: &mut Report) {
    for busy in [Busy::Draining, Busy::Producing] {
        let during = match busy {
            Busy::Draining => "while 4 workers drain 20,000 jobs",
            Busy::Producing => "while batches of 1000 are enqueued and run",
        };
        let prefix = format!("reads {during}:");
        if !report.wants(&prefix) {
            continue;
        }
        let samples = reads_while(busy, report.jobs);
        for ((command, what), mut times) in READS.iter().zip(samples) {
            let (p50, p99) = (percentile(&mut times, 0.5), percentile(&mut times, 0.99));
            report.checked(
                &format!("{prefix} {what} (`{command}`), p50 / p99 (ms)"),
                format!("{:.3} / {:.3} ({} reads)", ms(p50), ms(p99), times.len()),
                String::new(),
                "p99 < 5 ms",
                p99 < Duration::from_millis(5),
            );
        }
    }
}

/// Times each read in turn, over and over, until the runner has run `n` jobs.
fn reads_while(busy: Busy, n: usize) -> Vec<Vec<Duration>> {
    let done = Arc::new(AtomicUsize::new(0));
    let counted = done.clone();
    let noop = Handler::new("noop", move |_: Value, _ctx: JobContext| {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
    });
    let app = MockApp::new(
        Builder::new()
            .handler(noop)
            .without_network_watch()
            .sync_target(
                SyncTarget::new("demo", "me", "feed"),
                SyncPolicy::every(Duration::from_secs(3600)),
                Arc::new(FakeSource::new()),
            ),
        json!(["jobs:default"]),
    );
    let queue = app.jobs().queue().clone();
    let batches = move |queue: &tauri_plugin_jobs::queue::Queue| {
        for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
            queue
                .enqueue_batch(
                    chunk
                        .iter()
                        .map(|&i| NewJob::new("noop", json!({ "n": i }))),
                )
                .unwrap();
        }
    };
    let producer = match busy {
        Busy::Draining => {
            queue.pause_kind("noop").unwrap();
            batches(&queue);
            queue.resume_kind("noop").unwrap();
            None
        }
        Busy::Producing => {
            let queue = queue.clone();
            Some(std::thread::spawn(move || batches(&queue)))
        }
    };
    let args: [Value; 4] = [
        json!({"filter": {"limit": 50}}),
        json!({}),
        json!({"id": (n / 2) as i64}),
        json!({}),
    ];
    let mut samples = vec![Vec::new(); READS.len()];
    let deadline = Instant::now() + Duration::from_secs(300);
    while done.load(Ordering::Relaxed) < n {
        assert!(
            Instant::now() < deadline,
            "the runner ran every job within 5 minutes"
        );
        for (i, (command, _)) in READS.iter().enumerate() {
            let started = Instant::now();
            app.invoke(command, args[i].clone()).unwrap();
            samples[i].push(started.elapsed());
        }
    }
    if let Some(producer) = producer {
        producer.join().unwrap();
    }
    tauri::async_runtime::block_on(app.jobs().shutdown());
    samples
}
