//! Every piece of state a UI can read is published when it moves, or is derivable from
//! what is published, so a page that polls nothing stays right: a test per piece, on
//! the fake clock, through the test kit's backend.
//!
//! | what a page reads | what tells it that it moved |
//! | --- | --- |
//! | a job (`get_job`, `list_jobs`) | `jobStateChanged`, `jobProgress`, `jobDeleted`, `jobsPruned` |
//! | counts (`job_counts`) | the same: every way a job enters or leaves a status |
//! | paused kinds | `kindPaused` |
//! | schedules (next and last run) | `scheduleChanged`, also when a tick runs one |
//! | sync status (state and health) | `syncFinished`, `pluginHealth`, `accountDisconnected` |
//! | local jobs | `localJobChanged`, `localJobProgress` |

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tauri_plugin_jobs::bus::Event;
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::scheduler::ScheduleSpec;
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{SyncError, SyncPolicy, SyncTarget};
use tauri_plugin_jobs::testing::Backend;

const MIN: Duration = Duration::from_secs(60);

fn backend(source: Arc<FakeSource>) -> Backend {
    Backend::builder()
        .handler(Handler::new(
            "echo",
            |text: String, _ctx: JobContext| async move { Ok(text) },
        ))
        .schedule(ScheduleSpec::every("tidy", "echo", MIN).payload(json!("tidy")))
        .sync_target(
            SyncTarget::new("demo", "me", "feed"),
            SyncPolicy::every(10 * MIN),
            source,
        )
        .build()
}

fn names(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(Event::name).collect()
}

#[tokio::test]
async fn a_tick_that_runs_a_schedule_says_so() {
    let backend = backend(Arc::new(FakeSource::new()));
    backend.settle().await;
    let before = backend.scheduler.get("tidy").unwrap().unwrap();
    let mark = backend.mark();
    let settled = backend.advance_and_settle(MIN).await;
    assert_eq!(settled.ticked.len(), 1);
    let after = backend.scheduler.get("tidy").unwrap().unwrap();
    assert!(after.next_run > before.next_run && after.last_run.is_some());
    let events = backend.events_since(mark);
    assert!(
        events.iter().any(|event| matches!(
            event,
            Event::ScheduleChanged(changed) if changed.name == "tidy" && changed.kind == "echo"
        )),
        "{:?}",
        names(&events)
    );
}

#[tokio::test]
async fn pruning_finished_jobs_says_which_kinds_lost_how_many() {
    let backend = backend(Arc::new(FakeSource::new()));
    for text in ["a", "b"] {
        backend
            .queue
            .enqueue("echo", &text, EnqueueOptions::new())
            .unwrap();
    }
    backend.settle().await;
    assert_eq!(backend.jobs(JobStatus::Succeeded).len(), 2);
    backend.advance(60 * MIN);
    let mark = backend.mark();
    assert_eq!(backend.queue.prune(MIN).unwrap(), 2);
    let pruned: Vec<(String, u64)> = backend
        .events_since(mark)
        .into_iter()
        .filter_map(|event| match event {
            Event::JobsPruned(pruned) => Some((pruned.kind, pruned.count)),
            _ => None,
        })
        .collect();
    assert_eq!(pruned, vec![("echo".to_owned(), 2)]);
}

#[tokio::test]
async fn a_disconnected_account_says_which_targets_went() {
    let backend = backend(Arc::new(FakeSource::new()));
    let mark = backend.mark();
    backend.sync.disconnect("demo", "me").unwrap();
    let events = backend.events_since(mark);
    let gone = events.iter().find_map(|event| match event {
        Event::AccountDisconnected(gone) => Some(gone.clone()),
        _ => None,
    });
    let gone = gone.expect("an accountDisconnected event");
    assert_eq!(gone.account, "demo/me");
    assert_eq!(gone.targets, vec!["demo/me/feed".to_owned()]);
    assert!(backend.sync.targets().is_empty());
}

#[tokio::test]
async fn sync_runs_and_health_changes_are_published() {
    let source = Arc::new(FakeSource::new());
    let backend = backend(source.clone());
    backend.settle().await;
    let target = SyncTarget::new("demo", "me", "feed");
    for _ in 0..3 {
        source.push(Err(SyncError::failed("boom")));
    }
    let mark = backend.mark();
    for _ in 0..3 {
        backend.sync.sync_now(&target).await.unwrap();
    }
    let events = backend.events_since(mark);
    let finished = events
        .iter()
        .filter(|event| matches!(event, Event::SyncFinished(_)))
        .count();
    assert_eq!(finished, 3, "{:?}", names(&events));
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::PluginHealth(_))),
        "three failures change the target's health: {:?}",
        names(&events)
    );
}

#[tokio::test]
async fn jobs_pauses_deletes_and_local_jobs_are_published() {
    let backend = backend(Arc::new(FakeSource::new()));
    let mark = backend.mark();
    let id = backend
        .queue
        .enqueue("echo", &"x", EnqueueOptions::new())
        .unwrap()
        .id;
    backend.settle().await;
    backend.queue.pause_kind("echo").unwrap();
    backend.queue.resume_kind("echo").unwrap();
    backend.queue.delete(id).unwrap();
    let local = backend.local.spawn("export", |_ctx| async { Ok(()) });
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while backend
        .local
        .get(local)
        .is_some_and(|job| job.status == tauri_plugin_jobs::local::LocalJobStatus::Running)
    {
        assert!(std::time::Instant::now() < deadline);
        tokio::task::yield_now().await;
    }
    let events = backend.events_since(mark);
    let seen = names(&events);
    for expected in [
        "jobStateChanged",
        "kindPaused",
        "jobDeleted",
        "localJobChanged",
    ] {
        assert!(seen.contains(&expected), "{expected}: {seen:?}");
    }
    let states: Vec<JobStatus> = backend.history(id).iter().map(|c| c.to).collect();
    assert_eq!(
        states,
        vec![JobStatus::Queued, JobStatus::Running, JobStatus::Succeeded]
    );
}
