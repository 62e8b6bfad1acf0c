//! Work that waits for the network or a service: offline attempts, snoozes and
//! throttled kinds, on the fake clock.

use std::collections::HashMap;
use std::sync::Mutex;

use tauri_plugin_jobs::queue::{
    HistoryRange, HistoryStep, JobFilter, WaitingFor, DEFAULT_OFFLINE_RETRY, MAX_DEFERRAL,
    MIN_DEFERRAL,
};
use tauri_plugin_jobs::runner::retry_after;

use super::*;

const HOUR: Duration = Duration::from_secs(3600);

/// An outbox's sender: offline while `online` is false (a refused connection, turned
/// into `JobError::Offline` by `?`), else it sends, counting each job's sends.
#[derive(Clone, Default)]
struct Outbox {
    online: Arc<AtomicBool>,
    calls: Arc<AtomicU32>,
    sent: Arc<Mutex<HashMap<String, u32>>>,
}

impl Outbox {
    fn handler(&self) -> Handler {
        let outbox = self.clone();
        Handler::new("send", move |change: String, _ctx: JobContext| {
            let outbox = outbox.clone();
            async move {
                outbox.calls.fetch_add(1, Ordering::SeqCst);
                if !outbox.online.load(Ordering::SeqCst) {
                    let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
                    Err(refused)?;
                }
                *outbox.sent.lock().unwrap().entry(change).or_default() += 1;
                Ok(())
            }
        })
        .max_attempts(3)
    }

    fn set_online(&self, online: bool) {
        self.online.store(online, Ordering::SeqCst);
    }

    fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }
}

fn queued_changes(h: &Harness, n: u32) -> Vec<tauri_plugin_jobs::queue::JobId> {
    (0..n)
        .map(|i| {
            let key = format!("note-{i}");
            h.queue
                .enqueue("send", &key, EnqueueOptions::new().dedupe_key(&key))
                .unwrap()
                .id
        })
        .collect()
}

#[tokio::test]
async fn a_day_offline_fails_nothing_and_each_job_runs_once_within_a_probe_of_the_network() {
    let h = Harness::new();
    let outbox = Outbox::default();
    let runner = Runner::new(h.queue.clone(), vec![outbox.handler()], settings()).unwrap();
    let ids = queued_changes(&h, 20);
    let start = h.clock.now();

    // 24 hours offline, one step per probe interval; the system says "network back"
    // every two hours without a route behind it (a Wi-Fi with no internet).
    let steps = (24 * HOUR).as_secs() / DEFAULT_OFFLINE_RETRY.as_secs();
    for step in 0..steps {
        if step > 0 && step % (2 * HOUR.as_secs() / DEFAULT_OFFLINE_RETRY.as_secs()) == 0 {
            assert_eq!(h.queue.network_back().unwrap(), 1, "one kind waits");
        }
        let before = outbox.calls();
        runner.drain().await.unwrap();
        let probes = outbox.calls() - before;
        // The first round starts what the runner's workers take, before anything
        // says the network is gone; after it, one job at a time.
        let most = if step == 0 { settings().workers } else { 1 };
        assert!(probes <= most, "{probes} attempts at step {step}");
        h.advance(DEFAULT_OFFLINE_RETRY);
    }
    let offline_calls = outbox.calls();
    // A probe every 15 s (5,760 a day), plus the spurious signals': nothing more.
    assert!(
        (5_700..=5_800).contains(&offline_calls),
        "{offline_calls} calls in a day offline"
    );
    let jobs = h.queue.list(&JobFilter::new().kind("send")).unwrap();
    assert_eq!(jobs.len(), 20);
    for job in &jobs {
        assert_eq!(job.status, JobStatus::Queued, "nothing failed for good");
        assert_eq!(job.attempts, 0, "no attempt counted: #{}", job.id);
        assert!(
            job.waiting_for
                .iter()
                .any(|w| matches!(w, WaitingFor::Network { .. })),
            "says it waits for the network: {:?}",
            job.waiting_for
        );
    }

    // The network comes back and nobody says so: the next probe finds it, and the
    // rest follow at once.
    outbox.set_online(true);
    let back = h.clock.now();
    let mut started_by = None;
    for _ in 0..4 {
        runner.drain().await.unwrap();
        if outbox.sent.lock().unwrap().len() == 20 {
            started_by = Some(h.clock.now());
            break;
        }
        h.advance(5 * SEC);
    }
    let started_by = started_by.expect("every change sent");
    assert!(started_by.duration_since(back) <= DEFAULT_OFFLINE_RETRY);
    let sent = outbox.sent.lock().unwrap().clone();
    assert!(sent.values().all(|&n| n == 1), "each sent once: {sent:?}");
    for id in ids {
        let job = h.queue.get(id).unwrap().unwrap();
        assert_eq!((job.status, job.attempts), (JobStatus::Succeeded, 1));
    }
    // The history counts each offline attempt apart: no retry, no failure.
    let history = h
        .queue
        .history(
            "send",
            HistoryRange::new(
                start.saturating_sub(HOUR),
                h.clock.now().saturating_add(HOUR),
                HistoryStep::Hour,
            ),
        )
        .unwrap();
    let sum = |f: fn(&tauri_plugin_jobs::queue::HistoryPoint) -> u64| -> u64 {
        history.iter().map(f).sum()
    };
    assert_eq!(sum(|p| p.offline), u64::from(offline_calls), "{history:?}");
    assert_eq!((sum(|p| p.retries), sum(|p| p.failed)), (0, 0));
    assert_eq!((sum(|p| p.succeeded), sum(|p| p.throttled)), (20, 0));
}

#[tokio::test]
async fn the_network_back_starts_the_waiting_kind_at_once() {
    let h = Harness::new();
    let outbox = Outbox::default();
    let runner = Runner::new(h.queue.clone(), vec![outbox.handler()], settings()).unwrap();
    queued_changes(&h, 5);
    runner.drain().await.unwrap();
    let first = outbox.calls();
    assert!(first >= 1, "the first round found the network gone");
    h.advance(SEC);
    runner.drain().await.unwrap();
    assert_eq!(outbox.calls(), first, "the kind waits for its probe");
    let count = h.queue.counts().unwrap();
    let queued = count
        .iter()
        .find(|c| c.status == JobStatus::Queued)
        .unwrap();
    let because = queued.held_because.as_deref().unwrap_or_default();
    assert!(
        because.contains("refused"),
        "says what the attempt saw: {because}"
    );

    outbox.set_online(true);
    assert_eq!(h.queue.network_back().unwrap(), 1);
    runner.drain().await.unwrap();
    assert_eq!(outbox.sent.lock().unwrap().len(), 5, "all of them, now");
    assert_eq!(h.queue.network_back().unwrap(), 0, "nothing waits any more");
}

#[tokio::test]
async fn a_job_past_its_kinds_max_offline_fails_saying_so() {
    let h = Harness::new();
    let outbox = Outbox::default();
    let handler = outbox.handler().max_offline(HOUR);
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = queued_changes(&h, 1)[0];
    runner.drain().await.unwrap();
    // A probe 20 s before the hour: still waiting; the one at the hour fails it.
    h.advance(HOUR - 20 * SEC);
    runner.drain().await.unwrap();
    assert_eq!(h.queue.get(id).unwrap().unwrap().status, JobStatus::Queued);
    h.advance(20 * SEC);
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    let error = job.last_error.unwrap();
    assert!(
        error.contains("offline for longer than its limit"),
        "{error}"
    );
}

/// A probe that fails its job for `max_offline` found the network gone like any other:
/// the kind stays held, and the next job starts one `offline_retry` later, not at once.
#[tokio::test]
async fn a_probe_failed_for_max_offline_keeps_the_kind_held() {
    let h = Harness::new();
    let outbox = Outbox::default();
    let handler = outbox.handler().max_offline(60 * SEC);
    let mut one_worker = settings();
    one_worker.workers = 1;
    let runner = Runner::new(h.queue.clone(), vec![handler], one_worker).unwrap();
    queued_changes(&h, 3);
    let start = h.clock.now();
    // One second at a time for three minutes, the network never back: note when each
    // attempt started.
    let mut tries = Vec::new();
    for _ in 0..=180 {
        let before = outbox.calls();
        runner.drain().await.unwrap();
        for _ in before..outbox.calls() {
            tries.push(h.clock.now().duration_since(start).as_secs());
        }
        h.advance(SEC);
    }
    // The probes take the jobs in turn (a deferred job goes to the back of the line),
    // so their first offline attempts were at 0 (twice), 30 and 45 s; each fails at
    // its first probe 60 s or more after it ("offline for `max_offline`": at least
    // that long): at 60, 105 and 120 s. Never two starts at once.
    let every = DEFAULT_OFFLINE_RETRY.as_secs();
    let expected: Vec<u64> = (0..=120 / every).map(|n| n * every).collect();
    assert_eq!(tries, expected, "one probe every {every} s, no more");
    for job in h.queue.list(&JobFilter::new().kind("send")).unwrap() {
        assert_eq!(
            (job.status, job.attempts),
            (JobStatus::Failed, 1),
            "{job:?}"
        );
        let error = job.last_error.unwrap_or_default();
        assert!(
            error.contains("offline for longer than its limit of 60s"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_jobs_own_max_offline_beats_its_kinds() {
    let h = Harness::new();
    let outbox = Outbox::default();
    let handler = outbox.handler().max_offline(HOUR);
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let limit = |d: Duration| EnqueueOptions::new().max_offline(d);
    let short = h
        .queue
        .enqueue("send", &"short", limit(60 * SEC))
        .unwrap()
        .id;
    let long = h
        .queue
        .enqueue("send", &"long", limit(3 * HOUR))
        .unwrap()
        .id;
    let kinds = h
        .queue
        .enqueue("send", &"kind's", EnqueueOptions::new())
        .unwrap()
        .id;
    let status = |id| h.queue.get(id).unwrap().unwrap().status;
    // Every probe finds the network gone; each job fails at its own limit.
    let mut failed_at = HashMap::new();
    for _ in 0..(4 * HOUR.as_secs() / DEFAULT_OFFLINE_RETRY.as_secs()) {
        runner.drain().await.unwrap();
        for (name, id) in [("short", short), ("long", long), ("kind's", kinds)] {
            if status(id) == JobStatus::Failed {
                failed_at.entry(name).or_insert(h.clock.now());
            }
        }
        h.advance(DEFAULT_OFFLINE_RETRY);
    }
    let start = h.clock.now().saturating_sub(4 * HOUR);
    let after = |name| failed_at[name].duration_since(start);
    // A job is checked when its own probe finds the network gone: one job a probe,
    // in turn, so each fails within a few probes of its limit.
    let near = |name, limit: Duration| {
        let took = after(name);
        assert!(
            took >= limit && took <= limit + 4 * DEFAULT_OFFLINE_RETRY,
            "{name} failed after {took:?}, its limit {limit:?}"
        );
    };
    near("short", 60 * SEC);
    near("kind's", HOUR);
    near("long", 3 * HOUR);
    let error = h.queue.get(long).unwrap().unwrap().last_error.unwrap();
    assert!(
        error.contains("offline for longer than its limit of 10800s"),
        "{error}"
    );
}

#[tokio::test]
async fn a_retry_after_defers_the_job_alone_without_counting_an_attempt() {
    let h = Harness::new();
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    let handler = Handler::new("fetch", move |n: u32, ctx: JobContext| {
        let first = counter.fetch_add(1, Ordering::SeqCst) == 0;
        async move {
            if n == 2 && ctx.attempt == 1 {
                return Err(JobError::retryable("HTTP 500"));
            }
            if (first && n == 0) || (n == 2 && ctx.attempt == 2) {
                // What a 429 with `Retry-After: 600` reads as.
                let wait = retry_after("600", ctx.now()).unwrap();
                return Err(JobError::retry_after(wait, "HTTP 429"));
            }
            Ok(n)
        }
    })
    .max_attempts(3);
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let snoozed = h
        .queue
        .enqueue("fetch", &0u32, EnqueueOptions::new())
        .unwrap()
        .id;
    let other = h
        .queue
        .enqueue("fetch", &1u32, EnqueueOptions::new())
        .unwrap()
        .id;
    let ran = runner.drain().await.unwrap();
    let due = h.clock.now().saturating_add(600 * SEC);
    let snooze = ran.iter().find(|r| r.id == snoozed).unwrap();
    assert_eq!(snooze.finished, Ok(Finished::Deferred { at: due }));
    let job = h.queue.get(snoozed).unwrap().unwrap();
    assert_eq!(
        (job.status, job.attempts, job.run_at),
        (JobStatus::Queued, 0, due)
    );
    assert_eq!(job.last_error, None, "not a failure");
    assert_eq!(job.snoozed_until, Some(due), "its time is a snooze's");
    assert_eq!(
        h.queue.get(other).unwrap().unwrap().status,
        JobStatus::Succeeded,
        "the kind goes on"
    );
    h.advance(599 * SEC);
    assert!(
        runner.drain().await.unwrap().is_empty(),
        "not before its time"
    );
    h.advance(SEC);
    runner.drain().await.unwrap();
    let job = h.queue.get(snoozed).unwrap().unwrap();
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Succeeded, 1),
        "its first attempt was not spent by the snooze"
    );
    assert_eq!(job.snoozed_until, None);

    // A job that failed once, then was snoozed: its wait is the snooze's, not a
    // backoff; a retry after it moves `run_at`, and the snooze no longer shows.
    let later = h
        .queue
        .enqueue("fetch", &2u32, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(later).unwrap().unwrap();
    assert_eq!((job.attempts, job.snoozed_until), (1, None), "a backoff");
    h.advance(job.run_at.duration_since(h.clock.now()));
    runner.drain().await.unwrap();
    let job = h.queue.get(later).unwrap().unwrap();
    assert_eq!(job.attempts, 1, "the snooze gave its attempt back");
    assert_eq!(job.snoozed_until, Some(job.run_at));
    assert!(job.run_at > h.clock.now());
}

#[tokio::test]
async fn a_hostile_retry_after_is_clamped_to_a_day_and_to_a_second() {
    let h = Harness::new();
    let handler = Handler::new("fetch", |_: u32, _ctx: JobContext| async move {
        Err::<(), _>(JobError::retry_after(
            Duration::from_secs(10 * 365 * 24 * 3600),
            "Retry-After: ten years",
        ))
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = h
        .queue
        .enqueue("fetch", &0u32, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.run_at, h.clock.now().saturating_add(MAX_DEFERRAL));

    // And no shorter than a second: `Retry-After: 0` does not run the job again and
    // again at once (drain would never return) without spending an attempt.
    let h = Harness::new();
    let handler = Handler::new("fetch", |_: u32, _ctx: JobContext| async move {
        Err::<(), _>(JobError::retry_after(Duration::ZERO, "Retry-After: 0"))
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = h
        .queue
        .enqueue("fetch", &0u32, EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(runner.drain().await.unwrap().len(), 1);
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.run_at, h.clock.now().saturating_add(MIN_DEFERRAL));
}

#[tokio::test]
async fn a_throttled_kind_starts_nothing_in_any_process_until_its_time() {
    let h = Harness::new();
    let throttled = Arc::new(AtomicBool::new(true));
    let quiet = throttled.clone();
    let handler = Handler::new("upload", move |n: u32, _ctx: JobContext| {
        let throttled = quiet.load(Ordering::SeqCst);
        async move {
            if throttled {
                return Err(JobError::throttle_kind(
                    600 * SEC,
                    "HTTP 429 from the upload API",
                ));
            }
            Ok(n)
        }
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let first = h
        .queue
        .enqueue("upload", &0u32, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let until = h.clock.now().saturating_add(600 * SEC);
    for n in 1..=3u32 {
        h.queue
            .enqueue("upload", &n, EnqueueOptions::new())
            .unwrap();
    }
    throttled.store(false, Ordering::SeqCst);

    // Another process on the file: nothing of the kind for it either, and it says why.
    let other = h.second_queue();
    let claim = ClaimRequest::new("elsewhere", ["upload"]).max_jobs(10);
    assert!(other.claim(&claim).unwrap().is_empty());
    let queued = other
        .counts()
        .unwrap()
        .into_iter()
        .find(|c| c.kind == "upload" && c.status == JobStatus::Queued)
        .unwrap();
    assert_eq!(queued.count, 4);
    assert_eq!(queued.waiting_for, vec![WaitingFor::Service { until }]);
    assert_eq!(
        queued.held_because.as_deref(),
        Some("HTTP 429 from the upload API")
    );
    let job = other.get(first).unwrap().unwrap();
    assert_eq!(
        job.held_because.as_deref(),
        Some("HTTP 429 from the upload API")
    );
    assert_eq!(
        job.snoozed_until, None,
        "the kind's hold says why, not a snooze"
    );
    assert!(runner.drain().await.unwrap().is_empty());
    assert_eq!(
        h.queue.next_claimable_at(&claim).unwrap(),
        Some(until),
        "an idle runner sleeps until the kind's time"
    );

    h.advance(600 * SEC);
    let ran = runner.drain().await.unwrap();
    assert_eq!(ran.len(), 4);
    let job = h.queue.get(first).unwrap().unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Succeeded, 1));
    // The history counts the four ends, and the throttled attempt apart from retries.
    let history = h
        .queue
        .history("upload", HistoryRange::last_hour(h.clock.now()))
        .unwrap();
    let sums = history.iter().fold((0, 0, 0, 0, 0), |(s, f, r, o, t), p| {
        (
            s + p.succeeded,
            f + p.failed,
            r + p.retries,
            o + p.offline,
            t + p.throttled,
        )
    });
    assert_eq!(sums, (4, 0, 0, 0, 1), "{history:?}");
}

#[tokio::test]
async fn an_edit_made_offline_replaces_the_waiting_one_and_only_the_last_is_sent() {
    use tauri_plugin_jobs::queue::OnDuplicate;
    let h = Harness::new();
    let outbox = Outbox::default();
    let runner = Runner::new(h.queue.clone(), vec![outbox.handler()], settings()).unwrap();
    let edit = |text: &str| {
        h.queue
            .enqueue(
                "send",
                &text.to_owned(),
                EnqueueOptions::new()
                    .dedupe_key("note-7")
                    .on_duplicate(OnDuplicate::Replace),
            )
            .unwrap()
    };
    let first = edit("Buy milk");
    runner.drain().await.unwrap();
    assert_eq!(outbox.calls(), 1, "it found the network gone");
    let second = edit("Buy oat milk");
    assert_eq!(second.id, first.id, "the waiting edit takes the new text");
    h.advance(HOUR);
    outbox.set_online(true);
    runner.drain().await.unwrap();
    let sent = outbox.sent.lock().unwrap().clone();
    assert_eq!(sent, HashMap::from([("Buy oat milk".to_owned(), 1)]));
}
