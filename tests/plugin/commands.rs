//! Every command family over IPC: durable and local jobs, syncs, admin actions, schedules from config.toml, and arguments that are wrong or missing.

use super::*;

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
fn a_refused_config_toml_starts_the_app_on_the_built_in_settings_and_says_why() {
    use tauri_plugin_jobs::config::OnConfigError;
    use tauri_plugin_jobs::health::HealthStatus;
    let plugin = || {
        tauri_plugin_jobs::Builder::new().schedule(
            ScheduleSpec::every("tidy", "echo", Duration::from_secs(3600)).payload(json!("tidy")),
        )
    };
    // A typo a user makes: `rate_limit` for `rate_limits`, beside settings that are
    // fine on their own; the file is refused whole.
    let typo = r#"
        [jobs]
        workers = 1

        [jobs.rate_limit]
        echo = "1/1m"

        [schedules.tidy]
        every = "1m"
        "#;
    let ui = MockApp::with_config(
        plugin(),
        json!([{ "identifier": "jobs:default", "allow": [{ "kind": "echo" }] }]),
        typo,
    );
    let jobs = ui.jobs();
    let health = jobs.config_health();
    assert_eq!(health.status, HealthStatus::Error);
    let reason = health.reason.as_deref().unwrap();
    assert!(
        reason.contains("config.toml") && reason.contains("jobs.rate_limit"),
        "{reason}"
    );
    let temp = std::env::temp_dir();
    assert!(
        !reason.contains(&*temp.to_string_lossy()),
        "names the file, not its path: {reason}"
    );
    // The built-in settings: the code's schedule as declared, not as the file says.
    let schedules = ui.invoke("list_schedules", json!({})).unwrap();
    assert_eq!(schedules[0]["intervalMs"], json!(3_600_000), "{schedules}");
    // The webview reads it too, beside the other components.
    let components = ui.invoke("plugin_health", json!({})).unwrap();
    let config = components
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["component"] == json!("config"))
        .expect("the config component");
    assert_eq!(config["health"]["status"], json!("error"));
    assert!(config["health"]["reason"]
        .as_str()
        .unwrap()
        .contains("jobs.rate_limit"));
    let names: Vec<&str> = components
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["component"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "config",
            "raw.db",
            "conditions",
            "awake",
            "quit",
            "instances"
        ]
    );
    drop(ui);

    // A file that is fine: healthy.
    let ui = MockApp::with_config(plugin(), json!(["jobs:default"]), "[jobs]\nworkers = 1\n");
    assert_eq!(ui.jobs().config_health().status, HealthStatus::Healthy);
    drop(ui);

    // An app that prefers to fail says so: the plugin's setup fails.
    let strict = std::panic::catch_unwind(|| {
        MockApp::with_config(
            plugin().on_config_error(OnConfigError::Fail),
            json!(["jobs:default"]),
            typo,
        )
    });
    let message = strict.expect_err("the setup failed");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| message.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    assert!(message.contains("jobs.rate_limit"), "{message}");
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
fn an_enqueue_of_a_kind_nobody_runs_is_refused_and_adds_nothing() {
    let app = app(ALL);
    for command in ["enqueue", "agent_enqueue", "enqueue"] {
        let refused = app
            .ui
            .invoke(
                command,
                json!({"kind": "ingest", "payload": {"file": "a.csv"}}),
            )
            .unwrap_err();
        assert_eq!(
            refused["code"],
            json!("unknownKind"),
            "{command}: {refused}"
        );
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains("\"ingest\""), "{message}");
        assert!(message.contains("Builder::agent_kind"), "{message}");
    }
    // Nothing was written: no job of the kind, in any status.
    let counts = app.ui.invoke("job_counts", json!({})).unwrap();
    assert!(
        !counts
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == json!("ingest")),
        "{counts}"
    );
    // A kind a handler runs, and one declared as run by agents, are taken.
    for kind in ["echo", "remote"] {
        let enqueued = app
            .ui
            .invoke("enqueue", json!({"kind": kind, "payload": "x"}))
            .unwrap();
        assert_eq!(enqueued["created"], json!(true), "{kind}");
    }
    // The name is checked first: an empty kind is an invalid argument, not unknown.
    let empty = app
        .ui
        .invoke("enqueue", json!({"kind": "", "payload": 1}))
        .unwrap_err();
    assert_eq!(empty["code"], json!("invalidArgument"), "{empty}");
}

#[test]
fn the_webview_replaces_and_debounces_a_keyed_job() {
    let app = app(ALL);
    let enqueue = |payload: Value, options: Value| {
        app.ui.invoke(
            "enqueue",
            json!({"kind": "remote", "payload": payload, "options": options}),
        )
    };
    let first = enqueue(json!("a"), json!({"dedupeKey": "k"})).unwrap();
    assert_eq!(first["outcome"], json!("created"));
    let kept = enqueue(json!("b"), json!({"dedupeKey": "k"})).unwrap();
    assert_eq!(
        (kept["id"].clone(), kept["outcome"].clone()),
        (first["id"].clone(), json!("kept"))
    );
    let replaced = enqueue(
        json!("c"),
        json!({"dedupeKey": "k", "onDuplicate": "replace"}),
    )
    .unwrap();
    assert_eq!(replaced["outcome"], json!("replaced"));
    let debounced = enqueue(
        json!("d"),
        json!({"dedupeKey": "k", "onDuplicate": "debounce", "debounceMs": 2000}),
    )
    .unwrap();
    assert_eq!(debounced["outcome"], json!("replaced"));
    let job = app
        .ui
        .invoke("get_job", json!({"id": first["id"]}))
        .unwrap();
    assert_eq!(job["payload"], json!("d"));
    // Each refusal names the option.
    for (options, named) in [
        (
            json!({"dedupeKey": "k", "onDuplicate": "debounce"}),
            "options.debounceMs",
        ),
        (
            json!({"dedupeKey": "k", "debounceMs": 5}),
            "options.debounceMs",
        ),
        (
            json!({"dedupeKey": "k", "onDuplicate": "debounce", "debounceMs": -1}),
            "options.debounceMs",
        ),
        (json!({"onDuplicate": "replace"}), "on_duplicate"),
    ] {
        let refused = enqueue(json!("e"), options.clone()).unwrap_err();
        assert_eq!(
            refused["code"],
            json!("invalidArgument"),
            "{options}: {refused}"
        );
        assert!(
            refused["message"].as_str().unwrap().contains(named),
            "{options}: {refused}"
        );
    }
}
