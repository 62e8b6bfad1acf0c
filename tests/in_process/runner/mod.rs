//! The runner on a fake clock: tests call `drain`, `dispatch`, `maintain` and
//! `finish_pending` instead of sleeping.

use crate::common;
mod ends;
mod interrupts;
mod keys;
mod offline;
mod signals;
mod steps;
mod timeline;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::Harness;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tauri_plugin_jobs::clock::Clock;
use tauri_plugin_jobs::config::Config;
use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, Finished, JobStatus, RetryPolicy};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};
use tokio::sync::Notify;

const SEC: Duration = Duration::from_secs(1);

#[derive(Debug, Serialize, Deserialize)]
struct Add {
    a: i64,
    b: i64,
}

fn settings() -> RunnerSettings {
    let mut settings = RunnerSettings::default();
    settings.worker_id = "runner-under-test".into();
    settings.lease = 30 * SEC;
    settings
}

fn add_handler() -> Handler {
    Handler::new("add", |job: Add, _ctx: JobContext| async move {
        Ok(job.a + job.b)
    })
}

/// A handler that says when it starts, waits for `gate`, and notes when its future is
/// dropped unfinished.
#[derive(Clone, Default)]
struct Gate {
    open: Arc<Notify>,
    started: Arc<Notify>,
    dropped: Arc<AtomicBool>,
}

impl Gate {
    fn handler(&self, kind: &str) -> Handler {
        let gate = self.clone();
        Handler::new(kind, move |_: serde_json::Value, _ctx: JobContext| {
            let gate = gate.clone();
            async move {
                struct Guard(Arc<AtomicBool>, bool);
                impl Drop for Guard {
                    fn drop(&mut self) {
                        if !self.1 {
                            self.0.store(true, Ordering::SeqCst);
                        }
                    }
                }
                let mut guard = Guard(gate.dropped.clone(), false);
                gate.started.notify_one();
                gate.open.notified().await;
                guard.1 = true;
                Ok("opened".to_owned())
            }
        })
    }

    fn dropped(&self) -> bool {
        self.dropped.load(Ordering::SeqCst)
    }
}

#[tokio::test]
async fn drain_runs_typed_handlers_and_stores_results() {
    let h = Harness::new();
    let runner = Runner::new(h.queue.clone(), vec![add_handler()], settings()).unwrap();
    let id = h
        .queue
        .enqueue("add", &Add { a: 2, b: 40 }, EnqueueOptions::new())
        .unwrap()
        .id;
    let ran = runner.drain().await.unwrap();
    assert_eq!(ran.len(), 1);
    assert_eq!(ran[0].id, id);
    assert_eq!(ran[0].finished, Ok(Finished::Succeeded));
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.result, Some(json!(42)));
    assert!(runner.drain().await.unwrap().is_empty(), "nothing left");
}

#[tokio::test]
async fn a_kind_without_a_handler_is_left_alone() {
    let h = Harness::new();
    let runner = Runner::new(h.queue.clone(), vec![add_handler()], settings()).unwrap();
    let other = h
        .queue
        .enqueue("unknown", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    assert!(runner.drain().await.unwrap().is_empty());
    assert_eq!(
        h.queue.get(other).unwrap().unwrap().status,
        JobStatus::Queued
    );
}

#[tokio::test]
async fn a_payload_that_does_not_validate_fails_at_once() {
    let h = Harness::new();
    let runner = Runner::new(
        h.queue.clone(),
        vec![add_handler().max_attempts(5)],
        settings(),
    )
    .unwrap();
    // The runner registered the schema: this handle refuses it outright...
    assert!(h
        .queue
        .enqueue("add", &json!({"a": "x"}), EnqueueOptions::new())
        .is_err());
    // ...and one without the schema (another process) gets it failed when claimed.
    let id = h
        .second_queue()
        .enqueue("add", &json!({"a": "x"}), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Failed, 1));
    assert!(job.last_error.unwrap().contains("invalid payload"));
}

#[tokio::test]
async fn retryable_errors_retry_after_backoff_and_permanent_ones_do_not() {
    let h = Harness::new();
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    let flaky = Handler::new("flaky", move |_: serde_json::Value, _ctx: JobContext| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move {
            if n == 0 {
                Err(JobError::retryable("503 from upstream"))
            } else {
                Ok(n)
            }
        }
    })
    .retry(RetryPolicy::new(10 * SEC, 60 * SEC, 0.0).unwrap());
    let doomed = Handler::new(
        "doomed",
        |_: serde_json::Value, _ctx: JobContext| async move {
            Err::<(), _>(JobError::permanent("bad input"))
        },
    );
    let runner = Runner::new(h.queue.clone(), vec![flaky, doomed], settings()).unwrap();
    let flaky_id = h
        .queue
        .enqueue("flaky", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let doomed_id = h
        .queue
        .enqueue("doomed", &0, EnqueueOptions::new().max_attempts(9))
        .unwrap()
        .id;

    runner.drain().await.unwrap();
    assert_eq!(
        h.queue.get(flaky_id).unwrap().unwrap().status,
        JobStatus::Queued
    );
    let doomed = h.queue.get(doomed_id).unwrap().unwrap();
    assert_eq!((doomed.status, doomed.attempts), (JobStatus::Failed, 1));
    assert_eq!(doomed.last_error.as_deref(), Some("bad input"));

    h.advance(9 * SEC);
    assert!(runner.drain().await.unwrap().is_empty(), "backoff not over");
    h.advance(SEC);
    runner.drain().await.unwrap();
    let flaky = h.queue.get(flaky_id).unwrap().unwrap();
    assert_eq!((flaky.status, flaky.attempts), (JobStatus::Succeeded, 2));
}

#[tokio::test]
async fn a_panic_is_a_failed_attempt_and_the_runner_lives_on() {
    let h = Harness::new();
    let panicky = Handler::new("panicky", |n: u32, _ctx: JobContext| async move {
        if n == 1 {
            panic!("index out of bounds in job {n}");
        }
        Ok(n)
    });
    let runner = Runner::new(h.queue.clone(), vec![panicky], settings()).unwrap();
    let bad = h
        .queue
        .enqueue("panicky", &1, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    let good = h
        .queue
        .enqueue("panicky", &2, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let bad = h.queue.get(bad).unwrap().unwrap();
    assert_eq!(bad.status, JobStatus::Failed);
    assert!(bad
        .last_error
        .unwrap()
        .contains("handler panicked: index out of bounds in job 1"));
    assert_eq!(
        h.queue.get(good).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}

#[tokio::test]
async fn leases_are_renewed_every_third_of_their_length() {
    let h = Harness::new();
    let gate = Gate::default();
    let runner = Runner::new(h.queue.clone(), vec![gate.handler("slow")], settings()).unwrap();
    let id = h
        .queue
        .enqueue("slow", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(runner.dispatch().unwrap(), 1);
    let expiry = || h.queue.get(id).unwrap().unwrap().lease_expires_at.unwrap();
    let first = expiry();
    assert_eq!(first, h.clock.now().saturating_add(30 * SEC));

    h.advance(10 * SEC - Duration::from_millis(1));
    runner.maintain().unwrap();
    assert_eq!(expiry(), first, "not yet a third");
    h.advance(Duration::from_millis(1));
    runner.maintain().unwrap();
    assert_eq!(
        expiry(),
        h.clock.now().saturating_add(30 * SEC),
        "renewed at a third"
    );

    // A slow job outlives many lease lengths.
    for _ in 0..12 {
        h.advance(10 * SEC);
        runner.maintain().unwrap();
    }
    assert!(h
        .second_queue()
        .claim(&ClaimRequest::new("thief", ["slow"]))
        .unwrap()
        .is_empty());
    gate.open.notify_one();
    let ran = runner.drain().await.unwrap();
    assert_eq!(ran[0].finished, Ok(Finished::Succeeded));
    assert!(!gate.dropped());
}

#[tokio::test]
async fn config_kind_limits_win_over_the_handler_default() {
    let h = Harness::new();
    let config = Config::parse(
        "[jobs]\nworkers = 8\n[jobs.kind_limits]\nembed = 1\n",
        "config.toml",
    )
    .unwrap();
    let mut settings = RunnerSettings::from_config(&config.jobs);
    settings.worker_id = "w".into();
    let gate = Gate::default();
    let embed = gate.handler("embed").concurrency(3);
    let parse = gate.handler("parse").concurrency(2);
    let runner = Runner::new(h.queue.clone(), vec![embed, parse], settings).unwrap();
    assert_eq!(runner.limit_for("embed"), Some(1));
    assert_eq!(runner.limit_for("parse"), Some(2));
    for i in 0..5 {
        h.queue.enqueue("embed", &i, EnqueueOptions::new()).unwrap();
        h.queue.enqueue("parse", &i, EnqueueOptions::new()).unwrap();
    }
    assert_eq!(runner.dispatch().unwrap(), 3, "one embed and two parse");
    assert_eq!(runner.dispatch().unwrap(), 0);
    runner.stop(Duration::ZERO).await.unwrap();
}

#[tokio::test]
async fn bad_settings_are_refused() {
    let h = Harness::new();
    let mut zero = settings();
    zero.workers = 0;
    assert!(matches!(
        Runner::new(h.queue.clone(), vec![], zero),
        Err(tauri_plugin_jobs::Error::InvalidArgument {
            name: "workers",
            ..
        })
    ));
    assert!(Runner::new(
        h.queue.clone(),
        vec![add_handler(), add_handler()],
        settings()
    )
    .is_err());
}

#[tokio::test]
async fn the_background_loop_wakes_on_enqueue() {
    let h = Harness::new();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let signal = Handler::new("signal", move |n: u32, _ctx: JobContext| {
        let tx = tx.clone();
        async move {
            tx.send(n).unwrap();
            Ok(())
        }
    });
    let mut settings = settings();
    // A poll far away: only the wake-up can start the job in time.
    settings.poll_interval = Duration::from_secs(3600);
    let runner = Runner::new(h.queue.clone(), vec![signal], settings).unwrap();
    runner.start();
    let mut rx = rx;
    h.queue
        .enqueue("signal", &7, EnqueueOptions::new())
        .unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
    assert_eq!(got.unwrap(), Some(7));
    // Wake-ups are coalesced while one is waiting; later ones must still arrive.
    for n in 8..12 {
        h.queue
            .enqueue("signal", &n, EnqueueOptions::new())
            .unwrap();
        let got = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        assert_eq!(got.unwrap(), Some(n));
    }
    runner.stop(Duration::from_secs(1)).await.unwrap();
}

#[tokio::test]
async fn config_sets_the_queue_defaults_too() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::parse(
        "[jobs]\nmax_attempts = 2\nbackoff_base_seconds = 3\nbackoff_jitter = 0\n",
        "config.toml",
    )
    .unwrap();
    let clock = tauri_plugin_jobs::clock::FakeClock::new(common::START);
    let queue = tauri_plugin_jobs::queue::Queue::open(
        dir.path().join("raw.db"),
        tauri_plugin_jobs::queue::QueueOptions::new()
            .clock(clock.clone())
            .config(&config.jobs),
    )
    .unwrap();
    let id = queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    assert_eq!(queue.get(id).unwrap().unwrap().max_attempts, 2);
    let claimed = queue
        .claim(&ClaimRequest::new("w", ["k"]))
        .unwrap()
        .pop()
        .unwrap();
    let finished = queue
        .fail(
            &claimed.lease,
            tauri_plugin_jobs::queue::JobFailure::retryable("x"),
        )
        .unwrap();
    assert_eq!(
        finished,
        Finished::Retrying {
            at: common::START.saturating_add(3 * SEC)
        }
    );
}

#[tokio::test]
async fn a_handler_can_use_the_runtime_before_its_first_await() {
    // A started runner polls a handler first on its own thread (inside the runtime's
    // context), then hands it to the runtime if it waits: both halves must work.
    let h = Harness::new();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let spawner = Handler::new("spawner", move |n: u32, _ctx: JobContext| {
        let tx = tx.clone();
        // Runs in the first poll: needs the runtime's context.
        let doubled = tokio::spawn(async move { n * 2 });
        async move {
            let doubled = doubled
                .await
                .map_err(|e| JobError::permanent(e.to_string()))?;
            tokio::task::yield_now().await;
            tx.send(doubled).unwrap();
            Ok(doubled)
        }
    });
    let mut settings = settings();
    settings.poll_interval = Duration::from_secs(3600);
    let runner = Runner::new(h.queue.clone(), vec![spawner], settings).unwrap();
    runner.start();
    let id = h
        .queue
        .enqueue("spawner", &21, EnqueueOptions::new())
        .unwrap()
        .id;
    let got = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
    assert_eq!(got.unwrap(), Some(42));
    runner.stop(Duration::from_secs(5)).await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.result),
        (JobStatus::Succeeded, Some(json!(42)))
    );
}

#[tokio::test]
async fn a_handler_closure_that_panics_before_its_future_is_a_failed_attempt() {
    let h = Harness::new();
    let eager = Handler::new(
        "eager",
        |n: u32, _ctx: JobContext| -> std::future::Ready<Result<u32, JobError>> {
            if n > 0 {
                panic!("boom before the future");
            }
            std::future::ready(Ok(n))
        },
    )
    .max_attempts(1);
    let runner = Runner::new(h.queue.clone(), vec![eager], settings()).unwrap();
    let bad = h
        .queue
        .enqueue("eager", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let good = h
        .queue
        .enqueue("eager", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let failed = h.queue.get(bad).unwrap().unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    assert!(failed
        .last_error
        .unwrap()
        .contains("handler panicked: boom before the future"));
    assert_eq!(
        h.queue.get(good).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}
