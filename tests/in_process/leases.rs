//! At least once, also on the last attempt: a job whose worker died (its lease ran
//! out) runs again whatever its attempt count, the lost attempt not counted against
//! `max_attempts` (attempt numbers still count every start), and only a run of
//! expiries in a row (three by default, set per kind) ends it as failed, saying the
//! worker died. On the fake clock; nothing here sleeps.

use crate::common;

use std::time::Duration;

use common::Harness;
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobFailure, JobStatus, Queue, DEFAULT_MAX_LEASE_EXPIRIES,
};

const SEC: Duration = Duration::from_secs(1);

fn claim(queue: &Queue, worker: &str) -> Option<tauri_plugin_jobs::queue::ClaimedJob> {
    queue
        .claim(&ClaimRequest::new(worker, ["k"]).lease(30 * SEC))
        .unwrap()
        .pop()
}

/// The worker holding the job dies: its lease runs out and a sweep reclaims it.
fn die(h: &Harness) {
    h.advance(31 * SEC);
    h.queue.reclaim_expired().unwrap();
}

#[test]
fn a_job_on_its_last_attempt_runs_again_when_its_worker_dies() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("k", &1, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    claim(&h.queue, "dies").unwrap();
    die(&h);
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Queued, "it runs again");
    assert_eq!(job.attempts, 1, "attempts count every start");
    let again = claim(&h.queue, "lives").expect("claimable at once");
    assert_eq!(again.lease.attempt, 2, "attempt numbers never repeat");
    // It may still fail on its own: the lost attempt is not counted against it.
    h.queue
        .fail(&again.lease, JobFailure::retryable("once"))
        .unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Failed,
        "its one counted attempt failed"
    );
    let id = h
        .queue
        .enqueue("k", &2, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    claim(&h.queue, "dies").unwrap();
    die(&h);
    let again = claim(&h.queue, "lives").unwrap();
    h.queue.complete(&again.lease, None).unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}

#[test]
fn a_job_that_kills_its_worker_every_time_fails_after_a_run_of_expiries() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    for expiry in 1..=DEFAULT_MAX_LEASE_EXPIRIES {
        claim(&h.queue, "dies").expect("claimable");
        die(&h);
        let job = h.queue.get(id).unwrap().unwrap();
        if expiry < DEFAULT_MAX_LEASE_EXPIRIES {
            assert_eq!(job.status, JobStatus::Queued, "expiry {expiry}");
        } else {
            assert_eq!(job.status, JobStatus::Failed);
            let error = job.last_error.unwrap();
            assert!(error.contains("died 3 times in a row"), "{error}");
            assert!(job.finished_at.is_some());
        }
    }
    // Counted with the other failed jobs.
    let counts = h.queue.counts().unwrap();
    assert!(counts
        .iter()
        .any(|c| c.kind == "k" && c.status == JobStatus::Failed && c.count == 1));
}

#[test]
fn the_run_starts_over_when_an_attempt_ends_by_its_handler() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("k", &1, EnqueueOptions::new().max_attempts(10))
        .unwrap()
        .id;
    for _ in 0..5 {
        // Two deaths, then an attempt that fails on its own: never three in a row.
        for _ in 0..2 {
            claim(&h.queue, "dies").unwrap();
            die(&h);
        }
        let lease = claim(&h.queue, "lives").unwrap().lease;
        h.queue
            .fail(&lease, JobFailure::retryable("flaky"))
            .unwrap();
        h.advance(3600 * SEC);
        assert_eq!(h.queue.get(id).unwrap().unwrap().status, JobStatus::Queued);
    }
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.attempts, 15, "attempts count every start");
    assert_eq!(
        job.status,
        JobStatus::Queued,
        "five counted failures of ten allowed"
    );
}

#[test]
fn a_kind_stores_its_own_number_and_every_process_obeys_it() {
    let h = Harness::new();
    let other = h.second_queue();
    other.set_kind_max_lease_expiries("k", Some(1)).unwrap();
    assert_eq!(h.queue.kind_max_lease_expiries("k").unwrap(), Some(1));
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    claim(&h.queue, "dies").unwrap();
    die(&h);
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert!(job.last_error.unwrap().contains("died 1 times"));
    assert!(h.queue.set_kind_max_lease_expiries("k", Some(0)).is_err());
    // Retried by hand, it gets a fresh run.
    h.queue.retry_now(id).unwrap();
    assert_eq!(h.queue.get(id).unwrap().unwrap().status, JobStatus::Queued);
}

#[test]
fn a_cancel_asked_for_before_the_worker_died_ends_it_cancelled() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    claim(&h.queue, "dies").unwrap();
    h.queue.cancel(id).unwrap();
    die(&h);
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Cancelled
    );
}
