//! Process-local jobs: each entry point, exclusivity, cooperative cancel, panics,
//! progress throttling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tauri_plugin_jobs::bus::{Event, EventBus, EventStream};
use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
use tauri_plugin_jobs::local::{
    BoxError, LocalJobFailure, LocalJobId, LocalJobStatus, LocalJobs, PROGRESS_INTERVAL,
};
use tauri_plugin_jobs::Error;
use tokio::sync::Notify;

fn jobs() -> (LocalJobs, EventStream, FakeClock) {
    let bus = EventBus::new();
    let stream = bus.subscribe(100_000);
    let clock = FakeClock::new(Timestamp::from_millis(1_000_000));
    (LocalJobs::with_clock(bus, clock.clone()), stream, clock)
}

/// Waits for the job's terminal state event and returns its status.
async fn ended(stream: &mut EventStream, id: LocalJobId) -> LocalJobStatus {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("the job ended in time")
            .expect("bus open");
        if let Event::LocalJobChanged(change) = &*event {
            if change.id == id && change.status != LocalJobStatus::Running {
                return change.status;
            }
        }
    }
}

#[tokio::test]
async fn spawn_runs_and_records_success() {
    let (jobs, mut stream, _) = jobs();
    let id = jobs.spawn("export", |_ctx| async move { Ok(()) });
    assert_eq!(ended(&mut stream, id).await, LocalJobStatus::Succeeded);
    let record = jobs.get(id).unwrap();
    assert_eq!(record.kind, "export");
    assert_eq!(record.status, LocalJobStatus::Succeeded);
    assert!(record.finished_at.is_some());
}

#[tokio::test]
async fn awaitable_returns_the_typed_value() {
    let (jobs, _, _) = jobs();
    let (id, result) = jobs.spawn_awaitable("render", |_ctx| async move {
        Ok::<_, BoxError>(vec![1u8, 2, 3])
    });
    assert_eq!(result.wait().await.unwrap(), vec![1, 2, 3]);
    assert_eq!(jobs.get(id).unwrap().status, LocalJobStatus::Succeeded);
    let (_, result) = jobs
        .spawn_exclusive_awaitable("crawl", |_ctx| async move { Ok::<_, BoxError>(42u64) })
        .unwrap();
    assert_eq!(result.wait().await.unwrap(), 42);
}

#[tokio::test]
async fn exclusive_spawns_refuse_a_second_job_of_the_same_kind_only() {
    let (jobs, mut stream, _) = jobs();
    let gate = Arc::new(Notify::new());
    let open = gate.clone();
    let first = jobs
        .spawn_exclusive("crawl", move |_ctx| async move {
            open.notified().await;
            Ok(())
        })
        .unwrap();
    let refused = jobs.spawn_exclusive("crawl", |_ctx| async move { Ok(()) });
    assert!(matches!(refused, Err(Error::AlreadyRunning { ref kind }) if kind == "crawl"));
    assert!(jobs
        .spawn_exclusive_awaitable("crawl", |_ctx| async move { Ok::<_, BoxError>(()) })
        .is_err());
    let other = jobs
        .spawn_exclusive("index", |_ctx| async move { Ok(()) })
        .unwrap();
    assert_eq!(ended(&mut stream, other).await, LocalJobStatus::Succeeded);

    gate.notify_one();
    assert_eq!(ended(&mut stream, first).await, LocalJobStatus::Succeeded);
    let again = jobs
        .spawn_exclusive("crawl", |_ctx| async move { Ok(()) })
        .unwrap();
    assert_eq!(ended(&mut stream, again).await, LocalJobStatus::Succeeded);
}

#[tokio::test]
async fn cancellation_is_cooperative() {
    let (jobs, _, _) = jobs();
    let started = Arc::new(Notify::new());
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let (signal, seen) = (started.clone(), saw_cancel.clone());
    let (id, result) = jobs.spawn_awaitable("export", move |ctx| async move {
        signal.notify_one();
        // The body decides when stopping is safe: here, at its next await.
        ctx.cancelled().await;
        seen.store(true, Ordering::SeqCst);
        Ok::<_, BoxError>("partial")
    });
    started.notified().await;
    assert_eq!(jobs.get(id).unwrap().status, LocalJobStatus::Running);
    assert!(jobs.cancel(id));
    assert!(jobs.get(id).unwrap().cancel_requested);
    assert_eq!(result.wait().await, Err(LocalJobFailure::Cancelled));
    assert!(
        saw_cancel.load(Ordering::SeqCst),
        "the body ran to its own stopping point"
    );
    assert_eq!(jobs.get(id).unwrap().status, LocalJobStatus::Cancelled);
    assert!(!jobs.cancel(id), "already over");
}

#[tokio::test]
async fn a_panic_is_recorded_as_failed() {
    let (jobs, _, _) = jobs();
    let (id, result) = jobs.spawn_awaitable("render", |_ctx| async move {
        if true {
            panic!("template missing");
        }
        Ok::<_, BoxError>(())
    });
    assert_eq!(
        result.wait().await,
        Err(LocalJobFailure::Panicked("template missing".into()))
    );
    let record = jobs.get(id).unwrap();
    assert_eq!(record.status, LocalJobStatus::Failed);
    assert_eq!(record.error.as_deref(), Some("template missing"));
}

#[tokio::test]
async fn an_error_is_recorded_as_failed_and_redacted() {
    let (jobs, mut stream, _) = jobs();
    let id = jobs.spawn("upload", |_ctx| async move {
        Err("PUT https://u:hunter2@files.test failed".into())
    });
    assert_eq!(ended(&mut stream, id).await, LocalJobStatus::Failed);
    let error = jobs.get(id).unwrap().error.unwrap();
    assert!(
        error.contains("failed") && !error.contains("hunter2"),
        "{error}"
    );
}

#[tokio::test]
async fn ten_thousand_steps_publish_at_most_101_progress_events() {
    let (jobs, mut stream, _) = jobs();
    let (id, result) = jobs.spawn_awaitable("export", |ctx| async move {
        for step in 1..=10_000u64 {
            ctx.progress(step, Some(10_000)).await;
        }
        Ok::<_, BoxError>(())
    });
    result.wait().await.unwrap();
    let mut progress = Vec::new();
    while let Some(event) = stream.try_next() {
        if let Event::LocalJobProgress(p) = &*event {
            assert_eq!(p.id, id);
            progress.push((p.done, p.percent));
        }
    }
    assert!(progress.len() <= 101, "{} events", progress.len());
    assert!(
        progress.len() >= 100,
        "about one per percent: {}",
        progress.len()
    );
    assert_eq!(progress.first(), Some(&(1, Some(0))));
    assert_eq!(progress.last(), Some(&(10_000, Some(100))));
    assert_eq!(stream.dropped(), 0);
    let record = jobs.get(id).unwrap();
    assert_eq!((record.done, record.total), (10_000, Some(10_000)));
}

#[tokio::test]
async fn an_unknown_total_is_throttled_by_clock_time() {
    let (jobs, mut stream, clock) = jobs();
    let go = Arc::new(Notify::new());
    let step = Arc::new(Notify::new());
    let (go_rx, step_tx) = (go.clone(), step.clone());
    let (_id, result) = jobs.spawn_awaitable("scan", move |ctx| async move {
        for round in 0..3u64 {
            for i in 0..1_000 {
                ctx.progress(round * 1_000 + i + 1, None).await;
            }
            step_tx.notify_one();
            go_rx.notified().await;
        }
        Ok::<_, BoxError>(())
    });
    let count = |stream: &mut EventStream| {
        let mut n = 0;
        while let Some(event) = stream.try_next() {
            n += usize::from(matches!(&*event, Event::LocalJobProgress(_)));
        }
        n
    };
    step.notified().await;
    assert_eq!(
        count(&mut stream),
        1,
        "a thousand reports at one instant: one event"
    );
    clock.advance(PROGRESS_INTERVAL - Duration::from_millis(1));
    go.notify_one();
    step.notified().await;
    assert_eq!(count(&mut stream), 0, "not yet an interval later");
    clock.advance(Duration::from_millis(1));
    go.notify_one();
    step.notified().await;
    assert_eq!(count(&mut stream), 1);
    go.notify_one();
    result.wait().await.unwrap();
    assert_eq!(
        count(&mut stream),
        1,
        "the held-back last report is sent at the end"
    );
}

#[tokio::test]
async fn dropping_a_job_result_is_fine() {
    let (jobs, mut stream, _) = jobs();
    let (id, result) = jobs.spawn_awaitable("render", |_ctx| async move { Ok::<_, BoxError>(1) });
    drop(result);
    assert_eq!(ended(&mut stream, id).await, LocalJobStatus::Succeeded);
}

#[tokio::test]
async fn finished_records_are_bounded() {
    let (jobs, _, _) = jobs();
    for _ in 0..250 {
        let (_, result) = jobs.spawn_awaitable("tiny", |_ctx| async move { Ok::<_, BoxError>(()) });
        result.wait().await.unwrap();
    }
    let list = jobs.list();
    assert_eq!(list.len(), 200);
    assert!(list.windows(2).all(|w| w[0].id < w[1].id), "oldest first");
}

#[test]
fn ids_cross_ipc_as_prefixed_strings() {
    let id: LocalJobId = "local-7".parse().unwrap();
    assert_eq!(serde_json::to_string(&id).unwrap(), "\"local-7\"");
    assert_eq!(
        serde_json::from_str::<LocalJobId>("\"local-7\"").unwrap(),
        id
    );
    assert!(serde_json::from_str::<LocalJobId>("7").is_err());
    assert!(matches!(
        "job-7".parse::<LocalJobId>(),
        Err(Error::InvalidArgument { name: "id", .. })
    ));
}

#[tokio::test]
async fn local_jobs_do_not_survive_a_restart_and_write_nothing_to_raw_db() {
    use tauri_plugin_jobs::testing::Backend;
    let backend = Backend::builder().build();
    let rows = |backend: &Backend| -> Vec<(String, i64)> {
        let conn = rusqlite::Connection::open(backend.queue.path()).unwrap();
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|name| name.unwrap())
            .collect();
        tables
            .into_iter()
            .map(|table| {
                let count = conn
                    .query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
                        r.get(0)
                    })
                    .unwrap();
                (table, count)
            })
            .collect()
    };
    let before = rows(&backend);
    let hold = Arc::new(Notify::new());
    let held = hold.clone();
    let running = backend.local.spawn("export", move |_ctx| async move {
        held.notified().await;
        Ok(())
    });
    let done = backend.local.spawn("render", |_ctx| async move { Ok(()) });
    tokio::task::yield_now().await;
    assert_eq!(backend.local.list().len(), 2);
    assert_eq!(
        rows(&backend),
        before,
        "a local job writes nothing to raw.db"
    );

    // The app quits and starts again: neither the running job nor the finished one
    // is there, and nothing runs it again.
    let backend = backend.restart();
    assert!(backend.local.list().is_empty());
    assert_eq!(backend.local.get(running), None);
    assert_eq!(backend.local.get(done), None);
    assert_eq!(rows(&backend), before);
    hold.notify_waiters();
}
