//! Signals and a job's log on the fake clock: a wait holds no worker and ends when
//! the signal comes or at its deadline; a signal sent before the wait is kept; twice,
//! after the end, by another name, too large or too deep is a clear answer and
//! changes nothing; a log keeps its last lines, redacted, and goes with its job.

use std::sync::Mutex;

use tauri_plugin_jobs::queue::{
    AttemptOutcome, JobFilter, SignalRefusal, DEFAULT_LOG_LINES, MAX_JSON_DEPTH,
};
use tauri_plugin_jobs::runner::LogLevel;
use tauri_plugin_jobs::Error;

use super::*;

const DAY: Duration = Duration::from_secs(86_400);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Approval {
    approved: bool,
}

/// Drafts (a step), waits a day for "approval", then says what came.
fn approval(drafted: &Arc<AtomicU32>) -> Handler {
    let drafted = drafted.clone();
    Handler::new("report", move |_: String, ctx: JobContext| {
        let drafted = drafted.clone();
        async move {
            ctx.step("draft", || async {
                drafted.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .await?;
            ctx.log("drafted, waiting");
            let answer: Option<Approval> = ctx.wait_for_signal("approval", DAY).await?;
            Ok(match answer {
                Some(Approval { approved }) => format!("approved: {approved}"),
                None => "timed out".to_owned(),
            })
        }
    })
    .signal("approval")
}

#[tokio::test]
async fn a_wait_holds_no_worker_and_a_signal_brings_the_job_back_with_its_payload() {
    let h = Harness::new();
    let drafted = Arc::new(AtomicU32::new(0));
    let runner = Runner::new(h.queue.clone(), vec![approval(&drafted)], settings()).unwrap();
    let id = h
        .queue
        .enqueue("report", &"q4", EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    let deadline = h.clock.now().saturating_add(DAY);
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Queued, 0),
        "not counted"
    );
    assert_eq!(job.awaits_signal.as_deref(), Some("approval"));
    assert_eq!(job.sleeping_until, Some(deadline));
    assert!(job
        .waiting_for
        .contains(&tauri_plugin_jobs::queue::WaitingFor::Signal { until: deadline }));
    assert_eq!(runner.running(), 0, "no worker held");
    // An hour on: nothing has run.
    h.advance(Duration::from_secs(3600));
    assert!(runner.drain().await.unwrap().is_empty());

    let sent = h
        .queue
        .signal(id, "approval", &json!({ "approved": true }))
        .unwrap();
    assert!(sent.woke && !sent.already_sent);
    // The same again: harmless, and the first stays.
    let again = h
        .queue
        .signal(id, "approval", &json!({ "approved": false }))
        .unwrap();
    assert!(again.already_sent && !again.woke);
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Succeeded, 1),
        "{job:?}"
    );
    assert_eq!(job.result, Some(json!("approved: true")));
    assert_eq!(drafted.load(Ordering::SeqCst), 1, "the draft was read back");
    assert!(job
        .errors
        .iter()
        .any(|e| e.outcome == AttemptOutcome::Signal));
    // After the end: refused, naming why.
    let refused = h
        .queue
        .signal(id, "approval", &json!({ "approved": true }))
        .unwrap_err();
    assert!(matches!(
        refused,
        Error::SignalRefused {
            reason: SignalRefusal::Ended(JobStatus::Succeeded),
            ..
        }
    ));
}

#[tokio::test]
async fn a_signal_before_the_wait_is_kept_and_a_deadline_passes_when_nobody_answers() {
    let h = Harness::new();
    let drafted = Arc::new(AtomicU32::new(0));
    let runner = Runner::new(h.queue.clone(), vec![approval(&drafted)], settings()).unwrap();
    let early = h
        .queue
        .enqueue("report", &"early", EnqueueOptions::new())
        .unwrap()
        .id;
    let late = h
        .queue
        .enqueue("report", &"late", EnqueueOptions::new())
        .unwrap()
        .id;
    // Before either has run: kept for the one, as its handler declares the name.
    let sent = h
        .queue
        .signal(early, "approval", &json!({ "approved": false }))
        .unwrap();
    assert!(!sent.woke);
    runner.drain().await.unwrap();
    assert_eq!(
        h.queue.get(early).unwrap().unwrap().result,
        Some(json!("approved: false")),
        "read at once: it was there"
    );
    // Nobody answers the other: a day and it goes on, timed out.
    h.advance(DAY - SEC);
    assert!(runner.drain().await.unwrap().is_empty());
    h.advance(SEC);
    runner.drain().await.unwrap();
    let job = h.queue.get(late).unwrap().unwrap();
    assert_eq!(job.result, Some(json!("timed out")));
    assert_eq!(job.attempts, 1);
}

#[tokio::test]
async fn a_signal_too_late_by_another_name_too_large_or_too_deep_is_refused_and_changes_nothing() {
    let h = Harness::new();
    let drafted = Arc::new(AtomicU32::new(0));
    let id = h
        .queue
        .enqueue("report", &"x", EnqueueOptions::new())
        .unwrap()
        .id;
    let runner = Runner::new(h.queue.clone(), vec![approval(&drafted)], settings()).unwrap();
    runner.drain().await.unwrap();
    let refused = h.queue.signal(id, "rejection", &json!(true)).unwrap_err();
    assert!(
        matches!(
            refused,
            Error::SignalRefused {
                reason: SignalRefusal::NotAwaited,
                ..
            }
        ),
        "{refused}"
    );
    assert!(refused.to_string().contains("\"rejection\""), "{refused}");
    let big = json!("x".repeat(2 << 20));
    let refused = h.queue.signal(id, "approval", &big).unwrap_err();
    assert!(refused.to_string().contains("payload"), "{refused}");
    let mut deep = json!(1);
    for _ in 0..MAX_JSON_DEPTH + 2 {
        deep = json!([deep]);
    }
    let refused = h.queue.signal(id, "approval", &deep).unwrap_err();
    assert!(refused.to_string().contains("nested deeper"), "{refused}");
    let refused = h.queue.signal(id, "", &json!(1)).unwrap_err();
    assert!(
        matches!(refused, Error::InvalidArgument { name: "name", .. }),
        "{refused}"
    );
    let missing = h
        .queue
        .signal(
            tauri_plugin_jobs::queue::JobId::from(999),
            "approval",
            &json!(1),
        )
        .unwrap_err();
    assert!(matches!(missing, Error::JobNotFound(_)));
    // Nothing of it was kept: the job still waits, and times out.
    h.advance(DAY);
    runner.drain().await.unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().result,
        Some(json!("timed out"))
    );
}

/// A job whose wait timed out reads the same on every later attempt: a signal after
/// the timeout is refused.
#[tokio::test]
async fn a_signal_after_the_wait_timed_out_is_refused() {
    let h = Harness::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = Handler::new("ask", move |_: (), ctx: JobContext| {
        let record = record.clone();
        async move {
            let answer: Option<String> = ctx.wait_for_signal("answer", DAY).await?;
            record.lock().unwrap().push(answer.clone());
            if ctx.attempt == 1 {
                return Err(JobError::retryable("after the wait, a failure"));
            }
            Ok(answer)
        }
    })
    .signal("answer")
    .retry(RetryPolicy::new(SEC, SEC, 0.0).unwrap());
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = h
        .queue
        .enqueue("ask", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    h.advance(DAY);
    runner.drain().await.unwrap(); // times out, then fails
    let refused = h.queue.signal(id, "answer", &json!("late")).unwrap_err();
    assert!(
        matches!(
            refused,
            Error::SignalRefused {
                reason: SignalRefusal::WaitOver,
                ..
            }
        ),
        "{refused}"
    );
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [None, None],
        "the same on each attempt"
    );
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}

#[tokio::test]
async fn a_log_keeps_its_last_lines_redacted_and_goes_with_its_job() {
    let h = Harness::new();
    let chatty = Handler::new("chatty", |n: u32, ctx: JobContext| async move {
        for i in 0..n {
            ctx.log(format_args!("line {i}"));
        }
        ctx.log_at(
            LogLevel::Warn,
            "GET https://bob:hunter2@example.com/?api_key=abc123 answered 500",
        );
        Ok(())
    });
    let runner = Runner::new(h.queue.clone(), vec![chatty], settings()).unwrap();
    let id = h
        .queue
        .enqueue("chatty", &(DEFAULT_LOG_LINES + 50), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let lines = h.queue.logs(id, 0).unwrap();
    assert_eq!(lines.len(), DEFAULT_LOG_LINES as usize, "capped");
    let last = lines.last().unwrap();
    assert_eq!(last.level, "warn");
    assert!(
        !last.text.contains("hunter2") && !last.text.contains("abc123"),
        "{}",
        last.text
    );
    assert_eq!(lines[0].text, "line 51", "the oldest went first");
    assert!(lines.iter().all(|line| line.attempt == 1));
    // Only what came after a line.
    assert_eq!(h.queue.logs(id, last.seq - 2).unwrap().len(), 2);
    // Gone with the job.
    h.queue.delete(id).unwrap();
    assert!(h.queue.logs(id, 0).unwrap().is_empty());
    assert!(h.queue.list(&JobFilter::default()).unwrap().is_empty());

    // Across attempts, each stored apart: still the last lines, in order.
    let twice = Handler::new("twice", |_: (), ctx: JobContext| async move {
        for i in 0..150 {
            ctx.log(format_args!("attempt {} line {i}", ctx.attempt));
        }
        if ctx.attempt == 1 {
            return Err(JobError::retryable("again"));
        }
        Ok(())
    })
    .retry(RetryPolicy::new(SEC, SEC, 0.0).unwrap());
    let runner = Runner::new(h.queue.clone(), vec![twice], settings()).unwrap();
    let id = h
        .queue
        .enqueue("twice", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    let lines = h.queue.logs(id, 0).unwrap();
    assert_eq!(lines.len(), DEFAULT_LOG_LINES as usize);
    assert_eq!(lines[0].text, "attempt 1 line 100");
    assert_eq!((lines[0].seq, lines[0].attempt), (101, 1));
    assert_eq!(lines.last().unwrap().text, "attempt 2 line 149");
    assert!(lines.windows(2).all(|w| w[1].seq == w[0].seq + 1));
}
