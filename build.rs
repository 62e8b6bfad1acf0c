//! Generates the plugin's permission files from the list of IPC commands.

/// Every IPC command the plugin registers (one list, shared with the crate).
const COMMANDS: &[&str] = &include!("src/plugin/command_names.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/plugin/command_names.rs");
    tauri_plugin::Builder::new(COMMANDS)
        // The webview API as one script, for apps with `withGlobalTauri`; built by
        // `npm run build` and committed.
        .global_api_script_path("./api-iife.js")
        .build();
}
