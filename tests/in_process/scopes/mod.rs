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
        { "identifier": "jobs:signals", "allow": own },
    ])
}

fn everything() -> Value {
    let all = json!([{ "kind": "*" }, { "localKind": "*" }, { "target": "*" }]);
    json!([
        { "identifier": "jobs:default", "allow": all },
        { "identifier": "jobs:admin", "allow": all },
        { "identifier": "jobs:agents", "allow": all },
        { "identifier": "jobs:data-removal", "allow": all },
        { "identifier": "jobs:signals", "allow": all },
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
        // Run by no handler here, so their jobs stay queued for the tests to act on.
        .agent_kind("export")
        .agent_kind("ingest")
        .agent_kind("send_mail")
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

mod closed;
mod events;
mod inputs;
mod limits;
mod oracles;
mod signals;
mod transactions;
mod workflows;
