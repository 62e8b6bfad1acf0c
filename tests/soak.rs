//! A bounded soak: several lives of the whole backend on one `raw.db`, each mixing
//! enqueues, schedules, a failing sync source, cancellations, bad inputs and a
//! shutdown; then the invariants: nothing lost, nothing stuck, retries as promised,
//! memory and file size bounded, the file intact. Real time: `SOAK_SECS` (default 60)
//! sets the length; `SOAK_SECS=600 cargo test --test soak -- --nocapture` runs longer.

mod common;

use common::unfinished;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::queue::{
    EnqueueOptions, JobFilter, JobStatus, NewJob, Priority, Queue, QueueOptions, RetryPolicy,
};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{
    SyncEngine, SyncError, SyncPolicy, SyncReport, SyncResult, SyncTarget,
};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn handlers() -> Vec<Handler> {
    let fast =
        RetryPolicy::new(Duration::from_millis(20), Duration::from_millis(100), 0.5).unwrap();
    vec![
        Handler::new("ok", |n: u64, _ctx: JobContext| async move {
            tokio::time::sleep(Duration::from_millis(1 + n % 4)).await;
            Ok(n)
        }),
        Handler::new("flaky", |n: u64, ctx: JobContext| async move {
            if ctx.attempt < 3 {
                return Err(JobError::retryable(format!("flaky {n}: token=abc{n}def")));
            }
            Ok(n)
        })
        .retry(fast)
        .max_attempts(3),
        Handler::new("doomed", |_: u64, _ctx: JobContext| async move {
            Err::<(), _>(JobError::permanent("never works"))
        }),
        Handler::new("slow", |_: u64, ctx: JobContext| async move {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(300)) => Ok(()),
                _ = ctx.cancelled() => Err(JobError::retryable("interrupted")),
            }
        })
        .concurrency(2),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak() {
    let seconds: u64 = std::env::var("SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let created = Arc::new(AtomicU64::new(0));
    let (mut lives, mut enqueued, mut cancels, mut bad_inputs, mut faults, mut pruned) =
        (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let mut rss_after_first = 0;
    let mut rss_max = 0;
    let mut file_max = 0;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);

    while Instant::now() < deadline {
        lives += 1;
        let bus = EventBus::new();
        let counter = created.clone();
        bus.add_handler("count-created", move |event: &Event| {
            if let Event::JobStateChanged(change) = event {
                if change.from.is_none() {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(())
        });
        let queue = Queue::open(&path, QueueOptions::new().bus(bus)).unwrap();
        let mut settings = RunnerSettings::default();
        settings.lease = Duration::from_secs(2);
        settings.poll_interval = Duration::from_millis(200);
        settings.retention = None;
        let runner = Runner::new(queue.clone(), handlers(), settings).unwrap();
        let scheduler = Scheduler::new(queue.clone());
        scheduler
            .upsert(ScheduleSpec::every("tick", "ok", Duration::from_secs(1)).payload(json!(7)))
            .unwrap();
        let sync = SyncEngine::new(queue.clone());
        let source = Arc::new(FakeSource::new());
        for n in 0..200 {
            source.push(if n % 2 == 0 {
                Err(SyncError::failed("HTTP 503"))
            } else {
                Ok(SyncResult::Updated(SyncReport::changed(n)))
            });
        }
        sync.register(
            SyncTarget::new("soak", "me", "feed"),
            SyncPolicy::every(Duration::from_millis(500))
                .backoff(Duration::from_millis(100), Duration::from_secs(1)),
            source.clone(),
        )
        .unwrap();
        runner.start();
        scheduler.start();
        sync.start();

        let life_end = Instant::now() + Duration::from_secs(3);
        let mut round = 0u64;
        while Instant::now() < life_end && Instant::now() < deadline {
            round += 1;
            let batch: Vec<NewJob> = (0..30)
                .map(|i| {
                    let priority = [Priority::BACKFILL, Priority::INGEST, Priority::USER][i % 3];
                    let kind = match i {
                        29 => "slow",
                        _ if i % 10 == 7 => "flaky",
                        _ if i % 10 == 8 => "doomed",
                        _ => "ok",
                    };
                    NewJob::new(kind, json!(round * 100 + i as u64))
                        .options(EnqueueOptions::new().priority(priority))
                })
                .collect();
            enqueued += queue.enqueue_batch(batch).unwrap().len() as u64;
            // Cancel a few of the slow ones, queued or running.
            for job in queue.list(&JobFilter::new().kind("slow").limit(3)).unwrap() {
                if !job.status.is_finished() {
                    queue.cancel(job.id).unwrap();
                    cancels += 1;
                }
            }
            // Bad input is refused with a typed error and changes nothing.
            for bad in [
                queue.enqueue("", &1, EnqueueOptions::new()).err(),
                queue
                    .enqueue("ok", &"x".repeat(2 << 20), EnqueueOptions::new())
                    .err(),
                queue
                    .enqueue("ok", &"not a number", EnqueueOptions::new())
                    .err(),
                queue
                    .enqueue("ok", &1, EnqueueOptions::new().max_attempts(0))
                    .err(),
            ] {
                assert!(bad.is_some(), "bad input accepted");
                bad_inputs += 1;
            }
            if round % 5 == 0 {
                let _ = sync.sync_now(&SyncTarget::new("soak", "me", "feed")).await;
                pruned += queue.prune(Duration::from_secs(1)).unwrap();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        faults += u64::from(source.calls()) / 2;
        runner.stop(Duration::from_millis(200)).await.unwrap();
        scheduler.stop().await;
        sync.stop().await;
        let rss = rss_kib();
        if lives == 1 {
            rss_after_first = rss;
        }
        rss_max = rss_max.max(rss);
        file_max = file_max.max(std::fs::metadata(&path).unwrap().len());
    }

    // A last life drains everything that is runnable.
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let mut settings = RunnerSettings::default();
    settings.retention = None;
    settings.poll_interval = Duration::from_millis(50);
    let runner = Runner::new(queue.clone(), handlers(), settings).unwrap();
    runner.start();
    let drain_deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let open = unfinished(&queue);
        if open == 0 {
            break;
        }
        assert!(
            Instant::now() < drain_deadline,
            "{open} jobs never finished"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    runner.stop(Duration::from_secs(1)).await.unwrap();

    let counts = queue.counts().unwrap();
    let stored: u64 = counts.iter().map(|c| u64::from(c.count)).sum();
    let created = created.load(Ordering::Relaxed);
    assert_eq!(
        stored + pruned,
        created,
        "nothing lost: stored {stored} + pruned {pruned} vs created {created}"
    );
    assert!(created >= enqueued);
    let count = |kind: &str, status: JobStatus| {
        counts
            .iter()
            .find(|c| c.kind == kind && c.status == status)
            .map_or(0, |c| c.count)
    };
    assert_eq!(count("doomed", JobStatus::Succeeded), 0);
    assert_eq!(
        count("flaky", JobStatus::Failed),
        0,
        "flaky jobs succeed on their third attempt"
    );
    for job in queue
        .list(
            &JobFilter::new()
                .kind("flaky")
                .status(JobStatus::Succeeded)
                .limit(1000),
        )
        .unwrap()
    {
        assert_eq!(job.attempts, 3);
        assert_eq!(job.last_error, None, "cleared by the success");
        assert_eq!(job.errors.len(), 2, "{:?}", job.errors);
        assert!(
            job.errors.iter().all(|e| !e.error.contains("abc")),
            "redacted: {:?}",
            job.errors
        );
    }
    let check: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let grew = rss_max.saturating_sub(rss_after_first);
    assert!(
        grew < 64 * 1024,
        "memory grew by {grew} KiB after the first life"
    );
    assert!(file_max < 64 << 20, "raw.db reached {file_max} bytes");
    eprintln!(
        "soak: {:.0} s, {lives} lives (restarts), {created} jobs created ({enqueued} enqueued directly), {pruned} pruned, \
         {cancels} cancels, {faults} sync faults injected, {bad_inputs} bad inputs refused, nothing lost; \
         RSS {rss_after_first}..{rss_max} KiB, raw.db at most {file_max} bytes",
        started.elapsed().as_secs_f64()
    );
}
