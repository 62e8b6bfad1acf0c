//! Hostile and unlucky input through the public API (the `agent_*` commands pass the
//! same arguments): forged leases, lengths, values nested to exhaust a stack, rows
//! another program wrote, pathological text, and secrets in every form the README
//! lists, through every path that stores or publishes an error.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Harness;
use serde_json::{json, Value};
use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
use tauri_plugin_jobs::config::Config;
use tauri_plugin_jobs::local::{BoxError, LocalJobStatus, LocalJobs};
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobFailure, JobFilter, JobStatus, KindSpec, NewJob, Schema,
    MAX_LEASE,
};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};
use tauri_plugin_jobs::sync::testing::{FakeSource, SyncHarness};
use tauri_plugin_jobs::sync::{SyncError, SyncOutcome, SyncPolicy, SyncTarget};
use tauri_plugin_jobs::Error;

const SEC: Duration = Duration::from_secs(1);

fn settings() -> RunnerSettings {
    let mut settings = RunnerSettings::default();
    settings.worker_id = "hostile".into();
    settings.retention = None;
    settings
}

/// A value `depth` arrays deep, built without recursion.
fn nested(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

// ===== a lease proves nothing it does not hold =====

#[test]
fn a_lease_with_a_forged_kind_cannot_slip_a_result_past_the_schema() {
    let h = Harness::new();
    h.queue.register_kind(
        "count",
        KindSpec::new().result(Schema::of::<u32>()).max_attempts(1),
    );
    let id = h
        .queue
        .enqueue("count", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let mut claimed = h
        .queue
        .claim(&ClaimRequest::new("agent:x", ["count"]))
        .unwrap()
        .remove(0);
    claimed.lease.kind = "anything-goes".into();
    let err = h
        .queue
        .complete(&claimed.lease, Some(json!("not a number")))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidResult { kind, .. } if kind == "count"),
        "{err:?}"
    );
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed, "{job:?}");
    assert_eq!(job.result, None);
    let changes = h.take_events();
    assert!(changes.iter().all(|change| change.kind == "count"));
}

#[test]
fn a_refused_result_never_quotes_the_value() {
    let h = Harness::new();
    h.queue.register_kind(
        "count",
        KindSpec::new().result(Schema::of::<u64>()).max_attempts(1),
    );
    let id = h
        .queue
        .enqueue("count", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["count"]))
        .unwrap()
        .remove(0);
    // A value no redaction rule knows for a secret.
    let value = json!("{\"token\": 1234567890123}");
    let err = h.queue.complete(&claimed.lease, Some(value)).unwrap_err();
    let stored = h.queue.get(id).unwrap().unwrap().last_error.unwrap();
    for text in [err.to_string(), stored] {
        assert!(!text.contains("1234567890123"), "{text}");
        assert!(text.contains("expected u64"), "{text}");
        assert!(!text.contains("::"), "no Rust module path: {text}");
    }
}

#[test]
fn integers_past_64_bits_are_refused_not_rounded() {
    let h = Harness::new();
    let err = h
        .queue
        .enqueue("wide", &i128::MAX, EnqueueOptions::new())
        .unwrap_err();
    assert!(matches!(err, Error::InvalidPayload { .. }), "{err:?}");
    assert!(err.to_string().contains("64 bits"), "{err}");
    assert!(
        h.queue.list(&JobFilter::new()).unwrap().is_empty(),
        "nothing stored"
    );
    // Ones that fit, either sign, go through exactly.
    let id = h
        .queue
        .enqueue("wide", &(u64::MAX as u128), EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(h.queue.get(id).unwrap().unwrap().payload, json!(u64::MAX));
    let id = h
        .queue
        .enqueue("wide", &(i64::MIN as i128), EnqueueOptions::new())
        .unwrap()
        .id;
    assert_eq!(h.queue.get(id).unwrap().unwrap().payload, json!(i64::MIN));
}

#[tokio::test]
async fn a_handler_returning_an_integer_past_64_bits_fails_its_job_saying_why() {
    let h = Harness::new();
    let handler = Handler::new(
        "wide",
        |_: Value, _ctx: JobContext| async move { Ok(u128::MAX) },
    )
    .max_attempts(1);
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = h
        .queue
        .enqueue("wide", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert!(job.last_error.unwrap().contains("64 bits"));
    assert_eq!(job.result, None);
}

#[test]
fn lease_lengths_are_bounded() {
    let h = Harness::new();
    h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap();
    let forever = ClaimRequest::new("agent:x", ["k"]).lease(Duration::from_millis(u64::MAX));
    assert!(matches!(
        h.queue.claim(&forever),
        Err(Error::InvalidArgument { name: "lease", .. })
    ));
    let mut claimed = h
        .queue
        .claim(&ClaimRequest::new("agent:x", ["k"]).lease(MAX_LEASE))
        .unwrap()
        .remove(0);
    claimed.lease.length_ms = u64::MAX;
    assert!(matches!(
        h.queue.heartbeat(&claimed.lease),
        Err(Error::InvalidArgument { .. })
    ));
    claimed.lease.length_ms = 60_000;
    assert!(h.queue.heartbeat(&claimed.lease).is_ok());
}

// ===== values that cannot crash the app =====

#[test]
fn a_payload_nested_ten_thousand_deep_is_refused_without_a_stack_overflow() {
    let h = Harness::new();
    h.queue
        .register_kind("typed", KindSpec::new().payload(Schema::of::<Vec<Value>>()));
    let deep = nested(10_000);
    let err = h
        .queue
        .enqueue("typed", &deep, EnqueueOptions::new())
        .unwrap_err();
    assert!(matches!(err, Error::InvalidPayload { .. }), "{err:?}");
    assert!(err.to_string().contains("64"), "{err}");
    // The caller still owns it; dropping it here would recurse 10,000 frames deep.
    std::mem::forget(deep);
    let err = h
        .queue
        .enqueue_batch([NewJob::new("typed", nested(10_000))])
        .unwrap_err();
    assert!(matches!(err, Error::InvalidPayload { .. }), "{err:?}");
    assert!(h.queue.list(&JobFilter::new()).unwrap().is_empty());
}

#[test]
fn a_signal_nested_ten_thousand_deep_or_past_64_bit_integers_is_refused_and_changes_nothing() {
    let h = Harness::new();
    h.queue
        .register_kind("ask", KindSpec::new().signal("answer"));
    let id = h
        .queue
        .enqueue("ask", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    let deep = nested(10_000);
    let err = h.queue.signal(id, "answer", &deep).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidArgument {
                name: "payload",
                ..
            }
        ),
        "{err:?}"
    );
    std::mem::forget(deep);
    // A name of secrets and control characters is refused, cut, never stored.
    let name = format!("\u{0}{}", "k".repeat(10_000));
    let err = h.queue.signal(id, &name, &json!(1)).unwrap_err();
    assert!(err.to_string().len() < 1_000, "{err}");
    // Nothing was kept: the first real signal is stored as the first.
    let sent = h.queue.signal(id, "answer", &json!("yes")).unwrap();
    assert!(!sent.already_sent);
}

#[test]
fn a_result_nested_ten_thousand_deep_fails_the_attempt_without_a_stack_overflow() {
    let h = Harness::new();
    h.queue
        .register_kind("typed", KindSpec::new().result(Schema::of::<Vec<Value>>()));
    let id = h
        .queue
        .enqueue("typed", &1, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("w", ["typed"]))
        .unwrap()
        .remove(0);
    let err = h
        .queue
        .complete(&claimed.lease, Some(nested(10_000)))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidResult { .. }), "{err:?}");
    assert_eq!(h.queue.get(id).unwrap().unwrap().status, JobStatus::Failed);
}

#[tokio::test]
async fn a_handler_returning_a_value_ten_thousand_deep_fails_its_job_and_the_runner_lives() {
    let h = Harness::new();
    let handler = Handler::new("deep", |_: Value, _ctx: JobContext| async move {
        Ok(nested(10_000))
    })
    .max_attempts(1);
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    let id = h
        .queue
        .enqueue("deep", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert!(job.last_error.unwrap().contains("64"));
}

#[test]
fn one_unreadable_row_does_not_break_a_page() {
    let h = Harness::new();
    for i in 0..3 {
        h.queue.enqueue("k", &i, EnqueueOptions::new()).unwrap();
    }
    rusqlite::Connection::open(h.dir.path().join("raw.db"))
        .unwrap()
        .execute("UPDATE jobs SET payload = '{not json' WHERE id = 2", [])
        .unwrap();
    let page = h.queue.list(&JobFilter::new()).unwrap();
    assert_eq!(page.len(), 3, "the rest of the page comes back");
    let bad = page.iter().find(|job| job.id.raw() == 2).unwrap();
    assert_eq!(bad.kind, "k");
    assert_eq!(bad.status, JobStatus::Queued);
    assert_eq!(bad.payload, Value::Null);
    assert!(bad.unreadable.as_deref().unwrap().contains("payload"));
    assert!(page
        .iter()
        .filter(|job| job.id.raw() != 2)
        .all(|job| job.unreadable.is_none()));
    let one = h.queue.get(bad.id).unwrap().unwrap();
    assert!(one.unreadable.is_some());
}

#[test]
fn an_error_quoting_a_pathological_input_is_cut() {
    let line = format!("[jobs]\nworkers = \"{}\"\n", "w".repeat(200_000));
    let err = Config::parse(&line, "config.toml").unwrap_err();
    assert!(
        err.to_string().len() < 2_000,
        "{} bytes",
        err.to_string().len()
    );
    let huge = format!("{} * * * *", "1,".repeat(100_000));
    let err = huge
        .parse::<tauri_plugin_jobs::scheduler::Cron>()
        .unwrap_err();
    assert!(err.to_string().len() < 2_000);
}

// ===== secrets stay out, through every path =====

/// Messages quoting secrets in every form the README lists.
const CORPUS: &[&str] = &[
    "login failed password=hunter2 for bob",
    r#"body {"password":"hunter2","user":"bob"}"#,
    r#"Error("{\"api_key\":\"sk-live-XYZ\"}")"#,
    "connect https://bob:p@ssw0rd@db.example.com/x failed",
    "unlock passphrase=swordfish now",
    "header api-key: k9-secret-value sent",
    "login password: correct horse battery staple",
    "Authorization: Bearer abc.def-ghi",
];

const SECRETS: &[&str] = &[
    "hunter2",
    "sk-live-XYZ",
    "ssw0rd",
    "swordfish",
    "k9-secret-value",
    "horse battery",
    "abc.def-ghi",
];

fn assert_clean(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} leaked {secret:?}: {text}");
    }
}

/// Every event published on `bus`, as the JSON the webview would get.
fn recorder(bus: &EventBus) -> Arc<Mutex<Vec<String>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    bus.add_handler("record", move |event: &Event| {
        sink.lock()
            .unwrap()
            .push(serde_json::to_string(event).unwrap());
        Ok(())
    });
    seen
}

#[tokio::test]
async fn no_secret_of_the_corpus_survives_any_path_that_stores_or_publishes_an_error() {
    let h = Harness::new();
    let events = recorder(h.queue.bus());

    // A handler's failure.
    let handler = Handler::new("fails", |message: String, _ctx: JobContext| async move {
        Err::<(), _>(JobError::permanent(message))
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], settings()).unwrap();
    for message in CORPUS {
        h.queue
            .enqueue("fails", message, EnqueueOptions::new())
            .unwrap();
    }
    runner.drain().await.unwrap();

    // Schemas quoting what they refuse: at enqueue, at claim, at complete.
    h.queue.register_kind(
        "typed",
        KindSpec::new()
            .payload(Schema::of::<u32>())
            .result(Schema::of::<u32>())
            .max_attempts(1),
    );
    let other_process = h.second_queue();
    for message in CORPUS {
        let refused = h
            .queue
            .enqueue("typed", message, EnqueueOptions::new())
            .unwrap_err();
        assert_clean("an enqueue error", &refused.to_string());
        // Written where the schema is unknown, failed when claimed here.
        other_process
            .enqueue("typed", message, EnqueueOptions::new())
            .unwrap();
    }
    let request = ClaimRequest::new("w", ["typed"]).max_jobs(100);
    assert!(h.queue.claim(&request).unwrap().is_empty());
    for message in CORPUS {
        h.queue.enqueue("typed", &7, EnqueueOptions::new()).unwrap();
        let claimed = h.queue.claim(&request).unwrap().remove(0);
        let refused = h
            .queue
            .complete(&claimed.lease, Some(json!(message)))
            .unwrap_err();
        assert_clean("a complete error", &refused.to_string());
    }
    // A plain failure.
    for message in CORPUS {
        h.queue.enqueue("typed", &7, EnqueueOptions::new()).unwrap();
        let claimed = h.queue.claim(&request).unwrap().remove(0);
        h.queue
            .fail(&claimed.lease, JobFailure::retryable(*message))
            .unwrap();
    }
    for job in h.queue.list(&JobFilter::new().limit(1000)).unwrap() {
        assert_clean(
            "a stored last_error",
            job.last_error.as_deref().unwrap_or(""),
        );
    }

    // A sync source's failure: the outcome, the stored state and the health.
    let sync = SyncHarness::new();
    let sync_events = recorder(sync.queue.bus());
    let source = Arc::new(FakeSource::new());
    let target = SyncTarget::new("mail", "me", "inbox");
    sync.engine
        .register(target.clone(), SyncPolicy::every(60 * SEC), source.clone())
        .unwrap();
    for message in CORPUS {
        source.push(Err(SyncError::failed(message)));
        let outcome = sync.engine.sync_now(&target).await.unwrap();
        assert!(matches!(outcome, SyncOutcome::Failed { .. }));
        assert_clean("a sync outcome", &format!("{outcome:?}"));
        let state = sync.engine.state(&target).unwrap().unwrap();
        assert_clean("a sync state", &serde_json::to_string(&state).unwrap());
        assert_clean(
            "a health",
            &format!("{:?}", sync.engine.health(&target).unwrap()),
        );
        sync.advance(3600 * SEC);
    }

    // Local jobs: an error and a panic, in the record, the event and the awaited value.
    let bus = EventBus::new();
    let local_events = recorder(&bus);
    let local = LocalJobs::with_clock(bus, FakeClock::new(Timestamp::EPOCH));
    for message in CORPUS {
        let failed = message.to_string();
        let (id, result) = local.spawn_awaitable("export", move |_ctx| async move {
            Err::<(), BoxError>(failed.into())
        });
        assert_clean(
            "an awaited failure",
            &result.wait().await.unwrap_err().to_string(),
        );
        let record = local.get(id).unwrap();
        assert_eq!(record.status, LocalJobStatus::Failed);
        assert_clean("a local record", record.error.as_deref().unwrap_or(""));
        let panicking = message.to_string();
        let (_, result) = local.spawn_awaitable("export", move |_ctx| async move {
            if !panicking.is_empty() {
                panic!("{panicking}");
            }
            Ok::<(), BoxError>(())
        });
        assert_clean(
            "an awaited panic",
            &result.wait().await.unwrap_err().to_string(),
        );
    }

    for (what, seen) in [
        ("a queue event", events),
        ("a sync event", sync_events),
        ("a local job event", local_events),
    ] {
        for event in seen.lock().unwrap().iter() {
            assert_clean(what, event);
        }
    }
}
