//! No answer tells a window about rows it may not see (5), and an agent's lease carries a secret no read shows (7).

use super::*;

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
            (
                "agent_defer",
                json!({"lease": forged, "deferral": {"type": "retryAfter", "afterMs": 5000, "reason": "x"}}),
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

#[test]
fn job_history_names_only_the_kinds_a_window_may_read() {
    use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions};
    let app = app(&[("bare", json!(["jobs:default"]))]);
    let queue = app.ui.jobs().queue().clone();
    for kind in ["export", "ingest"] {
        queue
            .enqueue(kind, &json!(1), EnqueueOptions::new())
            .unwrap();
        let job = queue
            .claim(&ClaimRequest::new("w", [kind]))
            .unwrap()
            .pop()
            .unwrap();
        queue.complete(&job.lease, None).unwrap();
    }
    let kinds = |window: &str, args: Value| -> Vec<String> {
        let answer = app.ui.invoke_in(window, "job_history", args).unwrap();
        answer
            .as_array()
            .unwrap()
            .iter()
            .map(|history| history["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(kinds("main", json!({})), ["export", "ingest"]);
    assert_eq!(kinds("scoped", json!({})), ["export"]);
    // Named outside the scope, a kind answers as one that never ran.
    assert!(kinds("scoped", json!({"kind": "ingest"})).is_empty());
    assert!(kinds("scoped", json!({"kind": "never"})).is_empty());
    assert!(kinds("bare", json!({"span": "lastDay"})).is_empty());
    let history = app
        .ui
        .invoke_in(
            "scoped",
            "job_history",
            json!({"kind": "export", "span": "lastDay"}),
        )
        .unwrap();
    assert_eq!(history[0]["points"][0]["succeeded"], json!(1), "{history}");
    assert_eq!(
        history[0]["points"][0]["spanMs"],
        json!(3_600_000),
        "{history}"
    );
    // A span backwards or too long is refused, naming it, whatever the scope.
    for window in ["main", "bare"] {
        let refused = app
            .ui
            .invoke_in(
                window,
                "job_history",
                json!({"span": {"range": {"from": 2_000, "to": 1_000}}}),
            )
            .unwrap_err();
        assert_code(&refused, "invalidArgument");
        assert!(
            refused["message"].as_str().unwrap().contains("range"),
            "{refused}"
        );
    }
}

#[test]
fn sync_history_names_only_the_targets_a_window_may_read() {
    let app = app(&[("bare", json!(["jobs:default"]))]);
    for target in ["demo/me/feed", "bank/me/ledger"] {
        app.ui
            .invoke_in("main", "sync_now", json!({ "target": target }))
            .unwrap();
    }
    let targets = |window: &str, args: Value| -> Vec<String> {
        let answer = app.ui.invoke_in(window, "sync_history", args).unwrap();
        answer
            .as_array()
            .unwrap()
            .iter()
            .map(|history| history["target"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        targets("main", json!({})),
        ["bank/me/ledger", "demo/me/feed"]
    );
    assert_eq!(targets("scoped", json!({})), ["demo/me/feed"]);
    assert!(targets("scoped", json!({"target": "bank/me/ledger"})).is_empty());
    assert!(targets("bare", json!({"span": "lastDay"})).is_empty());
    let history = app
        .ui
        .invoke_in("scoped", "sync_history", json!({"target": "demo/me/feed"}))
        .unwrap();
    let point = &history[0]["points"][0];
    // The background loop may have run the target too: at least the Refresh counts.
    assert!(point["notModified"].as_u64().unwrap() >= 1, "{history}");
    assert!(app.demo.calls() >= 1 && app.bank.calls() >= 1);
}
