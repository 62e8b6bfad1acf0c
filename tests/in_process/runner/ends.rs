//! How the runner ends its own attempts: with one fenced update when nothing hangs on
//! them, with the jobs waiting for them counted down once per round, and the whole
//! path for anything else.

use std::sync::Arc;

use serde_json::json;
use tauri_plugin_jobs::clock::Clock;
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner};
use tokio::sync::Notify;

use super::{add_handler, settings, SEC};
use crate::common::Harness;

/// The runner ends its own successes with one fenced update when nothing hangs on
/// them, and with the update and its followers' work when a job waited for them at the
/// claim; a follow-up run queued while the job ran, or a job that came to wait for it,
/// takes the whole path: all are still done, and the history keeps each attempt's
/// wait and run.
#[tokio::test]
async fn a_success_with_a_follow_up_or_a_waiting_job_still_frees_them() {
    use tauri_plugin_jobs::queue::{HistoryRange, OnDuplicate};
    let h = Harness::new();
    // The first save waits for `open`; the follow-up (payload 2) does not.
    let (open, started) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let save = {
        let (open, started) = (open.clone(), started.clone());
        Handler::new("save", move |n: i64, _ctx: JobContext| {
            let (open, started) = (open.clone(), started.clone());
            async move {
                if n == 1 {
                    started.notify_one();
                    open.notified().await;
                }
                Ok(n)
            }
        })
    };
    let runner = Runner::new(h.queue.clone(), vec![save, add_handler()], settings()).unwrap();
    let keyed = || {
        EnqueueOptions::new()
            .dedupe_key("settings")
            .on_duplicate(OnDuplicate::Replace)
    };
    let add = |a: i64, options| h.queue.enqueue("add", &json!({"a": a, "b": 2}), options);
    let plain = add(1, EnqueueOptions::new()).unwrap().id;
    // A job that waits for the plain one from before its claim.
    let after_plain = add(5, EnqueueOptions::new().after([plain])).unwrap().id;
    h.advance(3 * SEC);
    let first = h.queue.enqueue("save", &1, keyed()).unwrap().id;
    h.advance(2 * SEC);
    assert_eq!(runner.dispatch().unwrap(), 2);
    started.notified().await;
    let follow_up = h.queue.enqueue("save", &2, keyed()).unwrap();
    assert_eq!(follow_up.id, first, "a follow-up rides on the running job");
    let waiting = add(2, EnqueueOptions::new().after([first])).unwrap().id;
    h.advance(4 * SEC);
    open.notify_one();
    let ran = runner.drain().await.unwrap();
    assert!(ran.iter().all(|r| r.finished.is_ok()), "{ran:?}");
    let job = |id| h.queue.get(id).unwrap().unwrap();
    assert_eq!(job(plain).result, Some(json!(3)));
    assert_eq!(job(first).result, Some(json!(1)));
    assert_eq!(job(waiting).result, Some(json!(4)), "freed, then run");
    assert_eq!(job(after_plain).result, Some(json!(7)), "freed, then run");
    let jobs = h.queue.list(&Default::default()).unwrap();
    let saves: Vec<_> = jobs.iter().filter(|job| job.kind == "save").collect();
    assert_eq!(
        saves.len(),
        2,
        "the follow-up was queued and ran: {saves:?}"
    );
    assert!(saves.iter().any(|job| job.result == Some(json!(2))));
    // Waits and runs as the rows say (never under the true figure, at most √2 over):
    // the plain add waited 5 s for its claim; the adds that waited for others count
    // from those ends (written at the drain, where they were claimed: 0 s), not from
    // their enqueues; the first save waited 2 s and ran 4 s.
    let history = |kind| {
        h.queue
            .history(kind, HistoryRange::last_hour(h.clock.now()))
    };
    let most = |points: &[tauri_plugin_jobs::queue::HistoryPoint], of: fn(&_) -> Option<u64>| {
        points.iter().filter_map(of).max().unwrap_or(0)
    };
    let (adds, saves) = (history("add").unwrap(), history("save").unwrap());
    assert_eq!(adds.iter().map(|p| p.succeeded).sum::<u64>(), 3);
    assert_eq!(saves.iter().map(|p| p.succeeded).sum::<u64>(), 2);
    let wait = most(&adds, |p| p.wait_p95_ms);
    assert!(
        (5000..=7072).contains(&wait),
        "add waited {wait} ms: {adds:?}"
    );
    assert_eq!(most(&adds, |p| p.wait_p50_ms), 0, "{adds:?}");
    let (wait, run) = (
        most(&saves, |p| p.wait_p95_ms),
        most(&saves, |p| p.run_p95_ms),
    );
    assert!(
        (2000..=2829).contains(&wait),
        "save waited {wait} ms: {saves:?}"
    );
    assert!((4000..=5657).contains(&run), "save ran {run} ms: {saves:?}");
}

/// The successes one round writes count down each job waiting for them once for all
/// of them, as if one at a time: a job waiting for every piece is freed by the round
/// that ends the last, one waiting for a piece still to come counts the rest and waits
/// on, and a piece that fails in the same round, after the successes, still cancels
/// the job waiting for it.
#[tokio::test]
async fn the_pieces_one_round_ends_count_down_the_jobs_waiting_for_them() {
    let h = Harness::new();
    let piece = Handler::new("piece", |n: i64, _ctx: JobContext| async move {
        if n < 0 {
            return Err(JobError::permanent("a negative piece"));
        }
        Ok(n)
    });
    let mut settings = settings();
    settings.workers = 8;
    let runner = Runner::new(h.queue.clone(), vec![piece, add_handler()], settings).unwrap();
    let enqueue = |n: i64, options| h.queue.enqueue("piece", &n, options).unwrap().id;
    let pieces: Vec<_> = (1..=5).map(|n| enqueue(n, EnqueueOptions::new())).collect();
    let later = enqueue(6, EnqueueOptions::new().delay(60 * SEC));
    let failing = enqueue(-1, EnqueueOptions::new());
    let add = |a: i64, options| {
        h.queue
            .enqueue("add", &json!({"a": a, "b": 2}), options)
            .unwrap()
            .id
    };
    let all = add(100, EnqueueOptions::new().after(pieces.clone()));
    let some = add(200, EnqueueOptions::new().after(pieces[..2].to_vec()));
    let with_later = add(
        300,
        EnqueueOptions::new().after(pieces.iter().copied().chain([later])),
    );
    let with_failing = add(400, EnqueueOptions::new().after([pieces[0], failing]));
    // One round claims the six runnable pieces; every handler is done before the next
    // round writes them all in one transaction.
    assert_eq!(runner.dispatch().unwrap(), 6);
    let ran = runner.drain().await.unwrap();
    let job = |id| h.queue.get(id).unwrap().unwrap();
    assert_eq!(job(failing).status, JobStatus::Failed, "{ran:?}");
    assert_eq!(job(all).result, Some(json!(102)), "freed, then run");
    assert_eq!(job(some).result, Some(json!(202)), "freed, then run");
    let waiting = job(with_later);
    assert_eq!(waiting.status, JobStatus::Queued);
    assert_eq!(waiting.waiting_on_jobs, 1, "five counted, one to come");
    assert_eq!(job(with_failing).status, JobStatus::Cancelled);
    // The last piece comes: the job waiting for it runs.
    h.advance(61 * SEC);
    runner.drain().await.unwrap();
    assert_eq!(job(later).status, JobStatus::Succeeded);
    assert_eq!(job(with_later).result, Some(json!(302)));
}
