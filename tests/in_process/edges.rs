//! The edges a user would see go wrong: cancel is final, one outcome for a handler
//! that notices a cancel, caps that bind every claimer, time limits, and the small
//! promises (dedupe keys freed, priorities, `started_at`, cron signs, stream sizes).

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::Harness;
use tauri_plugin_jobs::bus::{Event, EventBus, JobStateChanged};
use tauri_plugin_jobs::clock::{Clock, FakeClock, Timestamp};
use tauri_plugin_jobs::local::{BoxError, LocalJobStatus, LocalJobs};
use tauri_plugin_jobs::queue::{
    CancelOutcome, ClaimRequest, EnqueueOptions, JobFailure, JobId, JobStatus, Priority,
};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};
use tauri_plugin_jobs::scheduler::Cron;
use tauri_plugin_jobs::Error;

const SEC: Duration = Duration::from_secs(1);

fn settings() -> RunnerSettings {
    let mut settings = RunnerSettings::default();
    settings.worker_id = "edges".into();
    settings.retention = None;
    settings
}

/// A handler that waits for its job's cancellation, then returns `Ok` (or an error).
fn waits_for_cancel(kind: &str, started: Arc<AtomicU32>, fail: bool) -> Handler {
    Handler::new(kind, move |_: serde_json::Value, ctx: JobContext| {
        let started = started.clone();
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            ctx.cancelled().await;
            if fail {
                Err(JobError::retryable("stopped on cancel"))
            } else {
                Ok("finished anyway".to_owned())
            }
        }
    })
}

// ===== cancel is final =====

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_cancelled_from_another_connection_ends_cancelled_when_stop_releases_it() {
    let h = Harness::new();
    let started = Arc::new(AtomicU32::new(0));
    let handler = Handler::new("stuck", {
        let started = started.clone();
        move |_: serde_json::Value, _ctx: JobContext| {
            let started = started.clone();
            async move {
                started.fetch_add(1, Ordering::SeqCst);
                // Ignores cancellation: only stop() past its grace ends it.
                std::future::pending::<()>().await;
                Ok(())
            }
        }
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = h
        .queue
        .enqueue("stuck", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.start();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while started.load(Ordering::SeqCst) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the job never started"
        );
        tokio::task::yield_now().await;
    }
    // Another process asks; this runner has not heard of it (no heartbeat yet).
    assert_eq!(
        h.second_queue().cancel(id).unwrap(),
        CancelOutcome::Requested
    );
    runner.stop(Duration::from_millis(50)).await.unwrap();

    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Cancelled, "{job:?}");
    assert!(job.cancel_requested);
    // A restart runs nothing.
    let next = Runner::new(
        h.queue.clone(),
        vec![waits_for_cancel("stuck", started.clone(), false)],
        settings(),
    )
    .unwrap();
    assert!(next.drain().await.unwrap().is_empty());
    assert_eq!(started.load(Ordering::SeqCst), 1, "it never ran again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_that_returns_after_noticing_the_cancel_always_ends_cancelled() {
    for fail in [false, true] {
        let h = Harness::new();
        let started = Arc::new(AtomicU32::new(0));
        let runner = Runner::new(
            h.queue.clone(),
            vec![waits_for_cancel("watch", started.clone(), fail)],
            settings(),
        )
        .unwrap();
        for round in 0..40 {
            let id = h
                .queue
                .enqueue("watch", &round, EnqueueOptions::new())
                .unwrap()
                .id;
            assert_eq!(runner.dispatch().unwrap(), 1);
            while started.load(Ordering::SeqCst) <= round {
                tokio::task::yield_now().await;
            }
            assert_eq!(h.queue.cancel(id).unwrap(), CancelOutcome::Requested);
            runner.drain().await.unwrap();
            let job = h.queue.get(id).unwrap().unwrap();
            assert_eq!(
                job.status,
                JobStatus::Cancelled,
                "round {round}, handler returned {}",
                if fail { "Err" } else { "Ok" }
            );
            assert_eq!(job.result, None);
        }
    }
}

// ===== caps hold for every claimer =====

#[test]
fn the_runners_caps_are_stored_and_bind_a_claimer_that_names_none() {
    let h = Harness::new();
    let handler = Handler::new("embed", |_: serde_json::Value, _ctx: JobContext| async {
        Ok(())
    })
    .concurrency(1);
    let _runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    assert_eq!(h.queue.kind_limit("embed").unwrap(), Some(1));
    for i in 0..5 {
        h.queue.enqueue("embed", &i, EnqueueOptions::new()).unwrap();
    }
    // Another process that names no cap, asking for five at once.
    let agent = h.second_queue();
    let greedy = ClaimRequest::new("agent:greedy", ["embed"]).max_jobs(5);
    assert_eq!(agent.claim(&greedy).unwrap().len(), 1);
    assert!(agent.claim(&greedy).unwrap().is_empty(), "the cap is full");
    // Asking for more than the stored cap gets the stored cap.
    let higher = greedy.clone().limit("embed", 3);
    assert!(agent.claim(&higher).unwrap().is_empty());
    // Config wins over the handler's default, and is stored too.
    let mut config = settings();
    config.kind_limits.insert("embed".into(), 2);
    let handler = Handler::new("embed", |_: serde_json::Value, _ctx: JobContext| async {
        Ok(())
    })
    .concurrency(1);
    let _runner = Runner::new(h.queue.clone(), vec![handler], config).unwrap();
    assert_eq!(h.queue.kind_limit("embed").unwrap(), Some(2));
    assert_eq!(agent.claim(&greedy).unwrap().len(), 1);
    assert!(agent.claim(&greedy).unwrap().is_empty());
}

#[test]
fn a_claimer_may_ask_for_a_lower_cap_and_the_stored_one_can_be_cleared() {
    let h = Harness::new();
    h.queue.set_kind_limit("scan", Some(3)).unwrap();
    for i in 0..5 {
        h.queue.enqueue("scan", &i, EnqueueOptions::new()).unwrap();
    }
    let lower = ClaimRequest::new("w", ["scan"])
        .max_jobs(5)
        .limit("scan", 1);
    assert_eq!(h.queue.claim(&lower).unwrap().len(), 1);
    assert!(h.queue.claim(&lower).unwrap().is_empty());
    let any = ClaimRequest::new("w", ["scan"]).max_jobs(5);
    assert_eq!(h.queue.claim(&any).unwrap().len(), 2, "up to the stored 3");
    h.queue.set_kind_limit("scan", None).unwrap();
    assert_eq!(h.queue.kind_limit("scan").unwrap(), None);
    assert_eq!(h.queue.claim(&any).unwrap().len(), 2, "no cap any more");
    assert!(matches!(
        h.queue.set_kind_limit("", Some(1)),
        Err(Error::InvalidArgument { name: "kind", .. })
    ));
}

// ===== time limits =====

#[tokio::test(start_paused = true)]
async fn an_attempt_past_its_time_limit_fails_and_is_retried() {
    let h = Harness::new();
    let calls = Arc::new(AtomicU32::new(0));
    let counted = calls.clone();
    let hangs = Handler::new("hang", move |_: serde_json::Value, _ctx: JobContext| {
        counted.fetch_add(1, Ordering::SeqCst);
        async move {
            std::future::pending::<()>().await;
            Ok(())
        }
    })
    .timeout(Duration::from_secs(60));
    let runner = Runner::new(h.queue.clone(), vec![hangs], settings()).unwrap();
    let by_kind = h
        .queue
        .enqueue("hang", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let by_job = h
        .queue
        .enqueue("hang", &1, EnqueueOptions::new().timeout(5 * SEC))
        .unwrap()
        .id;
    let ran = runner.drain().await.unwrap();
    assert_eq!(ran.len(), 2);
    for id in [by_kind, by_job] {
        let job = h.queue.get(id).unwrap().unwrap();
        assert_eq!(job.status, JobStatus::Queued, "retried: {job:?}");
        assert!(job.last_error.unwrap().contains("timed out"));
        assert_eq!(runner.running(), 0, "no lease is renewed any more");
    }
    assert_eq!(
        h.queue.get(by_job).unwrap().unwrap().timeout_ms,
        Some(5_000)
    );
    assert!(matches!(
        h.queue
            .enqueue("hang", &2, EnqueueOptions::new().timeout(Duration::ZERO)),
        Err(Error::InvalidArgument {
            name: "timeout",
            ..
        })
    ));
}

// ===== process-local jobs =====

#[tokio::test]
async fn a_local_closure_that_panics_before_its_future_is_a_failed_job() {
    let bus = EventBus::new();
    let jobs = LocalJobs::with_clock(bus, FakeClock::new(Timestamp::EPOCH));
    let id = jobs
        .spawn_exclusive(
            "export",
            |_ctx| -> std::future::Ready<Result<(), BoxError>> { panic!("no file chosen") },
        )
        .unwrap();
    let mut record = jobs.get(id).unwrap();
    for _ in 0..1000 {
        if record.status != LocalJobStatus::Running {
            break;
        }
        tokio::task::yield_now().await;
        record = jobs.get(id).unwrap();
    }
    assert_eq!(record.status, LocalJobStatus::Failed);
    assert!(record.error.unwrap().contains("no file chosen"));
    // The exclusive kind is free again.
    let (_, again) = jobs
        .spawn_exclusive_awaitable("export", |_ctx| async { Ok::<_, BoxError>(7) })
        .unwrap();
    assert_eq!(again.wait().await.unwrap(), 7);
}

// ===== smaller promises =====

#[test]
fn a_dedupe_key_is_free_again_after_a_failed_and_after_a_cancelled_job() {
    let h = Harness::new();
    let key = EnqueueOptions::new().dedupe_key("k").max_attempts(1);
    let first = h.queue.enqueue("mail", &1, key.clone()).unwrap();
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["mail"]))
        .unwrap()
        .remove(0);
    h.queue
        .fail(&claimed.lease, JobFailure::retryable("smtp down"))
        .unwrap();
    assert_eq!(
        h.queue.get(first.id).unwrap().unwrap().status,
        JobStatus::Failed
    );
    let second = h.queue.enqueue("mail", &2, key.clone()).unwrap();
    assert!(second.created && second.id != first.id);
    assert_eq!(h.queue.cancel(second.id).unwrap(), CancelOutcome::Cancelled);
    let third = h.queue.enqueue("mail", &3, key).unwrap();
    assert!(third.created && third.id != second.id);
}

#[test]
fn the_priority_constants_are_100_50_10_and_ingest_is_the_default() {
    assert_eq!(
        (Priority::USER.0, Priority::INGEST.0, Priority::BACKFILL.0),
        (100, 50, 10)
    );
    assert_eq!(Priority::default(), Priority::INGEST);
    assert_eq!(EnqueueOptions::new().priority, Priority::INGEST);
}

#[test]
fn started_at_is_the_current_attempts_start() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("render", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(h.queue.get(id).unwrap().unwrap().started_at, None);
    h.advance(5 * SEC);
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["render"]))
        .unwrap()
        .remove(0);
    assert_eq!(claimed.job.started_at, Some(h.clock.now()));
    h.advance(3 * SEC);
    h.queue.complete(&claimed.lease, None).unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        job.finished_at.unwrap().as_millis() - job.started_at.unwrap().as_millis(),
        3_000
    );
}

#[test]
fn cron_numbers_are_plain_digits_and_steps_stay_in_range() {
    for (expression, field) in [
        ("+5 * * * *", "minute"),
        ("* -1 * * *", "hour"),
        ("*/+2 * * * *", "minute"),
        ("1-59/4294967295 * * * *", "minute"),
        ("* * * * */8", "day of week"),
    ] {
        let error = expression.parse::<Cron>().unwrap_err();
        assert_eq!(error.field, field, "{expression}: {error}");
    }
    assert!("*/59 * * * *".parse::<Cron>().is_ok());
    let end = Timestamp::from_millis(i64::MAX - 1);
    assert_eq!("* * * * *".parse::<Cron>().unwrap().next_after(end), None);
}

#[test]
fn a_stream_keeps_its_capacity_rounded_up_to_a_power_of_two() {
    let bus = EventBus::new();
    let mut stream = bus.subscribe(5);
    for id in 0..20 {
        bus.publish(JobStateChanged {
            id: JobId::from_raw(id),
            kind: "k".into(),
            from: None,
            to: JobStatus::Queued,
            attempt: 0,
            at: Timestamp::EPOCH,
        });
    }
    let mut kept = 0;
    while let Some(event) = stream.try_next() {
        assert!(matches!(&*event, Event::JobStateChanged(_)));
        kept += 1;
    }
    assert_eq!(kept, 8);
    assert_eq!(stream.dropped(), 12);
}

// ===== nothing runnable costs nothing =====

#[test]
fn next_claimable_at_skips_kinds_at_their_cap_or_paused() {
    let h = Harness::new();
    h.queue.set_kind_limit("gpu", Some(1)).unwrap();
    for i in 0..3 {
        h.queue.enqueue("gpu", &i, EnqueueOptions::new()).unwrap();
    }
    let request = ClaimRequest::new("w", ["gpu", "scan"]);
    assert_eq!(
        h.queue.next_claimable_at(&request).unwrap(),
        Some(h.clock.now())
    );
    let held = h.queue.claim(&request).unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(
        h.queue.next_claimable_at(&request).unwrap(),
        None,
        "the cap is full: nothing to wake for"
    );
    h.queue
        .enqueue("scan", &0, EnqueueOptions::new().delay(30 * SEC))
        .unwrap();
    let in_30s = h.clock.now().as_millis() + 30_000;
    assert_eq!(
        h.queue
            .next_claimable_at(&request)
            .unwrap()
            .map(|at| at.as_millis()),
        Some(in_30s)
    );
    h.queue.pause_kind("scan").unwrap();
    assert_eq!(h.queue.paused_kinds().unwrap(), vec!["scan".to_owned()]);
    assert_eq!(h.queue.next_claimable_at(&request).unwrap(), None);
    h.queue.resume_kind("scan").unwrap();
    assert!(h.queue.paused_kinds().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_a_kind_or_raising_a_cap_wakes_a_started_runner_at_once() {
    let h = Harness::new();
    let ran = Arc::new(AtomicU32::new(0));
    let counted = ran.clone();
    let handler = Handler::new("mail", move |_: serde_json::Value, _ctx: JobContext| {
        counted.fetch_add(1, Ordering::SeqCst);
        async { Ok(()) }
    });
    let mut slow_poll = settings();
    // Without a wake-up the runner would not look again for an hour.
    slow_poll.poll_interval = Duration::from_secs(3600);
    let runner = Runner::new(h.queue.clone(), vec![handler], slow_poll).unwrap();
    h.queue.pause_kind("mail").unwrap();
    runner.start();
    h.queue.enqueue("mail", &1, EnqueueOptions::new()).unwrap();
    h.queue.resume_kind("mail").unwrap();
    let waited = tokio::time::timeout(Duration::from_secs(20), async {
        while ran.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(waited.is_ok(), "the resumed kind's job did not start");
    runner.stop(Duration::from_secs(1)).await.unwrap();
}
