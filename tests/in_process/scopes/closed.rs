//! Scopes fail closed (9).

use super::*;

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
