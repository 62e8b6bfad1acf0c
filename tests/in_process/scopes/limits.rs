//! Limits per window (8).

use super::*;

// ===== 8. limits per window =====

#[test]
fn a_window_runs_a_bounded_number_of_local_jobs_of_a_kind() {
    let app = app(&[]);
    for _ in 0..2 {
        app.ui
            .invoke_in(
                "scoped",
                "spawn_local",
                json!({"kind": "export", "args": 0}),
            )
            .unwrap();
    }
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "spawn_local",
            json!({"kind": "export", "args": 0}),
        )
        .unwrap_err();
    assert_code(&refused, "limitReached");
    let channel = app.ui.channel("scoped");
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "run_local",
            json!({"kind": "export", "args": 0, "onEvent": channel.arg()}),
        )
        .unwrap_err();
    assert_code(&refused, "limitReached");
    // Another window has its own.
    app.ui
        .invoke_in("main", "spawn_local", json!({"kind": "export", "args": 5}))
        .unwrap();
    // When they end, the window may start more.
    app.hold.notify_waiters();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match app.ui.invoke_in(
            "scoped",
            "spawn_awaitable",
            json!({"kind": "export", "args": 3}),
        ) {
            Ok(value) => {
                assert_eq!(value, json!(3));
                break;
            }
            Err(refused) if std::time::Instant::now() < deadline => {
                assert_code(&refused, "limitReached");
                app.hold.notify_waiters();
                std::thread::yield_now();
            }
            Err(refused) => panic!("the slots never came back: {refused}"),
        }
    }
}

#[test]
fn refresh_presses_in_a_burst_share_one_run_and_hints_one_pass() {
    use tauri_plugin_jobs::sync::SyncError;
    let app = app(&[]);
    app.ui
        .invoke_in("scoped", "sync_now", json!({"target": "demo/me/feed"}))
        .unwrap();
    let after_first = app.demo.calls();
    for _ in 0..20 {
        let outcome = app
            .ui
            .invoke_in("scoped", "sync_now", json!({"target": "demo/me/feed"}))
            .unwrap();
        assert!(outcome["outcome"].is_string(), "{outcome}");
    }
    assert_eq!(
        app.demo.calls(),
        after_first,
        "presses within the floor of the last run share it"
    );
    // An offline target, retried by the network hint: fifty hints while its retry is
    // held make one run, not fifty. Its start-up run over first (a run in flight is
    // joined; one not begun finds the target no longer due), so that the answer
    // pushed below goes to the press and not to it.
    let ledger = tauri_plugin_jobs::sync::SyncTarget::new("bank", "me", "ledger");
    tauri::async_runtime::block_on(app.ui.jobs().sync().sync_now(&ledger)).unwrap();
    app.bank.push(Err(SyncError::offline("no route")));
    let failed = app
        .ui
        .invoke_in("main", "sync_now", json!({"target": "bank/me/ledger"}))
        .unwrap();
    assert_eq!(failed["outcome"], json!("failed"), "{failed}");
    let before = app.bank.calls();
    let gate = app.bank.hold();
    for _ in 0..50 {
        app.ui
            .invoke_in("main", "network_hint", json!({"online": true}))
            .unwrap();
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while app.bank.calls() == before {
        assert!(
            std::time::Instant::now() < deadline,
            "the hint never retried"
        );
        std::thread::yield_now();
    }
    gate.notify_one();
    assert_eq!(app.bank.calls() - before, 1, "one retry for fifty hints");
}

#[test]
fn a_page_of_jobs_stops_at_its_byte_budget() {
    let app = app(&[]);
    let big = "x".repeat(900 * 1024);
    for _ in 0..8 {
        app.ui
            .invoke_in(
                "main",
                "enqueue",
                json!({"kind": "export", "payload": big, "options": {"delayMs": 3_600_000}}),
            )
            .unwrap();
    }
    let page = app
        .ui
        .invoke_in("main", "list_jobs", json!({"filter": {"limit": 1000}}))
        .unwrap();
    let shown = page.as_array().unwrap().len();
    assert!((1..8).contains(&shown), "a page of {shown} jobs of 900 KiB");
    assert!(page.to_string().len() <= 5 << 20);
}
