//! Interrupting the runner's handlers: a lost lease, a cancel (from this process or
//! another), and the graceful stop.

use std::time::Duration;

use serde_json::json;
use tauri_plugin_jobs::queue::{CancelOutcome, ClaimRequest, EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner};

use super::{settings, Gate, SEC};
use crate::common::Harness;

#[tokio::test]
async fn a_lost_lease_cancels_the_handler_and_writes_nothing() {
    let h = Harness::new();
    let gate = Gate::default();
    let runner = Runner::new(h.queue.clone(), vec![gate.handler("slow")], settings()).unwrap();
    let id = h
        .queue
        .enqueue("slow", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    gate.started.notified().await;
    // The runner stalls past its lease (no maintain) and another worker takes over.
    h.advance(31 * SEC);
    let thief = h.second_queue();
    let stolen = thief
        .claim(&ClaimRequest::new("thief", ["slow"]))
        .unwrap()
        .pop()
        .unwrap();
    runner.maintain().unwrap();
    let ran = runner.drain().await.unwrap();
    assert_eq!(ran.len(), 1);
    assert!(
        ran[0].finished.is_err(),
        "nothing written: {:?}",
        ran[0].finished
    );
    assert!(gate.dropped(), "the handler was interrupted");
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.lease_owner.as_deref()),
        (JobStatus::Running, Some("thief"))
    );
    thief
        .complete(&stolen.lease, Some(json!("thief's")))
        .unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().result,
        Some(json!("thief's"))
    );
}

#[tokio::test]
async fn cancelling_a_running_job_interrupts_its_handler() {
    let h = Harness::new();
    let gate = Gate::default();
    let runner = Runner::new(h.queue.clone(), vec![gate.handler("slow")], settings()).unwrap();
    let id = h
        .queue
        .enqueue("slow", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    gate.started.notified().await;
    assert_eq!(h.queue.cancel(id).unwrap(), CancelOutcome::Requested);
    runner.maintain().unwrap();
    runner.drain().await.unwrap();
    assert!(gate.dropped());
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Cancelled
    );
}

#[tokio::test]
async fn a_cancel_from_another_process_arrives_with_the_next_heartbeat() {
    let h = Harness::new();
    let gate = Gate::default();
    let runner = Runner::new(h.queue.clone(), vec![gate.handler("slow")], settings()).unwrap();
    let id = h
        .queue
        .enqueue("slow", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.dispatch().unwrap();
    gate.started.notified().await;
    h.second_queue().cancel(id).unwrap();
    runner.maintain().unwrap();
    tokio::task::yield_now().await;
    assert!(!gate.dropped(), "not heard of yet");
    h.advance(10 * SEC);
    runner.maintain().unwrap();
    runner.drain().await.unwrap();
    assert!(gate.dropped());
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Cancelled
    );
}

#[tokio::test(start_paused = true)]
async fn stop_waits_for_the_grace_period_then_releases_without_counting_the_attempt() {
    let h = Harness::new();
    let quick_gate = Gate::default();
    let stuck_gate = Gate::default();
    let handlers = vec![quick_gate.handler("quick"), stuck_gate.handler("stuck")];
    let runner = Runner::new(h.queue.clone(), handlers, settings()).unwrap();
    let quick = h
        .queue
        .enqueue("quick", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let stuck = h
        .queue
        .enqueue("stuck", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(runner.dispatch().unwrap(), 2);
    stuck_gate.started.notified().await;

    let opener = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        quick_gate.open.notify_one();
    });
    runner.stop(Duration::from_secs(5)).await.unwrap();
    opener.await.unwrap();

    assert_eq!(
        h.queue.get(quick).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
    let stuck_job = h.queue.get(stuck).unwrap().unwrap();
    assert_eq!(
        (stuck_job.status, stuck_job.attempts),
        (JobStatus::Queued, 0)
    );
    assert!(stuck_gate.dropped());
    assert_eq!(
        runner.dispatch().unwrap(),
        0,
        "a stopped runner claims nothing"
    );

    // The next start runs it.
    let next = Runner::new(
        h.queue.clone(),
        vec![Handler::new(
            "stuck",
            |_: serde_json::Value, _ctx: JobContext| async move { Ok(()) },
        )],
        settings(),
    )
    .unwrap();
    next.drain().await.unwrap();
    let stuck_job = h.queue.get(stuck).unwrap().unwrap();
    assert_eq!(
        (stuck_job.status, stuck_job.attempts),
        (JobStatus::Succeeded, 1)
    );
}

#[tokio::test]
async fn a_started_runner_acts_on_a_cancel_at_once() {
    // No poll and no lease renewal falls due during the test: only the cancel's own
    // wake-up can reach the runner's thread in time.
    let h = Harness::new();
    let mut events = h.queue.bus().subscribe(64);
    let gate = Gate::default();
    let mut settings = settings();
    settings.poll_interval = Duration::from_secs(3600);
    settings.lease = Duration::from_secs(3600);
    let runner = Runner::new(h.queue.clone(), vec![gate.handler("slow")], settings).unwrap();
    let started = gate.started.notified();
    runner.start();
    let id = h
        .queue
        .enqueue("slow", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    tokio::time::timeout(Duration::from_secs(10), started)
        .await
        .expect("the handler started");
    assert_eq!(h.queue.cancel(id).unwrap(), CancelOutcome::Requested);
    let cancelled = async {
        while let Some(event) = events.next().await {
            if let tauri_plugin_jobs::bus::Event::JobStateChanged(change) = &*event {
                if change.id == id && change.to == JobStatus::Cancelled {
                    return;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), cancelled)
        .await
        .expect("the cancel reached the runner without waiting for a poll");
    assert!(gate.dropped());
    runner.stop(Duration::from_secs(5)).await.unwrap();
}
