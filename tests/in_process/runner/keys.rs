//! A job's idempotency key (`JobContext::idempotency_key`): the same in every attempt
//! and on every handle on the file, after a reopen too; another job's, another file's
//! and a replaced payload's differ.

use std::collections::HashMap;
use std::sync::Mutex;

use tauri_plugin_jobs::queue::{JobId, OnDuplicate, Queue, QueueOptions};
use tauri_plugin_jobs::random::FixedRandom;

use super::*;

/// Keys seen per job, in the order of its attempts; the first attempt of "flaky"
/// payloads fails.
#[derive(Clone, Default)]
struct Keys(Arc<Mutex<HashMap<JobId, Vec<String>>>>);

impl Keys {
    fn handler(&self) -> Handler {
        let keys = self.clone();
        Handler::new("send", move |text: String, ctx: JobContext| {
            let keys = keys.clone();
            async move {
                keys.0
                    .lock()
                    .unwrap()
                    .entry(ctx.id)
                    .or_default()
                    .push(ctx.idempotency_key());
                if text.starts_with("flaky") && ctx.attempt == 1 {
                    return Err(JobError::retryable("HTTP 502"));
                }
                Ok(())
            }
        })
        .retry(RetryPolicy::new(SEC, SEC, 0.0).unwrap())
    }

    fn of(&self, id: JobId) -> Vec<String> {
        self.0.lock().unwrap().get(&id).cloned().unwrap_or_default()
    }
}

#[tokio::test]
async fn a_jobs_key_holds_across_attempts_and_handles_and_names_it_alone() {
    let h = Harness::new();
    let keys = Keys::default();
    let flaky = h
        .queue
        .enqueue("send", &"flaky note", EnqueueOptions::new())
        .unwrap()
        .id;
    let other = h
        .queue
        .enqueue("send", &"a note", EnqueueOptions::new())
        .unwrap()
        .id;
    {
        let runner = Runner::new(h.queue.clone(), vec![keys.handler()], settings()).unwrap();
        runner.drain().await.unwrap();
    }
    // Its second attempt runs on another handle on the file, as after a restart.
    h.advance(2 * SEC);
    let reopened = h.second_queue();
    let runner = Runner::new(reopened.clone(), vec![keys.handler()], settings()).unwrap();
    runner.drain().await.unwrap();
    assert_eq!(
        reopened.get(flaky).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
    let (flaky_keys, other_keys) = (keys.of(flaky), keys.of(other));
    assert_eq!(flaky_keys.len(), 2, "two attempts: {flaky_keys:?}");
    assert_eq!(flaky_keys[0], flaky_keys[1], "the same in both attempts");
    assert_ne!(flaky_keys[0], other_keys[0], "another job's differs");
    let key = &flaky_keys[0];
    assert!(
        key.starts_with(&format!("{}-", flaky.raw())) && key.len() <= 40 && key.is_ascii(),
        "{key}"
    );

    // Job 1 of another file, with the same payload: another key.
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new()
            .clock(h.clock.clone())
            .random(FixedRandom(0.0)),
    )
    .unwrap();
    let there = elsewhere
        .enqueue("send", &"flaky note", EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(there, flaky, "the same id in both files");
    let runner = Runner::new(elsewhere.clone(), vec![keys.handler()], settings()).unwrap();
    runner.drain().await.unwrap();
    let there_keys = keys.0.lock().unwrap()[&there].clone();
    assert_eq!(there_keys.len(), 3, "both files' job 1: {there_keys:?}");
    assert_ne!(
        there_keys[2], there_keys[0],
        "another file's job 1 has its own key"
    );
}

#[tokio::test]
async fn a_replaced_payload_gets_a_new_key_and_the_same_payload_keeps_it() {
    let h = Harness::new();
    let keys = Keys::default();
    let runner = Runner::new(h.queue.clone(), vec![keys.handler()], settings()).unwrap();
    let edit = |note: &str, text: &str| {
        h.queue
            .enqueue(
                "send",
                &text,
                EnqueueOptions::new()
                    .dedupe_key(note)
                    .on_duplicate(OnDuplicate::Replace),
            )
            .unwrap()
            .id
    };
    // Each note's first attempt fails (the server may have taken its text); then one
    // note is saved again with the same text, the other with a new one, while each
    // waits for its retry.
    let same = edit("note-1", "flaky text");
    let changed = edit("note-2", "flaky first text");
    runner.drain().await.unwrap();
    assert_eq!(edit("note-1", "flaky text"), same);
    assert_eq!(
        edit("note-2", "second text"),
        changed,
        "one job, its payload replaced"
    );
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    let (same, changed) = (keys.of(same), keys.of(changed));
    assert_eq!((same.len(), changed.len()), (2, 2), "{same:?} {changed:?}");
    assert_eq!(same[0], same[1], "the same text again is the same request");
    assert_ne!(
        changed[0], changed[1],
        "the new text is not a repeat of the old"
    );
}
