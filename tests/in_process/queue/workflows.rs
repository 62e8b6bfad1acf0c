//! Workflows: jobs that wait for others (fan-out, fan-in), on the fake clock.

use super::*;
use tauri_plugin_jobs::queue::{ClaimedJob, DependencyFailure, JobFailure, WaitingFor, Workflow};

pub(super) fn claim_all(queue: &Queue, kinds: &[&str]) -> Vec<ClaimedJob> {
    queue
        .claim(
            &ClaimRequest::new("w", kinds.iter().copied())
                .lease(30 * SEC)
                .max_jobs(100),
        )
        .unwrap()
}

const KINDS: [&str; 3] = ["import", "embed", "reindex"];

pub(super) fn import(pieces: u32) -> Workflow {
    Workflow::new(NewJob::new("import", json!({"mailbox": "inbox"})))
        .pieces((0..pieces).map(|n| NewJob::new("embed", json!({ "message": n }))))
        .then(NewJob::new("reindex", json!({})))
}

#[test]
fn the_final_job_runs_once_after_the_last_piece_across_two_handles() {
    let h = Harness::new();
    let (a, b) = (h.queue.clone(), h.second_queue());
    let ids = a.enqueue_workflow(import(6)).unwrap();
    assert_eq!(ids.pieces.len(), 6);
    let reindex = ids.then[0];
    let waiting = a.get(reindex).unwrap().unwrap();
    assert_eq!(waiting.parent, Some(ids.parent));
    assert_eq!(waiting.waiting_on_jobs, 6);
    assert_eq!(waiting.waiting_for, [WaitingFor::Jobs { left: 6 }]);

    // Each handle takes some; the final job is claimed by neither meanwhile.
    let mut seen_final = 0;
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds < 20, "the workflow never ended");
        let handle = if rounds % 2 == 0 { &a } else { &b };
        let claimed = handle
            .claim(&ClaimRequest::new("w", KINDS).lease(30 * SEC).max_jobs(2))
            .unwrap();
        if claimed.is_empty() {
            break;
        }
        for job in claimed {
            if job.job.id == reindex {
                seen_final += 1;
                // Every piece ended before it started.
                let state = a.workflow(ids.parent).unwrap().unwrap();
                let embedded = state
                    .pieces
                    .iter()
                    .find(|(s, _)| *s == JobStatus::Succeeded)
                    .map_or(0, |(_, n)| *n);
                assert_eq!(embedded, 6, "{state:?}");
            }
            handle.complete(&job.lease, None).unwrap();
        }
    }
    assert_eq!(seen_final, 1);
    let state = b.workflow(ids.parent).unwrap().unwrap();
    assert!(state.ended && !state.failed, "{state:?}");
    assert_eq!(state.progress.done, 7);
    assert_eq!(state.progress.total, Some(7));
}

#[test]
fn a_failed_piece_cancels_the_job_waiting_for_it_and_names_the_piece() {
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(2)).unwrap();
    let pieces = claim_all(&h.queue, &["embed"]);
    h.queue.complete(&pieces[0].lease, None).unwrap();
    h.queue
        .fail(&pieces[1].lease, JobFailure::permanent("corrupt message"))
        .unwrap();
    let reindex = h.queue.get(ids.then[0]).unwrap().unwrap();
    assert_eq!(reindex.status, JobStatus::Cancelled);
    let error = reindex.last_error.unwrap();
    assert!(
        error.contains(&format!("#{}", pieces[1].job.id.raw())),
        "{error}"
    );
    assert!(error.contains("failed"), "{error}");
    assert!(claim_all(&h.queue, &["reindex"]).is_empty());
    assert!(h.queue.workflow(ids.parent).unwrap().unwrap().failed);
}

#[test]
fn a_job_that_runs_anyway_starts_once_every_piece_has_ended_however() {
    let h = Harness::new();
    let parent = h
        .queue
        .enqueue("import", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let piece = |n: u32| {
        h.queue
            .enqueue("embed", &n, EnqueueOptions::new().parent(parent))
            .unwrap()
            .id
    };
    let (one, two) = (piece(1), piece(2));
    let report = h
        .queue
        .enqueue(
            "report",
            &0,
            EnqueueOptions::new()
                .after_pieces_of(parent)
                .on_dependency_failure(DependencyFailure::Run),
        )
        .unwrap()
        .id;
    assert!(claim_all(&h.queue, &["report"]).is_empty());
    assert_eq!(h.queue.cancel(one).unwrap(), CancelOutcome::Cancelled);
    assert!(
        claim_all(&h.queue, &["report"]).is_empty(),
        "one piece is left"
    );
    let running = claim_all(&h.queue, &["embed"]).pop().unwrap();
    assert_eq!(running.job.id, two);
    h.queue
        .fail(&running.lease, JobFailure::permanent("no"))
        .unwrap();
    assert_eq!(
        claim_all(&h.queue, &["report"]).pop().unwrap().job.id,
        report
    );
}

#[test]
fn dependencies_must_exist_and_one_that_already_ended_counts_at_once() {
    let h = Harness::new();
    let done = h.queue.enqueue("a", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_all(&h.queue, &["a"]).pop().unwrap();
    h.queue.complete(&claimed.lease, None).unwrap();
    let failed = h.queue.enqueue("a", &2, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_all(&h.queue, &["a"]).pop().unwrap();
    h.queue
        .fail(&claimed.lease, JobFailure::permanent("no"))
        .unwrap();

    // Succeeded: free at once.
    let free = h
        .queue
        .enqueue("b", &1, EnqueueOptions::new().after([done]))
        .unwrap()
        .id;
    assert_eq!(claim_all(&h.queue, &["b"]).pop().unwrap().job.id, free);
    // Failed: cancelled at once, saying why.
    let doomed = h
        .queue
        .enqueue("b", &2, EnqueueOptions::new().after([done, failed]))
        .unwrap()
        .id;
    let doomed = h.queue.get(doomed).unwrap().unwrap();
    assert_eq!(doomed.status, JobStatus::Cancelled);
    assert!(doomed.last_error.unwrap().contains("failed"));
    // Missing: refused, and nothing is written.
    let before = h.queue.counts().unwrap();
    let missing = JobId::from_raw(9_999);
    let refused = h
        .queue
        .enqueue("b", &3, EnqueueOptions::new().after([done, missing]));
    assert!(matches!(refused, Err(Error::JobNotFound(id)) if id == missing));
    assert_eq!(h.queue.counts().unwrap(), before);
}

#[test]
fn a_failure_cascades_down_a_chain_of_waiting_jobs() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue("step", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let second = h
        .queue
        .enqueue("step", &2, EnqueueOptions::new().after([first]))
        .unwrap()
        .id;
    let third = h
        .queue
        .enqueue("step", &3, EnqueueOptions::new().after([second]))
        .unwrap()
        .id;
    let claimed = claim_all(&h.queue, &["step"]);
    assert_eq!(claimed.len(), 1, "only the first may start");
    h.take_events();
    h.queue
        .fail(&claimed[0].lease, JobFailure::permanent("no"))
        .unwrap();
    for id in [second, third] {
        assert_eq!(status(&h.queue, id), JobStatus::Cancelled);
    }
    // The UI hears each of them end.
    let cancelled: Vec<JobId> = h
        .take_events()
        .into_iter()
        .filter(|e| e.to == JobStatus::Cancelled)
        .map(|e| e.id)
        .collect();
    assert_eq!(cancelled, [second, third]);
}

#[test]
fn cancelling_a_workflow_cancels_what_has_not_run_and_asks_the_running_to_stop() {
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(3)).unwrap();
    // The parent runs and finishes, one piece runs, one piece is done.
    let parent = claim_all(&h.queue, &["import"]).pop().unwrap();
    h.queue.complete(&parent.lease, None).unwrap();
    let mut pieces = h
        .queue
        .claim(
            &ClaimRequest::new("w", ["embed"])
                .lease(30 * SEC)
                .max_jobs(2),
        )
        .unwrap();
    let done = pieces.pop().unwrap();
    h.queue.complete(&done.lease, None).unwrap();
    let running = pieces.pop().unwrap();

    let outcome = h.queue.cancel_workflow(ids.parent).unwrap();
    assert_eq!((outcome.cancelled, outcome.asked_to_stop), (2, 1));
    assert_eq!(status(&h.queue, done.job.id), JobStatus::Succeeded);
    assert_eq!(status(&h.queue, ids.then[0]), JobStatus::Cancelled);
    assert!(
        h.queue
            .get(running.job.id)
            .unwrap()
            .unwrap()
            .cancel_requested
    );
    assert!(claim_all(&h.queue, &KINDS).is_empty());
    assert!(matches!(
        h.queue.cancel_workflow(JobId::from_raw(9_999)),
        Err(Error::JobNotFound(_))
    ));
}

#[test]
fn a_workflow_is_one_transaction_and_dedupe_keys_work_on_each_step() {
    let h = Harness::new();
    let keyed = |key: &str| EnqueueOptions::new().dedupe_key(key);
    let first = h
        .queue
        .enqueue_workflow(
            Workflow::new(NewJob::new("import", json!(1)).options(keyed("inbox")))
                .pieces([NewJob::new("embed", json!(1)).options(keyed("m1"))]),
        )
        .unwrap();
    // The same keys again: the existing jobs come back, nothing is added.
    let again = h
        .queue
        .enqueue_workflow(
            Workflow::new(NewJob::new("import", json!(1)).options(keyed("inbox")))
                .pieces([NewJob::new("embed", json!(1)).options(keyed("m1"))]),
        )
        .unwrap();
    assert_eq!(first, again);
    // A refused step writes nothing.
    let before = h.queue.counts().unwrap();
    let refused = h.queue.enqueue_workflow(
        Workflow::new(NewJob::new("import", json!(2))).pieces([NewJob::new("", json!(1))]),
    );
    assert!(refused.is_err());
    assert_eq!(h.queue.counts().unwrap(), before);
}

#[test]
fn a_piece_that_retries_frees_the_waiting_job_only_when_it_ends() {
    let h = Harness::new();
    let piece = h
        .queue
        .enqueue("embed", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let last = h
        .queue
        .enqueue("reindex", &0, EnqueueOptions::new().after([piece]))
        .unwrap()
        .id;
    let first = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue
        .fail(&first.lease, JobFailure::retryable("flaky"))
        .unwrap();
    assert!(claim_all(&h.queue, &["reindex"]).is_empty());
    h.advance(3600 * SEC);
    let second = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue.finish(&second.lease, Outcome::Released).unwrap();
    assert!(claim_all(&h.queue, &["reindex"]).is_empty());
    let third = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue.complete(&third.lease, None).unwrap();
    assert_eq!(
        claim_all(&h.queue, &["reindex"]).pop().unwrap().job.id,
        last
    );
}

#[test]
fn a_replaced_waiting_job_keeps_waiting_and_a_retried_dependency_is_counted_once() {
    use tauri_plugin_jobs::queue::OnDuplicate;
    let h = Harness::new();
    let (first, second) = (
        h.queue
            .enqueue("embed", &1, EnqueueOptions::new())
            .unwrap()
            .id,
        h.queue
            .enqueue("embed", &2, EnqueueOptions::new())
            .unwrap()
            .id,
    );
    let keyed = || {
        EnqueueOptions::new()
            .dedupe_key("reindex")
            .on_duplicate(OnDuplicate::Replace)
            .after([first, second])
            .on_dependency_failure(DependencyFailure::Run)
    };
    let last = h.queue.enqueue("reindex", &1, keyed()).unwrap().id;
    // The latest payload wins; it still waits for both.
    h.queue.enqueue("reindex", &2, keyed()).unwrap();
    assert!(claim_all(&h.queue, &["reindex"]).is_empty());
    assert_eq!(h.queue.get(last).unwrap().unwrap().waiting_on_jobs, 2);

    // The first fails (counted: one left), is retried, and ends again: still one left.
    let claimed = claim_all(&h.queue, &["embed"]);
    let one = claimed.iter().find(|c| c.job.id == first).unwrap();
    h.queue
        .fail(&one.lease, JobFailure::permanent("no"))
        .unwrap();
    h.queue.retry_now(first).unwrap();
    let again = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue.complete(&again.lease, None).unwrap();
    assert!(
        claim_all(&h.queue, &["reindex"]).is_empty(),
        "the second has not ended"
    );
    let two = claimed.iter().find(|c| c.job.id == second).unwrap();
    h.queue.complete(&two.lease, None).unwrap();
    assert_eq!(
        claim_all(&h.queue, &["reindex"]).pop().unwrap().job.id,
        last
    );
}

#[test]
fn a_missing_parent_and_a_missing_dependency_refuse_the_enqueue_whatever_the_order() {
    let h = Harness::new();
    let failed = h.queue.enqueue("a", &1, EnqueueOptions::new()).unwrap().id;
    let claimed = claim_all(&h.queue, &["a"]).pop().unwrap();
    h.queue
        .fail(&claimed.lease, JobFailure::permanent("no"))
        .unwrap();
    let missing = JobId::from_raw(9_999);
    for deps in [[failed, missing], [missing, failed]] {
        let refused = h.queue.enqueue("b", &1, EnqueueOptions::new().after(deps));
        assert!(matches!(refused, Err(Error::JobNotFound(id)) if id == missing));
    }
    let refused = h
        .queue
        .enqueue("b", &1, EnqueueOptions::new().after_pieces_of(missing));
    assert!(matches!(refused, Err(Error::JobNotFound(id)) if id == missing));
    // A workflow whose last step is refused inside the transaction writes nothing.
    let before = h.queue.counts().unwrap();
    let refused =
        h.queue.enqueue_workflow(import(2).then(
            NewJob::new("report", json!({})).options(EnqueueOptions::new().after([missing])),
        ));
    assert!(refused.is_err());
    assert_eq!(h.queue.counts().unwrap(), before);
}

#[test]
fn every_way_a_dependency_ends_resolves_the_job_waiting_for_it() {
    use tauri_plugin_jobs::queue::Retire;
    let h = Harness::new();
    let waiting_for = |dep: JobId| {
        h.queue
            .enqueue("last", &0, EnqueueOptions::new().after([dep]))
            .unwrap()
            .id
    };
    let cancelled = |id: JobId| {
        let job = h.queue.get(id).unwrap().unwrap();
        assert_eq!(job.status, JobStatus::Cancelled, "{job:?}");
        job.last_error.unwrap()
    };

    // Its lease runs out for the last time: failed.
    h.queue
        .set_kind_max_lease_expiries("dies", Some(1))
        .unwrap();
    let dies = h
        .queue
        .enqueue("dies", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let after_dies = waiting_for(dies);
    assert_eq!(claim_all(&h.queue, &["dies"]).len(), 1);
    h.advance(60 * SEC);
    h.queue.reclaim_expired().unwrap();
    assert_eq!(status(&h.queue, dies), JobStatus::Failed);
    assert!(cancelled(after_dies).contains("failed"));

    // Its kind retired, cancelled or deleted.
    let old = h
        .queue
        .enqueue("old", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let after_old = waiting_for(old);
    h.queue.retire_kind("old", Retire::Cancel).unwrap();
    assert!(cancelled(after_old).contains("was cancelled"));
    let gone = h
        .queue
        .enqueue("gone", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let after_gone = waiting_for(gone);
    h.queue.retire_kind("gone", Retire::Delete).unwrap();
    assert!(h.queue.get(gone).unwrap().is_none());
    assert!(cancelled(after_gone).contains("was cancelled"));

    // A row another program wrote that cannot be read: failed at the claim.
    let broken = h
        .queue
        .enqueue("broken", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let after_broken = waiting_for(broken);
    rusqlite::Connection::open(h.dir.path().join("raw.db"))
        .unwrap()
        .execute(
            "UPDATE jobs SET payload = '{not json' WHERE id = ?1",
            [broken.raw()],
        )
        .unwrap();
    assert!(claim_all(&h.queue, &["broken"]).is_empty());
    assert_eq!(status(&h.queue, broken), JobStatus::Failed);
    assert!(cancelled(after_broken).contains("failed"));
}

#[test]
fn a_piece_two_jobs_wait_for_frees_each_as_its_own_count_says() {
    let h = Harness::new();
    let enqueue = |kind: &str, options: EnqueueOptions| {
        h.queue.enqueue(kind, &json!({}), options).unwrap().id
    };
    let (a, b) = (
        enqueue("embed", EnqueueOptions::new()),
        enqueue("embed", EnqueueOptions::new()),
    );
    // Two wait for `a`: one for `b` as well, one for `a` alone; one waits for `b`.
    let both = enqueue("reindex", EnqueueOptions::new().after([a, b]));
    let only_a = enqueue("report", EnqueueOptions::new().after([a]));
    let only_b = enqueue("notify", EnqueueOptions::new().after([b]));
    let first = h
        .queue
        .claim(&ClaimRequest::new("w", ["embed"]).lease(30 * SEC))
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(first.job.id, a);
    h.queue.complete(&first.lease, None).unwrap();
    assert_eq!(h.queue.get(both).unwrap().unwrap().waiting_on_jobs, 1);
    assert_eq!(h.queue.get(only_a).unwrap().unwrap().waiting_on_jobs, 0);
    assert_eq!(h.queue.get(only_b).unwrap().unwrap().waiting_on_jobs, 1);
    let second = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue.complete(&second.lease, None).unwrap();
    for id in [both, only_a, only_b] {
        assert_eq!(h.queue.get(id).unwrap().unwrap().waiting_on_jobs, 0, "{id}");
    }
    let mut claimed: Vec<JobId> = claim_all(&h.queue, &["reindex", "report", "notify"])
        .into_iter()
        .map(|job| job.job.id)
        .collect();
    claimed.sort();
    assert_eq!(claimed, [both, only_a, only_b]);
}
