//! Events reach only the windows that may read them (1), and no window forges what another hears (6).

use super::*;

// ===== 1. events per window =====

#[test]
fn events_reach_only_the_windows_that_may_read_them() {
    let app = app(&[
        // May subscribe, may read nothing: hears nothing.
        ("blind", json!(["jobs:allow-subscribe"])),
        // No permission of the plugin at all.
        ("none", json!([])),
    ]);
    // What any script's `listen()` would hear (target Any).
    let (tx, any) = std::sync::mpsc::channel();
    app.ui.app().listen_any("plugin:jobs:jobs-event", move |e| {
        let _ = tx.send(e.payload().to_owned());
    });
    let main = app.ui.subscribe("main");
    let scoped = app.ui.subscribe("scoped");
    let blind = app.ui.subscribe("blind");
    let refused = app
        .ui
        .invoke_in(
            "none",
            "subscribe",
            json!({"onEvent": app.ui.channel("none").arg()}),
        )
        .unwrap_err();
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );

    enqueue(&app, "main", "ingest").unwrap();
    enqueue(&app, "main", "export").unwrap();
    app.ui
        .invoke_in(
            "main",
            "spawn_awaitable",
            json!({"kind": "wipe", "args": 1}),
        )
        .unwrap();
    app.ui
        .invoke_in(
            "main",
            "spawn_awaitable",
            json!({"kind": "export", "args": 2}),
        )
        .unwrap();
    app.ui
        .invoke_in("main", "sync_now", json!({"target": "bank/me/ledger"}))
        .unwrap();
    app.ui
        .invoke_in("main", "sync_now", json!({"target": "demo/me/feed"}))
        .unwrap();
    app.ui
        .invoke_in("main", "pause_kind", json!({"kind": "ingest"}))
        .unwrap();
    app.ui
        .invoke_in("main", "pause_schedule", json!({"name": "ledger"}))
        .unwrap();
    app.ui
        .invoke_in("main", "pause_kind", json!({"kind": "export"}))
        .unwrap();

    // The last thing published; everything before it has been sent by then.
    let everything = until_heard(&main, "kindPaused", "export");
    for expected in [
        ("jobStateChanged", "ingest"),
        ("localJobChanged", "wipe"),
        ("syncFinished", "bank/me/ledger"),
        ("kindPaused", "ingest"),
        ("scheduleChanged", "ingest"),
    ] {
        assert!(
            everything
                .iter()
                .any(|(t, a)| (t.as_str(), a.as_str()) == expected),
            "main hears {expected:?}: {everything:?}"
        );
    }
    let own = until_heard(&scoped, "kindPaused", "export");
    for (kind, about) in &own {
        assert!(
            about == "export" || about.starts_with("demo/"),
            "the scoped window heard {kind} about {about}: {own:?}"
        );
    }
    assert!(own.iter().any(|(t, _)| t == "localJobChanged"));
    assert!(own.iter().any(|(t, _)| t == "syncFinished"));
    assert!(own.iter().any(|(t, _)| t == "jobStateChanged"));
    assert!(
        blind.next_within(Duration::from_millis(200)).is_none(),
        "a window that may read nothing hears nothing: {:?}",
        heard(&blind)
    );
    assert!(any.try_recv().is_err(), "no Tauri event carries them");
}

#[test]
fn messages_read_states_and_sync_progress_reach_only_windows_that_may_read_their_targets() {
    use tauri_plugin_jobs::bus::{MessageEvent, MessageStage, ReadStateChanged, SyncProgress};
    use tauri_plugin_jobs::clock::Timestamp;
    let app = app(&[]);
    let main = app.ui.subscribe("main");
    let scoped = app.ui.subscribe("scoped");
    let bus = app.ui.jobs().bus().clone();
    let at = Timestamp::from_millis(1_800_000_000_000);
    // What the app publishes (SyncContext::message and read_state do the same from a
    // source), for an account the scoped window reaches and one it does not.
    for account in ["bank/me", "demo/me"] {
        for stage in [MessageStage::Stored, MessageStage::Embedded] {
            bus.publish(stage.event(MessageEvent {
                account: account.to_owned(),
                message_id: "m1".to_owned(),
                at,
            }));
        }
        bus.publish(ReadStateChanged {
            account: account.to_owned(),
            message_id: "m1".to_owned(),
            read: true,
            at,
        });
        bus.publish(SyncProgress {
            target: format!("{account}/feed"),
            done: 1,
            total: Some(2),
            at,
        });
    }
    let expected = |account: &str| {
        vec![
            ("messageStored".to_owned(), account.to_owned()),
            ("messageEmbedded".to_owned(), account.to_owned()),
            ("readStateChanged".to_owned(), account.to_owned()),
            ("syncProgress".to_owned(), format!("{account}/feed")),
        ]
    };
    // The syncs the app's start runs on their own publish too: those aside.
    let these = |heard: Vec<(String, String)>| -> Vec<(String, String)> {
        heard
            .into_iter()
            .filter(|(kind, _)| !matches!(kind.as_str(), "syncFinished" | "pluginHealth"))
            .collect()
    };
    let everything = these(until_heard(&main, "syncProgress", "demo/me/feed"));
    assert_eq!(
        everything,
        [expected("bank/me"), expected("demo/me")].concat()
    );
    let own = these(until_heard(&scoped, "syncProgress", "demo/me/feed"));
    assert_eq!(
        own,
        expected("demo/me"),
        "the scoped window reaches demo/* only"
    );
}

// ===== 6. no forged events =====

#[test]
fn an_event_another_window_emits_never_reaches_a_subscription() {
    let app = app(&[]);
    let scoped = app.ui.subscribe("scoped");
    // What `emit("plugin:jobs:jobs-event", ...)` from any window with core:event does.
    app.ui
        .app()
        .emit(
            "plugin:jobs:jobs-event",
            json!({"event": {"type": "jobStateChanged", "id": 1, "kind": "export",
                   "from": "running", "to": "failed", "attempt": 1, "at": 1},
                   "dropped": 1_000_000}),
        )
        .unwrap();
    app.ui
        .invoke_in("main", "pause_kind", json!({"kind": "export"}))
        .unwrap();
    loop {
        let message = scoped.next().expect("the real event came");
        assert_eq!(message["dropped"], json!(0), "{message}");
        assert_ne!(
            message["event"]["type"],
            json!("jobStateChanged"),
            "{message}"
        );
        if message["event"]["type"] == json!("kindPaused") {
            break;
        }
    }
}
