//! create-tauri-app's app with one plugin or none: what each plugin adds to the
//! release binary is the difference in size.

// Prevents an additional console window on Windows in release, as the template does.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[tauri::command]
fn greet(name: &str) -> String {
    format!("Hello, {name}! You've been greeted from Rust!")
}

fn main() {
    let builder = tauri::Builder::default();
    // What an app adds for durable jobs: the plugin and one handler.
    #[cfg(feature = "jobs-core")]
    let builder = builder.plugin(
        tauri_plugin_jobs::Builder::new()
            .handler(tauri_plugin_jobs::runner::Handler::new(
                "thumbnail",
                |path: String, _ctx: tauri_plugin_jobs::runner::JobContext| async move {
                    Ok(path)
                },
            ))
            .build(),
    );
    // What an app adds for SQLite through the official plugin.
    #[cfg(feature = "sql")]
    let builder = builder.plugin(tauri_plugin_sql::Builder::default().build());
    builder
        .invoke_handler(tauri::generate_handler![greet])
        .run(tauri::generate_context!())
        .expect("error while running tauri application");
}
