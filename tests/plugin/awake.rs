//! Keeping the machine awake through the plugin: a local kind the builder names, the
//! `awake` component of `plugin_health` naming the jobs the window may read, and the
//! event every window hears when the request is taken or let go.

use tauri_plugin_jobs::awake::KeepAwake;
use tokio::sync::Semaphore;

use super::*;

use super::counting::Counting;

/// A local kind `hold` that keeps the machine awake until `go` is closed (whether or
/// not its job waits yet).
fn hold(builder: Builder, go: Arc<Semaphore>) -> Builder {
    builder
        .local_kind("hold", move |_: u32, _ctx| {
            let go = go.clone();
            async move {
                let _ = go.acquire().await;
                Ok(1)
            }
        })
        .keep_awake("hold", "Holding on")
}

fn awake_component(ui: &MockApp) -> Value {
    let components = ui.invoke("plugin_health", json!({})).unwrap();
    components
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["component"] == "awake")
        .cloned()
        .expect("an awake component")
}

#[test]
fn a_local_kind_the_builder_names_keeps_the_machine_awake_and_health_says_so() {
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let go = Arc::new(Semaphore::new(0));
    let release = go.clone();
    let app = app_with(ALL, move |builder| {
        hold(builder, go)
            .keep_awake_with(awake.clone())
            // The mock runtime's windows take the bar and show nothing.
            .taskbar_progress(true)
    });
    assert_eq!(
        awake_component(&app.ui)["health"],
        json!({"status": "healthy", "reason": null})
    );
    let events = app.ui.subscribe("main");
    let id = app
        .ui
        .invoke("spawn_local", json!({"kind": "hold", "args": 1}))
        .unwrap();
    // Every window hears that the machine is kept awake (the event names no job).
    events
        .next_matching(|payload| {
            let event = &payload["event"];
            event["type"] == json!("pluginHealth")
                && event["component"] == json!("awake")
                && event["health"]["reason"] == json!("keeping the machine awake")
        })
        .expect("the keep-awake event");
    assert_eq!(counting.open(), 1);
    let reason = awake_component(&app.ui)["health"]["reason"].clone();
    assert_eq!(
        reason,
        json!(format!(
            "keeping the machine awake for hold ({})",
            id.as_str().unwrap()
        ))
    );
    release.close();
    events
        .next_matching(|payload| {
            let event = &payload["event"];
            event["type"] == json!("pluginHealth")
                && event["component"] == json!("awake")
                && event["health"]["reason"].is_null()
        })
        .expect("the let-go event");
    assert_eq!(counting.open(), 0);
}

#[test]
fn the_awake_health_names_only_the_jobs_the_window_may_read() {
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let go = Arc::new(Semaphore::new(0));
    let release = go.clone();
    let plugin = hold(tauri_plugin_jobs::Builder::new(), go).keep_awake_with(awake.clone());
    // Every command over everything, but local jobs readable only of kind `other`.
    let permissions: Vec<Value> = ALL
        .iter()
        .map(|command| {
            let allow = if *command == "get_local_job" {
                json!([{ "localKind": "other" }])
            } else {
                everything()
            };
            json!({ "identifier": format!("jobs:allow-{}", command.replace('_', "-")), "allow": allow })
        })
        .collect();
    let ui = MockApp::new(plugin, json!(permissions));
    ui.invoke("spawn_local", json!({"kind": "hold", "args": 1}))
        .unwrap();
    assert!(awake.settle(Duration::from_secs(10)));
    let reason = awake_component(&ui)["health"]["reason"].clone();
    assert_eq!(reason, json!("keeping the machine awake for 1 other job"));
    release.close();
    assert!(awake.settle(Duration::from_secs(10)));
}
