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
        .local_kind("double", |n: u32, _ctx| async move { Ok(n * 2) })
        .exclusive_local_kind("export", |steps: u64, ctx| async move {
            for step in 1..=steps {
                ctx.progress(step, Some(steps)).await;
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

#[test]
fn durable_job_commands_work_over_ipc() {
    let app = app(ALL);
    let enqueued = app
        .ui
        .invoke(
            "enqueue",
            json!({"kind": "echo", "payload": "hi", "options": {"priority": 100}}),
        )
        .unwrap();
    let id = enqueued["id"].as_f64().unwrap();
    assert_eq!(enqueued["created"], json!(true));
    let job = app.ui.invoke("get_job", json!({"id": id})).unwrap();
    assert_eq!(job["kind"], json!("echo"));
    assert_eq!(
        job["actor"],
        json!("user"),
        "the webview speaks for the user"
    );
    assert_eq!(job["priority"], json!(100));
    let list = app
        .ui
        .invoke("list_jobs", json!({"filter": {"kind": "echo"}}))
        .unwrap();
    assert!(!list.as_array().unwrap().is_empty());
    let counts = app.ui.invoke("job_counts", json!({})).unwrap();
    assert!(counts
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == json!("echo")));
    let delayed = app
        .ui
        .invoke(
            "enqueue",
            json!({"kind": "echo", "payload": "later", "options": {"delayMs": 3_600_000}}),
        )
        .unwrap();
    let cancelled = app
        .ui
        .invoke("cancel", json!({"job": {"durable": delayed["id"]}}))
        .unwrap();
    assert_eq!(cancelled, json!("cancelled"));
    let schedules = app.ui.invoke("list_schedules", json!({})).unwrap();
    assert_eq!(schedules[0]["name"], json!("tidy"));
    assert!(
        schedules[0]["nextRun"].as_f64().unwrap() > 1.7e12,
        "times are plain ms numbers"
    );
}

#[test]
fn local_job_commands_work_over_ipc() {
    let app = app(ALL);
    assert_eq!(
        app.ui
            .invoke("spawn_awaitable", json!({"kind": "double", "args": 21}))
            .unwrap(),
        json!(42)
    );
    let events = app.ui.subscribe("main");
    let id = app
        .ui
        .invoke("spawn_local", json!({"kind": "export", "args": 10}))
        .unwrap();
    assert!(id.as_str().unwrap().starts_with("local-"));
    // Wait for its end the way the webview does: on the job event.
    events
        .next_matching(|payload| {
            let event = &payload["event"];
            event["type"] == json!("localJobChanged")
                && event["id"] == id
                && event["status"] != json!("running")
        })
        .expect("the export ended in time");
    let record = app.ui.invoke("get_local_job", json!({"id": id})).unwrap();
    assert_eq!(record["status"], json!("succeeded"));
    assert_eq!(record["done"], json!(10));
    assert_eq!(
        record["result"],
        json!(10),
        "the record keeps what it returned"
    );
    // One call: the id at once, the job's events on its own channel.
    let channel = app.ui.channel("main");
    let run = app
        .ui
        .invoke(
            "run_local",
            json!({"kind": "double", "args": 4, "onEvent": channel.arg()}),
        )
        .unwrap();
    assert!(run.as_str().unwrap().starts_with("local-"));
    let finished = channel
        .next_matching(|event| event["type"] == json!("finished"))
        .expect("the job's end on its own channel");
    assert_eq!(finished["result"], json!(8));
    assert!(!app
        .ui
        .invoke("list_local_jobs", json!({}))
        .unwrap()
        .as_array()
        .unwrap()
        .is_empty());
    let gone = app
        .ui
        .invoke("cancel", json!({"job": {"local": "local-999"}}))
        .unwrap_err();
    assert_eq!(gone["code"], json!("notFound"));
    let unknown = app
        .ui
        .invoke("spawn_awaitable", json!({"kind": "nope", "args": null}))
        .unwrap_err();
    assert_eq!(unknown["code"], json!("invalidArgument"));
    assert!(unknown["message"].as_str().unwrap().contains("`kind`"));
    let bad_args = app
        .ui
        .invoke("spawn_awaitable", json!({"kind": "double", "args": "x"}))
        .unwrap_err();
    assert_eq!(bad_args["code"], json!("jobFailed"));
}

#[test]
fn sync_commands_work_over_ipc() {
    let app = app_with(ALL, |builder| builder.refresh_floor(Duration::ZERO));
    // A new target syncs once at start-up and takes the first scripted answer (4
    // changed); Refresh gets the second (2 changed), or joins the start-up run if it
    // is still in flight, and then gets the second with the next press.
    app.source.push(Ok(SyncResult::Updated(
        SyncReport::changed(2).with_etag("\"e2\""),
    )));
    let refresh = || {
        app.ui
            .invoke("sync_now", json!({"target": "demo/me/feed"}))
            .unwrap()
    };
    let mut outcome = refresh();
    if outcome == json!({"outcome": "updated", "changed": 4}) {
        outcome = refresh();
    }
    assert_eq!(outcome, json!({"outcome": "updated", "changed": 2}));
    assert_eq!(app.source.calls(), 2, "the start-up run and Refresh");
    let again = app
        .ui
        .invoke("sync_if_due", json!({"target": "demo/me/feed"}))
        .unwrap();
    assert_eq!(
        again["outcome"],
        json!("skipped"),
        "inside min_interval: {again}"
    );
    let status = app.ui.invoke("sync_status", json!({})).unwrap();
    assert_eq!(status[0]["target"], json!("demo/me/feed"));
    assert_eq!(status[0]["state"]["etag"], json!("\"e2\""));
    assert_eq!(status[0]["health"]["status"], json!("healthy"));
    app.ui
        .invoke("network_hint", json!({"online": true}))
        .unwrap();
    let bad = app
        .ui
        .invoke("sync_now", json!({"target": "demo/me"}))
        .unwrap_err();
    assert_eq!(bad["code"], json!("invalidArgument"));
    assert!(app.source.calls() >= 1);
    let removed = app
        .ui
        .invoke(
            "disconnect_account",
            json!({"connector": "demo", "account": "me"}),
        )
        .unwrap();
    assert_eq!(removed, json!(1));
    assert!(app
        .ui
        .invoke("sync_status", json!({}))
        .unwrap()
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(
        app.ui
            .invoke("prune_jobs", json!({"olderThanMs": 0}))
            .unwrap(),
        json!(0)
    );
}

#[test]
fn wrong_or_missing_arguments_name_the_argument() {
    let app = app(ALL);
    let missing = app.ui.invoke("enqueue", json!({"payload": 1})).unwrap_err();
    assert!(missing.as_str().unwrap().contains("kind"), "{missing}");
    let wrong = app
        .ui
        .invoke("get_job", json!({"id": "seven"}))
        .unwrap_err();
    assert!(wrong.as_str().unwrap().contains("id"), "{wrong}");
    let unknown_option = app
        .ui
        .invoke(
            "enqueue",
            json!({"kind": "echo", "payload": 1, "options": {"prio": 1}}),
        )
        .unwrap_err();
    assert!(
        unknown_option.as_str().unwrap().contains("prio"),
        "{unknown_option}"
    );
    let negative = app
        .ui
        .invoke(
            "enqueue",
            json!({"kind": "echo", "payload": 1, "options": {"delayMs": -5}}),
        )
        .unwrap_err();
    assert!(
        negative["message"]
            .as_str()
            .unwrap()
            .contains("options.delayMs"),
        "{negative}"
    );
    let empty_kind = app
        .ui
        .invoke("enqueue", json!({"kind": "", "payload": 1}))
        .unwrap_err();
    assert_eq!(empty_kind["code"], json!("invalidArgument"));
    let local = app
        .ui
        .invoke("get_local_job", json!({"id": "job-1"}))
        .unwrap_err();
    assert!(local.as_str().unwrap().contains("id"), "{local}");
}

#[test]
fn a_command_outside_the_granted_set_is_refused() {
    let app = app(&["job_counts"]);
    assert!(app.ui.invoke("job_counts", json!({})).is_ok());
    let refused = app
        .ui
        .invoke(
            "disconnect_account",
            json!({"connector": "demo", "account": "me"}),
        )
        .unwrap_err();
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );
    assert_eq!(
        app.ui.jobs().sync().targets().len(),
        1,
        "nothing was removed"
    );
}

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
fn default_permissions_leave_out_data_removal_agents_and_admin() {
    let default = include_str!("../permissions/default.toml");
    let table: toml::Table = default.parse().unwrap();
    let granted: Vec<&str> = table["default"]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let withheld = [
        "disconnect_account",
        "prune_jobs",
        "agent_enqueue",
        "agent_claim",
        "agent_heartbeat",
        "agent_complete",
        "agent_fail",
        "retry_job",
        "delete_job",
        "pause_kind",
        "resume_kind",
        "run_schedule_now",
        "pause_schedule",
        "resume_schedule",
    ];
    let admin: toml::Table = include_str!("../permissions/admin.toml").parse().unwrap();
    let admin: Vec<&str> = admin["set"][0]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        admin,
        withheld[7..]
            .iter()
            .map(|command| format!("allow-{}", command.replace('_', "-")))
            .collect::<Vec<_>>(),
        "jobs:admin grants the admin commands"
    );
    for command in ALL {
        let permission = format!("allow-{}", command.replace('_', "-"));
        assert_eq!(
            granted.contains(&permission.as_str()),
            !withheld.contains(command),
            "{permission} in the default set"
        );
    }
}

#[test]
fn build_rs_lists_exactly_the_registered_commands() {
    // build.rs and the crate read one list.
    let build = include_str!("../build.rs");
    assert!(build.contains(r#"include!("src/plugin/command_names.rs")"#));
    let listed: Vec<&str> = include_str!("../src/plugin/command_names.rs")
        .lines()
        .filter_map(|line| line.trim().strip_prefix('"')?.strip_suffix("\","))
        .collect();
    assert_eq!(listed, tauri_plugin_jobs::plugin::COMMANDS);
    let bindings = export_bindings();
    let mut exported: Vec<&str> = bindings
        .split("plugin:jobs|")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    exported.sort_unstable();
    let mut registered = tauri_plugin_jobs::plugin::COMMANDS.to_vec();
    registered.sort_unstable();
    assert_eq!(exported, registered);
}

fn export_bindings() -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bindings.ts");
    tauri_plugin_jobs::plugin::specta_builder::<tauri::test::MockRuntime>()
        .export(
            specta_typescript::Typescript::default()
                .header("// Generated by tauri-specta from the plugin's commands and events. Do not edit:\n// run `cargo test --test plugin` with UPDATE_BINDINGS=1 to refresh.\n"),
            &path,
        )
        .unwrap();
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn committed_bindings_match_a_fresh_export() {
    let fresh = export_bindings();
    let committed_path = concat!(env!("CARGO_MANIFEST_DIR"), "/guest-js/bindings.ts");
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(committed_path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(committed_path).unwrap_or_default();
    assert!(
        committed == fresh,
        "guest-js/bindings.ts is stale: run `UPDATE_BINDINGS=1 cargo test --test plugin` and commit it"
    );
}

#[test]
fn external_agents_lease_jobs_through_ipc_with_the_same_fencing() {
    let app = app(ALL);
    let id = app
        .ui
        .invoke("enqueue", json!({"kind": "remote", "payload": {"n": 1}}))
        .unwrap()["id"]
        .clone();
    let claimed = app.ui.invoke("agent_claim",
        json!({"request": {"agent": "sidecar", "kinds": ["remote"], "leaseMs": 60000, "maxJobs": 4}}),
    )
    .unwrap();
    let claimed = claimed.as_array().unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0]["job"]["id"], id);
    let lease = claimed[0]["lease"].clone();
    assert_eq!(lease["worker"], json!("agent:sidecar"));
    let beat = app
        .ui
        .invoke("agent_heartbeat", json!({"lease": lease}))
        .unwrap();
    assert_eq!(beat["cancelRequested"], json!(false));
    app.ui
        .invoke(
            "agent_heartbeat",
            json!({"lease": lease, "progress": {"done": 2, "total": 8}}),
        )
        .unwrap();
    let job = app.ui.invoke("get_job", json!({"id": id})).unwrap();
    assert_eq!(job["progress"], json!({"done": 2, "total": 8}));

    // A lease that is not an agent's (say, the runner's) is refused outright.
    let mut forged = lease.clone();
    forged["worker"] = json!("runner-1-2");
    let refused = app
        .ui
        .invoke("agent_complete", json!({"lease": forged, "result": 1}))
        .unwrap_err();
    assert_eq!(refused["code"], json!("invalidArgument"));
    // A stale attempt is fenced out.
    let mut stale = lease.clone();
    stale["attempt"] = json!(7);
    let fenced = app
        .ui
        .invoke("agent_complete", json!({"lease": stale, "result": 1}))
        .unwrap_err();
    assert_eq!(fenced["code"], json!("lostLease"));

    let done = app
        .ui
        .invoke(
            "agent_complete",
            json!({"lease": lease, "result": {"ok": true}}),
        )
        .unwrap();
    assert_eq!(done, json!("succeeded"));
    let job = app.ui.invoke("get_job", json!({"id": id})).unwrap();
    assert_eq!(job["status"], json!("succeeded"));
    assert_eq!(job["result"], json!({"ok": true}));

    app.ui
        .invoke("enqueue", json!({"kind": "remote", "payload": 2}))
        .unwrap();
    let again = app
        .ui
        .invoke(
            "agent_claim",
            json!({"request": {"agent": "sidecar", "kinds": ["remote"]}}),
        )
        .unwrap();
    let failed = app
        .ui
        .invoke(
            "agent_fail",
            json!({"lease": again[0]["lease"], "error": "no GPU", "permanent": true}),
        )
        .unwrap();
    assert_eq!(failed, json!("failed"));
}

#[test]
fn agent_commands_are_refused_without_the_agents_set() {
    let defaults: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|c| !c.starts_with("agent_"))
        .collect();
    let app = app(&defaults);
    let refused = app
        .ui
        .invoke(
            "agent_claim",
            json!({"request": {"agent": "x", "kinds": ["remote"]}}),
        )
        .unwrap_err();
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );
}

#[test]
fn admin_actions_work_over_ipc_and_refuse_bad_input_by_code() {
    let app = app(ALL);
    app.ui
        .invoke("pause_kind", json!({"kind": "echo"}))
        .unwrap();
    assert_eq!(
        app.ui.invoke("paused_kinds", json!({})).unwrap(),
        json!(["echo"])
    );
    let id = app
        .ui
        .invoke("enqueue", json!({"kind": "echo", "payload": "hi"}))
        .unwrap()["id"]
        .clone();
    let refused = app.ui.invoke("delete_job", json!({"id": id})).unwrap_err();
    assert_eq!(refused["code"], json!("invalidArgument"));
    assert!(
        refused["message"].as_str().unwrap().contains("queued"),
        "{refused}"
    );
    assert_eq!(
        app.ui.invoke("retry_job", json!({"id": id})).unwrap(),
        json!("alreadyDue")
    );
    let missing = app.ui.invoke("retry_job", json!({"id": 999})).unwrap_err();
    assert_eq!(missing["code"], json!("notFound"));
    app.ui
        .invoke("resume_kind", json!({"kind": "echo"}))
        .unwrap();
    assert_eq!(app.ui.invoke("paused_kinds", json!({})).unwrap(), json!([]));

    let ran = app
        .ui
        .invoke("run_schedule_now", json!({"name": "tidy"}))
        .unwrap();
    assert_eq!(ran["created"], json!(true));
    let paused = app
        .ui
        .invoke("pause_schedule", json!({"name": "tidy"}))
        .unwrap();
    assert_eq!(paused["paused"], json!(true));
    let resumed = app
        .ui
        .invoke("resume_schedule", json!({"name": "tidy"}))
        .unwrap();
    assert_eq!(resumed["paused"], json!(false));
    let unknown = app
        .ui
        .invoke("run_schedule_now", json!({"name": "nope"}))
        .unwrap_err();
    assert_eq!(unknown["code"], json!("notFound"));
    assert!(unknown["message"].as_str().unwrap().contains("nope"));

    // Without the admin set, each is refused before it runs.
    let defaults: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|c| !["retry_job", "delete_job", "pause_kind", "run_schedule_now"].contains(c))
        .collect();
    let app = self::app(&defaults);
    for (command, args) in [
        ("retry_job", json!({"id": 1})),
        ("delete_job", json!({"id": 1})),
        ("pause_kind", json!({"kind": "echo"})),
        ("run_schedule_now", json!({"name": "tidy"})),
    ] {
        let refused = app.ui.invoke(command, args).unwrap_err();
        assert!(
            refused.as_str().unwrap().contains("not allowed"),
            "{command}: {refused}"
        );
    }
}

#[test]
fn config_toml_schedules_reach_the_app() {
    let plugin = tauri_plugin_jobs::Builder::new().schedule(
        ScheduleSpec::every("tidy", "echo", Duration::from_secs(3600)).payload(json!("tidy")),
    );
    let ui = MockApp::with_config(
        plugin,
        json!([{ "identifier": "jobs:default", "allow": [{ "kind": "echo" }] }]),
        r#"
        [schedules.tidy]
        cron = "0 8 * * *"
        zone = "Europe/Berlin"

        [schedules.report]
        kind = "echo"
        every = "1h"
        payload = "report"
        "#,
    );
    let schedules = ui.invoke("list_schedules", json!({})).unwrap();
    let names: Vec<&str> = schedules
        .as_array()
        .unwrap()
        .iter()
        .map(|schedule| schedule["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["report", "tidy"]);
    assert_eq!(schedules[1]["cron"], json!("0 8 * * *"));
    assert_eq!(schedules[1]["zone"], json!("Europe/Berlin"));
    assert_eq!(schedules[1]["payload"], json!("tidy"));
}

#[test]
fn agents_enqueue_over_ipc_as_the_agent_actor() {
    let app = app(ALL);
    let enqueued = app
        .ui
        .invoke(
            "agent_enqueue",
            json!({"kind": "remote", "payload": 1, "options": {"priority": 10}}),
        )
        .unwrap();
    let job = app
        .ui
        .invoke("get_job", json!({"id": enqueued["id"]}))
        .unwrap();
    assert_eq!(job["actor"], json!("agent"));
    assert_eq!(job["priority"], json!(10));
    let defaults: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|c| !c.starts_with("agent_"))
        .collect();
    let app = self::app(&defaults);
    let refused = app
        .ui
        .invoke("agent_enqueue", json!({"kind": "remote", "payload": 1}))
        .unwrap_err();
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );
}

#[test]
fn sync_if_due_over_ipc_names_its_trigger() {
    use tauri_plugin_jobs::sync::SyncError;
    // Two Refresh presses in a row each run here: no floor between them.
    let app = app_with(ALL, |builder| builder.refresh_floor(Duration::ZERO));
    // A first run takes the scripted answer; the next one finds the service gone.
    app.ui
        .invoke("sync_now", json!({"target": "demo/me/feed"}))
        .unwrap();
    app.source.push(Err(SyncError::offline("no route to host")));
    let failed = app
        .ui
        .invoke("sync_now", json!({"target": "demo/me/feed"}))
        .unwrap();
    assert_eq!(failed["outcome"], json!("failed"), "{failed}");
    let focus = app
        .ui
        .invoke(
            "sync_if_due",
            json!({"target": "demo/me/feed", "trigger": "focus"}),
        )
        .unwrap();
    assert_eq!(
        focus["outcome"],
        json!("skipped"),
        "inside min_interval: {focus}"
    );
    let back = app
        .ui
        .invoke(
            "sync_if_due",
            json!({"target": "demo/me/feed", "trigger": "networkBack"}),
        )
        .unwrap();
    assert_ne!(
        back["outcome"],
        json!("skipped"),
        "offline retries at once: {back}"
    );
    let unknown = app
        .ui
        .invoke(
            "sync_if_due",
            json!({"target": "demo/me/feed", "trigger": "moon"}),
        )
        .unwrap_err();
    assert!(unknown.to_string().contains("trigger"), "{unknown}");
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

#[test]
fn ipc_error_replies_carry_no_secret() {
    let app = app(ALL);
    for (args, secret) in [
        (json!("login failed password=hunter2 for bob"), "hunter2"),
        (
            json!("connect https://bob:p@ssw0rd@db.example.com/x"),
            "ssw0rd",
        ),
        (json!(r#"{"api_key":"sk-live-XYZ"}"#), "sk-live-XYZ"),
    ] {
        // The local kind takes a number: the refusal quotes what it got.
        let refused = app
            .ui
            .invoke("spawn_awaitable", json!({"kind": "double", "args": args}))
            .unwrap_err();
        assert!(!refused.to_string().contains(secret), "{refused}");
        // "echo" takes a string; a map is refused at enqueue, quoting nothing secret.
        let refused = app
            .ui
            .invoke(
                "enqueue",
                json!({"kind": "echo", "payload": {"nested": args}}),
            )
            .unwrap_err();
        assert_eq!(refused["code"], json!("invalidPayload"), "{refused}");
        assert!(!refused.to_string().contains(secret), "{refused}");
    }
}
