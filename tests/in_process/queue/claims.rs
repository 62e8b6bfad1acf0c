//! Claim order (priority, then runnable time) and caps across claims and connections.

use super::*;

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

#[test]
fn a_queued_job_of_a_full_kind_says_it_waits_for_a_slot_and_who_holds_it() {
    use tauri_plugin_jobs::queue::WaitingFor;
    let h = Harness::new();
    h.queue.set_kind_limit("gpu", Some(2)).unwrap();
    let held: Vec<JobId> = (0..2)
        .map(|i| {
            h.queue
                .enqueue("gpu", &i, EnqueueOptions::new())
                .unwrap()
                .id
        })
        .collect();
    let waiting = h
        .queue
        .enqueue("gpu", &2, EnqueueOptions::new())
        .unwrap()
        .id;
    let later = h
        .queue
        .enqueue("gpu", &3, EnqueueOptions::new().delay(3600 * SEC))
        .unwrap()
        .id;
    assert_eq!(h.queue.get(waiting).unwrap().unwrap().waiting_for, vec![]);

    let request = ClaimRequest::new("w", ["gpu"]).lease(30 * SEC).max_jobs(4);
    assert_eq!(h.queue.claim(&request).unwrap().len(), 2);
    let lease_end = START.saturating_add(30 * SEC);
    let slot = |stale| WaitingFor::Slot {
        cap: 2,
        running: 2,
        stale,
        lease_ends_at: Some(lease_end),
    };
    let job = h.queue.get(waiting).unwrap().unwrap();
    assert_eq!(job.waiting_for, vec![slot(0)]);
    assert_eq!(
        job.waiting_for[0].to_string(),
        "a free slot (2 running, cap 2)"
    );
    // A job not due yet waits for its time, not for a slot.
    assert_eq!(h.queue.get(later).unwrap().unwrap().waiting_for, vec![]);
    let counts = h.queue.counts().unwrap();
    let queued = counts
        .iter()
        .find(|c| c.kind == "gpu" && c.status == JobStatus::Queued)
        .unwrap();
    assert_eq!(queued.waiting_for, vec![slot(0)]);

    // The holder stopped renewing: both leases ran out, not swept yet.
    h.advance(31 * SEC);
    let job = h.queue.get(waiting).unwrap().unwrap();
    assert_eq!(job.waiting_for, vec![slot(2)]);
    assert_eq!(
        job.waiting_for[0].to_string(),
        "a free slot (2 running, cap 2; 2 held by a worker that stopped answering)"
    );
    // Swept, and the one runnable first claimed: a slot is still free, so the jobs
    // that came back wait for nothing.
    let taken = h.queue.claim(&request.clone().max_jobs(1)).unwrap();
    assert_eq!(taken[0].job.id, waiting);
    for id in held {
        assert_eq!(h.queue.get(id).unwrap().unwrap().waiting_for, vec![]);
    }
}
