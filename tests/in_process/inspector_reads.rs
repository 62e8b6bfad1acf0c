//! What the inspector reads, kept right: counts of finished jobs are kept by the writes
//! themselves (not read from the rows), so every way a job moves is driven here and
//! the counts compared with a full scan of the file; and pages under every filter
//! match what filtering every job by hand gives.

use crate::common;

use std::time::Duration;

use common::Harness;
use serde_json::json;
use tauri_plugin_jobs::queue::{
    Actor, CancelOutcome, ClaimRequest, EnqueueOptions, JobFailure, JobFilter, JobId, JobStatus,
    Outcome, Queue,
};

const SEC: Duration = Duration::from_secs(1);

/// Counts by a full scan, on a connection of its own.
fn scanned(h: &Harness) -> Vec<(String, String, u32)> {
    let conn = rusqlite::Connection::open(h.dir.path().join("raw.db")).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT kind, status, count(*) FROM jobs GROUP BY kind, status ORDER BY kind, status",
        )
        .unwrap();
    let rows = statement
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

fn kept(queue: &Queue) -> Vec<(String, String, u32)> {
    queue
        .counts()
        .unwrap()
        .into_iter()
        .map(|c| (c.kind, c.status.as_str().to_owned(), c.count))
        .collect()
}

fn claim(queue: &Queue, kind: &str, n: u32) -> Vec<tauri_plugin_jobs::queue::ClaimedJob> {
    queue
        .claim(&ClaimRequest::new("w", [kind]).lease(30 * SEC).max_jobs(n))
        .unwrap()
}

#[test]
fn counts_follow_every_way_a_job_moves() {
    let h = Harness::new();
    let q = &h.queue;
    let check = |step: &str| assert_eq!(kept(q), scanned(&h), "after {step}");
    for kind in ["a", "b"] {
        for i in 0..6 {
            q.enqueue(kind, &json!(i), EnqueueOptions::new().max_attempts(2))
                .unwrap();
        }
    }
    check("enqueue");
    let mut a = claim(q, "a", 6);
    check("claim");
    q.complete(&a.pop().unwrap().lease, Some(json!("ok")))
        .unwrap();
    q.fail(&a.pop().unwrap().lease, JobFailure::permanent("no"))
        .unwrap();
    q.fail(&a.pop().unwrap().lease, JobFailure::retryable("again"))
        .unwrap();
    q.finish(&a.pop().unwrap().lease, Outcome::Released)
        .unwrap();
    let running = a.pop().unwrap();
    assert_eq!(q.cancel(running.job.id).unwrap(), CancelOutcome::Requested);
    q.finish(&running.lease, Outcome::Cancelled).unwrap();
    // A release of a job whose cancel was asked for ends cancelled.
    let released = a.pop().unwrap();
    q.cancel(released.job.id).unwrap();
    q.finish(&released.lease, Outcome::Released).unwrap();
    check("complete, fail, retry, release, cancel");
    // A batch of outcomes in one transaction.
    let b = claim(q, "b", 3);
    q.finish_batch(
        b.iter()
            .map(|c| (c.lease.clone(), Outcome::Succeeded(None)))
            .collect(),
    )
    .unwrap();
    check("a batch");
    // A queued job cancelled; a failed job retried now, then deleted after it succeeds.
    let queued = q
        .list(&JobFilter::new().kind("b").status(JobStatus::Queued))
        .unwrap();
    q.cancel(queued[0].id).unwrap();
    let failed = q.list(&JobFilter::new().status(JobStatus::Failed)).unwrap();
    q.retry_now(failed[0].id).unwrap();
    check("cancel queued, retry now");
    let again = claim(q, "a", 10);
    for c in &again {
        q.complete(&c.lease, None).unwrap();
    }
    q.delete(failed[0].id).unwrap();
    check("delete");
    // An unreadable row is failed by the claim that finds it.
    let bad = q.enqueue("c", &json!(1), EnqueueOptions::new()).unwrap().id;
    {
        let conn = rusqlite::Connection::open(h.dir.path().join("raw.db")).unwrap();
        conn.execute(
            "UPDATE jobs SET payload = '{not json' WHERE id = ?1",
            [bad.raw()],
        )
        .unwrap();
    }
    let _ = q.claim(&ClaimRequest::new("w", ["c"]).lease(30 * SEC));
    check("an unreadable row failed");
    // Workers that die: one job back to the queue, one cancelled, one failed after
    // its last allowed expiry.
    q.set_kind_max_lease_expiries("d", Some(1)).unwrap();
    for kind in ["c", "d", "d"] {
        q.enqueue(kind, &json!(1), EnqueueOptions::new()).unwrap();
    }
    let lost = claim(q, "c", 1);
    let cancelled = claim(q, "d", 1);
    q.cancel(cancelled[0].job.id).unwrap();
    let dead = claim(q, "d", 1);
    assert_eq!((lost.len(), dead.len()), (1, 1));
    h.clock.advance(Duration::from_secs(31));
    assert_eq!(q.reclaim_expired().unwrap(), 3);
    check("expired leases");
    // Prune takes finished jobs away.
    h.clock.advance(Duration::from_secs(3600));
    assert!(q.prune(Duration::from_secs(60)).unwrap() > 0);
    check("prune");
    // Nothing finished left of a kind: it drops out of the counts.
    assert!(kept(q).iter().all(|(_, _, n)| *n > 0));
}

#[test]
fn a_page_under_each_filter_is_what_filtering_by_hand_gives() {
    let h = Harness::new();
    let q = &h.queue;
    let parent = q.enqueue("p", &0, EnqueueOptions::new()).unwrap().id;
    for i in 0..120u32 {
        let kind = ["a", "b", "c"][(i % 3) as usize];
        let actor = [Actor::User, Actor::Agent, Actor::System][(i % 5 % 3) as usize];
        let mut options = EnqueueOptions::new().actor(actor).max_attempts(1);
        if i % 7 == 0 {
            options = options.parent(parent);
        }
        q.enqueue(kind, &json!(i), options).unwrap();
    }
    // Finish some of each kind every way.
    for kind in ["a", "b", "c"] {
        let claimed = claim(q, kind, 30);
        for (n, c) in claimed.iter().enumerate() {
            match n % 4 {
                0 => q.complete(&c.lease, None).map(|_| ()).unwrap(),
                1 => q
                    .fail(&c.lease, JobFailure::permanent("x"))
                    .map(|_| ())
                    .unwrap(),
                2 => q.finish(&c.lease, Outcome::Cancelled).map(|_| ()).unwrap(),
                _ => {}
            }
        }
    }
    let every = q.list(&JobFilter::new().limit(1000)).unwrap();
    assert_eq!(every.len(), 121);
    let middle = JobId::from_raw(70);
    let statuses = [
        None,
        Some(JobStatus::Queued),
        Some(JobStatus::Running),
        Some(JobStatus::Succeeded),
        Some(JobStatus::Failed),
        Some(JobStatus::Cancelled),
    ];
    for status in statuses {
        for kind in [None, Some("b")] {
            for actor in [None, Some(Actor::Agent)] {
                for with_parent in [false, true] {
                    for before in [None, Some(middle)] {
                        let mut filter = JobFilter::new().limit(10);
                        if let Some(status) = status {
                            filter = filter.status(status);
                        }
                        if let Some(kind) = kind {
                            filter = filter.kind(kind);
                        }
                        if let Some(actor) = actor {
                            filter = filter.actor(actor);
                        }
                        if with_parent {
                            filter = filter.parent(parent);
                        }
                        if let Some(before) = before {
                            filter = filter.before(before);
                        }
                        let page: Vec<JobId> =
                            q.list(&filter).unwrap().iter().map(|j| j.id).collect();
                        let by_hand: Vec<JobId> = every
                            .iter()
                            .filter(|j| status.is_none_or(|s| j.status == s))
                            .filter(|j| kind.is_none_or(|k| j.kind == k))
                            .filter(|j| actor.is_none_or(|a| j.actor == a))
                            .filter(|j| !with_parent || j.parent == Some(parent))
                            .filter(|j| before.is_none_or(|b| j.id < b))
                            .take(10)
                            .map(|j| j.id)
                            .collect();
                        assert_eq!(page, by_hand, "{filter:?}");
                    }
                }
            }
        }
    }
}
