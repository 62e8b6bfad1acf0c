//! Loops whose step keeps failing wait before trying again: a full disk or a file
//! locked by another program costs a few attempts, never a busy core. The attempts are
//! counted from the warnings each failed step logs (a subscriber of this binary's own).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};
use tauri_plugin_jobs::Error;

/// Counts the events whose message starts with a given text.
struct Counter {
    scheduler_failures: AtomicU64,
    runner_failures: AtomicU64,
}

struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for &'static Counter {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        if message.0.starts_with("scheduler tick failed") {
            self.scheduler_failures.fetch_add(1, Ordering::SeqCst);
        } else if message.0.starts_with("runner round failed") {
            self.runner_failures.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn counter() -> &'static Counter {
    static COUNTER: OnceLock<&'static Counter> = OnceLock::new();
    COUNTER.get_or_init(|| {
        let counter: &'static Counter = Box::leak(Box::new(Counter {
            scheduler_failures: AtomicU64::new(0),
            runner_failures: AtomicU64::new(0),
        }));
        tracing::subscriber::set_global_default(counter).expect("one subscriber per binary");
        counter
    })
}

#[tokio::test(start_paused = true)]
async fn a_scheduler_on_a_full_disk_ticks_a_few_times_a_fake_minute() {
    let counter = counter();
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
    let queue = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new().clock(clock.clone()).max_page_count(40),
    )
    .unwrap();
    let scheduler = Scheduler::new(queue.clone());
    scheduler
        .upsert(ScheduleSpec::every(
            "digest",
            "digest",
            Duration::from_secs(1),
        ))
        .unwrap();
    // Fill the file to its cap, so that the due run cannot be enqueued.
    for size in [16 * 1024, 1024, 64, 0] {
        let filler = "x".repeat(size);
        loop {
            match queue.enqueue("filler", &json!(filler), EnqueueOptions::new()) {
                Ok(_) => {}
                Err(Error::Full { .. }) => break,
                Err(other) => panic!("{other}"),
            }
        }
    }
    clock.advance(Duration::from_secs(5));
    let before = counter.scheduler_failures.load(Ordering::SeqCst);
    scheduler.start();
    tokio::time::sleep(Duration::from_secs(60)).await;
    scheduler.stop().await;
    let failed = counter.scheduler_failures.load(Ordering::SeqCst) - before;
    assert!(
        (1..=8).contains(&failed),
        "{failed} failed ticks in a fake minute"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_on_a_locked_file_waits_its_poll_interval_between_rounds() {
    let counter = counter();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(
        &path,
        QueueOptions::new()
            .busy_timeout(Duration::from_millis(1))
            .busy_deadline(Duration::from_millis(5)),
    )
    .unwrap();
    queue.enqueue("work", &1, EnqueueOptions::new()).unwrap();
    let mut settings = RunnerSettings::default();
    settings.poll_interval = Duration::from_millis(100);
    settings.retention = None;
    let handler = Handler::new("work", |_: serde_json::Value, _ctx: JobContext| async {
        Ok(())
    });
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    // Another program holds the write lock.
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let before = counter.runner_failures.load(Ordering::SeqCst);
    let started = Instant::now();
    runner.start();
    // Real time here: the runner's thread sleeps on its own clock. Bounded: one second.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let failed = counter.runner_failures.load(Ordering::SeqCst) - before;
    let elapsed = started.elapsed();
    other.execute_batch("COMMIT").unwrap();
    runner.stop(Duration::from_secs(5)).await.unwrap();
    // One round per poll interval (100 ms) at most, with room for a slow machine;
    // a loop that retried at once would fail a round every few milliseconds.
    let most = elapsed.as_millis() as u64 / 100 + 3;
    assert!(
        (1..=most).contains(&failed),
        "{failed} failed rounds in {elapsed:?}"
    );
}
