//! Workflows after the fact: retried (what runs again, what stays cancelled), their
//! outcome by policy, what a job waits for, retention, and a file from before
//! migration 14.

use super::workflows::{claim_all, import};
use super::*;
use tauri_plugin_jobs::queue::{DependencyFailure, JobFailure, Workflow};

/// How many jobs' counts of what they wait for `job_counts` holds (migration 17).
fn waiting_counts(queue: &Queue) -> i64 {
    let conn = rusqlite::Connection::open(queue.path()).unwrap();
    conn.query_row("SELECT count(*) FROM job_counts WHERE kind = ''", [], |r| {
        r.get(0)
    })
    .unwrap()
}

#[test]
fn retrying_a_workflow_runs_its_failed_pieces_again_and_the_final_job_after_them() {
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(3)).unwrap();
    let reindex = ids.then[0];
    let pieces = claim_all(&h.queue, &["embed"]);
    h.queue.complete(&pieces[0].lease, None).unwrap();
    h.queue
        .fail(&pieces[1].lease, JobFailure::permanent("disk was full"))
        .unwrap();
    assert_eq!(status(&h.queue, reindex), JobStatus::Cancelled);
    // Cancelled, it counts nothing (its edges stay for a retry).
    assert_eq!(waiting_counts(&h.queue), 0);
    let state = h.queue.workflow(ids.parent).unwrap().unwrap();
    assert!(state.failed, "{state:?}");

    // Retried while the third piece still runs: the final job waits for the failed
    // one, run again, and the third; not for the one that succeeded.
    let retried = h.queue.retry_workflow(ids.parent).unwrap();
    assert_eq!((retried.requeued, retried.waiting_again), (1, 1));
    let waiting = h.queue.get(reindex).unwrap().unwrap();
    assert_eq!(waiting.status, JobStatus::Queued);
    assert_eq!(waiting.waiting_on_jobs, 2);
    assert_eq!(waiting_counts(&h.queue), 1);
    assert_eq!(waiting.last_error, None);
    assert!(!h.queue.workflow(ids.parent).unwrap().unwrap().failed);
    assert!(claim_all(&h.queue, &["reindex"]).is_empty());

    let again = claim_all(&h.queue, &["embed"]).pop().unwrap();
    assert_eq!(again.job.id, pieces[1].job.id);
    h.queue.complete(&again.lease, None).unwrap();
    assert!(
        claim_all(&h.queue, &["reindex"]).is_empty(),
        "one piece runs"
    );
    h.queue.complete(&pieces[2].lease, None).unwrap();
    let last = claim_all(&h.queue, &["reindex"]);
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].job.id, reindex);
    assert_eq!(waiting_counts(&h.queue), 0);
    h.queue.complete(&last[0].lease, None).unwrap();
    let parent = claim_all(&h.queue, &["import"]).pop().unwrap();
    h.queue.complete(&parent.lease, None).unwrap();
    let state = h.queue.workflow(ids.parent).unwrap().unwrap();
    assert!(state.ended && !state.failed, "{state:?}");

    // Nothing is left to retry; a missing workflow says so.
    let nothing = h.queue.retry_workflow(ids.parent).unwrap();
    assert_eq!((nothing.requeued, nothing.waiting_again), (0, 0));
    assert!(matches!(
        h.queue.retry_workflow(JobId::from_raw(9_999)),
        Err(Error::JobNotFound(_))
    ));
}

#[test]
fn a_job_cancelled_for_itself_stays_cancelled_when_its_workflow_is_retried() {
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(2)).unwrap();
    let first = h
        .queue
        .claim(&ClaimRequest::new("w", ["embed"]).lease(30 * SEC))
        .unwrap()
        .pop()
        .unwrap();
    h.queue
        .fail(&first.lease, JobFailure::permanent("no"))
        .unwrap();
    // An operator cancelled the other piece: the final job cannot wait for it again.
    let other = ids.pieces[1];
    assert_eq!(h.queue.cancel(other).unwrap(), CancelOutcome::Cancelled);
    let retried = h.queue.retry_workflow(ids.parent).unwrap();
    assert_eq!((retried.requeued, retried.waiting_again), (1, 0));
    assert_eq!(status(&h.queue, first.job.id), JobStatus::Queued);
    assert_eq!(status(&h.queue, other), JobStatus::Cancelled);
    assert_eq!(status(&h.queue, ids.then[0]), JobStatus::Cancelled);

    // A workflow cancelled as a whole stays cancelled.
    let ids = h.queue.enqueue_workflow(import(2)).unwrap();
    h.queue.cancel_workflow(ids.parent).unwrap();
    let retried = h.queue.retry_workflow(ids.parent).unwrap();
    assert_eq!((retried.requeued, retried.waiting_again), (0, 0));
    assert_eq!(status(&h.queue, ids.then[0]), JobStatus::Cancelled);
}

#[test]
fn a_workflow_whose_final_job_runs_anyway_succeeds_as_that_job_does() {
    let h = Harness::new();
    let workflow = Workflow::new(NewJob::new("import", json!({})))
        .pieces((0..2).map(|n| NewJob::new("embed", json!(n))))
        .then(
            NewJob::new("reindex", json!({}))
                .options(EnqueueOptions::new().on_dependency_failure(DependencyFailure::Run)),
        );
    let ids = h.queue.enqueue_workflow(workflow).unwrap();
    let parent = claim_all(&h.queue, &["import"]).pop().unwrap();
    h.queue.complete(&parent.lease, None).unwrap();
    let pieces = claim_all(&h.queue, &["embed"]);
    h.queue.complete(&pieces[0].lease, None).unwrap();
    h.queue
        .fail(&pieces[1].lease, JobFailure::permanent("skipped"))
        .unwrap();
    let last = claim_all(&h.queue, &["reindex"]).pop().unwrap();
    assert_eq!(last.job.id, ids.then[0]);
    let state = h.queue.workflow(ids.parent).unwrap().unwrap();
    assert!(!state.ended && !state.failed, "{state:?}");
    h.queue.complete(&last.lease, None).unwrap();
    let state = h.queue.workflow(ids.parent).unwrap().unwrap();
    assert!(state.ended && !state.failed, "{state:?}");

    // Without jobs after the pieces, a failed piece fails the workflow.
    let ids = h
        .queue
        .enqueue_workflow(
            Workflow::new(NewJob::new("import", json!(2))).pieces([NewJob::new("embed", json!(3))]),
        )
        .unwrap();
    let piece = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue
        .fail(&piece.lease, JobFailure::permanent("no"))
        .unwrap();
    assert!(h.queue.workflow(ids.parent).unwrap().unwrap().failed);
}

#[test]
fn a_jobs_dependencies_name_what_it_waits_for_and_what_waits_for_it() {
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(3)).unwrap();
    let reindex = ids.then[0];
    let deps = h.queue.dependencies(reindex).unwrap().unwrap();
    assert_eq!(deps.waits_for, ids.pieces);
    assert_eq!(deps.waits_for_total, 3);
    assert!(deps.waited_by.is_empty());
    assert!(deps.waited);
    let piece = h.queue.dependencies(ids.pieces[0]).unwrap().unwrap();
    assert!(!piece.waited);
    assert_eq!(piece.waited_by, [reindex]);
    assert_eq!(piece.waited_by_total, 1);
    assert!(h
        .queue
        .dependencies(JobId::from_raw(9_999))
        .unwrap()
        .is_none());

    // Freed to run, it waits for nothing any more.
    for job in claim_all(&h.queue, &["embed"]) {
        h.queue.complete(&job.lease, None).unwrap();
    }
    let freed = h.queue.dependencies(reindex).unwrap().unwrap();
    assert_eq!(freed.waits_for_total, 0);
    // It still says it was enqueued to wait (a finished workflow's graph reads it).
    assert!(freed.waited);
}

#[test]
fn pruning_and_deleting_a_cancelled_dependent_take_what_it_waited_for_with_it() {
    let h = Harness::new();
    // The rows themselves: `dependencies` leaves out rows whose job is gone anyway.
    let rows = |id: JobId| -> i64 {
        rusqlite::Connection::open(h.queue.path())
            .unwrap()
            .query_row(
                "SELECT count(*) FROM job_deps WHERE job_id = ?1",
                [id.raw()],
                |r| r.get(0),
            )
            .unwrap()
    };
    let cancelled_final = || {
        let ids = h.queue.enqueue_workflow(import(1)).unwrap();
        let piece = claim_all(&h.queue, &["embed"]).pop().unwrap();
        h.queue
            .fail(&piece.lease, JobFailure::permanent("no"))
            .unwrap();
        assert_eq!(status(&h.queue, ids.then[0]), JobStatus::Cancelled);
        assert_eq!(rows(ids.then[0]), 1, "kept for a retry");
        ids.then[0]
    };
    let deleted = cancelled_final();
    h.queue.delete(deleted).unwrap();
    assert_eq!(rows(deleted), 0);

    let pruned = cancelled_final();
    h.clock.advance(Duration::from_secs(3600));
    assert!(h.queue.prune(Duration::from_secs(60)).unwrap() >= 1);
    assert!(h.queue.get(pruned).unwrap().is_none());
    assert_eq!(rows(pruned), 0);
}

#[test]
fn a_jobs_dependencies_list_200_ids_a_side_and_count_them_all() {
    let h = Harness::new();
    let deps: Vec<JobId> = (0..250)
        .map(|n| {
            h.queue
                .enqueue("embed", &n, EnqueueOptions::new())
                .unwrap()
                .id
        })
        .collect();
    let last = h
        .queue
        .enqueue("reindex", &0, EnqueueOptions::new().after(deps.clone()))
        .unwrap()
        .id;
    let listed = h.queue.dependencies(last).unwrap().unwrap();
    assert_eq!(listed.waits_for, deps[..200]);
    assert_eq!(listed.waits_for_total, 250);
}

#[test]
fn a_final_job_that_ran_anyway_and_failed_waits_again_for_the_pieces_retried_with_it() {
    let h = Harness::new();
    let workflow = Workflow::new(NewJob::new("import", json!({})))
        .pieces((0..2).map(|n| NewJob::new("embed", json!(n))))
        .then(
            NewJob::new("reindex", json!({}))
                .options(EnqueueOptions::new().on_dependency_failure(DependencyFailure::Run)),
        );
    let ids = h.queue.enqueue_workflow(workflow).unwrap();
    let reindex = ids.then[0];
    let pieces = claim_all(&h.queue, &["embed"]);
    h.queue.complete(&pieces[0].lease, None).unwrap();
    h.queue
        .fail(&pieces[1].lease, JobFailure::permanent("missing"))
        .unwrap();
    // It ran anyway, and failed for want of the missing piece.
    let last = claim_all(&h.queue, &["reindex"]).pop().unwrap();
    h.queue
        .fail(&last.lease, JobFailure::permanent("a message is missing"))
        .unwrap();

    let retried = h.queue.retry_workflow(ids.parent).unwrap();
    assert_eq!((retried.requeued, retried.waiting_again), (2, 0));
    let waiting = h.queue.get(reindex).unwrap().unwrap();
    assert_eq!(waiting.status, JobStatus::Queued);
    assert_eq!(
        waiting.waiting_on_jobs, 1,
        "the retried piece, not the one that succeeded"
    );
    assert!(
        claim_all(&h.queue, &["reindex"]).is_empty(),
        "not before the piece"
    );
    let again = claim_all(&h.queue, &["embed"]).pop().unwrap();
    assert_eq!(again.job.id, pieces[1].job.id);
    h.queue.complete(&again.lease, None).unwrap();
    let last = claim_all(&h.queue, &["reindex"]).pop().unwrap();
    assert_eq!(last.job.id, reindex);
}

/// Closes `h`'s queue, runs `sql` on its file (to make it what an older build left),
/// and opens it again on the same clock. The directory lasts as long as the guard.
fn reopened_after(h: Harness, sql: &str) -> (tempfile::TempDir, Queue) {
    let path = h.queue.path().to_owned();
    let Harness {
        dir, queue, clock, ..
    } = h;
    drop(queue);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
    let queue = Queue::open(&path, QueueOptions::new().clock(clock)).unwrap();
    (dir, queue)
}

#[test]
fn a_workflow_in_flight_at_the_upgrade_keeps_its_waiting_job_marked() {
    // A file as migration 13 left it: a workflow waiting, and no `waited` column (nor
    // the later `lease_process`, `processes`, `job_history` and `sync_history`).
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(1)).unwrap();
    let path = h.queue.path().to_owned();
    // Migration 14 marks the job that waits (its rows in job_deps say so), so the
    // workflow's outcome is still its final job's.
    let (_dir, queue) = reopened_after(
        h,
        "DROP TABLE job_history; DROP TABLE sync_history; ALTER TABLE job_counts DROP COLUMN tally; ALTER TABLE jobs DROP COLUMN lease_process; DROP TABLE processes; \
         ALTER TABLE jobs DROP COLUMN waited; ALTER TABLE jobs DROP COLUMN errors; \
         ALTER TABLE jobs DROP COLUMN offline_since; ALTER TABLE kinds DROP COLUMN hold_until; \
         ALTER TABLE kinds DROP COLUMN hold_reason; ALTER TABLE kinds DROP COLUMN hold_note; \
         ALTER TABLE kinds DROP COLUMN rate_burst; ALTER TABLE jobs DROP COLUMN max_offline_ms; ALTER TABLE jobs DROP COLUMN snoozed_until; \
         DROP TRIGGER job_extras_go_with_their_job; DROP TABLE job_steps; DROP TABLE job_signals; \
         DROP TABLE job_logs; ALTER TABLE jobs DROP COLUMN has_extras; ALTER TABLE jobs DROP COLUMN sleep_until; \
         ALTER TABLE jobs DROP COLUMN awaits_signal; ALTER TABLE jobs DROP COLUMN inputs; \
         PRAGMA user_version = 13;",
    );
    let conn = rusqlite::Connection::open(&path).unwrap();
    let waited = |id: JobId| -> i64 {
        conn.query_row("SELECT waited FROM jobs WHERE id = ?1", [id.raw()], |r| {
            r.get(0)
        })
        .unwrap()
    };
    assert_eq!(waited(ids.then[0]), 1);
    assert_eq!(waited(ids.pieces[0]), 0);
    assert!(!queue.workflow(ids.parent).unwrap().unwrap().failed);
}

#[test]
fn a_job_waiting_again_keeps_a_start_still_to_come() {
    let h = Harness::new();
    let later = Duration::from_secs(3600);
    let workflow = Workflow::new(NewJob::new("import", json!({})))
        .pieces([NewJob::new("embed", json!(1))])
        .then(NewJob::new("reindex", json!({})).options(EnqueueOptions::new().delay(later)));
    let ids = h.queue.enqueue_workflow(workflow).unwrap();
    let run_at = h.queue.get(ids.then[0]).unwrap().unwrap().run_at;
    let piece = claim_all(&h.queue, &["embed"]).pop().unwrap();
    h.queue
        .fail(&piece.lease, JobFailure::permanent("no"))
        .unwrap();
    assert_eq!(status(&h.queue, ids.then[0]), JobStatus::Cancelled);
    h.queue.retry_workflow(ids.parent).unwrap();
    let waiting = h.queue.get(ids.then[0]).unwrap().unwrap();
    assert_eq!(waiting.status, JobStatus::Queued);
    assert_eq!(waiting.run_at, run_at, "its delay still holds");
}

#[test]
fn a_job_one_of_whose_dependencies_is_gone_stays_cancelled_when_retried() {
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(2)).unwrap();
    let pieces = claim_all(&h.queue, &["embed"]);
    h.queue.complete(&pieces[0].lease, None).unwrap();
    h.queue
        .fail(&pieces[1].lease, JobFailure::permanent("no"))
        .unwrap();
    // What the succeeded piece produced may be gone with it.
    h.queue.delete(pieces[0].job.id).unwrap();
    let retried = h.queue.retry_workflow(ids.parent).unwrap();
    assert_eq!((retried.requeued, retried.waiting_again), (1, 0));
    assert_eq!(status(&h.queue, ids.then[0]), JobStatus::Cancelled);
}

#[test]
fn a_workflow_waiting_at_the_upgrade_to_migration_17_keeps_its_count() {
    // A file as migration 16 left it: the waiting job's count in its own row.
    let h = Harness::new();
    let ids = h.queue.enqueue_workflow(import(3)).unwrap();
    let path = h.queue.path().to_owned();
    let first = h
        .queue
        .claim(&ClaimRequest::new("w", ["embed"]).max_jobs(1))
        .unwrap();
    h.queue.complete(&first[0].lease, None).unwrap();
    let (_dir, queue) = reopened_after(
        h,
        "UPDATE jobs SET deps_left = (SELECT n FROM job_counts \
             WHERE kind = '' AND status = CAST(jobs.id AS TEXT)) WHERE needs & 4 <> 0; \
         DELETE FROM job_counts WHERE kind = ''; \
         ALTER TABLE jobs DROP COLUMN errors; \
         ALTER TABLE jobs DROP COLUMN offline_since; ALTER TABLE kinds DROP COLUMN hold_until; \
         ALTER TABLE kinds DROP COLUMN hold_reason; ALTER TABLE kinds DROP COLUMN hold_note; \
         ALTER TABLE kinds DROP COLUMN rate_burst; ALTER TABLE jobs DROP COLUMN max_offline_ms; ALTER TABLE jobs DROP COLUMN snoozed_until; \
         DROP TRIGGER job_extras_go_with_their_job; DROP TABLE job_steps; DROP TABLE job_signals; \
         DROP TABLE job_logs; ALTER TABLE jobs DROP COLUMN has_extras; ALTER TABLE jobs DROP COLUMN sleep_until; \
         ALTER TABLE jobs DROP COLUMN awaits_signal; ALTER TABLE jobs DROP COLUMN inputs; \
         ALTER TABLE job_history DROP COLUMN offline; ALTER TABLE job_history DROP COLUMN throttled; \
         ALTER TABLE job_history DROP COLUMN slept; \
         PRAGMA user_version = 16;",
    );
    let waiting = queue.get(ids.then[0]).unwrap().unwrap();
    assert_eq!(waiting.waiting_on_jobs, 2);
    // The count moved; the column is no longer read.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let left: i64 = conn
        .query_row("SELECT sum(deps_left) FROM jobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0);
    for (i, claimed) in claim_all(&queue, &["embed"]).iter().enumerate() {
        assert!(claim_all(&queue, &["reindex"]).is_empty(), "after {i}");
        queue.complete(&claimed.lease, None).unwrap();
    }
    let last = claim_all(&queue, &["reindex"]);
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].job.id, ids.then[0]);
    // Its count went with it.
    assert_eq!(waiting_counts(&queue), 0);
}

#[test]
fn a_pieces_end_writes_no_page_for_the_job_waiting_for_it() {
    // The same end, in a file where a job waits for the piece and in one where none
    // does: the log grows by as many pages (the count rides in `job_counts`, whose
    // page every end writes). Pages are appended to the log, one frame each.
    let wal_growth = |waiting: bool| -> u64 {
        let h = Harness::new();
        let pieces: Vec<JobId> = (0..3)
            .map(|i| {
                h.queue
                    .enqueue("embed", &json!({ "n": i }), EnqueueOptions::new())
                    .unwrap()
                    .id
            })
            .collect();
        // Rows enough between the pieces and the waiting job that its row is on a
        // page of its own.
        let filler = "x".repeat(200);
        h.queue
            .enqueue_batch((0..100).map(|_| NewJob::new("filler", json!(filler))))
            .unwrap();
        if waiting {
            h.queue
                .enqueue("reindex", &json!({}), EnqueueOptions::new().after(pieces))
                .unwrap();
        }
        let claimed = claim_all(&h.queue, &["embed"]);
        // The first end of a kind writes its tally's row; the second is measured (the
        // third, which frees the waiting job, writes its row and index entry).
        h.queue.complete(&claimed[0].lease, None).unwrap();
        let wal = h.queue.path().with_extension("db-wal");
        let before = std::fs::metadata(&wal).unwrap().len();
        h.queue.complete(&claimed[1].lease, None).unwrap();
        std::fs::metadata(&wal).unwrap().len() - before
    };
    let alone = wal_growth(false);
    assert!(alone > 0);
    assert_eq!(wal_growth(true), alone);
}
