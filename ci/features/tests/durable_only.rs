//! The plugin built with `default-features = false`, as an app that runs only durable
//! jobs builds it: its jobs run, and what the features bring is absent and says so.

use serde_json::{json, Value};
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::testing::MockApp;
use tauri_plugin_jobs::Builder;

fn echo() -> Builder {
    Builder::new().handler(Handler::new(
        "echo",
        |text: String, _ctx: JobContext| async move { Ok(text) },
    ))
}

fn permissions() -> Value {
    json!([{ "identifier": "jobs:default", "allow": [{ "kind": "echo" }] }])
}

/// The health of one of the plugin's components, from the `plugin_health` command.
fn health_of(app: &MockApp, component: &str) -> Value {
    let all = app.invoke("plugin_health", json!({})).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["component"] == component)
        .unwrap_or_else(|| panic!("no component {component} in {all}"))["health"]
        .clone()
}

#[test]
fn a_durable_job_runs_and_ends_with_its_result() {
    let app = MockApp::new(echo(), permissions());
    let events = app.subscribe("main");
    let enqueued = app
        .invoke("enqueue", json!({ "kind": "echo", "payload": "hi" }))
        .unwrap();
    let id = enqueued["id"].clone();
    let ended = events
        .next_matching(|e| {
            e["event"]["type"] == "jobStateChanged" && e["event"]["to"] == "succeeded"
        })
        .expect("the job to succeed within the channel's wait");
    assert_eq!(ended["event"]["id"], id);
    let job = app.invoke("get_job", json!({ "id": id })).unwrap();
    assert_eq!(job["result"], json!("hi"), "{job}");
}

#[test]
fn the_commands_of_features_left_out_are_not_there() {
    let app = MockApp::new(echo(), permissions());
    for (command, args) in [
        ("sync_now", json!({ "target": "demo/me/feed" })),
        ("list_schedules", json!({})),
        ("spawn_local", json!({ "kind": "export", "args": 1 })),
    ] {
        let refused = app.invoke(command, args).unwrap_err();
        assert!(
            refused.to_string().contains("not found"),
            "{command}: {refused}"
        );
    }
    // A local job's id answers as a missing job.
    let refused = app
        .invoke("cancel", json!({ "job": { "local": "local-1" } }))
        .unwrap_err();
    assert_eq!(refused["code"], json!("notFound"), "{refused}");
}

#[test]
fn conditions_are_not_read_and_the_health_says_which_feature() {
    use std::time::Duration;
    use tauri_plugin_jobs::queue::{Constraints, EnqueueOptions};
    let app = MockApp::new(echo(), permissions());
    // Nothing waits on what the build cannot read: healthy.
    assert_eq!(health_of(&app, "conditions")["status"], json!("healthy"));
    // A queued job that needs a charger: the health says why it cannot be told.
    let charger = EnqueueOptions::new()
        .constraints(Constraints::none().ac_power())
        .delay(Duration::from_secs(3600));
    app.jobs()
        .queue()
        .enqueue("echo", &"later", charger)
        .unwrap();
    let health = health_of(&app, "conditions");
    assert_eq!(health["status"], json!("warning"), "{health}");
    assert!(
        health["reason"]
            .as_str()
            .unwrap()
            .contains("`system-conditions`"),
        "{health}"
    );
}

/// The app started on `config`: the `config` component's health is an error naming
/// `key` and `feature`; the app is returned to go on with.
fn refused(config: &str, key: &str, feature: &str) -> MockApp {
    let app = MockApp::with_config(echo(), permissions(), config);
    let health = health_of(&app, "config");
    assert_eq!(health["status"], json!("error"), "{health}");
    let reason = health["reason"].as_str().unwrap();
    assert!(reason.contains(key), "{reason}");
    assert!(reason.contains(&format!("`{feature}` feature")), "{reason}");
    app
}

#[test]
fn a_schedule_in_config_toml_is_refused_naming_the_feature() {
    let app = refused(
        "[schedules.tidy]\nkind = \"echo\"\nevery = \"1h\"\n",
        "schedules.tidy",
        "schedules",
    );
    // The built-in settings apply: durable jobs still run.
    let enqueued = app.invoke("enqueue", json!({ "kind": "echo", "payload": "still" }));
    assert!(enqueued.is_ok(), "{enqueued:?}");
}

#[test]
fn a_sync_target_in_config_toml_is_refused_naming_the_feature() {
    refused(
        "[sync.\"demo/me/feed\"]\nevery = \"10m\"\n",
        "sync.\"demo/me/feed\"",
        "sync",
    );
}

#[test]
fn a_durable_sleep_in_a_time_zone_is_refused_naming_the_feature() {
    // Time zones come with `schedules`: this build carries no time-zone rules, so
    // "local" and zone names are refused rather than read as UTC.
    let builder = Builder::new().handler(Handler::new(
        "wait",
        |zone: String, ctx: JobContext| async move {
            match ctx.sleep_until_next("morning", "0 9 * * *", &zone).await {
                Ok(()) => Ok("slept".to_owned()),
                Err(error) => Ok(error.to_string()),
            }
        },
    ));
    let permissions = json!([{ "identifier": "jobs:default", "allow": [{ "kind": "wait" }] }]);
    let app = MockApp::new(builder, permissions);
    let events = app.subscribe("main");
    for zone in ["local", "Europe/Berlin"] {
        let enqueued = app
            .invoke("enqueue", json!({ "kind": "wait", "payload": zone }))
            .unwrap();
        let id = enqueued["id"].clone();
        events
            .next_matching(|e| {
                e["event"]["type"] == "jobStateChanged"
                    && e["event"]["to"] == "succeeded"
                    && e["event"]["id"] == id
            })
            .expect("the job to end within the channel's wait");
        let job = app.invoke("get_job", json!({ "id": id })).unwrap();
        let said = job["result"].as_str().unwrap_or_default().to_owned();
        assert!(said.contains("`schedules` feature"), "{zone}: {job}");
        assert!(said.contains(zone), "{zone}: {said}");
    }
}

#[test]
fn the_system_clock_reads_no_time_zone_and_says_utc() {
    // docs/install.md: without `schedules`, `Clock::local_zone` is UTC by default.
    use tauri_plugin_jobs::clock::{Clock, SystemClock, TimeZone};
    assert_eq!(SystemClock.local_zone(), TimeZone::UTC);
}
