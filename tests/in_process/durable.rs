//! Durable work a UI can show and control: progress from handlers and agents, waiting
//! for a job's end, and the admin actions (retry now, delete, pause a kind, run a
//! schedule now).

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Harness, START};
use serde_json::json;
use tauri_plugin_jobs::bus::Event;
use tauri_plugin_jobs::clock::Clock;
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobEnded, JobFailure, JobId, JobProgressValue, JobStatus,
    RetryOutcome,
};
use tauri_plugin_jobs::runner::{
    Handler, JobContext, JobError, Runner, RunnerSettings, PROGRESS_STORE_INTERVAL,
};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};
use tauri_plugin_jobs::Error;
use tokio::sync::Notify;

const SEC: Duration = Duration::from_secs(1);

/// Every event the queue's bus publishes, in order.
fn record(h: &Harness) -> Arc<Mutex<Vec<Event>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    h.queue
        .bus()
        .add_handler("durable-test", move |event: &Event| {
            sink.lock().unwrap().push(event.clone());
            Ok(())
        });
    seen
}

fn progress_events(seen: &Mutex<Vec<Event>>, id: JobId) -> Vec<(u64, Option<u8>)> {
    seen.lock()
        .unwrap()
        .iter()
        .filter_map(|event| match event {
            Event::JobProgress(progress) if progress.id == id => {
                Some((progress.done, progress.percent))
            }
            _ => None,
        })
        .collect()
}

/// A handler that reports `steps` of progress, then waits for `release`, reports one
/// step more, waits again and returns `{"rows": steps}`.
fn reporting(steps: u64, reported: Arc<Notify>, release: Arc<Notify>) -> Handler {
    Handler::new("ingest", move |_: serde_json::Value, ctx: JobContext| {
        let (reported, release) = (reported.clone(), release.clone());
        async move {
            for done in 0..=steps {
                ctx.progress(done, Some(steps * 2));
            }
            reported.notify_one();
            release.notified().await;
            ctx.progress(steps + 1, Some(steps * 2));
            reported.notify_one();
            release.notified().await;
            Ok(json!({ "rows": steps }))
        }
    })
}

// ===== progress =====

#[tokio::test]
async fn a_handlers_progress_is_throttled_stored_at_most_once_a_second_and_read_with_the_job() {
    let h = Harness::new();
    let seen = record(&h);
    let (reported, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let runner = Runner::new(
        h.queue.clone(),
        vec![reporting(10_000, reported.clone(), release.clone())],
        RunnerSettings::for_tests(),
    )
    .unwrap();
    let id = h
        .queue
        .enqueue("ingest", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(h.queue.get(id).unwrap().unwrap().progress, None);
    runner.dispatch().unwrap();
    reported.notified().await;

    // 10 001 reports, 0 % to 50 %: one event a percent.
    let events = progress_events(&seen, id);
    assert_eq!(events.len(), 51, "one event per whole percent");
    assert_eq!(events.first(), Some(&(0, Some(0))));
    assert_eq!(events.last(), Some(&(10_000, Some(50))));

    // Nothing stored yet; the runner's next round stores the latest figures.
    assert_eq!(h.queue.get(id).unwrap().unwrap().progress, None);
    runner.maintain().unwrap();
    let stored = h.queue.get(id).unwrap().unwrap().progress.unwrap();
    assert_eq!(
        stored,
        JobProgressValue {
            done: 10_000,
            total: Some(20_000)
        }
    );
    assert_eq!(stored.percent(), Some(50));

    // A report within the second is held back from the file, then stored.
    release.notify_one();
    reported.notified().await;
    runner.maintain().unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().progress.unwrap().done,
        10_000,
        "at most one write a second"
    );
    h.advance(PROGRESS_STORE_INTERVAL);
    runner.maintain().unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().progress.unwrap().done,
        10_001
    );
    // That report was within the same percent: it went out when the attempt ended.
    release.notify_one();
    runner.drain().await.unwrap();
    let events = progress_events(&seen, id);
    assert_eq!(events.last(), Some(&(10_001, Some(50))));
    assert!(events.len() <= 101);

    let job = h.queue.finished(id).await.unwrap();
    assert_eq!(
        job.result_as::<serde_json::Value>().unwrap(),
        json!({"rows": 10_000})
    );
}

#[tokio::test]
async fn at_most_101_progress_events_an_attempt_with_a_known_total() {
    let h = Harness::new();
    let seen = record(&h);
    let handler = Handler::new("count", |steps: u64, ctx: JobContext| async move {
        for done in 0..=steps {
            ctx.progress(done, Some(steps));
        }
        Ok(())
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], RunnerSettings::for_tests()).unwrap();
    let id = h
        .queue
        .enqueue("count", &1_000_000u64, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let events = progress_events(&seen, id);
    assert_eq!(events.len(), 101);
    assert_eq!(events.last(), Some(&(1_000_000, Some(100))));
}

#[tokio::test]
async fn the_last_report_is_stored_with_the_outcome() {
    let h = Harness::new();
    let handler = Handler::new(
        "quick",
        |_: serde_json::Value, ctx: JobContext| async move {
            for done in 1..=10 {
                ctx.progress(done, Some(10));
            }
            Ok(())
        },
    );
    let runner = Runner::new(h.queue.clone(), vec![handler], RunnerSettings::for_tests()).unwrap();
    let id = h
        .queue
        .enqueue("quick", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(
        job.progress.and_then(|progress| progress.percent()),
        Some(100)
    );
}

#[tokio::test]
async fn a_new_attempt_starts_without_the_last_ones_progress() {
    let h = Harness::new();
    let handler = Handler::new(
        "flaky",
        |_: serde_json::Value, ctx: JobContext| async move {
            ctx.progress(7, None);
            Err::<(), _>(JobError::retryable("not yet"))
        },
    );
    let runner = Runner::new(h.queue.clone(), vec![handler], RunnerSettings::for_tests()).unwrap();
    let id = h
        .queue
        .enqueue("flaky", &0, EnqueueOptions::new().max_attempts(2))
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    runner.maintain().unwrap();
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Queued);
    assert_eq!(
        job.progress,
        Some(JobProgressValue {
            done: 7,
            total: None
        }),
        "the failed attempt's last figures stay until the next claim"
    );
    h.queue.retry_now(id).unwrap();
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("other", ["flaky"]))
        .unwrap();
    assert_eq!(claimed[0].job.progress, None);
}

#[test]
fn agents_report_progress_fenced_by_their_lease() {
    let h = Harness::new();
    let seen = record(&h);
    let id = h
        .queue
        .enqueue("render", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("agent:blender", ["render"]))
        .unwrap()
        .remove(0);
    h.queue.report_progress(&claimed.lease, 3, Some(4)).unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().progress,
        Some(JobProgressValue {
            done: 3,
            total: Some(4)
        })
    );
    assert_eq!(progress_events(&seen, id), vec![(3, Some(75))]);

    // A lease it no longer holds writes nothing.
    let mut forged = claimed.lease.clone();
    forged.attempt += 1;
    assert!(matches!(
        h.queue.report_progress(&forged, 4, Some(4)),
        Err(Error::LostLease { .. })
    ));
    assert_eq!(h.queue.get(id).unwrap().unwrap().progress.unwrap().done, 3);
}

// ===== waiting for a job =====

#[tokio::test(start_paused = true)]
async fn finished_sees_a_job_another_connection_finishes() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("render", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let waiting = tokio::spawn({
        let queue = h.queue.clone();
        async move { queue.finished(id).await }
    });
    tokio::task::yield_now().await;
    let other = h.second_queue();
    let claimed = other
        .claim(&ClaimRequest::new("agent:x", ["render"]))
        .unwrap()
        .remove(0);
    other
        .complete(&claimed.lease, Some(json!({"frames": 24})))
        .unwrap();
    let job = tokio::time::timeout(Duration::from_secs(60), waiting)
        .await
        .expect("seen within the poll")
        .unwrap()
        .unwrap();
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Rendered {
        frames: u32,
    }
    assert_eq!(
        job.result_as::<Rendered>().unwrap(),
        Rendered { frames: 24 }
    );
}

#[tokio::test]
async fn result_as_names_why_there_is_no_result() {
    let h = Harness::new();
    let failed = h
        .queue
        .enqueue("a", &0, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["a"]))
        .unwrap()
        .remove(0);
    h.queue
        .fail(&claimed.lease, JobFailure::permanent("disk full"))
        .unwrap();
    assert_eq!(
        h.queue.finished(failed).await.unwrap().result_as::<()>(),
        Err(JobEnded::Failed {
            id: failed,
            error: "disk full".into()
        })
    );

    let cancelled = h.queue.enqueue("b", &0, EnqueueOptions::new()).unwrap().id;
    h.queue.cancel(cancelled).unwrap();
    assert_eq!(
        h.queue.finished(cancelled).await.unwrap().result_as::<()>(),
        Err(JobEnded::Cancelled(cancelled))
    );

    let queued = h.queue.enqueue("c", &0, EnqueueOptions::new()).unwrap().id;
    assert_eq!(
        h.queue.get(queued).unwrap().unwrap().result_as::<()>(),
        Err(JobEnded::NotFinished(queued))
    );
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["c"]))
        .unwrap()
        .remove(0);
    h.queue
        .complete(&claimed.lease, Some(json!("text")))
        .unwrap();
    assert!(matches!(
        h.queue.get(queued).unwrap().unwrap().result_as::<u32>(),
        Err(JobEnded::Mismatch { .. })
    ));
    assert!(matches!(
        h.queue.finished(JobId::from_raw(999)).await,
        Err(Error::JobNotFound(_))
    ));
}

// ===== admin actions =====

fn fails_then_succeeds() -> Handler {
    let calls = Arc::new(Mutex::new(0u32));
    Handler::new("sync", move |_: serde_json::Value, _ctx: JobContext| {
        let calls = calls.clone();
        async move {
            let call = {
                let mut calls = calls.lock().unwrap();
                *calls += 1;
                *calls
            };
            if call == 1 {
                Err(JobError::permanent("server said no"))
            } else {
                Ok(json!("second time"))
            }
        }
    })
}

#[tokio::test]
async fn retry_now_runs_a_failed_job_again_with_one_attempt_more() {
    let h = Harness::new();
    let runner = Runner::new(
        h.queue.clone(),
        vec![fails_then_succeeds()],
        RunnerSettings::for_tests(),
    )
    .unwrap();
    let id = h
        .queue
        .enqueue("sync", &0, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    assert_eq!(h.queue.get(id).unwrap().unwrap().status, JobStatus::Failed);
    h.take_events();

    assert_eq!(h.queue.retry_now(id).unwrap(), RetryOutcome::Requeued);
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.run_at, job.max_attempts),
        (JobStatus::Queued, START, 2)
    );
    assert_eq!(job.finished_at, None);
    let events = h.take_events();
    assert_eq!(events.len(), 1);
    assert_eq!(
        (events[0].from, events[0].to),
        (Some(JobStatus::Failed), JobStatus::Queued)
    );

    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.result, Some(json!("second time")));
    assert_eq!(job.attempts, 2);
}

#[tokio::test]
async fn retry_now_ends_a_backoff_at_once() {
    let h = Harness::new();
    let runner = Runner::new(
        h.queue.clone(),
        vec![Handler::new(
            "flaky",
            |_: serde_json::Value, _ctx: JobContext| async {
                Err::<(), _>(JobError::retryable("timeout"))
            },
        )],
        RunnerSettings::for_tests(),
    )
    .unwrap();
    let id = h
        .queue
        .enqueue("flaky", &0, EnqueueOptions::new().max_attempts(3))
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert!(job.run_at > h.clock.now(), "waiting out a backoff");
    assert!(runner.drain().await.unwrap().is_empty());

    assert_eq!(h.queue.retry_now(id).unwrap(), RetryOutcome::Rescheduled);
    assert_eq!(h.queue.get(id).unwrap().unwrap().run_at, h.clock.now());
    assert_eq!(h.queue.retry_now(id).unwrap(), RetryOutcome::AlreadyDue);
    assert_eq!(
        runner.drain().await.unwrap().len(),
        1,
        "ran without the clock moving"
    );
}

#[test]
fn retry_now_refuses_what_cannot_run_again_naming_why() {
    let h = Harness::new();
    let running = h.queue.enqueue("a", &0, EnqueueOptions::new()).unwrap().id;
    let lease = h
        .queue
        .claim(&ClaimRequest::new("w", ["a"]))
        .unwrap()
        .remove(0)
        .lease;
    let refused = h.queue.retry_now(running).unwrap_err();
    assert!(matches!(refused, Error::InvalidArgument { name: "id", .. }));
    assert!(refused.to_string().contains("running"), "{refused}");

    h.queue.complete(&lease, None).unwrap();
    let refused = h.queue.retry_now(running).unwrap_err();
    assert!(refused.to_string().contains("succeeded"), "{refused}");

    let cancelled = h.queue.enqueue("b", &0, EnqueueOptions::new()).unwrap().id;
    h.queue.cancel(cancelled).unwrap();
    assert!(h
        .queue
        .retry_now(cancelled)
        .unwrap_err()
        .to_string()
        .contains("cancelled"));

    assert!(matches!(
        h.queue.retry_now(JobId::from_raw(999)),
        Err(Error::JobNotFound(_))
    ));

    // A failed job whose dedupe key another job holds now stays failed.
    let failed = h
        .queue
        .enqueue(
            "c",
            &0,
            EnqueueOptions::new().dedupe_key("k").max_attempts(1),
        )
        .unwrap()
        .id;
    let lease = h
        .queue
        .claim(&ClaimRequest::new("w", ["c"]))
        .unwrap()
        .remove(0)
        .lease;
    h.queue.fail(&lease, JobFailure::permanent("no")).unwrap();
    let holder = h
        .queue
        .enqueue("c", &1, EnqueueOptions::new().dedupe_key("k"))
        .unwrap();
    assert!(holder.created);
    let refused = h.queue.retry_now(failed).unwrap_err();
    assert!(refused.to_string().contains("dedupe key"), "{refused}");
    assert_eq!(
        h.queue.get(failed).unwrap().unwrap().status,
        JobStatus::Failed
    );
}

#[test]
fn delete_removes_a_finished_job_only() {
    let h = Harness::new();
    let seen = record(&h);
    let id = h.queue.enqueue("a", &0, EnqueueOptions::new()).unwrap().id;
    let refused = h.queue.delete(id).unwrap_err();
    assert!(refused.to_string().contains("queued"), "{refused}");
    h.queue.cancel(id).unwrap();
    h.queue.delete(id).unwrap();
    assert!(h.queue.get(id).unwrap().is_none());
    assert!(seen
        .lock()
        .unwrap()
        .iter()
        .any(|event| matches!(event, Event::JobDeleted(deleted) if deleted.id == id && deleted.kind == "a")));
    assert!(matches!(h.queue.delete(id), Err(Error::JobNotFound(_))));
}

#[test]
fn an_id_is_never_given_twice_after_a_delete_or_a_prune() {
    let h = Harness::new();
    let first = h.queue.enqueue("a", &0, EnqueueOptions::new()).unwrap().id;
    h.queue.cancel(first).unwrap();
    h.queue.delete(first).unwrap();
    let second = h.queue.enqueue("a", &1, EnqueueOptions::new()).unwrap().id;
    assert!(second.raw() > first.raw(), "{second} after {first}");
    h.queue.cancel(second).unwrap();
    h.advance(SEC);
    assert_eq!(h.queue.prune(std::time::Duration::ZERO).unwrap(), 1);
    let third = h.queue.enqueue("a", &2, EnqueueOptions::new()).unwrap().id;
    assert!(third.raw() > second.raw(), "{third} after {second}");
}

#[test]
fn pausing_a_kind_holds_it_in_every_process_and_tells_listeners() {
    let h = Harness::new();
    let seen = record(&h);
    let other = h.second_queue();
    h.queue
        .enqueue("export", &0, EnqueueOptions::new())
        .unwrap();
    h.queue.pause_kind("export").unwrap();
    assert!(seen.lock().unwrap().iter().any(
        |event| matches!(event, Event::KindPaused(paused) if paused.kind == "export" && paused.paused)
    ));
    assert_eq!(other.paused_kinds().unwrap(), vec!["export".to_owned()]);
    assert!(other
        .claim(&ClaimRequest::new("agent:x", ["export"]))
        .unwrap()
        .is_empty());
    other.resume_kind("export").unwrap();
    assert_eq!(
        h.queue
            .claim(&ClaimRequest::new("w", ["export"]))
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn run_now_enqueues_a_schedules_job_without_moving_its_next_run() {
    let h = Harness::new();
    let seen = record(&h);
    let scheduler = Scheduler::new(h.queue.clone());
    let schedule = scheduler
        .upsert(ScheduleSpec::every("digest", "mail", 3600 * SEC).payload(json!({"to": "me"})))
        .unwrap();
    h.advance(10 * SEC);
    let ticked = scheduler.run_now("digest").unwrap();
    assert!(ticked.created);
    let job = h.queue.get(ticked.job).unwrap().unwrap();
    assert_eq!(
        (job.kind.as_str(), job.payload.clone()),
        ("mail", json!({"to": "me"}))
    );
    let after = scheduler.get("digest").unwrap().unwrap();
    assert_eq!(after.next_run, schedule.next_run);
    assert_eq!(after.last_run, Some(h.clock.now()));
    assert_eq!(after.last_job, Some(ticked.job));
    assert!(seen
        .lock()
        .unwrap()
        .iter()
        .any(|event| matches!(event, Event::ScheduleChanged(changed) if changed.name == "digest")));

    for unknown in [
        scheduler.run_now("nope").unwrap_err(),
        scheduler.pause("nope").unwrap_err(),
        scheduler.resume("nope").unwrap_err(),
    ] {
        assert!(matches!(&unknown, Error::ScheduleNotFound(name) if name == "nope"));
    }
    let paused = scheduler.pause("digest").unwrap();
    assert!(paused.paused);
    assert!(!scheduler.resume("digest").unwrap().paused);
}
