// Learn more about Tauri commands at https://tauri.app/develop/calling-rust/
#[tauri::command]
fn greet(name: &str) -> String {
    format!("Hello, {}! You've been greeted from Rust!", name)
}

use std::sync::Arc;
use std::time::Duration;

use tauri_plugin_jobs::local::BoxError;
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::sync::{
    self, SyncContext, SyncPolicy, SyncReport, SyncResult, SyncSource, SyncTarget,
};
use tauri_plugin_jobs::typescript::Typescript;

/// The input of a durable job: its type is the payload's schema.
#[derive(serde::Deserialize)]
struct Thumbnail {
    path: String,
    width: u32,
}

/// Where the app's data comes from: the source says how, the plugin decides when.
struct Notifications;

impl SyncSource for Notifications {
    async fn sync(&self, ctx: &SyncContext) -> sync::Result<SyncResult> {
        // Fetch with If-None-Match: ctx.etag(); store what changed in the app's own data.
        // A failure is `Err(SyncError::failed(..))`, or `SyncError::offline(..)` when
        // the service could not be reached (retried soon, not backed off).
        if ctx.etag() == Some("\"v1\"") {
            return Ok(SyncResult::NotModified);
        }
        Ok(SyncResult::Updated(SyncReport::changed(3).with_etag("\"v1\"")))
    }
}

fn jobs() -> tauri_plugin_jobs::Builder {
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
                ctx.progress(row, Some(rows));
            }
            Ok::<_, BoxError>(rows)
        })
        // The webview's types for all of the above, from the Rust types (serde's view
        // of `Thumbnail`): `tsc` refuses a kind name with a typo, a payload of the
        // wrong shape, a renamed field. Written by the test below, which `npm run
        // build` runs first, and by debug builds of the app.
        .typescript(Typescript::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../src/jobs-kinds.d.ts"
        )))
}

#[cfg(test)]
mod tests {
    /// Writes `src/jobs-kinds.d.ts` when the kinds changed: package.json's
    /// `"prebuild": "cargo test --manifest-path src-tauri/Cargo.toml --lib jobs_kinds"`
    /// runs it before every `npm run build` (and so before `tauri build`).
    #[test]
    fn jobs_kinds() {
        super::jobs().update_typescript().unwrap();
    }
}

#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn run() {
    tauri::Builder::default()
        .plugin(tauri_plugin_opener::init())
        // The app's own database, beside the plugin's raw.db.
        .plugin(tauri_plugin_sql::Builder::default().build())
        .plugin(jobs().build())
        .invoke_handler(tauri::generate_handler![greet])
        .run(tauri::generate_context!())
        .expect("error while running tauri application");
}
