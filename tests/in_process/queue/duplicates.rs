//! Debounce and replace: what an enqueue does when a job of its kind holds its dedupe
//! key, queued or running, on the fake clock, on one handle and on two.

use super::*;
use tauri_plugin_jobs::queue::{EnqueueOutcome, OnDuplicate};

fn keyed(on_duplicate: OnDuplicate) -> EnqueueOptions {
    EnqueueOptions::new()
        .dedupe_key("settings")
        .on_duplicate(on_duplicate)
}

fn payload_of(queue: &Queue, id: JobId) -> serde_json::Value {
    queue.get(id).unwrap().unwrap().payload
}

#[test]
fn keep_is_the_default_and_changes_nothing() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue("save", &1, keyed(OnDuplicate::Keep))
        .unwrap();
    let again = h
        .queue
        .enqueue("save", &2, EnqueueOptions::new().dedupe_key("settings"))
        .unwrap();
    assert_eq!(first.outcome, EnqueueOutcome::Created);
    assert_eq!(
        (again.id, again.created, again.outcome),
        (first.id, false, EnqueueOutcome::Kept)
    );
    assert_eq!(payload_of(&h.queue, first.id), json!(1));
}

#[test]
fn replace_gives_the_queued_job_the_latest_payload_and_priority() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue(
            "save",
            &json!({"theme": "light"}),
            keyed(OnDuplicate::Replace).delay(60 * SEC),
        )
        .unwrap();
    let before = h.queue.get(first.id).unwrap().unwrap();
    let mark = h.events.lock().unwrap().len();
    let second = h
        .queue
        .enqueue(
            "save",
            &json!({"theme": "dark"}),
            keyed(OnDuplicate::Replace).priority(Priority::USER),
        )
        .unwrap();
    assert_eq!((second.id, second.created), (first.id, false));
    assert_eq!(second.outcome, EnqueueOutcome::Replaced);
    let after = h.queue.get(first.id).unwrap().unwrap();
    assert_eq!(after.payload, json!({"theme": "dark"}));
    assert_eq!(after.priority, Priority::USER);
    // Its start stays: a replace changes what runs, not when.
    assert_eq!(after.run_at, before.run_at);
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 1);
    // The UI hears the job changed in place: queued to queued.
    let events = h.events.lock().unwrap();
    let heard: Vec<_> = events[mark..]
        .iter()
        .map(|e| (e.id, e.from, e.to))
        .collect();
    assert_eq!(
        heard,
        [(first.id, Some(JobStatus::Queued), JobStatus::Queued)]
    );
}

#[test]
fn a_burst_of_debounced_enqueues_runs_once_after_the_burst() {
    let h = Harness::new();
    let wait = 2 * SEC;
    let mut ids = Vec::new();
    // "Reindex once the user has stopped typing for 2 s": ten keystrokes, 1 s apart.
    for keystroke in 0..10 {
        let enqueued = h
            .queue
            .enqueue("reindex", &keystroke, keyed(OnDuplicate::Debounce(wait)))
            .unwrap();
        ids.push(enqueued.id);
        assert_eq!(
            enqueued.outcome,
            if keystroke == 0 {
                EnqueueOutcome::Created
            } else {
                EnqueueOutcome::Replaced
            }
        );
        // Never due during the burst.
        assert!(
            claim_one(&h.queue, "w", "reindex").is_none(),
            "keystroke {keystroke}"
        );
        h.advance(SEC);
    }
    assert!(ids.iter().all(|id| *id == ids[0]));
    // 1 s after the last keystroke: still waiting; 2 s after: due, with the last payload.
    assert!(claim_one(&h.queue, "w", "reindex").is_none());
    h.advance(SEC);
    let claimed = claim_one(&h.queue, "w", "reindex").expect("due after the burst");
    assert_eq!(claimed.job.payload, json!(9));
    h.queue.complete(&claimed.lease, None).unwrap();
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 1);
}

#[test]
fn a_running_job_is_never_changed_and_its_follow_up_runs_after_it() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue("save", &1, keyed(OnDuplicate::Replace))
        .unwrap();
    let running = claim_one(&h.queue, "w", "save").unwrap();
    // Two enqueues while it runs: one follow-up, with the latest payload.
    for payload in [2, 3] {
        let enqueued = h
            .queue
            .enqueue("save", &payload, keyed(OnDuplicate::Replace))
            .unwrap();
        assert_eq!(
            (enqueued.id, enqueued.outcome),
            (first.id, EnqueueOutcome::FollowUp)
        );
        assert!(!enqueued.created);
    }
    assert_eq!(payload_of(&h.queue, first.id), json!(1));
    assert!(
        claim_one(&h.queue, "w2", "save").is_none(),
        "no second job while it runs"
    );
    h.queue.complete(&running.lease, None).unwrap();
    // Queued in the transaction that ended the first, under the same key.
    let next = claim_one(&h.queue, "w", "save").expect("the follow-up");
    assert_ne!(next.job.id, first.id);
    assert_eq!(next.job.payload, json!(3));
    assert_eq!(next.job.dedupe_key.as_deref(), Some("settings"));
    h.queue.complete(&next.lease, None).unwrap();
    // Exactly one follow-up, and nothing after it.
    assert!(claim_one(&h.queue, "w", "save").is_none());
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 2);
}

#[test]
fn a_debounced_follow_up_waits_its_delay_after_the_running_job_ends() {
    let h = Harness::new();
    h.queue
        .enqueue("reindex", &1, keyed(OnDuplicate::Debounce(SEC)))
        .unwrap();
    h.advance(SEC);
    let running = claim_one(&h.queue, "w", "reindex").unwrap();
    h.queue
        .enqueue("reindex", &2, keyed(OnDuplicate::Debounce(5 * SEC)))
        .unwrap();
    h.advance(10 * SEC);
    h.queue.complete(&running.lease, None).unwrap();
    // 5 s from the end of the running job, not from the enqueue.
    h.advance(4 * SEC);
    assert!(claim_one(&h.queue, "w", "reindex").is_none());
    h.advance(SEC);
    assert_eq!(
        claim_one(&h.queue, "w", "reindex").unwrap().job.payload,
        json!(2)
    );
}

#[test]
fn a_follow_up_of_a_job_that_goes_back_to_the_queue_replaces_its_payload() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue("save", &1, keyed(OnDuplicate::Replace).max_attempts(3))
        .unwrap();
    let running = claim_one(&h.queue, "w", "save").unwrap();
    h.queue
        .enqueue("save", &2, keyed(OnDuplicate::Replace))
        .unwrap();
    // The attempt fails and is retried: the retry runs the latest payload, once.
    h.queue
        .fail(&running.lease, JobFailure::retryable("offline"))
        .unwrap();
    let job = h.queue.get(first.id).unwrap().unwrap();
    assert_eq!((job.status, job.payload), (JobStatus::Queued, json!(2)));
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 1);
    // The same through an expired lease (the worker died).
    h.advance(3600 * SEC);
    let again = claim_one(&h.queue, "w", "save").unwrap();
    h.queue
        .enqueue("save", &3, keyed(OnDuplicate::Replace))
        .unwrap();
    h.advance(31 * SEC);
    h.queue.reclaim_expired().unwrap();
    let job = h.queue.get(again.job.id).unwrap().unwrap();
    assert_eq!((job.status, job.payload), (JobStatus::Queued, json!(3)));
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 1);
}

#[test]
fn two_handles_debouncing_at_once_make_one_job() {
    let h = Harness::new();
    let other = h.second_queue();
    let mut ids = Vec::new();
    for n in 0..20 {
        let queue = if n % 2 == 0 { &h.queue } else { &other };
        ids.push(
            queue
                .enqueue("reindex", &n, keyed(OnDuplicate::Debounce(SEC)))
                .unwrap()
                .id,
        );
    }
    assert!(ids.iter().all(|id| *id == ids[0]));
    assert_eq!(payload_of(&h.queue, ids[0]), json!(19));
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 1);
}

#[test]
fn replace_and_debounce_need_a_key_and_a_debounce_sets_the_start_itself() {
    let h = Harness::new();
    for on_duplicate in [OnDuplicate::Replace, OnDuplicate::Debounce(SEC)] {
        let refused = h
            .queue
            .enqueue("save", &1, EnqueueOptions::new().on_duplicate(on_duplicate))
            .unwrap_err();
        assert!(refused.to_string().contains("dedupe key"), "{refused}");
    }
    let refused = h
        .queue
        .enqueue("save", &1, keyed(OnDuplicate::Debounce(SEC)).delay(SEC))
        .unwrap_err();
    assert!(refused.to_string().contains("on_duplicate"), "{refused}");
    assert!(h.queue.list(&JobFilter::default()).unwrap().is_empty());
}

#[test]
fn cancelling_a_running_job_drops_its_follow_up() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue("save", &1, keyed(OnDuplicate::Replace))
        .unwrap();
    let running = claim_one(&h.queue, "w", "save").unwrap();
    h.queue
        .enqueue("save", &2, keyed(OnDuplicate::Replace))
        .unwrap();
    assert_eq!(h.queue.cancel(first.id).unwrap(), CancelOutcome::Requested);
    h.queue.finish(&running.lease, Outcome::Cancelled).unwrap();
    // Nothing runs after a cancelled job: its follow-up went with the cancel.
    assert!(claim_one(&h.queue, "w", "save").is_none());
    assert_eq!(h.queue.list(&JobFilter::default()).unwrap().len(), 1);
}

#[test]
fn a_follow_up_publishes_its_own_queued_when_it_is_queued() {
    let h = Harness::new();
    let first = h
        .queue
        .enqueue("save", &1, keyed(OnDuplicate::Replace))
        .unwrap();
    let running = claim_one(&h.queue, "w", "save").unwrap();
    h.queue
        .enqueue("save", &2, keyed(OnDuplicate::Replace))
        .unwrap();
    let mark = h.events.lock().unwrap().len();
    h.queue.complete(&running.lease, None).unwrap();
    let events = h.events.lock().unwrap();
    let heard: Vec<_> = events[mark..]
        .iter()
        .map(|e| (e.id, e.from, e.to))
        .collect();
    assert_eq!(heard.len(), 2, "{heard:?}");
    assert_eq!(
        heard[0],
        (first.id, Some(JobStatus::Running), JobStatus::Succeeded)
    );
    assert_ne!(heard[1].0, first.id);
    assert_eq!((heard[1].1, heard[1].2), (None, JobStatus::Queued));
}
