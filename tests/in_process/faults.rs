//! Faults and hostile input: a full disk, a database locked for too long, JSON too
//! deep to read back, rows another program wrote badly, random bytes everywhere.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{json, Value};
use tauri_plugin_jobs::config::Config;
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobFilter, JobStatus, NewJob, Queue, QueueOptions,
};
use tauri_plugin_jobs::Error;

#[test]
fn a_full_disk_is_a_clear_error_that_loses_nothing_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let small = Queue::open(&path, QueueOptions::new().max_page_count(64)).unwrap();
    let filler = "x".repeat(2_000);
    let mut stored = 0;
    let error = loop {
        match small.enqueue(
            "fill",
            &json!({ "n": stored, "pad": filler }),
            EnqueueOptions::new(),
        ) {
            Ok(_) => stored += 1,
            Err(error) => break error,
        }
        assert!(stored < 10_000, "the cap never bit");
    };
    assert!(matches!(error, Error::Full { .. }), "{error}");
    assert!(error.to_string().contains("nothing stored was lost"));
    assert!(stored > 10);
    // A batch that does not fit changes nothing.
    let batch = (0..50).map(|n| NewJob::new("fill", json!({ "batch": n, "pad": filler })));
    assert!(matches!(
        small.enqueue_batch(batch),
        Err(Error::Full { .. })
    ));
    let count = |queue: &Queue| queue.counts().unwrap().iter().map(|c| c.count).sum::<u32>();
    assert_eq!(count(&small), stored);
    drop(small);

    // Space comes back: the same file works again, with everything it had.
    let roomy = Queue::open(&path, QueueOptions::new()).unwrap();
    assert_eq!(count(&roomy), stored);
    roomy
        .enqueue("fill", &json!({ "after": true }), EnqueueOptions::new())
        .unwrap();
    let check: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn a_database_locked_for_too_long_is_a_busy_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(
        &path,
        QueueOptions::new()
            .busy_timeout(Duration::from_millis(50))
            .busy_deadline(Duration::from_millis(400)),
    )
    .unwrap();
    queue.enqueue("k", &1, EnqueueOptions::new()).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let started = Instant::now();
    let error = queue.enqueue("k", &2, EnqueueOptions::new()).unwrap_err();
    assert!(
        matches!(error, Error::Busy { waited_ms } if waited_ms >= 400),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    holder.execute_batch("ROLLBACK").unwrap();
    queue.enqueue("k", &3, EnqueueOptions::new()).unwrap();
    assert_eq!(queue.list(&JobFilter::new()).unwrap().len(), 2);
}

fn nested(depth: usize) -> Value {
    (0..depth).fold(json!(0), |inner, _| json!([inner]))
}

#[test]
fn json_too_deep_to_read_back_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let error = queue
        .enqueue("k", &nested(200), EnqueueOptions::new())
        .unwrap_err();
    assert!(
        matches!(&error, Error::InvalidPayload { reason, .. } if reason.contains("deeper")),
        "{error}"
    );
    queue
        .enqueue("k", &nested(50), EnqueueOptions::new())
        .unwrap();
    let claimed = queue
        .claim(&ClaimRequest::new("w", ["k"]))
        .unwrap()
        .pop()
        .unwrap();
    let error = queue
        .complete(&claimed.lease, Some(nested(100)))
        .unwrap_err();
    assert!(matches!(error, Error::InvalidResult { .. }), "{error}");
}

#[test]
fn a_row_another_program_wrote_badly_fails_instead_of_blocking_claims() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let bad = queue
        .enqueue("k", &"fine for now", EnqueueOptions::new())
        .unwrap()
        .id;
    let good = queue
        .enqueue("k", &"fine", EnqueueOptions::new())
        .unwrap()
        .id;
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE jobs SET payload = '{not json' WHERE id = ?1",
            [bad.raw()],
        )
        .unwrap();
    let claimed = queue
        .claim(&ClaimRequest::new("w", ["k"]).max_jobs(5))
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].job.id, good);
    let status: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT status || ':' || last_error FROM jobs WHERE id = ?1",
            [bad.raw()],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        status.starts_with("failed:stored payload is not valid JSON"),
        "{status}"
    );
    assert_eq!(claimed[0].job.status, JobStatus::Running);
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,20}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("\\PC{0,8}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_payload_and_kind_round_trip_verbatim(payload in json_value(), kind in "\\PC{1,40}", key in "\\PC{1,40}") {
        let dir = tempfile::tempdir().unwrap();
        let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
        let id = queue.enqueue(&kind, &payload, EnqueueOptions::new().dedupe_key(key.clone())).unwrap().id;
        let job = queue.get(id).unwrap().unwrap();
        prop_assert_eq!(job.payload, payload);
        prop_assert_eq!(job.kind, kind);
        prop_assert_eq!(job.dedupe_key, Some(key));
    }

    #[test]
    fn config_parsing_never_panics(text in "\\PC{0,200}") {
        let _ = Config::parse(&text, "config.toml");
    }

    #[test]
    fn config_like_input_gives_a_typed_error_or_a_config(
        key in "[a-z_]{1,20}", value in prop_oneof!["-?[0-9]{1,12}", "\"[a-z]{0,8}\"", "[0-9]\\.[0-9]", "true", "\\[\\]"]
    ) {
        match Config::parse(&format!("[jobs]\n{key} = {value}\n"), "config.toml") {
            Ok(_) => {}
            // A key of its own, or the empty key of a TOML syntax error.
            Err(Error::Config { key: named, .. }) => prop_assert!(named.is_empty() || named.starts_with("jobs")),
            Err(other) => prop_assert!(false, "untyped error {other:?}"),
        }
    }

    #[test]
    fn filters_and_ids_from_json_never_panic(value in json_value()) {
        let _ = serde_json::from_value::<JobFilter>(value.clone());
        let _ = serde_json::from_value::<tauri_plugin_jobs::queue::JobId>(value.clone());
        let _ = serde_json::from_value::<tauri_plugin_jobs::local::LocalJobId>(value);
    }
}

#[test]
fn secrets_quoted_by_a_schema_error_are_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    queue.register_kind(
        "count",
        tauri_plugin_jobs::queue::KindSpec::new()
            .payload(tauri_plugin_jobs::queue::Schema::of::<u64>()),
    );
    let error = queue
        .enqueue("count", &"password=hunter2", EnqueueOptions::new())
        .unwrap_err()
        .to_string();
    assert!(error.contains("invalid payload"), "{error}");
    assert!(!error.contains("hunter2"), "{error}");
}
