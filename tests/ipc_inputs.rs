//! Every command, driven through the mock runtime with arbitrary JSON for each of its
//! arguments (and arguments missing or extra), answers with a typed result every
//! time: the data, one of the plugin's `{ code, message }` errors, or Tauri's own
//! refusal of an argument. Nothing panics and nothing hangs.
//!
//! A command that panicked would never answer, so a watchdog ends the run (naming the
//! command and its arguments) when one takes longer than it may; a panic anywhere in
//! the plugin's threads (a task a command started) is caught by a hook and fails it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::scheduler::ScheduleSpec;
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{SyncPolicy, SyncTarget};
use tauri_plugin_jobs::testing::MockApp;

/// Every command with the arguments the webview sends it (Tauri supplies the rest).
const COMMANDS: &[(&str, &[&str])] = &[
    ("enqueue", &["kind", "payload", "options"]),
    ("get_job", &["id"]),
    ("list_jobs", &["filter"]),
    ("job_counts", &[]),
    ("job_history", &["kind", "span"]),
    ("cancel", &["job"]),
    ("spawn_local", &["kind", "args"]),
    ("spawn_awaitable", &["kind", "args"]),
    ("run_local", &["kind", "args", "onEvent"]),
    ("get_local_job", &["id"]),
    ("list_local_jobs", &[]),
    ("sync_now", &["target"]),
    ("sync_if_due", &["target", "trigger"]),
    ("sync_status", &[]),
    ("sync_history", &["target", "span"]),
    ("network_hint", &["online"]),
    ("list_schedules", &[]),
    ("disconnect_account", &["connector", "account"]),
    ("prune_jobs", &["olderThanMs"]),
    ("retry_job", &["id"]),
    ("delete_job", &["id"]),
    ("pause_kind", &["kind"]),
    ("resume_kind", &["kind"]),
    ("paused_kinds", &[]),
    ("run_schedule_now", &["name"]),
    ("pause_schedule", &["name"]),
    ("resume_schedule", &["name"]),
    ("agent_enqueue", &["kind", "payload", "options"]),
    ("agent_claim", &["request"]),
    ("agent_heartbeat", &["lease", "progress"]),
    ("agent_complete", &["lease", "result"]),
    ("agent_fail", &["lease", "error", "permanent"]),
    ("agent_defer", &["lease", "deferral"]),
    ("subscribe", &["onEvent"]),
    ("unsubscribe", &["id"]),
];

/// The codes a plugin error may carry.
const CODES: &[&str] = &[
    "invalidArgument",
    "unknownKind",
    "notFound",
    "alreadyRunning",
    "lostLease",
    "invalidPayload",
    "invalidResult",
    "busy",
    "full",
    "readOnly",
    "corrupt",
    "foreign",
    "database",
    "config",
    "io",
    "jobFailed",
    "cancelled",
    "forbidden",
    "limitReached",
];

/// Field names the commands read somewhere, so nested objects hit real fields.
const FIELDS: &[&str] = &[
    "priority",
    "delayMs",
    "maxAttempts",
    "maxOfflineMs",
    "afterMs",
    "dedupeKey",
    "parent",
    "status",
    "kind",
    "actor",
    "before",
    "limit",
    "durable",
    "local",
    "agent",
    "kinds",
    "limits",
    "leaseMs",
    "maxJobs",
    "jobId",
    "worker",
    "attempt",
    "expiresAt",
    "lengthMs",
    "token",
    "done",
    "total",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(0.0),
            Just(-1.0),
            Just(0.5),
            Just(1e300),
            Just(-1e300),
            Just(9.007_199_254_740_993e15),
            Just(f64::MAX),
            Just(f64::MIN_POSITIVE),
            -1e20f64..1e20f64,
        ]
        .prop_map(|f| json!(f)),
        prop_oneof![
            Just(String::new()),
            Just("*".to_owned()),
            Just("export".to_owned()),
            Just("double".to_owned()),
            Just("echo".to_owned()),
            Just("demo/me/feed".to_owned()),
            Just("demo".to_owned()),
            Just("me".to_owned()),
            Just("me.sync".to_owned()),
            Just("tidy".to_owned()),
            Just("local-1".to_owned()),
            Just("local-99999999999999999999".to_owned()),
            Just("__CHANNEL__:9".to_owned()),
            Just("__CHANNEL__:-1".to_owned()),
            Just("focus".to_owned()),
            Just("networkBack".to_owned()),
            Just("queued".to_owned()),
            Just("agent:x".to_owned()),
            Just("0000000000000001".to_owned()),
            "[a-z/.*_-]{0,12}",
            "\\PC{0,40}",
        ]
        .prop_map(Value::from),
        (1usize..3000).prop_map(|n| Value::from("x".repeat(n))),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec(
                (prop::sample::select(FIELDS).prop_map(str::to_owned), inner),
                0..6
            )
            .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<u32>().prop_map(Value::from),
        (-5i64..2000).prop_map(Value::from),
        prop_oneof![
            Just(1e300),
            Just(-1e300),
            Just(f64::MAX),
            Just(0.5),
            Just(-0.0),
            -1e16f64..1e16f64
        ]
        .prop_map(|f| json!(f)),
    ]
}

fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            "*",
            "export",
            "double",
            "echo",
            "tidy",
            "demo",
            "me",
            "feed",
            "me.sync",
            "a/b",
            "demo/me/feed",
            "demo/me/*",
            "local-1",
            "local-0",
            "agent:x",
            "queued",
            "failed",
            "0000000000000001",
        ])
        .prop_map(Value::from),
        "[a-z/.*_:-]{0,16}".prop_map(Value::from),
        "\\PC{0,24}".prop_map(Value::from),
        (100usize..3000).prop_map(|n| Value::from("k".repeat(n))),
    ]
}

/// An object with some of `fields`, each from its own strategy.
fn object(fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let parts: Vec<BoxedStrategy<Option<(String, Value)>>> = fields
        .into_iter()
        .map(|(name, strategy)| {
            prop::option::weighted(0.85, strategy.prop_map(move |v| (name.to_owned(), v))).boxed()
        })
        .collect();
    parts
        .prop_map(|present| Value::Object(present.into_iter().flatten().collect()))
        .boxed()
}

/// A value of the type the argument `name` has, within or far outside what makes
/// sense; a quarter of the time any JSON at all.
fn argument(name: &'static str) -> BoxedStrategy<Value> {
    let typed: BoxedStrategy<Value> = match name {
        "kind" | "target" | "connector" | "account" | "name" | "error" => text().boxed(),
        "payload" | "args" | "result" => prop_oneof![number(), value()].boxed(),
        "id" => prop_oneof![number(), text()].boxed(),
        "online" | "permanent" => any::<bool>().prop_map(Value::from).boxed(),
        "olderThanMs" => number().boxed(),
        "trigger" => prop::sample::select(vec!["focus", "networkBack", "wake", "moon"])
            .prop_map(Value::from)
            .boxed(),
        "onEvent" => (0u32..50)
            .prop_map(|id| Value::from(format!("__CHANNEL__:{id}")))
            .boxed(),
        "options" => object(vec![
            ("priority", number().boxed()),
            ("dedupeKey", text().boxed()),
            ("delayMs", number().boxed()),
            ("maxAttempts", number().boxed()),
            ("maxOfflineMs", number().boxed()),
            ("parent", number().boxed()),
        ]),
        "filter" => object(vec![
            ("status", text().boxed()),
            ("kind", text().boxed()),
            ("parent", number().boxed()),
            (
                "actor",
                prop::sample::select(vec!["user", "agent", "system", "x"])
                    .prop_map(Value::from)
                    .boxed(),
            ),
            ("before", number().boxed()),
            ("limit", number().boxed()),
        ]),
        "job" => prop_oneof![
            number().prop_map(|id| json!({ "durable": id })),
            text().prop_map(|id| json!({ "local": id })),
        ]
        .boxed(),
        "request" => object(vec![
            ("agent", text().boxed()),
            (
                "kinds",
                prop::collection::vec(text(), 0..80)
                    .prop_map(Value::from)
                    .boxed(),
            ),
            (
                "limits",
                prop::collection::btree_map("[a-z]{1,3}", number(), 0..4)
                    .prop_map(|m| json!(m))
                    .boxed(),
            ),
            ("leaseMs", number().boxed()),
            ("maxJobs", number().boxed()),
        ]),
        "deferral" => object(vec![
            (
                "type",
                prop::sample::select(vec!["offline", "retryAfter", "throttleKind", "nap"])
                    .prop_map(Value::from)
                    .boxed(),
            ),
            ("message", text().boxed()),
            ("afterMs", number().boxed()),
            ("reason", text().boxed()),
        ]),
        "lease" => object(vec![
            ("jobId", number().boxed()),
            ("kind", text().boxed()),
            ("worker", text().boxed()),
            ("attempt", number().boxed()),
            ("expiresAt", number().boxed()),
            ("lengthMs", number().boxed()),
            ("token", text().boxed()),
        ]),
        "progress" => object(vec![
            ("done", number().boxed()),
            ("total", number().boxed()),
        ]),
        _ => value().boxed(),
    };
    prop_oneof![3 => typed, 1 => value().boxed()].boxed()
}

/// Arguments for `names`: each present with a value of about its type, or left out;
/// now and then one more that no command takes.
fn args(names: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let values: Vec<BoxedStrategy<Option<Value>>> = names
        .iter()
        .map(|name| prop::option::weighted(0.9, argument(name)).boxed())
        .collect();
    (values, prop::option::weighted(0.1, value())).prop_map(move |(values, extra)| {
        let mut args = Map::new();
        for (name, value) in names.iter().zip(values) {
            if let Some(value) = value {
                args.insert((*name).to_owned(), value);
            }
        }
        if let Some(extra) = extra {
            args.insert("unexpected".to_owned(), extra);
        }
        Value::Object(args)
    })
}

fn call() -> impl Strategy<Value = (&'static str, Value)> {
    prop::sample::select(COMMANDS).prop_flat_map(|(command, names)| (Just(command), args(names)))
}

/// The longest any call may take to answer: far past what any takes here.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// Ends the process when a call stays unanswered past [`ANSWER_WITHIN`]: a panicked
/// command never answers, and a test that hangs tells nobody anything.
fn watchdog() -> Arc<Mutex<Option<(Instant, String)>>> {
    let pending: Arc<Mutex<Option<(Instant, String)>>> = Arc::default();
    let watched = pending.clone();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100));
        if let Some((since, what)) = &*watched.lock().unwrap() {
            if since.elapsed() > ANSWER_WITHIN {
                eprintln!(
                    "no answer within {ANSWER_WITHIN:?} from {what}: a command hangs or panicked"
                );
                std::process::exit(101);
            }
        }
    });
    pending
}

fn typed(answer: &Result<Value, Value>) -> Result<(), String> {
    match answer {
        Ok(_) => Ok(()),
        // Tauri's own refusal of an argument (or of the call) is a string.
        Err(Value::String(_)) => Ok(()),
        Err(Value::Object(error)) => {
            let code = error
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let message = error.get("message").and_then(Value::as_str);
            if CODES.contains(&code) && message.is_some_and(|m| !m.is_empty()) && error.len() == 2 {
                Ok(())
            } else {
                Err(format!("not a typed error: {error:?}"))
            }
        }
        Err(other) => Err(format!("not a typed error: {other}")),
    }
}

#[test]
fn every_command_answers_arbitrary_json_with_a_typed_result() {
    let panics: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = panics.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        seen.lock().unwrap().push(info.to_string());
        previous(info);
    }));
    let source = Arc::new(FakeSource::new());
    let all = json!([{ "kind": "*" }, { "localKind": "*" }, { "target": "*" }]);
    let app = MockApp::new(
        tauri_plugin_jobs::Builder::new()
            .handler(Handler::new(
                "echo",
                |text: String, _ctx: JobContext| async move { Ok(text) },
            ))
            .schedule(
                ScheduleSpec::every("tidy", "echo", Duration::from_secs(3600))
                    .payload(json!("tidy")),
            )
            .sync_target(
                SyncTarget::new("demo", "me", "feed"),
                SyncPolicy::every(Duration::from_secs(600)),
                source,
            )
            .local_kind(
                "double",
                |n: u32, _ctx| async move { Ok(n.wrapping_mul(2)) },
            )
            .without_network_watch(),
        json!([
            { "identifier": "jobs:default", "allow": all },
            { "identifier": "jobs:admin", "allow": all },
            { "identifier": "jobs:agents", "allow": all },
            { "identifier": "jobs:data-removal", "allow": all },
        ]),
    );
    let pending = watchdog();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 5000,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(&call(), |(command, args)| {
        *pending.lock().unwrap() = Some((Instant::now(), format!("{command} {args}")));
        let answer = app.invoke(command, args.clone());
        *pending.lock().unwrap() = None;
        if std::env::var_os("IPC_STATS").is_some() {
            // How far calls get: `IPC_STATS=1 cargo test --test ipc_inputs -- --nocapture`.
            let kind = match &answer {
                Ok(_) => "ok".to_owned(),
                Err(Value::String(_)) => "tauri".to_owned(),
                Err(error) => error["code"].to_string(),
            };
            eprintln!("STAT {command} {kind}");
        }
        if let Err(reason) = typed(&answer) {
            return Err(TestCaseError::fail(format!("{command} {args}: {reason}")));
        }
        let caught = std::mem::take(&mut *panics.lock().unwrap());
        prop_assert!(caught.is_empty(), "{command} {args}: a panic: {caught:?}");
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    // A panic in a task a command started, after it answered.
    std::thread::sleep(Duration::from_millis(100));
    let caught = panics.lock().unwrap().clone();
    assert!(caught.is_empty(), "panics: {caught:?}");
}

#[test]
fn the_inputs_that_panicked_before_are_answered() {
    let all = json!([{ "kind": "*" }, { "localKind": "*" }, { "target": "*" }]);
    let app = MockApp::new(
        tauri_plugin_jobs::Builder::new()
            .agent_kind("k")
            .without_network_watch(),
        json!([{ "identifier": "jobs:default", "allow": all }]),
    );
    let pending = watchdog();
    *pending.lock().unwrap() = Some((Instant::now(), "enqueue delayMs 1e300".into()));
    let refused = app
        .invoke(
            "enqueue",
            json!({"kind": "k", "payload": 1, "options": {"delayMs": 1e300}}),
        )
        .unwrap_err();
    *pending.lock().unwrap() = None;
    assert_eq!(refused["code"], json!("invalidArgument"), "{refused}");
    assert!(refused["message"]
        .as_str()
        .unwrap()
        .contains("options.delayMs"));
}
