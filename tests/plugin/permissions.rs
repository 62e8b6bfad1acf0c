//! What a window is granted: commands outside its set refused, the default set, the command list in build.rs, the committed bindings, and error replies that carry no secret.

use super::*;

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
fn default_permissions_leave_out_data_removal_agents_and_admin() {
    let default = include_str!("../../permissions/default.toml");
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
        "agent_defer",
        "retry_job",
        "delete_job",
        "pause_kind",
        "resume_kind",
        "run_schedule_now",
        "pause_schedule",
        "resume_schedule",
        "retry_workflow",
        "signal_job",
    ];
    let admin: toml::Table = include_str!("../../permissions/admin.toml")
        .parse()
        .unwrap();
    let admin: Vec<&str> = admin["set"][0]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        admin,
        withheld[8..16]
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
    let build = include_str!("../../build.rs");
    assert!(build.contains(r#"include!("src/plugin/command_names.rs")"#));
    let listed: Vec<&str> = include_str!("../../src/plugin/command_names.rs")
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

#[test]
fn the_invoke_handler_reads_the_keys_the_bindings_send() {
    // The handler lists each command's argument keys by hand (src/plugin/mod.rs): they
    // must be the keys the typed bindings send, in order, besides what Tauri supplies.
    const SUPPLIED: [&str; 4] = ["jobs", "scope", "reads", "caller"];
    let bindings = export_bindings();
    for (name, keys) in tauri_plugin_jobs::plugin::COMMAND_KEYS {
        let sent: Vec<&str> = keys
            .iter()
            .copied()
            .filter(|key| !SUPPLIED.contains(key))
            .collect();
        let call = format!("__TAURI_INVOKE(\"plugin:jobs|{name}\"");
        let after = bindings
            .split(&call)
            .nth(1)
            .unwrap_or_else(|| panic!("{name}"));
        let exported: Vec<&str> = after
            .strip_prefix(", { ")
            .map(|rest| rest.split(" })").next().unwrap().split(", ").collect())
            .unwrap_or_default();
        assert_eq!(sent, exported, "the keys of {name}");
    }
    let mut handled: Vec<&str> = tauri_plugin_jobs::plugin::COMMAND_KEYS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    handled.sort_unstable();
    let mut registered = tauri_plugin_jobs::plugin::COMMANDS.to_vec();
    registered.sort_unstable();
    assert_eq!(handled, registered);
}

#[test]
fn every_command_reaches_the_handler_and_a_missing_argument_is_named() {
    let app = app(ALL);
    for name in ALL {
        // An empty call: answered, refused by the body (a typed error), or refused
        // for an argument it lacks, naming the argument and the command.
        if let Err(refused) = app.ui.invoke(name, json!({})) {
            if let Some(text) = refused.as_str() {
                assert!(
                    text.starts_with("invalid args `")
                        && text.contains(&format!("` for command `{name}`")),
                    "{name}: {text}"
                );
            } else {
                assert!(refused["code"].is_string(), "{name}: {refused}");
            }
        }
    }
}

mod unused {
    include!("../../src/plugin/unused_commands.rs");
}

#[test]
fn remove_unused_commands_leaves_out_what_no_capability_allows() {
    // What Tauri's plugin build writes with `removeUnusedCommands`: the app's
    // capabilities allow `enqueue` and `get_job` of this plugin.
    let allowed = r#"{"commands":["plugin:jobs|enqueue","plugin:jobs|get_job","plugin:other|cancel","core:event|listen"],"has_app_acl":false}"#;
    let left_out = unused::unused_commands(allowed, ALL);
    assert_eq!(left_out.len(), ALL.len() - 2);
    assert!(!left_out.contains(&"enqueue") && !left_out.contains(&"get_job"));
    assert!(
        left_out.contains(&"cancel"),
        "another plugin's cancel is not ours"
    );
    assert!(left_out.contains(&"job_counts"));
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
