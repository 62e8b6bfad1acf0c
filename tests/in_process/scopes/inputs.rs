//! Inputs: numbers past their bounds are typed errors (3), and disconnect_account checks its names and every deny entry (4).

use super::*;

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
        (json!({"maxOfflineMs": 0}), "options.maxOfflineMs"),
        (json!({"maxOfflineMs": 1e300}), "options.maxOfflineMs"),
        (json!({"maxOfflineMs": -3}), "options.maxOfflineMs"),
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
