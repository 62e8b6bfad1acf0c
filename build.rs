//! Generates the plugin's permission files from the list of IPC commands, and leaves
//! out of the invoke handler the commands an app's capabilities never allow when the
//! app asks Tauri to (`removeUnusedCommands`).

/// Every IPC command the plugin registers (one list, shared with the crate).
const COMMANDS: &[&str] = &include!("src/plugin/command_names.rs");

include!("src/plugin/unused_commands.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/plugin/command_names.rs");
    tauri_plugin::Builder::new(COMMANDS)
        // The webview API as one script, for apps with `withGlobalTauri`; built by
        // `npm run build` and committed.
        .global_api_script_path("./api-iife.js")
        .build();
    leave_out_unused_commands();
}

/// Tauri's `removeUnusedCommands` (`tauri.conf.json`, `build`): the plugin build above
/// writes the commands the app's capabilities allow to `$OUT_DIR/allowed-commands.json`
/// (and no file without the option); each command of ours they leave out gets
/// `cfg(jobs_unused = "<command>")`, which keeps it out of the invoke handler
/// (src/plugin/dispatch.rs), as `tauri::generate_handler!` keeps it out of its own.
fn leave_out_unused_commands() {
    let names: Vec<String> = COMMANDS.iter().map(|c| format!("\"{c}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(jobs_unused, values({}))",
        names.join(", ")
    );
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let path = std::path::Path::new(&out).join("allowed-commands.json");
    let Ok(allowed) = std::fs::read_to_string(path) else {
        return;
    };
    for command in unused_commands(&allowed, COMMANDS) {
        println!("cargo::rustc-cfg=jobs_unused=\"{command}\"");
    }
}
