//! The event bus with a stalled stream, and process-local jobs' overheads.

use std::time::Instant;

use tauri_plugin_jobs::bus::{EventBus, JobStateChanged};
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::local::{BoxError, LocalJobs};
use tauri_plugin_jobs::queue::{JobId, JobStatus};

use crate::report::{count, env_usize, median, Report};

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
    drop(stalled);
    rate
}

pub async fn measure(report: &mut Report) {
    let events = env_usize("BENCH_EVENTS", 1_000_000);
    let runs = report.repeat;
    let name = "bus: publish, 7 live + 1 stalled stream (events/s)";
    if report.wants(name) {
        let seven = median((0..runs).map(|_| publish_rate(events, 7, 0)).collect());
        let eight = median((0..runs).map(|_| publish_rate(events, 7, 1)).collect());
        report.info("bus: publish, 7 live streams (events/s)", count(seven));
        let change = 100.0 * (eight / seven - 1.0);
        report.checked(
            name,
            format!("{} ({change:+.1}%)", count(eight)),
            String::new(),
            "stalled stream costs < 10%",
            change > -10.0,
        );
    }

    let name = "local jobs: spawn_awaitable + wait, empty job (us)";
    if report.wants(name) {
        let jobs = LocalJobs::new(EventBus::new());
        let n = 20_000u32;
        let started = Instant::now();
        for _ in 0..n {
            let (_, result) =
                jobs.spawn_awaitable("empty", |_ctx| async move { Ok::<_, BoxError>(()) });
            result.wait().await.unwrap();
        }
        let per_job = started.elapsed() / n;
        report.info(name, format!("{:.1}", per_job.as_secs_f64() * 1e6));

        let calls = 1_000_000u64;
        let (_, result) = jobs.spawn_awaitable("progress", move |ctx| async move {
            // Every call after the first percent step publishes nothing.
            let started = Instant::now();
            for done in 0..calls {
                ctx.progress(done, Some(calls * 1000));
            }
            Ok::<_, BoxError>(started.elapsed())
        });
        let elapsed = result.wait().await.unwrap();
        report.info(
            "local jobs: a progress call that publishes nothing (ns)",
            format!("{:.1}", elapsed.as_nanos() as f64 / calls as f64),
        );
    }
}
