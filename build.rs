//! Generates the plugin's permission files from the list of IPC commands.

/// Every IPC command the plugin registers. `tests/plugin.rs` fails when this list and
/// the commands in the exported bindings differ.
const COMMANDS: &[&str] = &[
    "enqueue",
    "get_job",
    "list_jobs",
    "job_counts",
    "cancel",
    "spawn_local",
    "spawn_awaitable",
    "run_local",
    "get_local_job",
    "list_local_jobs",
    "sync_now",
    "sync_if_due",
    "sync_status",
    "network_hint",
    "list_schedules",
    "disconnect_account",
    "prune_jobs",
    "retry_job",
    "delete_job",
    "pause_kind",
    "resume_kind",
    "paused_kinds",
    "run_schedule_now",
    "pause_schedule",
    "resume_schedule",
    "agent_enqueue",
    "agent_claim",
    "agent_heartbeat",
    "agent_complete",
    "agent_fail",
];

fn main() {
    tauri_plugin::Builder::new(COMMANDS)
        // The webview API as one script, for apps with `withGlobalTauri`; built by
        // `npm run build` and committed.
        .global_api_script_path("./api-iife.js")
        .build();
}
