//! The webview as a trust boundary, through the mock runtime with the plugin's real
//! permission files: windows with different capabilities, each tried as an attacker in
//! it would. One test (or more) per point of the trust-boundary issue:
//!
//! 1. events reach only the windows that may read them;
//! 2. a row's scope is checked in the transaction that acts on it;
//! 3. no input panics a command (more in `tests/ipc_inputs.rs`);
//! 4. `disconnect_account` validates its names and obeys deny entries;
//! 5. no answer tells a window about rows it may not see;
//! 6. what a window hears cannot be forged by another;
//! 7. an agent's lease carries a secret that no read shows;
//! 8. limits per window;
//! 9. scopes fail closed.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tauri::{Emitter, Listener};
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::scheduler::ScheduleSpec;
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{SyncPolicy, SyncTarget};
use tauri_plugin_jobs::testing::{MockApp, MockChannel};

struct App {
    ui: MockApp,
    demo: Arc<FakeSource>,
    bank: Arc<FakeSource>,
    hold: Arc<tokio::sync::Notify>,
}

/// The window `scoped` reaches its own kinds (`export`), local kind (`export`) and
/// targets (`demo/*`), with the admin set for them; `main` reaches everything.
fn scoped() -> Value {
    let own = json!([{ "kind": "export" }, { "localKind": "export" }, { "target": "demo/*" }]);
    json!([
        { "identifier": "jobs:default", "allow": own },
        { "identifier": "jobs:admin", "allow": own },
        { "identifier": "jobs:agents", "allow": own },
        { "identifier": "jobs:data-removal", "allow": own },
    ])
}

fn everything() -> Value {
    let all = json!([{ "kind": "*" }, { "localKind": "*" }, { "target": "*" }]);
    json!([
        { "identifier": "jobs:default", "allow": all },
        { "identifier": "jobs:admin", "allow": all },
        { "identifier": "jobs:agents", "allow": all },
        { "identifier": "jobs:data-removal", "allow": all },
    ])
}

/// A mock app with windows `main` (everything) and `scoped`, plus `more` windows.
fn app(more: &[(&str, Value)]) -> App {
    let demo = Arc::new(FakeSource::new());
    let bank = Arc::new(FakeSource::new());
    let hold = Arc::new(tokio::sync::Notify::new());
    let held = hold.clone();
    let plugin = tauri_plugin_jobs::Builder::new()
        .handler(Handler::new(
            "parked",
            |_: Value, _ctx: JobContext| async move { Ok(()) },
        ))
        .schedule(ScheduleSpec::every(
            "ledger",
            "ingest",
            Duration::from_secs(3600),
        ))
        .schedule(ScheduleSpec::every(
            "backup",
            "export",
            Duration::from_secs(3600),
        ))
        .sync_target(
            SyncTarget::new("demo", "me", "feed"),
            SyncPolicy::every(Duration::from_secs(600)),
            demo.clone(),
        )
        .sync_target(
            SyncTarget::new("bank", "me", "ledger"),
            SyncPolicy::every(Duration::from_secs(600)),
            bank.clone(),
        )
        .local_kind("export", move |n: u32, _ctx| {
            let held = held.clone();
            async move {
                if n == 0 {
                    // Runs until the test lets it go.
                    held.notified().await;
                }
                Ok(n)
            }
        })
        .local_kind("wipe", |n: u32, _ctx| async move { Ok(n) })
        .local_jobs_per_window(2);
    let mut windows = vec![("main", everything()), ("scoped", scoped())];
    windows.extend(more.iter().cloned());
    App {
        ui: MockApp::with_windows(plugin, &windows),
        demo,
        bank,
        hold,
    }
}

fn assert_code(refused: &Value, code: &str) {
    assert_eq!(refused["code"], json!(code), "{refused}");
}

/// Enqueues through a window; returns the new job's id. Far in the future, so the
/// jobs stay queued whatever runs.
fn enqueue(app: &App, window: &str, kind: &str) -> Result<Value, Value> {
    app.ui
        .invoke_in(
            window,
            "enqueue",
            json!({"kind": kind, "payload": 1, "options": {"delayMs": 3_600_000}}),
        )
        .map(|enqueued| enqueued["id"].clone())
}

/// The kinds (or targets) of the events a window heard so far, by type.
fn heard(channel: &MockChannel) -> Vec<(String, String)> {
    channel
        .drain()
        .into_iter()
        .map(|message| {
            let event = &message["event"];
            let about = ["kind", "target", "component", "account"]
                .iter()
                .find_map(|field| event[field].as_str())
                .unwrap_or_default();
            (
                event["type"].as_str().unwrap_or_default().to_owned(),
                about.to_owned(),
            )
        })
        .collect()
}

/// Waits until `channel` has heard an event of `type` about `about`, returning what it
/// heard before and with it.
fn until_heard(channel: &MockChannel, kind: &str, about: &str) -> Vec<(String, String)> {
    let mut all = Vec::new();
    loop {
        let message = channel
            .next()
            .unwrap_or_else(|| panic!("no {kind} about {about} came; heard {all:?}"));
        let event = &message["event"];
        let this = ["kind", "target", "component", "account"]
            .iter()
            .find_map(|field| event[field].as_str())
            .unwrap_or_default()
            .to_owned();
        let done = event["type"] == json!(kind) && this == about;
        all.push((event["type"].as_str().unwrap_or_default().to_owned(), this));
        if done {
            return all;
        }
    }
}

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

// ===== 2. checked in the transaction that acts =====

/// Holds the write lock from another connection with a job of another kind inserted
/// (not yet visible), starts `command` for that job's id from the scoped window, and
/// commits once the command has had time to read. Without the check inside its write,
/// the command read nothing (so nothing to refuse) and then acted on the row the
/// commit made visible; with it, the row is outside the scope whatever the order.
fn race(app: &App, command: &str, args: impl Fn(i64) -> Value, status: &str) -> Value {
    let next = enqueue(app, "main", "export").unwrap().as_i64().unwrap() + 1;
    let path = app.ui.jobs().queue().path().to_owned();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    other
        .execute(
            "INSERT INTO jobs (id, kind, payload, status, priority, run_at, max_attempts, \
             actor, created_at, updated_at, attempts) \
             VALUES (?1, 'ingest', '1', ?2, 50, 0, 5, 'system', 0, 0, 1)",
            rusqlite::params![next, status],
        )
        .unwrap();
    let committer = std::thread::spawn(move || {
        // Bounded: the command reads at once and then waits for the write lock.
        std::thread::sleep(Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
        other
    });
    let answer = app.ui.invoke_in("scoped", command, args(next));
    let other = committer.join().unwrap();
    let refused = answer.expect_err("the other kind's job was touched");
    assert_code(&refused, "notFound");
    let row: String = other
        .query_row("SELECT status FROM jobs WHERE id = ?1", [next], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(row, status, "{command} changed the other kind's job");
    refused
}

#[test]
fn a_cancel_for_an_id_about_to_appear_never_touches_another_kinds_job() {
    let app = app(&[]);
    race(
        &app,
        "cancel",
        |id| json!({"job": {"durable": id}}),
        "queued",
    );
}

#[test]
fn retry_and_delete_check_the_kind_in_their_write_too() {
    let app = app(&[]);
    race(&app, "retry_job", |id| json!({"id": id}), "failed");
    race(&app, "delete_job", |id| json!({"id": id}), "failed");
}

// ===== 3. no input panics (every command: tests/ipc_inputs.rs) =====

#[test]
fn numbers_past_their_bounds_are_typed_errors_naming_the_field() {
    let app = app(&[]);
    for (options, field) in [
        (json!({"delayMs": 1e300}), "options.delayMs"),
        (json!({"delayMs": -1}), "options.delayMs"),
        (json!({"priority": 2_147_483_647}), "options.priority"),
        (json!({"priority": -5}), "options.priority"),
        (
            json!({"maxAttempts": 4_000_000_000u32}),
            "options.maxAttempts",
        ),
    ] {
        let refused = app
            .ui
            .invoke_in(
                "main",
                "enqueue",
                json!({"kind": "export", "payload": 1, "options": options}),
            )
            .unwrap_err();
        assert_code(&refused, "invalidArgument");
        assert!(
            refused["message"].as_str().unwrap().contains(field),
            "{refused}"
        );
    }
    let refused = app
        .ui
        .invoke_in("main", "list_jobs", json!({"filter": {"limit": 5000}}))
        .unwrap_err();
    assert!(
        refused["message"].as_str().unwrap().contains("limit"),
        "{refused}"
    );
    for (request, field) in [
        (
            json!({"agent": "a", "kinds": ["export"], "leaseMs": 1_000_000_000_000_000u64}),
            "request.leaseMs",
        ),
        (
            json!({"agent": "a", "kinds": ["export"], "maxJobs": 100000}),
            "request.maxJobs",
        ),
        (
            json!({"agent": "x".repeat(500), "kinds": ["export"]}),
            "request.agent",
        ),
    ] {
        let refused = app
            .ui
            .invoke_in("main", "agent_claim", json!({ "request": request }))
            .unwrap_err();
        assert!(refused.to_string().contains(field), "{field}: {refused}");
    }
}

// ===== 4. disconnect_account =====

#[test]
fn disconnect_account_checks_its_names_and_every_deny_entry() {
    let app = app(&[(
        "deny",
        json!([{
            "identifier": "jobs:allow-disconnect-account",
            "allow": [{ "target": "*" }],
            "deny": [{ "target": "bank/me/ledger" }],
        }]),
    )]);
    let refused = app
        .ui
        .invoke_in(
            "deny",
            "disconnect_account",
            json!({"connector": "bank", "account": "me"}),
        )
        .unwrap_err();
    assert_code(&refused, "forbidden");
    assert_eq!(app.ui.jobs().sync().targets().len(), 2, "nothing removed");
    // The scoped window reaches demo/* only.
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "disconnect_account",
            json!({"connector": "bank", "account": "me"}),
        )
        .unwrap_err();
    assert_code(&refused, "forbidden");
    for (connector, account) in [
        ("demo", "me.sync"),
        ("demo", "a/b"),
        ("", "me"),
        ("demo", ""),
    ] {
        let refused = app
            .ui
            .invoke_in(
                "main",
                "disconnect_account",
                json!({"connector": connector, "account": account}),
            )
            .unwrap_err();
        assert_code(&refused, "invalidArgument");
    }
    assert_eq!(app.ui.jobs().sync().targets().len(), 2, "nothing removed");
    assert_eq!(
        app.ui
            .invoke_in(
                "scoped",
                "disconnect_account",
                json!({"connector": "demo", "account": "me"}),
            )
            .unwrap(),
        json!(1)
    );
}

// ===== 5. no oracles =====

#[test]
fn rows_outside_the_scope_answer_exactly_like_missing_ones() {
    let app = app(&[]);
    let hidden = enqueue(&app, "main", "send_mail").unwrap();
    let missing = json!(999_999);
    type Args = fn(&Value) -> Value;
    let commands: [(&str, Args); 3] = [
        ("cancel", |id| json!({"job": {"durable": id}})),
        ("retry_job", |id| json!({"id": id})),
        ("delete_job", |id| json!({"id": id})),
    ];
    for (command, args) in commands {
        let outside = app
            .ui
            .invoke_in("scoped", command, args(&hidden))
            .unwrap_err();
        let absent = app
            .ui
            .invoke_in("scoped", command, args(&missing))
            .unwrap_err();
        assert_code(&outside, "notFound");
        assert_code(&absent, "notFound");
        let text = outside.to_string();
        assert!(
            !text.contains("send_mail"),
            "{command} named the kind: {text}"
        );
        assert_eq!(
            text.replace(&hidden.to_string(), "N"),
            absent.to_string().replace("999999", "N"),
            "{command}"
        );
    }
    assert_eq!(
        app.ui
            .invoke_in("scoped", "get_job", json!({"id": hidden}))
            .unwrap(),
        Value::Null
    );
    // A schedule of another kind is not there either, and its name is not confirmed.
    for command in ["run_schedule_now", "pause_schedule", "resume_schedule"] {
        let outside = app
            .ui
            .invoke_in("scoped", command, json!({"name": "ledger"}))
            .unwrap_err();
        let absent = app
            .ui
            .invoke_in("scoped", command, json!({"name": "nosuch"}))
            .unwrap_err();
        assert_code(&outside, "notFound");
        assert_eq!(
            outside.to_string().replace("ledger", "X"),
            absent.to_string().replace("nosuch", "X"),
            "{command}"
        );
    }
    assert!(app
        .ui
        .jobs()
        .scheduler()
        .get("ledger")
        .unwrap()
        .unwrap()
        .last_run
        .is_none());
    // A parent must be a job the window may read.
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "enqueue",
            json!({"kind": "export", "payload": 1, "options": {"parent": hidden}}),
        )
        .unwrap_err();
    assert_code(&refused, "notFound");
    let own = enqueue(&app, "scoped", "export").unwrap();
    assert!(app
        .ui
        .invoke_in(
            "scoped",
            "enqueue",
            json!({"kind": "export", "payload": 1, "options": {"parent": own}}),
        )
        .is_ok());
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

// ===== 7. agent leases carry a secret =====

#[test]
fn a_lease_rebuilt_from_what_a_window_can_read_writes_nothing() {
    let app = app(&[]);
    let id = enqueue(&app, "main", "export").unwrap();
    app.ui
        .invoke_in("main", "retry_job", json!({"id": id}))
        .unwrap();
    let claimed = app
        .ui
        .invoke_in(
            "main",
            "agent_claim",
            json!({"request": {"agent": "gpu", "kinds": ["export"]}}),
        )
        .unwrap();
    let lease = claimed[0]["lease"].clone();
    assert_eq!(lease["token"].as_str().unwrap().len(), 16);
    // What the scoped window can read about the job: every field but the secret.
    let job = app
        .ui
        .invoke_in("scoped", "get_job", json!({"id": id}))
        .unwrap();
    let listed = app.ui.invoke_in("scoped", "list_jobs", json!({})).unwrap();
    for shown in [job.to_string(), listed.to_string()] {
        assert!(!shown.contains(lease["token"].as_str().unwrap()), "{shown}");
    }
    for token in [
        json!("0000000000000000"),
        json!("ffffffffffffffff"),
        json!(""),
    ] {
        let forged = json!({
            "jobId": job["id"], "kind": job["kind"], "worker": job["leaseOwner"],
            "attempt": job["attempts"], "expiresAt": job["leaseExpiresAt"],
            "lengthMs": 30000, "token": token,
        });
        for (command, args) in [
            ("agent_complete", json!({"lease": forged, "result": null})),
            (
                "agent_fail",
                json!({"lease": forged, "error": "x", "permanent": true}),
            ),
            ("agent_heartbeat", json!({"lease": forged})),
        ] {
            let refused = app.ui.invoke_in("scoped", command, args).unwrap_err();
            assert_code(&refused, "lostLease");
        }
    }
    let still = app
        .ui
        .invoke_in("main", "get_job", json!({"id": id}))
        .unwrap();
    assert_eq!(still["status"], json!("running"));
    // The holder's own lease works.
    assert_eq!(
        app.ui
            .invoke_in(
                "main",
                "agent_complete",
                json!({"lease": lease, "result": null})
            )
            .unwrap(),
        json!("succeeded")
    );
}

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
    // held make one run, not fifty.
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

// ===== 9. scopes fail closed =====

#[test]
fn a_dimension_no_entry_names_reaches_nothing() {
    let app = app(&[
        (
            "kinds-only",
            json!([{ "identifier": "jobs:default", "allow": [{ "kind": "export" }] }]),
        ),
        ("bare", json!(["jobs:default"])),
    ]);
    enqueue(&app, "main", "export").unwrap();
    // Scoped by kind only: local kinds and targets are closed, not open.
    assert!(enqueue(&app, "kinds-only", "export").is_ok());
    let refused = app
        .ui
        .invoke_in(
            "kinds-only",
            "spawn_local",
            json!({"kind": "wipe", "args": 1}),
        )
        .unwrap_err();
    assert_code(&refused, "forbidden");
    let refused = app
        .ui
        .invoke_in(
            "kinds-only",
            "sync_now",
            json!({"target": "bank/me/ledger"}),
        )
        .unwrap_err();
    assert_code(&refused, "forbidden");
    assert_eq!(
        app.ui
            .invoke_in("kinds-only", "sync_status", json!({}))
            .unwrap(),
        json!([])
    );
    assert_eq!(
        app.ui
            .invoke_in("kinds-only", "list_local_jobs", json!({}))
            .unwrap(),
        json!([])
    );
    // Bare jobs:default reaches nothing, and the refusal says what to write.
    let refused = enqueue(&app, "bare", "export").unwrap_err();
    assert_code(&refused, "forbidden");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains(r#"{ "kind": "export" }"#), "{message}");
    assert_eq!(
        app.ui.invoke_in("bare", "list_jobs", json!({})).unwrap(),
        json!([])
    );
    assert_eq!(
        app.ui.invoke_in("bare", "job_counts", json!({})).unwrap(),
        json!([])
    );
    assert_eq!(
        app.ui
            .invoke_in("bare", "list_schedules", json!({}))
            .unwrap(),
        json!([])
    );
    // Deny entries still win over allows.
    let app = self::app(&[(
        "deny",
        json!([{
            "identifier": "jobs:default",
            "allow": [{ "kind": "*" }],
            "deny": [{ "kind": "delete_*" }],
        }]),
    )]);
    assert!(enqueue(&app, "deny", "ingest").is_ok());
    assert_code(
        &enqueue(&app, "deny", "delete_account").unwrap_err(),
        "forbidden",
    );
}

#[test]
fn pruning_every_kind_needs_every_kind() {
    let app = app(&[]);
    let refused = app
        .ui
        .invoke_in("scoped", "prune_jobs", json!({"olderThanMs": 0}))
        .unwrap_err();
    assert_code(&refused, "forbidden");
    assert!(app
        .ui
        .invoke_in("main", "prune_jobs", json!({"olderThanMs": 0}))
        .is_ok());
}

#[test]
fn a_webview_holds_a_bounded_number_of_subscriptions_and_only_its_own() {
    let app = app(&[]);
    let mut ids = Vec::new();
    for _ in 0..tauri_plugin_jobs::plugin::MAX_SUBSCRIPTIONS_PER_WEBVIEW {
        let channel = app.ui.channel("scoped");
        ids.push(
            app.ui
                .invoke_in("scoped", "subscribe", json!({"onEvent": channel.arg()}))
                .unwrap(),
        );
    }
    let channel = app.ui.channel("scoped");
    let refused = app
        .ui
        .invoke_in("scoped", "subscribe", json!({"onEvent": channel.arg()}))
        .unwrap_err();
    assert_code(&refused, "limitReached");
    // Another window cannot end them.
    let refused = app
        .ui
        .invoke_in("main", "unsubscribe", json!({"id": ids[0]}))
        .unwrap_err();
    assert_code(&refused, "notFound");
    app.ui
        .invoke_in("scoped", "unsubscribe", json!({"id": ids[0]}))
        .unwrap();
    assert!(app
        .ui
        .invoke_in("scoped", "subscribe", json!({"onEvent": channel.arg()}))
        .is_ok());
}

#[test]
fn local_jobs_and_kinds_of_another_scope_are_not_there() {
    let app = app(&[]);
    let wipe = app
        .ui
        .invoke_in("main", "spawn_local", json!({"kind": "wipe", "args": 1}))
        .unwrap();
    let refused = app
        .ui
        .invoke_in("scoped", "cancel", json!({"job": {"local": wipe}}))
        .unwrap_err();
    assert_code(&refused, "notFound");
    assert_eq!(
        app.ui
            .invoke_in("scoped", "get_local_job", json!({"id": wipe}))
            .unwrap(),
        Value::Null
    );
    for command in ["pause_kind", "resume_kind"] {
        let refused = app
            .ui
            .invoke_in("scoped", command, json!({"kind": "ingest"}))
            .unwrap_err();
        assert_code(&refused, "forbidden");
    }
    let kinds: Vec<String> = (0..65).map(|n| format!("k{n}")).collect();
    let refused = app
        .ui
        .invoke_in(
            "main",
            "agent_claim",
            json!({"request": {"agent": "a", "kinds": kinds}}),
        )
        .unwrap_err();
    assert!(refused.to_string().contains("request.kinds"), "{refused}");
}
