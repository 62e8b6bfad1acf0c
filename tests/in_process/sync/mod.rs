//! The sync engine on a fake clock, through the harness app developers get too:
//! when it runs (`engine`), and what a source writes and hears (`sources`).

use std::sync::Arc;
use std::time::Duration;

use tauri_plugin_jobs::bus::Event;
use tauri_plugin_jobs::health::HealthStatus;
use tauri_plugin_jobs::queue::{Queue, QueueOptions};
use tauri_plugin_jobs::sync::testing::{FakeSource, SyncHarness};
use tauri_plugin_jobs::sync::{
    SkipReason, SyncEngine, SyncError, SyncOutcome, SyncPolicy, SyncReport, SyncResult, SyncTarget,
    SyncThrottle, Trigger,
};
use tauri_plugin_jobs::Error;

const SEC: Duration = Duration::from_secs(1);
const MIN: Duration = Duration::from_secs(60);

fn inbox() -> SyncTarget {
    SyncTarget::new("mail", "alice", "inbox")
}

fn policy() -> SyncPolicy {
    SyncPolicy::every(MIN)
        .min_interval(15 * SEC)
        .backoff(10 * SEC, 5 * MIN)
        .offline_retry(5 * SEC)
}

fn setup() -> (SyncHarness, Arc<FakeSource>) {
    let harness = SyncHarness::new();
    let source = Arc::new(FakeSource::new());
    harness
        .engine
        .register(inbox(), policy(), source.clone())
        .unwrap();
    (harness, source)
}

mod engine;
mod history;
mod sources;
