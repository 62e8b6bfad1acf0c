// Included by build.rs (and a test): no crate items here, only what the build reads.

/// The commands of `commands` that Tauri's list of allowed commands (the JSON of
/// `allowed-commands.json`: `{"commands": ["plugin:jobs|enqueue", ...], ...}`) leaves
/// out: the ones `tauri::generate_handler!` would not compile.
pub fn unused_commands<'a>(allowed: &str, commands: &[&'a str]) -> Vec<&'a str> {
    commands
        .iter()
        .copied()
        .filter(|command| !allowed.contains(&format!("\"plugin:jobs|{command}\"")))
        .collect()
}
