//! Local jobs with JSON values: what the record keeps and what the observer hears.

use std::sync::Mutex;

use serde_json::{json, Value};

use super::*;

fn observed() -> (Observer, Arc<Mutex<Vec<LocalRunEvent>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let observer: Observer = Arc::new(move |event| sink.lock().unwrap().push(event));
    (observer, seen)
}

#[tokio::test]
async fn a_json_job_keeps_its_result_and_its_observer_hears_progress_then_the_end() {
    let jobs = LocalJobs::new(EventBus::new());
    let (observer, seen) = observed();
    let (id, result) = jobs
        .spawn_json(
            "count".into(),
            false,
            |ctx: LocalJobContext| async move {
                for done in 0..=1000 {
                    ctx.progress(done, Some(1000)).await;
                }
                Ok(json!({"rows": 1000}))
            },
            Some(observer),
        )
        .unwrap();
    assert_eq!(result.wait().await.unwrap(), json!({"rows": 1000}));
    assert_eq!(jobs.get(id).unwrap().result, Some(json!({"rows": 1000})));
    let seen = seen.lock().unwrap();
    let progress = seen
        .iter()
        .filter(|event| matches!(event, LocalRunEvent::Progress { .. }))
        .count();
    assert_eq!(progress, 101, "one a percent, like the bus");
    assert_eq!(
        seen.last(),
        Some(&LocalRunEvent::Finished {
            status: LocalJobStatus::Succeeded,
            result: Some(json!({"rows": 1000})),
            error: None,
        })
    );
}

#[tokio::test]
async fn a_result_past_the_cap_is_not_kept_but_still_delivered() {
    let jobs = LocalJobs::new(EventBus::new());
    let (observer, seen) = observed();
    let big = Value::String("x".repeat(MAX_LOCAL_RESULT_BYTES));
    let sent = big.clone();
    let (id, result) = jobs
        .spawn_json(
            "big".into(),
            false,
            move |_ctx| async move { Ok(sent) },
            Some(observer),
        )
        .unwrap();
    assert_eq!(result.wait().await.unwrap(), big);
    let record = jobs.get(id).unwrap();
    assert_eq!(record.status, LocalJobStatus::Succeeded);
    assert_eq!(record.result, None);
    assert!(matches!(
        seen.lock().unwrap().last(),
        Some(LocalRunEvent::Finished { result: Some(value), .. }) if *value == big
    ));
}

#[tokio::test]
async fn a_failure_reaches_the_observer_redacted_and_typed_jobs_keep_no_result() {
    let jobs = LocalJobs::new(EventBus::new());
    let (observer, seen) = observed();
    let (_, result) = jobs
        .spawn_json(
            "fails".into(),
            false,
            |_ctx| async move { Err::<Value, BoxError>("token=abc123secret".into()) },
            Some(observer),
        )
        .unwrap();
    assert!(result.wait().await.is_err());
    match seen.lock().unwrap().last() {
        Some(LocalRunEvent::Finished {
            status: LocalJobStatus::Failed,
            result: None,
            error: Some(error),
        }) => assert!(!error.contains("abc123secret"), "{error}"),
        other => panic!("{other:?}"),
    }
    let (id, typed) = jobs.spawn_awaitable("typed", |_ctx| async move { Ok::<_, BoxError>(7u32) });
    assert_eq!(typed.wait().await.unwrap(), 7);
    assert_eq!(jobs.get(id).unwrap().result, None);
}
