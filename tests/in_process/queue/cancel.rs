//! Cancellation, and every state change published after its commit.

use super::*;

// ===== cancel =====

#[test]
fn cancel_queued_is_immediate_and_running_is_requested() {
    let h = Harness::new();
    let queued = h
        .queue
        .enqueue("k", &1, EnqueueOptions::new().delay(SEC))
        .unwrap()
        .id;
    let running = h.queue.enqueue("k", &2, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    assert_eq!(claimed.job.id, running);

    assert_eq!(h.queue.cancel(queued).unwrap(), CancelOutcome::Cancelled);
    assert_eq!(status(&h.queue, queued), JobStatus::Cancelled);
    assert_eq!(h.queue.cancel(running).unwrap(), CancelOutcome::Requested);
    assert_eq!(status(&h.queue, running), JobStatus::Running);
    assert!(h.queue.heartbeat(&claimed.lease).unwrap().cancel_requested);
    assert_eq!(
        h.queue.finish(&claimed.lease, Outcome::Cancelled).unwrap(),
        Finished::Cancelled
    );
    assert_eq!(status(&h.queue, running), JobStatus::Cancelled);
    assert_eq!(
        h.queue.cancel(running).unwrap(),
        CancelOutcome::AlreadyFinished(JobStatus::Cancelled)
    );
    assert!(matches!(
        h.queue.cancel(JobId::from_raw(12345)),
        Err(Error::JobNotFound(_))
    ));
    h.advance(2 * SEC);
    assert!(
        claim_one(&h.queue, "w", "k").is_none(),
        "a cancelled job never runs"
    );
}

#[test]
fn a_failure_after_cancel_was_requested_ends_cancelled_not_retried() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    h.queue.cancel(id).unwrap();
    assert_eq!(
        h.queue
            .fail(&claimed.lease, JobFailure::retryable("interrupted"))
            .unwrap(),
        Finished::Cancelled
    );
    assert_eq!(status(&h.queue, id), JobStatus::Cancelled);
}

// ===== events =====

#[test]
fn every_state_change_is_published_after_commit() {
    let h = Harness::new();
    let keyed = || EnqueueOptions::new().dedupe_key("only");
    let id = h.queue.enqueue("k", &1, keyed()).unwrap().id;
    // A dedupe hit, while queued and while running, changes nothing and publishes
    // nothing.
    let hit = h.queue.enqueue("k", &2, keyed()).unwrap();
    assert_eq!((hit.id, hit.created), (id, false));
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    assert!(!h.queue.enqueue("k", &3, keyed()).unwrap().created);
    h.queue
        .fail(&claimed.lease, JobFailure::retryable("x"))
        .unwrap();
    h.advance(Duration::from_secs(3600));
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    h.queue.complete(&claimed.lease, None).unwrap();
    let events = h.take_events();
    let moves: Vec<_> = events.iter().map(|e| (e.from, e.to, e.attempt)).collect();
    use JobStatus::*;
    assert_eq!(
        moves,
        vec![
            (None, Queued, 0),
            (Some(Queued), Running, 1),
            (Some(Running), Queued, 1),
            (Some(Queued), Running, 2),
            (Some(Running), Succeeded, 2),
        ]
    );
    assert!(events.iter().all(|e| e.id == id && e.kind == "k"));
    assert_eq!(events[4].at, h.clock_now());
}
