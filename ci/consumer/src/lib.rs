//! The README's quick start, word for word (tests/readme.rs checks it), followed by
//! the parts of an app that meet other crates: tauri-plugin-sql and tauri-specta rc.21.

// ----- the README's quick start -----

use std::sync::Arc;
use std::time::Duration;

use tauri_plugin_jobs::local::BoxError;
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::sync::{
    BoxFuture, SyncContext, SyncError, SyncPolicy, SyncReport, SyncResult, SyncSource, SyncTarget,
};

/// The input of a durable job: its type is the payload's schema.
#[derive(serde::Deserialize)]
struct Thumbnail {
    path: String,
    width: u32,
}

/// Where the app's data comes from: the source says how, the plugin decides when.
struct Notifications;

impl SyncSource for Notifications {
    fn sync<'a>(&'a self, ctx: &'a SyncContext) -> BoxFuture<'a, Result<SyncResult, SyncError>> {
        Box::pin(async move {
            // Fetch with If-None-Match: ctx.etag(); store what changed in the app's own data.
            if ctx.etag() == Some("\"v1\"") {
                return Ok(SyncResult::NotModified);
            }
            Ok(SyncResult::Updated(SyncReport::changed(3).with_etag("\"v1\"")))
        })
    }
}

fn jobs_plugin<R: tauri::Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_jobs::Builder::new()
        // A durable job: survives restarts, retried with backoff, one at a time.
        .handler(
            Handler::new("thumbnail", |job: Thumbnail, _ctx: JobContext| async move {
                if job.width == 0 {
                    return Err(JobError::permanent("width must not be zero"));
                }
                Ok(format!("{}@{}", job.path, job.width))
            })
            .concurrency(1),
        )
        // A sync target: every minute, on focus and on Refresh, with backoff.
        .sync_target(
            SyncTarget::new("github", "me", "notifications"),
            SyncPolicy::every(Duration::from_secs(60)),
            Arc::new(Notifications),
        )
        // A process-local job the webview may start by name, one at a time.
        .exclusive_local_kind("export", |rows: u64, ctx| async move {
            for row in 1..=rows {
                if ctx.is_cancelled() {
                    break;
                }
                ctx.progress(row, Some(rows)).await;
            }
            Ok::<_, BoxError>(rows)
        })
        .build()
}

#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn run() {
    tauri::Builder::default()
        .plugin(jobs_plugin())
        .run(tauri::generate_context!())
        .expect("error while running tauri application");
}

// ----- beside the quick start: the rest of an app's dependency graph -----

/// The app's own commands, typed with its own tauri-specta release (in a module of
/// their own: a `#[tauri::command] pub fn` at the crate root clashes with its
/// generated items).
pub mod commands {
    /// An app command.
    #[tauri::command]
    #[specta::specta]
    pub fn greet(name: String) -> String {
        format!("hello {name}")
    }
}

/// The same app with its SQL plugin and its own typed commands.
pub fn app_with_sql<R: tauri::Runtime>() -> tauri::Builder<R> {
    let commands = tauri_specta::Builder::<R>::new()
        .commands(tauri_specta::collect_commands![commands::greet]);
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_sql::Builder::default().build())
        .plugin(jobs_plugin())
        .invoke_handler(commands.invoke_handler())
}
