//! A job's attempts timeline (`Job::errors`) keeps its deferrals beside its failures:
//! a run of offline probes as one entry with its count, a throttle of its kind and a
//! snooze with until when, none of them counted, and the failures before hours offline
//! (far more probes than the 20 entries kept) are still there after them.

use std::sync::Mutex;

use tauri_plugin_jobs::queue::{AttemptOutcome, DEFAULT_OFFLINE_RETRY};

use super::*;

/// What the next attempts answer, in order; then success.
#[derive(Clone, Default)]
struct Script(Arc<Mutex<Vec<JobError>>>);

impl Script {
    fn handler(&self) -> Handler {
        let script = self.clone();
        Handler::new("send", move |_: String, _ctx: JobContext| {
            let next = {
                let mut answers = script.0.lock().unwrap();
                (!answers.is_empty()).then(|| answers.remove(0))
            };
            async move { next.map_or(Ok(()), Err) }
        })
        .retry(RetryPolicy::new(SEC, SEC, 0.0).unwrap())
    }
}

#[tokio::test]
async fn deferrals_are_in_the_timeline_and_hours_offline_keep_the_failures_before_them() {
    let h = Harness::new();
    let offline = || JobError::offline("connection refused");
    let mut answers = vec![JobError::retryable("HTTP 502")];
    // Two hours of probes, every 15 s: 480.
    let probes = (2 * 3600 / DEFAULT_OFFLINE_RETRY.as_secs()) as usize;
    answers.extend((0..probes).map(|_| offline()));
    answers.push(JobError::throttle_kind(60 * SEC, "HTTP 429"));
    answers.push(JobError::retry_after(120 * SEC, "HTTP 503"));
    let script = Script(Arc::new(Mutex::new(answers)));
    let runner = Runner::new(h.queue.clone(), vec![script.handler()], settings()).unwrap();
    let id = h
        .queue
        .enqueue("send", &"note", EnqueueOptions::new())
        .unwrap()
        .id;
    // Step the clock until the job has succeeded (bounded: two hours and a bit).
    for _ in 0..probes + 100 {
        runner.drain().await.unwrap();
        if h.queue.get(id).unwrap().unwrap().status == JobStatus::Succeeded {
            break;
        }
        h.advance(DEFAULT_OFFLINE_RETRY);
    }
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Succeeded, 2),
        "{job:?}"
    );
    let timeline: Vec<_> = job
        .errors
        .iter()
        .map(|e| (e.attempt, e.outcome, e.error.as_str(), e.probes))
        .collect();
    assert_eq!(
        timeline,
        [
            (1, AttemptOutcome::Failed, "HTTP 502", None),
            (
                2,
                AttemptOutcome::Offline,
                "connection refused",
                Some(probes as u32)
            ),
            (2, AttemptOutcome::Throttled, "HTTP 429", None),
            (2, AttemptOutcome::Snoozed, "HTTP 503", None),
        ]
    );
    let [failed, offline, throttled, snoozed] = &job.errors[..] else {
        unreachable!()
    };
    assert_eq!(failed.until, None);
    // The run of probes ends at its last; the kind's next probe was one interval on.
    assert_eq!(
        offline.until,
        Some(offline.at.saturating_add(DEFAULT_OFFLINE_RETRY))
    );
    assert_eq!(throttled.until, Some(throttled.at.saturating_add(60 * SEC)));
    assert_eq!(snoozed.until, Some(snoozed.at.saturating_add(120 * SEC)));
    assert_eq!(job.last_error, None, "a success clears the last error");
}
