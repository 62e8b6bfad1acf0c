//! The `metrics` feature: what the queue and the sync engine record through the
//! facade, seen by a test recorder (metrics-util's debugging one, installed for this
//! thread only), after the transactions commit, and nothing for a write refused.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::Harness;
use metrics::with_local_recorder;
use metrics::{SharedString, Unit};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use metrics_util::{CompositeKey, MetricKind};
use serde_json::json;
use tauri_plugin_jobs::metrics::{
    DEFERRED, ENDED, ENQUEUED, RECLAIMED, RETRIED, RUN_SECONDS, SYNC_RUNS, SYNC_SECONDS,
    WAIT_SECONDS,
};
use tauri_plugin_jobs::queue::{ClaimRequest, Deferral, EnqueueOptions, JobFailure, Outcome};
use tauri_plugin_jobs::sync::testing::{FakeSource, SyncHarness};
use tauri_plugin_jobs::sync::{SyncError, SyncPolicy, SyncReport, SyncResult, SyncTarget};

/// What a recorder held at one moment (a snapshot takes what it reads: counters start
/// again from zero after it).
type Metrics = Vec<(CompositeKey, Option<Unit>, Option<SharedString>, DebugValue)>;

fn take(snapshotter: &Snapshotter) -> Metrics {
    snapshotter.snapshot().into_vec()
}

/// The value of the metric `name` with exactly `labels`, if recorded.
fn value<'a>(
    metrics: &'a Metrics,
    kind: MetricKind,
    name: &str,
    labels: &[(&str, &str)],
) -> Option<&'a DebugValue> {
    metrics.iter().find_map(|(key, _, _, value)| {
        let (k, key) = (key.kind(), key.key());
        let mut got: Vec<(String, String)> = key
            .labels()
            .map(|l| (l.key().to_owned(), l.value().to_owned()))
            .collect();
        got.sort();
        let mut want: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        want.sort();
        (k == kind && key.name() == name && got == want).then_some(value)
    })
}

fn counter(s: &Metrics, name: &str, labels: &[(&str, &str)]) -> u64 {
    match value(s, MetricKind::Counter, name, labels) {
        Some(DebugValue::Counter(n)) => *n,
        None => 0,
        other => panic!("{name} is {other:?}"),
    }
}

fn samples(s: &Metrics, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
    match value(s, MetricKind::Histogram, name, labels) {
        Some(DebugValue::Histogram(values)) => values.iter().map(|v| v.into_inner()).collect(),
        None => Vec::new(),
        other => panic!("{name} is {other:?}"),
    }
}

#[test]
fn jobs_record_counters_and_histograms_under_jobs_by_kind() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let h = Harness::new();
    with_local_recorder(&recorder, || {
        for _ in 0..3 {
            h.queue
                .enqueue("mail", &json!({}), EnqueueOptions::new().max_attempts(2))
                .unwrap();
        }
        h.clock.advance(Duration::from_millis(250));
        let claimed = h
            .queue
            .claim(&ClaimRequest::new("w", ["mail"]).max_jobs(3))
            .unwrap();
        h.clock.advance(Duration::from_secs(2));
        h.queue.complete(&claimed[0].lease, None).unwrap();
        h.queue
            .fail(&claimed[1].lease, JobFailure::retryable("down"))
            .unwrap();
        h.queue
            .fail(
                &claimed[2].lease,
                JobFailure::permanent("message 0 does not exist"),
            )
            .unwrap();
    });
    let mail = [("kind", "mail")];
    let s = take(&snapshotter);
    assert_eq!(counter(&s, ENQUEUED, &mail), 3);
    assert_eq!(
        counter(&s, ENDED, &[("kind", "mail"), ("status", "succeeded")]),
        1
    );
    assert_eq!(
        counter(&s, ENDED, &[("kind", "mail"), ("status", "failed")]),
        1
    );
    assert_eq!(counter(&s, RETRIED, &mail), 1);
    assert_eq!(counter(&s, RECLAIMED, &mail), 0);
    assert_eq!(samples(&s, WAIT_SECONDS, &mail), [0.25; 3]);
    assert_eq!(samples(&s, RUN_SECONDS, &mail), [2.0; 3]);

    // A lease that runs out is taken back: reclaimed, not retried.
    with_local_recorder(&recorder, || {
        h.clock.advance(Duration::from_secs(60));
        let job = h.queue.claim(&ClaimRequest::new("w", ["mail"])).unwrap();
        assert_eq!(job.len(), 1);
        h.clock.advance(Duration::from_secs(600));
        h.queue.reclaim_expired().unwrap();
    });
    let s = take(&snapshotter);
    assert_eq!(counter(&s, RECLAIMED, &mail), 1);
    assert_eq!(counter(&s, RETRIED, &mail), 0);

    // A handler's deferral (here a snooze) is deferred: not retried, not reclaimed.
    with_local_recorder(&recorder, || {
        h.clock.advance(Duration::from_secs(600));
        let job = h.queue.claim(&ClaimRequest::new("w", ["mail"])).unwrap();
        let snooze = Deferral::Later {
            after: Duration::from_secs(30),
            reason: "HTTP 429".into(),
        };
        h.queue
            .finish(&job[0].lease, Outcome::Deferred(snooze))
            .unwrap();
    });
    let s = take(&snapshotter);
    assert_eq!(counter(&s, DEFERRED, &mail), 1);
    assert_eq!(
        (counter(&s, RETRIED, &mail), counter(&s, RECLAIMED, &mail)),
        (0, 0)
    );
}

#[test]
fn sync_runs_are_counted_by_target_and_outcome() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let h = SyncHarness::new();
    let source = Arc::new(FakeSource::new());
    let inbox = SyncTarget::new("mail", "alice", "inbox");
    h.engine
        .register(
            inbox.clone(),
            SyncPolicy::every(Duration::from_secs(60)),
            source.clone(),
        )
        .unwrap();
    source.push(Ok(SyncResult::Updated(SyncReport::changed(2))));
    source.push(Err(SyncError::failed("HTTP 500")));
    source.push(Err(SyncError::offline("unreachable")));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    with_local_recorder(&recorder, || {
        runtime.block_on(async {
            for _ in 0..3 {
                h.engine.sync_now(&inbox).await.unwrap();
            }
        })
    });
    let s = take(&snapshotter);
    let of = |outcome| [("target", "mail/alice/inbox"), ("outcome", outcome)];
    assert_eq!(counter(&s, SYNC_RUNS, &of("updated")), 1);
    assert_eq!(counter(&s, SYNC_RUNS, &of("failed")), 1);
    assert_eq!(counter(&s, SYNC_RUNS, &of("offline")), 1);
    assert_eq!(
        samples(&s, SYNC_SECONDS, &[("target", "mail/alice/inbox")]).len(),
        3
    );
}

#[test]
fn a_finish_that_writes_nothing_records_nothing() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let h = Harness::new();
    h.queue
        .enqueue("mail", &json!({}), EnqueueOptions::new())
        .unwrap();
    let job = h
        .queue
        .claim(&ClaimRequest::new("w", ["mail"]))
        .unwrap()
        .pop()
        .unwrap();
    h.clock.advance(Duration::from_secs(600));
    h.queue.reclaim_expired().unwrap();
    take(&snapshotter);
    with_local_recorder(&recorder, || {
        // The lease was taken back: the complete is refused and changes nothing.
        assert!(h.queue.complete(&job.lease, None).is_err());
    });
    assert!(take(&snapshotter).is_empty());
}
