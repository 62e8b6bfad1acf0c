//! Events reaching a subscribed window, a stalled listener, and answers while another program holds the write lock.

use super::*;

#[test]
fn bus_events_reach_a_subscribed_window_and_no_tauri_event_carries_them() {
    let app = app(ALL);
    // What any script's `listen()` would hear, with the default target (Any).
    let (tx, heard) = std::sync::mpsc::channel();
    app.ui
        .app()
        .listen_any("plugin:jobs:jobs-event", move |event| {
            let _ = tx.send(event.payload().to_owned());
        });
    let events = app.ui.subscribe("main");
    app.ui
        .invoke("enqueue", json!({"kind": "echo", "payload": "evt"}))
        .unwrap();
    // Other events (the start-up sync's health) may come first.
    let payload = events
        .next_matching(|payload| payload["event"]["type"] == json!("jobStateChanged"))
        .expect("a job event in time");
    assert_eq!(payload["event"]["kind"], json!("echo"));
    assert_eq!(payload["dropped"], json!(0));
    assert!(
        heard.try_recv().is_err(),
        "the plugin emits no Tauri event any window could listen to"
    );
}

#[test]
fn a_stalled_listener_still_receives_every_state_change_while_progress_floods() {
    use tauri_plugin_jobs::bus::{LocalJobChanged, LocalJobProgress};
    use tauri_plugin_jobs::clock::Timestamp;
    use tauri_plugin_jobs::local::{LocalJobId, LocalJobStatus};

    let app = app(ALL);
    let events = app.ui.subscribe("main");
    // The webview is frozen until the test lets it go.
    let frozen = app.ui.freeze("main");
    let bus = app.ui.jobs().bus().clone();
    let id: LocalJobId = "local-900".parse().unwrap();
    const CHANGES: u64 = 300;
    for n in 0..CHANGES {
        bus.publish(LocalJobChanged {
            id,
            kind: format!("change-{n}"),
            status: LocalJobStatus::Running,
            error: None,
            at: Timestamp::EPOCH,
        });
        for done in 0..100 {
            bus.publish(LocalJobProgress {
                id,
                kind: "flood".into(),
                done: n * 100 + done,
                total: None,
                percent: None,
                at: Timestamp::EPOCH,
            });
        }
    }
    drop(frozen);
    let mut changes = 0;
    let mut last_progress = None;
    let mut dropped = 0;
    while changes < CHANGES || last_progress != Some(CHANGES * 100 - 1) {
        let payload = events
            .next_within(Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{changes} state changes arrived, then nothing"));
        dropped = payload["dropped"].as_u64().unwrap();
        let event = &payload["event"];
        if event["type"] == json!("localJobChanged") && event["id"] == json!("local-900") {
            assert_eq!(
                event["kind"],
                json!(format!("change-{changes}")),
                "in order"
            );
            changes += 1;
        }
        if event["type"] == json!("localJobProgress") {
            last_progress = event["done"].as_u64();
        }
    }
    assert_eq!(dropped, 0, "no state change was lost");
}

#[test]
fn ipc_answers_while_another_program_holds_the_write_lock_during_syncs() {
    use tauri_plugin_jobs::sync::SyncPolicy;
    let app = app(ALL);
    let sync = app.ui.jobs().sync().clone();
    let sources: Vec<Arc<FakeSource>> = (0..4).map(|_| Arc::new(FakeSource::new())).collect();
    let names = ["a", "b", "c", "d"];
    for (name, source) in names.iter().zip(&sources) {
        sync.register(
            SyncTarget::new("demo", "me", *name),
            SyncPolicy::every(Duration::from_secs(600)),
            source.clone(),
        )
        .unwrap();
    }
    // Their start-up runs over (a run in flight is joined, and awaited to its end),
    // so every run below starts afresh and asks its source.
    for name in names {
        tauri::async_runtime::block_on(sync.sync_now(&SyncTarget::new("demo", "me", name)))
            .unwrap();
    }
    let path = app.ui.jobs().queue().path();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let before: Vec<u32> = sources.iter().map(|s| s.calls()).collect();
    // Every sync run now waits to store its state.
    let runs: Vec<_> = names
        .iter()
        .map(|name| {
            let sync = sync.clone();
            let target = SyncTarget::new("demo", "me", *name);
            tauri::async_runtime::spawn(async move { sync.sync_now(&target).await })
        })
        .collect();
    // Real threads and a real lock: the runs have asked their sources, so they are
    // at (or on their way to) the write the lock holds up. Bounded.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while sources.iter().zip(&before).any(|(s, b)| s.calls() == *b) {
        assert!(
            std::time::Instant::now() < deadline,
            "the runs never started"
        );
        std::thread::yield_now();
    }
    let started = std::time::Instant::now();
    let answer = app.ui.invoke("list_local_jobs", json!({}));
    let waited = started.elapsed();
    // The contention was there: a run that asked its source could not finish while
    // the other program held the lock.
    let held_up = runs.iter().filter(|run| !run.inner().is_finished()).count();
    other.execute_batch("COMMIT").unwrap();
    assert!(answer.is_ok());
    assert!(held_up > 0, "no run was waiting for the lock");
    assert!(
        waited < Duration::from_secs(2),
        "an IPC command waited {waited:?} behind {held_up} sync state writes"
    );
    for run in runs {
        tauri::async_runtime::block_on(run).unwrap().unwrap();
    }
}
