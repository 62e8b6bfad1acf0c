//! The Tauri layer through a mock runtime: every command over IPC, bad arguments,
//! denied permissions, events reaching a subscribed window, and the committed
//! TypeScript bindings matching a fresh export.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tauri::Listener;
use tauri_plugin_jobs::plugin::Builder;
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::scheduler::ScheduleSpec;
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{SyncPolicy, SyncReport, SyncResult, SyncTarget};
use tauri_plugin_jobs::testing::MockApp;

mod agents;
mod app;
mod awake;
mod closing;
mod commands;
#[path = "../support/counting.rs"]
mod counting;
mod events;
mod instances;
mod permissions;

struct App {
    ui: MockApp,
    source: Arc<FakeSource>,
}

/// A mock app with the plugin; `granted` lists the commands the window may call, each
/// reaching every kind, local kind and target.
fn app(granted: &[&str]) -> App {
    app_with(granted, |builder| builder)
}

/// Every kind, local kind and target: what an unscoped window of a trusted page has.
fn everything() -> Value {
    json!([{ "kind": "*" }, { "localKind": "*" }, { "target": "*" }])
}

fn app_with(granted: &[&str], more: impl FnOnce(Builder) -> Builder) -> App {
    let source = Arc::new(FakeSource::new());
    source.push(Ok(SyncResult::Updated(
        SyncReport::changed(4).with_etag("\"e1\""),
    )));
    let plugin = tauri_plugin_jobs::Builder::new()
        .handler(Handler::new(
            "echo",
            |text: String, _ctx: JobContext| async move { Ok(text) },
        ))
        .schedule(
            ScheduleSpec::every("tidy", "echo", Duration::from_secs(3600)).payload(json!("tidy")),
        )
        .sync_target(
            SyncTarget::new("demo", "me", "feed"),
            SyncPolicy::every(Duration::from_secs(600)).min_interval(Duration::from_secs(60)),
            source.clone(),
        )
        // Run by the tests' agents, not by a handler.
        .agent_kind("remote")
        .local_kind("double", |n: u32, _ctx| async move { Ok(n * 2) })
        .exclusive_local_kind("export", |steps: u64, ctx| async move {
            for step in 1..=steps {
                ctx.progress(step, Some(steps));
            }
            Ok(steps)
        });
    let permissions: Vec<Value> = granted
        .iter()
        .map(|command| {
            json!({
                "identifier": format!("jobs:allow-{}", command.replace('_', "-")),
                "allow": everything(),
            })
        })
        .collect();
    App {
        ui: MockApp::new(more(plugin), json!(permissions)),
        source,
    }
}

const ALL: &[&str] = tauri_plugin_jobs::plugin::COMMANDS;
