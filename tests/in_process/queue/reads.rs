//! Reads and retention: lists, pruning, batches of outcomes, the sweep and the claim in one transaction.

use super::*;

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

#[test]
fn reads_do_not_wait_for_a_write_of_the_same_handle() {
    use std::sync::mpsc;
    let h = Harness::new();
    let id = h
        .queue
        .enqueue(
            "old",
            &json!({"n": 1}),
            EnqueueOptions::new().payload_version(1),
        )
        .unwrap()
        .id;
    // An upgrade step runs inside the claim's write transaction: it holds it open
    // until the reads below are done.
    let (inside_tx, inside) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let released = std::sync::Mutex::new(released);
    h.queue.register_kind(
        "old",
        KindSpec::new()
            .payload_version(2)
            .upgrade(1, move |old: serde_json::Value| {
                inside_tx.send(()).unwrap();
                released.lock().unwrap().recv().unwrap();
                Ok::<_, String>(old)
            }),
    );
    let claimer = {
        let queue = h.queue.clone();
        std::thread::spawn(move || claim_one(&queue, "w", "old").is_some())
    };
    inside.recv().unwrap();
    // The write is open on this handle: reads answer, and see what was committed.
    let (read_tx, read) = mpsc::channel();
    let queue = h.queue.clone();
    std::thread::spawn(move || {
        let seen = (
            status(&queue, id),
            queue.counts().unwrap().len(),
            queue.list(&JobFilter::new()).unwrap().len(),
        );
        let _ = read_tx.send(seen);
    });
    let seen = read
        .recv_timeout(Duration::from_secs(10))
        .expect("the reads answered while the write was open");
    assert_eq!(seen, (JobStatus::Queued, 1, 1));
    release.send(()).unwrap();
    assert!(claimer.join().unwrap());
    assert_eq!(status(&h.queue, id), JobStatus::Running);
}
