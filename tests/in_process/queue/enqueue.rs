//! Enqueue and dedupe: every field stored, batches all or nothing, bad arguments typed.

use super::*;

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

/// A batch stores every field of each job, and gives out ids in its order, whether a
/// job is plain (inserted many to a statement) or not (alone, in its place), and
/// each is heard of as a queued job.
#[test]
fn a_batch_of_plain_and_keyed_jobs_stores_each_in_order() {
    let h = Harness::new();
    let mut events = h.queue.bus().subscribe(256);
    let plain = |i: i64| {
        NewJob::new("bulk", json!({ "n": i })).options(
            EnqueueOptions::new()
                .priority(Priority(i as i32))
                .delay(Duration::from_millis(i as u64))
                .max_attempts(1 + i as u32)
                .timeout(Duration::from_secs(1 + i as u64))
                .actor(if i % 2 == 0 {
                    Actor::User
                } else {
                    Actor::Agent
                }),
        )
    };
    // 40 plain (a statement of 32, then 8 one by one), a keyed one, 29 plain.
    let batch: Vec<NewJob> = (0..40)
        .map(plain)
        .chain([NewJob::new("bulk", json!("keyed")).options(EnqueueOptions::new().dedupe_key("k"))])
        .chain((41..70).map(plain))
        .collect();
    let done = h.queue.enqueue_batch(batch).unwrap();
    assert_eq!(done.len(), 70);
    assert!(done.iter().all(|enqueued| enqueued.created));
    assert!(done.windows(2).all(|w| w[1].id.raw() == w[0].id.raw() + 1));
    for (i, enqueued) in done.iter().enumerate() {
        let job = h.queue.get(enqueued.id).unwrap().unwrap();
        let i = i as i64;
        if i == 40 {
            assert_eq!(job.payload, json!("keyed"));
            assert_eq!(job.dedupe_key.as_deref(), Some("k"));
            continue;
        }
        assert_eq!(job.kind, "bulk");
        assert_eq!(job.payload, json!({ "n": i }));
        assert_eq!(job.status, JobStatus::Queued);
        assert_eq!(job.priority, Priority(i as i32));
        assert_eq!(
            job.run_at,
            START.saturating_add(Duration::from_millis(i as u64))
        );
        assert_eq!(job.max_attempts, 1 + i as u32);
        assert_eq!(job.timeout_ms, Some(1000 * (1 + i as u64)));
        let actor = if i % 2 == 0 {
            Actor::User
        } else {
            Actor::Agent
        };
        assert_eq!(job.actor, actor);
        assert_eq!((job.created_at, job.updated_at), (START, START));
        assert_eq!((job.attempts, job.dedupe_key, job.parent), (0, None, None));
    }
    let mut heard = Vec::new();
    while let Some(event) = events.try_next() {
        heard.push(event);
    }
    assert_eq!(heard.len(), 70, "one event a job: {heard:?}");
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
