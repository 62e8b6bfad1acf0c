//! Generates the plugin's permission files from the list of IPC commands.

/// Every IPC command the plugin registers. `tests/permissions.rs` fails when this list
/// and the commands the plugin actually registers differ.
const COMMANDS: &[&str] = &[];

fn main() {
    tauri_plugin::Builder::new(COMMANDS).build();
}
