//! An app that keeps its data with tauri-plugin-sql, types its own commands with
//! tauri-specta rc.21, and adds tauri-plugin-jobs: it must resolve and build.

use tauri_plugin_jobs::runner::{Handler, JobContext};

/// The app's own commands (in a module of their own: a `#[tauri::command] pub fn` at
/// the crate root clashes with its generated items).
pub mod commands {
    /// An app command typed with the app's own tauri-specta release.
    #[tauri::command]
    #[specta::specta]
    pub fn greet(name: String) -> String {
        format!("hello {name}")
    }
}

/// The app's builder with both plugins and its own typed commands.
pub fn app<R: tauri::Runtime>() -> tauri::Builder<R> {
    let commands = tauri_specta::Builder::<R>::new()
        .commands(tauri_specta::collect_commands![commands::greet]);
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_sql::Builder::default().build())
        .plugin(
            tauri_plugin_jobs::Builder::new()
                .handler(Handler::new(
                    "thumbnail",
                    |path: String, _ctx: JobContext| async move { Ok(path.len()) },
                ))
                .build(),
        )
        .invoke_handler(commands.invoke_handler())
}
