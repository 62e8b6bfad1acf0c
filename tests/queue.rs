//! The durable queue's behaviour, on a fake clock. Nothing here sleeps.

mod common;

use std::time::Duration;

use common::{Harness, START};
use serde::Deserialize;
use serde_json::json;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::queue::{
    Actor, CancelOutcome, ClaimRequest, EnqueueOptions, Finished, JobFailure, JobFilter, JobId,
    JobStatus, KindSpec, NewJob, Outcome, Priority, Queue, QueueOptions, RetryPolicy, Schema,
};
use tauri_plugin_jobs::Error;

const SEC: Duration = Duration::from_secs(1);

fn claim_one(
    queue: &Queue,
    worker: &str,
    kind: &str,
) -> Option<tauri_plugin_jobs::queue::ClaimedJob> {
    let mut claimed = queue
        .claim(&ClaimRequest::new(worker, [kind]).lease(30 * SEC))
        .unwrap();
    assert!(claimed.len() <= 1);
    claimed.pop()
}

fn status(queue: &Queue, id: JobId) -> JobStatus {
    queue.get(id).unwrap().expect("job exists").status
}

// ===== enqueue and dedupe =====

#[test]
fn enqueue_stores_every_field() {
    let h = Harness::new();
    let parent = h
        .queue
        .enqueue("parent", &json!({}), EnqueueOptions::new())
        .unwrap();
    let job = h
        .queue
        .enqueue(
            "thumb",
            &json!({"path": "a.png"}),
            EnqueueOptions::new()
                .priority(Priority::USER)
                .dedupe_key("a.png")
                .max_attempts(3)
                .parent(parent.id)
                .actor(Actor::User),
        )
        .unwrap();
    let stored = h.queue.get(job.id).unwrap().unwrap();
    assert_eq!(stored.kind, "thumb");
    assert_eq!(stored.payload, json!({"path": "a.png"}));
    assert_eq!(stored.status, JobStatus::Queued);
    assert_eq!(stored.priority, Priority::USER);
    assert_eq!(stored.run_at, START);
    assert_eq!(stored.attempts, 0);
    assert_eq!(stored.max_attempts, 3);
    assert_eq!(stored.dedupe_key.as_deref(), Some("a.png"));
    assert_eq!(stored.parent, Some(parent.id));
    assert_eq!(stored.actor, Actor::User);
    assert_eq!(stored.created_at, START);
    assert_eq!(stored.finished_at, None);
}

#[test]
fn dedupe_returns_the_existing_job_until_it_finishes() {
    let h = Harness::new();
    let opts = || EnqueueOptions::new().dedupe_key("inbox");
    let first = h.queue.enqueue("sync", &1, opts()).unwrap();
    let second = h.queue.enqueue("sync", &2, opts()).unwrap();
    assert!(first.created);
    assert!(!second.created);
    assert_eq!(first.id, second.id);
    // The same key on another kind is a different job.
    assert!(h.queue.enqueue("other", &1, opts()).unwrap().created);

    // Still taken while running.
    let claimed = claim_one(&h.queue, "w", "sync").unwrap();
    assert_eq!(h.queue.enqueue("sync", &3, opts()).unwrap().id, first.id);
    // Free again once it finishes.
    h.queue.complete(&claimed.lease, None).unwrap();
    let third = h.queue.enqueue("sync", &4, opts()).unwrap();
    assert!(third.created);
    assert_ne!(third.id, first.id);
    assert_eq!(h.queue.get(first.id).unwrap().unwrap().payload, json!(1));
}

#[test]
fn batch_enqueue_is_all_or_nothing() {
    let h = Harness::new();
    let done = h
        .queue
        .enqueue_batch((0..100).map(|i| NewJob::new("bulk", json!(i))))
        .unwrap();
    assert_eq!(done.len(), 100);
    assert!(done.windows(2).all(|w| w[0].id < w[1].id));

    let bad = vec![
        NewJob::new("bulk", json!("fine")),
        NewJob::new("bulk", json!("orphan"))
            .options(EnqueueOptions::new().parent(JobId::from_raw(999_999))),
    ];
    assert!(matches!(
        h.queue.enqueue_batch(bad),
        Err(Error::JobNotFound(id)) if id == JobId::from_raw(999_999)
    ));
    let total: u32 = h.queue.counts().unwrap().iter().map(|c| c.count).sum();
    assert_eq!(total, 100, "the failed batch added nothing");
}

#[test]
fn bad_arguments_are_typed_errors_naming_the_argument() {
    let h = Harness::new();
    fn arg<T: std::fmt::Debug>(result: Result<T, Error>) -> &'static str {
        match result {
            Err(Error::InvalidArgument { name, .. }) => name,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }
    assert_eq!(arg(h.queue.enqueue("", &1, EnqueueOptions::new())), "kind");
    assert_eq!(
        arg(h.queue.enqueue(&"k".repeat(200), &1, EnqueueOptions::new())),
        "kind"
    );
    assert_eq!(
        arg(h
            .queue
            .enqueue("k", &1, EnqueueOptions::new().dedupe_key(""))),
        "dedupe_key"
    );
    assert_eq!(
        arg(h
            .queue
            .enqueue("k", &1, EnqueueOptions::new().max_attempts(0))),
        "max_attempts"
    );
    assert_eq!(arg(h.queue.claim(&ClaimRequest::new("", ["k"]))), "worker");
    assert_eq!(
        arg(h.queue.claim(&ClaimRequest::new("w", Vec::<String>::new()))),
        "kinds"
    );
    assert_eq!(
        arg(h
            .queue
            .claim(&ClaimRequest::new("w", ["k"]).lease(Duration::ZERO))),
        "lease"
    );
    assert_eq!(arg(h.queue.list(&JobFilter::new().limit(0))), "limit");
}

#[test]
fn kinds_and_keys_full_of_quotes_are_stored_verbatim() {
    let h = Harness::new();
    let kind = "k'; DROP TABLE jobs; --\"";
    let key = "\"'`%_\\ \u{0}";
    let job = h
        .queue
        .enqueue(kind, &json!("x"), EnqueueOptions::new().dedupe_key(key))
        .unwrap();
    let stored = h.queue.get(job.id).unwrap().unwrap();
    assert_eq!(stored.kind, kind);
    assert_eq!(stored.dedupe_key.as_deref(), Some(key));
    assert!(claim_one(&h.queue, "w", kind).is_some());
}

#[test]
fn oversized_payload_is_refused_and_nothing_stored() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new().max_payload_bytes(64),
    )
    .unwrap();
    let err = queue
        .enqueue("k", &"x".repeat(100), EnqueueOptions::new())
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidPayload { kind, reason } if kind == "k" && reason.contains("64")),
        "{err}"
    );
    assert!(queue.counts().unwrap().is_empty());
}

// ===== claim order =====

#[test]
fn higher_priority_first_then_first_runnable() {
    let h = Harness::new();
    let backfill = h
        .queue
        .enqueue(
            "k",
            &"backfill",
            EnqueueOptions::new().priority(Priority::BACKFILL),
        )
        .unwrap();
    // Enqueued later but runnable earlier than `early_user`'s sibling below.
    let late_user = h
        .queue
        .enqueue(
            "k",
            &"late",
            EnqueueOptions::new()
                .priority(Priority::USER)
                .run_at(START.saturating_add(5 * SEC)),
        )
        .unwrap();
    let early_user = h
        .queue
        .enqueue(
            "k",
            &"early",
            EnqueueOptions::new().priority(Priority::USER),
        )
        .unwrap();
    let ingest = h
        .queue
        .enqueue("k", &"ingest", EnqueueOptions::new())
        .unwrap();

    // `late_user` is not runnable yet.
    let order: Vec<JobId> =
        std::iter::from_fn(|| claim_one(&h.queue, "w", "k").map(|c| c.job.id)).collect();
    assert_eq!(order, vec![early_user.id, ingest.id, backfill.id]);

    h.advance(5 * SEC);
    assert_eq!(claim_one(&h.queue, "w", "k").unwrap().job.id, late_user.id);
}

#[test]
fn same_priority_runs_in_runnable_order_not_insert_order() {
    let h = Harness::new();
    let later = h
        .queue
        .enqueue("k", &1, EnqueueOptions::new().delay(2 * SEC))
        .unwrap();
    let sooner = h
        .queue
        .enqueue("k", &2, EnqueueOptions::new().delay(SEC))
        .unwrap();
    h.advance(3 * SEC);
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["k"]).max_jobs(10))
        .unwrap();
    let ids: Vec<JobId> = claimed.iter().map(|c| c.job.id).collect();
    assert_eq!(ids, vec![sooner.id, later.id]);
}

#[test]
fn claim_only_takes_the_kinds_asked_for() {
    let h = Harness::new();
    h.queue.enqueue("mine", &1, EnqueueOptions::new()).unwrap();
    let theirs = h
        .queue
        .enqueue("theirs", &1, EnqueueOptions::new())
        .unwrap();
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["mine"]).max_jobs(10))
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].job.kind, "mine");
    assert_eq!(status(&h.queue, theirs.id), JobStatus::Queued);
}

#[test]
fn claim_sets_lease_and_counts_the_attempt() {
    let h = Harness::new();
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_one(&h.queue, "worker-7", "k").unwrap();
    assert_eq!(claimed.lease.attempt, 1);
    assert_eq!(claimed.lease.expires_at, START.saturating_add(30 * SEC));
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Running);
    assert_eq!(job.attempts, 1);
    assert_eq!(job.lease_owner.as_deref(), Some("worker-7"));
    assert_eq!(job.lease_expires_at, Some(claimed.lease.expires_at));
}

// ===== caps =====

#[test]
fn cap_holds_within_one_claim_and_across_claims() {
    let h = Harness::new();
    for i in 0..10 {
        h.queue.enqueue("embed", &i, EnqueueOptions::new()).unwrap();
        h.queue.enqueue("parse", &i, EnqueueOptions::new()).unwrap();
    }
    let request = ClaimRequest::new("w", ["embed", "parse"])
        .limit("embed", 2)
        .max_jobs(8);
    let first = h.queue.claim(&request).unwrap();
    let embeds = first.iter().filter(|c| c.job.kind == "embed").count();
    assert_eq!(first.len(), 8);
    assert_eq!(embeds, 2);
    let second = h.queue.claim(&request).unwrap();
    assert!(second.iter().all(|c| c.job.kind == "parse"));
    assert_eq!(
        second.len(),
        4,
        "the four parse jobs left; embed is at its cap"
    );

    // Finishing one embed frees exactly one slot.
    let embed = first.iter().find(|c| c.job.kind == "embed").unwrap();
    h.queue.complete(&embed.lease, None).unwrap();
    let third = h.queue.claim(&request).unwrap();
    assert_eq!(third.iter().filter(|c| c.job.kind == "embed").count(), 1);
}

#[test]
fn cap_holds_across_two_connections_on_one_file() {
    let h = Harness::new();
    let other = h.second_queue();
    for i in 0..6 {
        h.queue.enqueue("gpu", &i, EnqueueOptions::new()).unwrap();
    }
    let request = |worker: &str| {
        ClaimRequest::new(worker, ["gpu"])
            .limit("gpu", 1)
            .max_jobs(4)
    };
    let a = h.queue.claim(&request("a")).unwrap();
    let b = other.claim(&request("b")).unwrap();
    assert_eq!(a.len(), 1);
    assert!(
        b.is_empty(),
        "the cap counts the other connection's running job"
    );
    h.queue.complete(&a[0].lease, None).unwrap();
    assert_eq!(other.claim(&request("b")).unwrap().len(), 1);
    assert!(h.queue.claim(&request("a")).unwrap().is_empty());
}

#[test]
fn a_cap_of_zero_pauses_a_kind() {
    let h = Harness::new();
    h.queue
        .enqueue("paused", &1, EnqueueOptions::new())
        .unwrap();
    assert!(h
        .queue
        .claim(&ClaimRequest::new("w", ["paused"]).limit("paused", 0))
        .unwrap()
        .is_empty());
}

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

trait Now {
    fn clock_now(&self) -> Timestamp;
}

impl Now for Harness {
    fn clock_now(&self) -> Timestamp {
        use tauri_plugin_jobs::clock::Clock;
        self.clock.now()
    }
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

// ===== reads and retention =====

#[test]
fn list_filters_and_pages_newest_first() {
    let h = Harness::new();
    let parent = h
        .queue
        .enqueue("parent", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let children: Vec<JobId> = (0..5)
        .map(|i| {
            h.queue
                .enqueue("child", &i, EnqueueOptions::new().parent(parent))
                .unwrap()
                .id
        })
        .collect();
    let page1 = h
        .queue
        .list(&JobFilter::new().parent(parent).limit(3))
        .unwrap();
    let ids1: Vec<JobId> = page1.iter().map(|j| j.id).collect();
    assert_eq!(ids1, vec![children[4], children[3], children[2]]);
    let page2 = h
        .queue
        .list(&JobFilter::new().parent(parent).limit(3).before(children[2]))
        .unwrap();
    let ids2: Vec<JobId> = page2.iter().map(|j| j.id).collect();
    assert_eq!(ids2, vec![children[1], children[0]]);

    claim_one(&h.queue, "w", "child").unwrap();
    let running = h
        .queue
        .list(&JobFilter::new().status(JobStatus::Running))
        .unwrap();
    assert_eq!(running.len(), 1);
    assert_eq!(
        h.queue
            .list(&JobFilter::new().kind("parent"))
            .unwrap()
            .len(),
        1
    );

    let counts = h.queue.counts().unwrap();
    let count = |kind: &str, status: JobStatus| {
        counts
            .iter()
            .find(|c| c.kind == kind && c.status == status)
            .map_or(0, |c| c.count)
    };
    assert_eq!(count("child", JobStatus::Queued), 4);
    assert_eq!(count("child", JobStatus::Running), 1);
    assert_eq!(count("parent", JobStatus::Queued), 1);
}

#[test]
fn prune_deletes_only_old_finished_jobs() {
    let h = Harness::new();
    let old_done = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_one(&h.queue, "w", "k").unwrap();
    h.queue.complete(&claimed.lease, None).unwrap();
    let still_queued = h
        .queue
        .enqueue(
            "k",
            &2,
            EnqueueOptions::new().delay(Duration::from_secs(86_400 * 30)),
        )
        .unwrap()
        .id;
    // Created long ago, finished just now: kept.
    let old_but_late = h
        .queue
        .enqueue(
            "k",
            &4,
            EnqueueOptions::new().delay(Duration::from_secs(86_400 * 7 + 3_600)),
        )
        .unwrap()
        .id;
    h.advance(Duration::from_secs(86_400 * 8));
    let late = claim_one(&h.queue, "w", "k").unwrap();
    assert_eq!(late.job.id, old_but_late);
    h.queue.complete(&late.lease, None).unwrap();
    let recent_done = h
        .queue
        .enqueue("other", &3, EnqueueOptions::new())
        .unwrap()
        .id;
    h.queue.cancel(recent_done).unwrap();

    assert_eq!(h.queue.prune(Duration::from_secs(86_400 * 7)).unwrap(), 1);
    assert!(h.queue.get(old_done).unwrap().is_none());
    assert!(h.queue.get(still_queued).unwrap().is_some());
    assert!(h.queue.get(old_but_late).unwrap().is_some());
    assert!(h.queue.get(recent_done).unwrap().is_some());
}

#[test]
fn prune_works_through_many_batches() {
    let h = Harness::new();
    h.queue
        .enqueue_batch((0..5_000).map(|i| NewJob::new("k", json!(i))))
        .unwrap();
    let ids: Vec<JobId> = h
        .queue
        .list(&JobFilter::new().limit(1))
        .unwrap()
        .iter()
        .map(|j| j.id)
        .collect();
    assert_eq!(ids.len(), 1);
    loop {
        let claimed = h
            .queue
            .claim(&ClaimRequest::new("w", ["k"]).max_jobs(500))
            .unwrap();
        if claimed.is_empty() {
            break;
        }
        let results = h
            .queue
            .finish_batch(
                claimed
                    .into_iter()
                    .map(|c| (c.lease, Outcome::Succeeded(None)))
                    .collect(),
            )
            .unwrap();
        assert!(results.iter().all(|r| matches!(r, Ok(Finished::Succeeded))));
    }
    h.advance(Duration::from_secs(10));
    assert_eq!(h.queue.prune(Duration::from_secs(5)).unwrap(), 5_000);
    assert!(h.queue.counts().unwrap().is_empty());
}

#[test]
fn finish_batch_reports_each_entry_on_its_own() {
    let h = Harness::new();
    for i in 0..3 {
        h.queue.enqueue("k", &i, EnqueueOptions::new()).unwrap();
    }
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["k"]).max_jobs(3))
        .unwrap();
    let mut stale = claimed[2].lease.clone();
    stale.attempt = 99;
    let results = h
        .queue
        .finish_batch(vec![
            (claimed[0].lease.clone(), Outcome::Succeeded(Some(json!(1)))),
            (
                claimed[1].lease.clone(),
                Outcome::Failed(JobFailure::permanent("no")),
            ),
            (stale, Outcome::Succeeded(None)),
        ])
        .unwrap();
    assert!(matches!(results[0], Ok(Finished::Succeeded)));
    assert!(matches!(results[1], Ok(Finished::Failed)));
    assert!(matches!(
        results[2],
        Err(Error::LostLease { attempt: 99, .. })
    ));
    assert_eq!(status(&h.queue, claimed[2].job.id), JobStatus::Running);
}

#[test]
fn expired_leases_are_swept_at_most_once_a_second_per_handle() {
    let h = Harness::new();
    h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap();
    claim_one(&h.queue, "old", "k").unwrap();
    h.advance(30 * SEC - Duration::from_millis(300));
    assert!(
        claim_one(&h.queue, "new", "k").is_none(),
        "swept, nothing expired yet"
    );
    h.advance(Duration::from_millis(500));
    assert!(
        claim_one(&h.queue, "new", "k").is_none(),
        "expired 200 ms ago, but the last sweep was 500 ms ago"
    );
    h.advance(Duration::from_millis(500));
    assert!(
        claim_one(&h.queue, "new", "k").is_some(),
        "the next sweep finds it"
    );
}

#[test]
fn finish_and_claim_frees_the_cap_for_the_claim_in_the_same_transaction() {
    let h = Harness::new();
    for i in 0..3 {
        h.queue.enqueue("gpu", &i, EnqueueOptions::new()).unwrap();
    }
    let request = ClaimRequest::new("w", ["gpu"]).limit("gpu", 1).max_jobs(5);
    let first = h.queue.claim(&request).unwrap();
    assert_eq!(first.len(), 1);
    let (results, next) = h
        .queue
        .finish_and_claim(
            vec![(first[0].lease.clone(), Outcome::Succeeded(None))],
            Some(&request),
        )
        .unwrap();
    assert!(matches!(results[..], [Ok(Finished::Succeeded)]));
    assert_eq!(
        next.len(),
        1,
        "the finished job's slot is claimed again at once"
    );
    assert_ne!(next[0].job.id, first[0].job.id);
    let (results, none) = h.queue.finish_and_claim(Vec::new(), None).unwrap();
    assert!(results.is_empty() && none.is_empty());
}
