//! Attempts: leases and fencing, retries with backoff, schemas on payloads and results.

use super::*;

// ===== leases and fencing =====

#[test]
fn expired_lease_requeues_and_a_stale_worker_is_fenced_out() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    let stale = claim_one(&h.queue, "old", "k").unwrap();
    h.advance(29 * SEC);
    assert!(
        claim_one(&h.queue, "new", "k").is_none(),
        "lease still valid"
    );
    h.advance(2 * SEC);
    let fresh = claim_one(&h.queue, "new", "k").expect("requeued after expiry");
    assert_eq!(fresh.job.id, id);
    assert_eq!(fresh.lease.attempt, 2);

    for outcome in [
        Outcome::Succeeded(None),
        Outcome::Failed(JobFailure::retryable("late")),
        Outcome::Cancelled,
        Outcome::Released,
    ] {
        let err = h.queue.finish(&stale.lease, outcome).unwrap_err();
        assert!(matches!(err, Error::LostLease { attempt: 1, .. }), "{err}");
    }
    assert!(matches!(
        h.queue.heartbeat(&stale.lease),
        Err(Error::LostLease { .. })
    ));
    assert_eq!(status(&h.queue, id), JobStatus::Running);
    assert_eq!(
        h.queue.complete(&fresh.lease, Some(json!("ok"))).unwrap(),
        Finished::Succeeded
    );
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.result, Some(json!("ok")));
    assert_eq!(job.lease_owner, None);
}

#[test]
fn same_worker_id_on_an_older_attempt_is_fenced_out_too() {
    let h = Harness::new();
    h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap();
    let first = claim_one(&h.queue, "same", "k").unwrap();
    h.advance(31 * SEC);
    let second = claim_one(&h.queue, "same", "k").unwrap();
    assert!(matches!(
        h.queue.complete(&first.lease, None),
        Err(Error::LostLease { .. })
    ));
    h.queue.complete(&second.lease, None).unwrap();
}

#[test]
fn heartbeat_extends_the_lease() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    for _ in 0..10 {
        h.advance(20 * SEC);
        let beat = h.queue.heartbeat(&claimed.lease).unwrap();
        assert_eq!(beat.expires_at, h.clock_now().saturating_add(30 * SEC));
        assert!(!beat.cancel_requested);
        assert!(claim_one(&h.queue, "thief", "k").is_none());
    }
    assert_eq!(status(&h.queue, id), JobStatus::Running);
    h.queue.complete(&claimed.lease, None).unwrap();
}

#[test]
fn release_gives_the_job_back_without_counting_the_attempt() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("k", &1, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    assert_eq!(
        h.queue.finish(&claimed.lease, Outcome::Released).unwrap(),
        Finished::Released
    );
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Queued, 0));
    let again = claim_one(&h.queue, "w2", "k").expect("runnable again at once");
    assert_eq!(again.lease.attempt, 1);
}

// ===== retries =====

#[test]
fn failures_back_off_exponentially_then_fail() {
    let h = Harness::new();
    let policy = RetryPolicy::new(10 * SEC, 25 * SEC, 0.0).unwrap();
    h.queue
        .register_kind("flaky", KindSpec::new().retry(policy).max_attempts(4));
    let id = h
        .queue
        .enqueue("flaky", &1, EnqueueOptions::new())
        .unwrap()
        .id;

    for (attempt, wait) in [(1, 10), (2, 20), (3, 25)] {
        let claimed = claim_one(&h.queue, "w", "flaky").unwrap();
        assert_eq!(claimed.lease.attempt, attempt);
        let outcome = h
            .queue
            .fail(
                &claimed.lease,
                JobFailure::retryable(format!("boom {attempt}")),
            )
            .unwrap();
        let due = h.clock_now().saturating_add(Duration::from_secs(wait));
        assert_eq!(outcome, Finished::Retrying { at: due });
        h.advance(Duration::from_secs(wait) - Duration::from_millis(1));
        assert!(
            claim_one(&h.queue, "w", "flaky").is_none(),
            "not before the backoff"
        );
        h.advance(Duration::from_millis(1));
    }
    let last = claim_one(&h.queue, "w", "flaky").unwrap();
    assert_eq!(
        h.queue
            .fail(&last.lease, JobFailure::retryable("boom 4"))
            .unwrap(),
        Finished::Failed
    );
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert_eq!(job.attempts, 4);
    assert_eq!(job.last_error.as_deref(), Some("boom 4"));
    assert!(job.finished_at.is_some());
}

#[test]
fn each_failed_attempt_keeps_its_error_and_a_success_clears_the_last_one() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("flaky", &1, EnqueueOptions::new().max_attempts(5))
        .unwrap()
        .id;
    let mut ended = Vec::new();
    for attempt in 1..=2 {
        let claimed = claim_one(&h.queue, "w", "flaky").unwrap();
        ended.push(h.clock_now());
        h.queue
            .fail(
                &claimed.lease,
                JobFailure::retryable(format!("boom {attempt}")),
            )
            .unwrap();
        h.advance(3600 * SEC);
    }
    // A worker that vanishes is in the timeline too, not counted as an attempt.
    let _lost = claim_one(&h.queue, "gone", "flaky").unwrap();
    h.advance(31 * SEC);
    let last = claim_one(&h.queue, "w", "flaky").expect("requeued after the lease ran out");
    h.queue.complete(&last.lease, None).unwrap();

    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.last_error, None, "a success is not shown as a failure");
    let said: Vec<_> = job
        .errors
        .iter()
        .map(|e| (e.attempt, e.error.as_str()))
        .collect();
    assert_eq!(said[..2], [(1, "boom 1"), (2, "boom 2")]);
    assert_eq!([job.errors[0].at, job.errors[1].at], [ended[0], ended[1]]);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(said[2].1.contains("lease ran out"), "{said:?}");
    // What listJobs returns carries the same.
    let listed = h.queue.list(&JobFilter::new()).unwrap();
    assert_eq!(
        listed.iter().find(|j| j.id == id).unwrap().errors,
        job.errors
    );
}

#[test]
fn a_job_keeps_the_errors_of_its_last_twenty_failed_attempts() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("flaky", &1, EnqueueOptions::new().max_attempts(25))
        .unwrap()
        .id;
    for attempt in 1..=25 {
        let claimed = claim_one(&h.queue, "w", "flaky").unwrap();
        h.queue
            .fail(
                &claimed.lease,
                JobFailure::retryable(format!("boom {attempt}")),
            )
            .unwrap();
        h.advance(24 * 3600 * SEC);
    }
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    let attempts: Vec<_> = job.errors.iter().map(|e| e.attempt).collect();
    assert_eq!(attempts, (6..=25).collect::<Vec<_>>());
    assert_eq!(job.last_error.as_deref(), Some("boom 25"));
}

#[test]
fn jitter_comes_from_the_injected_source() {
    let dir = tempfile::tempdir().unwrap();
    let clock = tauri_plugin_jobs::clock::FakeClock::new(START);
    let queue = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new()
            .clock(clock.clone())
            .random(tauri_plugin_jobs::random::FixedRandom(0.5))
            .retry(RetryPolicy::new(100 * SEC, 1000 * SEC, 0.2).unwrap()),
    )
    .unwrap();
    queue.enqueue("k", &1, EnqueueOptions::new()).unwrap();
    let claimed = claim_one(&queue, "w", "k").unwrap();
    let outcome = queue
        .fail(&claimed.lease, JobFailure::retryable("x"))
        .unwrap();
    // 100 s shortened by 0.2 * 0.5 = 10 %.
    assert_eq!(
        outcome,
        Finished::Retrying {
            at: START.saturating_add(90 * SEC)
        }
    );
}

#[test]
fn permanent_error_fails_at_once() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("k", &1, EnqueueOptions::new().max_attempts(10))
        .unwrap()
        .id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    assert_eq!(
        h.queue
            .fail(&claimed.lease, JobFailure::permanent("bad input"))
            .unwrap(),
        Finished::Failed
    );
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Failed, 1));
}

#[test]
fn last_error_is_redacted_and_cut() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    let message = format!(
        "GET https://u:hunter2@api.test?token=abc123 -> {}",
        "x".repeat(1000)
    );
    h.queue
        .fail(&claimed.lease, JobFailure::retryable(message))
        .unwrap();
    let error = h.queue.get(id).unwrap().unwrap().last_error.unwrap();
    assert!(
        !error.contains("hunter2") && !error.contains("abc123"),
        "{error}"
    );
    assert_eq!(error.chars().count(), 500);
}

// ===== schemas =====

#[derive(Deserialize)]
#[allow(dead_code)]
struct Resize {
    width: u32,
}

#[test]
fn bad_payload_is_refused_at_enqueue_when_the_kind_is_known() {
    let h = Harness::new();
    h.queue
        .register_kind("resize", KindSpec::new().payload(Schema::of::<Resize>()));
    let err = h
        .queue
        .enqueue("resize", &json!({"width": "wide"}), EnqueueOptions::new())
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidPayload { kind, .. } if kind == "resize"),
        "{err}"
    );
    assert!(h.queue.counts().unwrap().is_empty());
}

#[test]
fn bad_payload_written_elsewhere_fails_at_once_when_claimed() {
    let h = Harness::new();
    // Another process without the schema wrote it.
    let id = h
        .second_queue()
        .enqueue(
            "resize",
            &json!({"width": -1}),
            EnqueueOptions::new().max_attempts(5),
        )
        .unwrap()
        .id;
    h.queue
        .register_kind("resize", KindSpec::new().payload(Schema::of::<Resize>()));
    h.take_events();
    assert!(claim_one(&h.queue, "w", "resize").is_none());
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Failed, 1));
    assert!(job.last_error.unwrap().starts_with("invalid payload"));
    let moves: Vec<_> = h.take_events().iter().map(|e| (e.from, e.to)).collect();
    assert_eq!(
        moves,
        vec![
            (Some(JobStatus::Queued), JobStatus::Running),
            (Some(JobStatus::Running), JobStatus::Failed)
        ]
    );
}

#[test]
fn result_that_does_not_fit_its_schema_fails_the_attempt() {
    let h = Harness::new();
    h.queue.register_kind(
        "count",
        KindSpec::new().result(Schema::of::<u64>()).max_attempts(2),
    );
    let id = h
        .queue
        .enqueue("count", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let claimed = claim_one(&h.queue, "w", "count").unwrap();
    let err = h
        .queue
        .complete(&claimed.lease, Some(json!("many")))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResult { kind, .. } if kind == "count"),
        "{err}"
    );
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Queued, "retried: attempts remain");
    assert_eq!(job.result, None);
    assert!(job.last_error.unwrap().contains("invalid result"));

    h.advance(Duration::from_secs(3600));
    let claimed = claim_one(&h.queue, "w", "count").unwrap();
    assert_eq!(
        h.queue.complete(&claimed.lease, Some(json!(7))).unwrap(),
        Finished::Succeeded
    );
    assert_eq!(h.queue.get(id).unwrap().unwrap().result, Some(json!(7)));
}
