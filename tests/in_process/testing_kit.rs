//! The README's "Testing your app's jobs", word for word (tests/in_process/readme.rs checks it):
//! the test kit as an app's own tests use it, from outside the crate.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::scheduler::ScheduleSpec;
use tauri_plugin_jobs::sync::testing::FakeSource;
use tauri_plugin_jobs::sync::{SyncOutcome, SyncPolicy, SyncResult, SyncTarget, SyncThrottle};
use tauri_plugin_jobs::testing::Backend;

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_flaky_upload_succeeds_on_its_third_attempt() {
    let calls = Arc::new(AtomicU32::new(0));
    let counted = calls.clone();
    let backend = Backend::builder()
        .handler(Handler::new(
            "upload",
            move |_path: String, _ctx: JobContext| {
                let attempt = counted.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    if attempt < 3 {
                        return Err(JobError::retryable("HTTP 503"));
                    }
                    Ok("uploaded".to_owned())
                }
            },
        ))
        .build();
    let id = backend
        .queue
        .enqueue("upload", &"a.png", EnqueueOptions::new())
        .unwrap()
        .id;

    backend.settle().await; // the first attempt fails; a retry waits out its backoff
    assert_eq!(backend.job(id).status, JobStatus::Queued);
    backend.advance_and_settle(MINUTE).await; // the second fails too
    backend.advance_and_settle(MINUTE).await; // the third succeeds

    let job = backend.job(id);
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.attempts, 3);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    let moves: Vec<_> = backend.history(id).iter().map(|c| c.to).collect();
    assert_eq!(moves.len(), 7); // queued, then running and back three times
}

#[tokio::test]
async fn a_throttled_feed_waits_as_long_as_its_server_asked() {
    let source = Arc::new(FakeSource::new());
    source.push(Ok(SyncResult::Throttled(SyncThrottle::server_interval(
        60 * MINUTE,
    ))));
    let feed = SyncTarget::new("github", "me", "notifications");
    let backend = Backend::builder()
        .sync_target(feed.clone(), SyncPolicy::every(5 * MINUTE), source.clone())
        .build();

    let settled = backend.settle().await; // a new target is due at once
    assert!(matches!(settled.synced[0].1, SyncOutcome::Throttled { .. }));
    backend.advance_and_settle(30 * MINUTE).await;
    assert_eq!(source.calls(), 1, "still throttled");
    backend.advance_and_settle(31 * MINUTE).await;
    assert_eq!(source.calls(), 2);
    assert_eq!(backend.account_keys("github", "me").len(), 1); // its sync state
}

#[tokio::test]
async fn a_schedule_fires_across_a_restart_without_repeating_a_slot() {
    let digest = || {
        Handler::new(
            "digest",
            |_: serde_json::Value, _ctx: JobContext| async move { Ok(()) },
        )
    };
    let backend = Backend::builder()
        .handler(digest())
        .schedule(ScheduleSpec::every("hourly-digest", "digest", 60 * MINUTE))
        .build();
    assert!(backend.settle().await.ticked.is_empty()); // first slot: an hour from now

    let backend = backend.restart(); // the app quits and starts again
    backend.advance(60 * MINUTE);
    assert_eq!(backend.settle().await.ticked.len(), 1);

    let backend = backend.restart();
    backend.advance(3 * 60 * MINUTE); // three slots missed while it was closed
    assert_eq!(
        backend.settle().await.ticked.len(),
        1,
        "missed runs collapse"
    );
    assert_eq!(backend.jobs(JobStatus::Succeeded).len(), 2);
}

/// docs/workflows.md, "A parent that runs first": the parent lists the mailbox, then
/// enqueues a piece per message and the index rebuilt after them.
#[rustfmt::skip]
fn import_first() -> Handler {
    Handler::new("import", |mailbox: String, ctx: JobContext| async move {
        let messages = list_mailbox(&mailbox).await?; // runs before any piece exists
        let queue = ctx.queue();
        for message in messages {
            // A key per piece: an attempt run again after a crash does not add a piece
            // still queued or running twice.
            let piece = EnqueueOptions::new().parent(ctx.id).dedupe_key(format!("{}-{message}", ctx.id));
            queue.enqueue("embed", &message, piece)?;
        }
        let last = EnqueueOptions::new().parent(ctx.id).after_pieces_of(ctx.id).dedupe_key(ctx.id.to_string());
        queue.enqueue("reindex", &(), last)?;
        Ok(format!("listed {mailbox}"))
    })
}

async fn list_mailbox(_mailbox: &str) -> Result<Vec<u32>, JobError> {
    Ok(vec![1, 2, 3])
}

#[tokio::test]
async fn a_parent_that_must_run_first_enqueues_its_pieces_and_the_job_after_them() {
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (embeds, reindexes) = (order.clone(), order.clone());
    let backend = Backend::builder()
        .handler(import_first())
        .handler(Handler::new(
            "embed",
            move |message: u32, _ctx: JobContext| {
                embeds.lock().unwrap().push(format!("embed {message}"));
                async move { Ok(()) }
            },
        ))
        .handler(Handler::new("reindex", move |_: (), _ctx: JobContext| {
            reindexes.lock().unwrap().push("reindex".to_owned());
            async move { Ok(()) }
        }))
        .build();
    let parent = backend
        .queue
        .enqueue("import", &"inbox", EnqueueOptions::new())
        .unwrap()
        .id;
    backend.settle().await;
    assert_eq!(backend.job(parent).status, JobStatus::Succeeded);
    let order = order.lock().unwrap().clone();
    assert_eq!(order.len(), 4, "{order:?}");
    assert_eq!(
        order.last().unwrap(),
        "reindex",
        "the rebuild runs after every piece"
    );
    let workflow = backend.queue.workflow(parent).unwrap().unwrap();
    assert!(workflow.ended && !workflow.failed);
    assert_eq!(workflow.progress.total, Some(4));
}

/// docs/testing.md, "A handler that reads the app's state, on the fake clock".
#[rustfmt::skip]
mod app_state {
use tauri::test::MockRuntime;
use tauri::{Manager, Runtime};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::testing::Backend;

/// What the app manages in its `setup`: where the server is, and whether it answers.
struct Api { online: std::sync::atomic::AtomicBool }

fn save_note<R: Runtime>() -> Handler {
    Handler::new("save-note", |text: String, ctx: JobContext| async move {
        let app = ctx.app::<R>()?;
        if !app.state::<Api>().online.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(JobError::offline("connection refused"));
        }
        Ok(text.len())
    })
}

#[tokio::test]
async fn a_note_saved_offline_is_sent_when_the_network_is_back() {
    let backend = Backend::builder()
        .handler(save_note::<MockRuntime>())
        .app(|app| {
            app.manage(Api { online: false.into() });
        })
        .build();
    let id = backend.queue.enqueue("save-note", &"hello", EnqueueOptions::new()).unwrap().id;
    backend.settle().await; // offline: waits, no attempt spent
    assert_eq!((backend.job(id).status, backend.job(id).attempts), (JobStatus::Queued, 0));

    let app = backend.app().unwrap();
    app.state::<Api>().online.store(true, std::sync::atomic::Ordering::SeqCst);
    backend.advance_and_settle(std::time::Duration::from_secs(15)).await; // the next probe
    assert_eq!(backend.job(id).status, JobStatus::Succeeded);
}
}

/// docs/testing.md, "The plugin in a mock app".
#[rustfmt::skip]
mod mock_app {
use serde_json::json;
use tauri::test::MockRuntime;
use tauri::Manager;
use tauri_plugin_jobs::runner::{Handler, JobContext};
use tauri_plugin_jobs::testing::MockApp;

struct Greeting(String);

#[test]
fn a_job_reads_what_setup_managed() {
    let app = MockApp::with_setup(
        tauri_plugin_jobs::Builder::new().handler(Handler::new(
            "greet",
            |name: String, ctx: JobContext| async move {
                let app = ctx.app::<MockRuntime>()?;
                Ok(format!("{} {name}", app.state::<Greeting>().0))
            },
        )),
        json!([{ "identifier": "jobs:default", "allow": [{ "kind": "greet" }] }]),
        |app| {
            app.manage(Greeting("hello".into()));
        },
    );
    let events = app.subscribe("main");
    let job = app.invoke("enqueue", json!({ "kind": "greet", "payload": "you" })).unwrap();
    events
        .next_matching(|e| e["event"]["id"] == job["id"] && e["event"]["to"] == "succeeded")
        .expect("the job succeeded on its first attempt");
}
}

/// docs/steps.md, "Long work in steps": the handler as the page writes it.
#[rustfmt::skip]
mod steps_page {
use std::time::Duration;

use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};

/// An episode to summarise: where it is.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Episode { pub url: String }

pub fn summarise_episode() -> Handler {
    Handler::new("summarise-episode", |episode: Episode, ctx: JobContext| async move {
        // Each step's body runs once; a later attempt reads back what it returned.
        let file: String = ctx.step("download", || download(&episode.url)).await?;
        let text: String = ctx.step("transcribe", || transcribe(&file)).await?;
        // The paid call: never paid twice, whatever happens after it.
        let summary: String = ctx.step("summarise", || paid_summary(&text)).await?;
        // A durable sleep: no worker held while it waits, through quits and updates.
        ctx.sleep("before-the-digest", Duration::from_secs(3600)).await?;
        ctx.step("publish", || publish(&summary)).await?;
        Ok(summary)
    })
    .max_attempts(10)
}

async fn download(url: &str) -> Result<String, JobError> { Ok(format!("{url}.mp3")) }
async fn transcribe(file: &str) -> Result<String, JobError> { Ok(format!("text of {file}")) }
async fn paid_summary(text: &str) -> Result<String, JobError> { Ok(format!("summary of {text}")) }
async fn publish(summary: &str) -> Result<usize, JobError> { Ok(summary.len()) }

/// The same page: what runs between steps.
#[allow(dead_code)]
async fn between_steps() {
// Wrong: sent again at every attempt after a crash later on.
// client.post(url).send().await?;
// Right: recorded once.
// ctx.step("notify", || async { client.post(url).send().await?; Ok(()) }).await?;

}
}

/// docs/steps.md, "Results that flow".
#[rustfmt::skip]
mod inputs_page {
use tauri_plugin_jobs::queue::Input;
use tauri_plugin_jobs::runner::{Handler, JobContext};

pub fn total_size() -> Handler {
    Handler::new("total-size", |_: (), ctx: JobContext| async move {
        // Every job it waited for, in the order its enqueue named them.
        let sizes: Vec<Input<u64>> = ctx.inputs()?;
        let failed = sizes.iter().filter(|input| matches!(input, Input::Failed { .. })).count();
        let total: u64 = sizes.into_iter().filter_map(Input::ok).sum();
        Ok(format!("{total} bytes, {failed} failed"))
    })
}
}

/// From docs/steps.md alone: the steps before a durable sleep run once, the sleep
/// holds the job through a quit, and the job goes on past it an hour later.
#[tokio::test]
async fn a_job_in_steps_sleeps_through_a_quit_and_goes_on_past_its_sleep() {
    use tauri_plugin_jobs::queue::AttemptOutcome;
    let backend = Backend::builder()
        .handler(steps_page::summarise_episode())
        .build();
    let episode = steps_page::Episode {
        url: "https://example.com/ep1".into(),
    };
    let id = backend
        .queue
        .enqueue("summarise-episode", &episode, EnqueueOptions::new())
        .unwrap()
        .id;
    backend.settle().await;
    let job = backend.job(id);
    assert_eq!(job.status, JobStatus::Queued, "asleep");
    let until = job.sleeping_until.expect("sleeping");
    let before: Vec<_> = job
        .steps
        .iter()
        .map(|s| (s.name.clone(), s.finished_at))
        .collect();
    assert_eq!(before.len(), 4, "three steps and the sleep: {before:?}");

    let backend = backend.restart(); // the app quits and starts again
    backend.advance(59 * MINUTE);
    backend.settle().await;
    assert_eq!(backend.job(id).status, JobStatus::Queued, "still asleep");
    backend.advance(MINUTE);
    backend.settle().await;
    let job = backend.job(id);
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(
        job.result,
        Some(serde_json::json!(
            "summary of text of https://example.com/ep1.mp3"
        ))
    );
    // The steps before the sleep were read back, not run again: recorded once, then.
    let after: Vec<_> = job
        .steps
        .iter()
        .map(|s| (s.name.clone(), s.finished_at))
        .collect();
    assert_eq!(after[..4], before[..]);
    assert_eq!(after[4].0, "publish");
    assert!(job
        .errors
        .iter()
        .any(|e| e.outcome == AttemptOutcome::Slept && e.until == Some(until)));
    assert_eq!(job.attempts, 1, "a sleep counts no attempt");
}

/// From docs/steps.md alone: a job that waited for three reads their results, a
/// failed one included.
#[tokio::test]
async fn a_job_reads_the_sizes_of_the_jobs_it_waited_for() {
    use tauri_plugin_jobs::queue::DependencyFailure;
    let backend = Backend::builder()
        .handler(Handler::new(
            "size",
            |n: u64, _ctx: JobContext| async move {
                if n == 0 {
                    return Err(JobError::permanent("no such file"));
                }
                Ok(n)
            },
        ))
        .handler(inputs_page::total_size())
        .build();
    let ids: Vec<_> = [100u64, 0, 20]
        .iter()
        .map(|n| {
            backend
                .queue
                .enqueue("size", n, EnqueueOptions::new())
                .unwrap()
                .id
        })
        .collect();
    let total = backend
        .queue
        .enqueue(
            "total-size",
            &(),
            EnqueueOptions::new()
                .after(ids)
                .on_dependency_failure(DependencyFailure::Run),
        )
        .unwrap()
        .id;
    backend.settle().await;
    assert_eq!(
        backend.job(total).result,
        Some(serde_json::json!("120 bytes, 1 failed"))
    );
}

/// docs/signals.md, "An approval step".
#[rustfmt::skip]
mod approval_page {
use std::time::Duration;

use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, LogLevel};

/// What the user answers.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Approval { pub approved: bool, pub note: String }

pub fn send_report() -> Handler {
    Handler::new("send-report", |report: String, ctx: JobContext| async move {
        let draft: String = ctx.step("draft", || async {
            let draft = format!("draft of {report}");
            // In the step: logged once (code between steps runs again at each attempt).
            ctx.log(format_args!("drafted {} bytes, waiting for approval", draft.len()));
            Ok(draft)
        }).await?;
        // No worker is held while the user thinks; a quit or a restart changes nothing.
        let answer: Option<Approval> = ctx.wait_for_signal("approval", Duration::from_secs(86_400)).await?;
        match answer {
            Some(Approval { approved: true, note }) => {
                ctx.log(format_args!("approved: {note}"));
                ctx.step("send", || async { Ok(draft.len()) }).await
            }
            Some(Approval { note, .. }) => Err(JobError::permanent(format!("declined: {note}"))),
            None => {
                ctx.log_at(LogLevel::Warn, "nobody answered within a day");
                Err(JobError::permanent("not approved in time"))
            }
        }
    })
    .signal("approval") // a signal sent before the job waits is kept for it
}
}

/// docs/signals.md, "A sign-in code that comes back by deep link".
#[rustfmt::skip]
mod deep_link_page {
use std::time::Duration;

use tauri_plugin_jobs::queue::JobId;
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};

pub fn connect_account() -> Handler {
    Handler::new("connect-account", |provider: String, ctx: JobContext| async move {
        // The browser opens once, whatever happens later: a step.
        ctx.step("open-browser", || async {
            // opener::open(format!("https://{provider}/authorize?state={}", ctx.id))
            Ok(format!("{provider} opened"))
        })
        .await?;
        let code: Option<String> = ctx.wait_for_signal("oauth-code", Duration::from_secs(600)).await?;
        let code = code.ok_or_else(|| JobError::permanent("the sign-in was not finished in 10 minutes"))?;
        ctx.step("exchange", || async { Ok(format!("token for {code}")) }).await
    })
    .signal("oauth-code")
}

/// The deep link's handler: `myapp://oauth?state=<job id>&code=<code>`.
pub fn on_deep_link(queue: &tauri_plugin_jobs::queue::Queue, state: i64, code: &str) {
    let sent = queue.signal(JobId::from(state), "oauth-code", &serde_json::json!(code));
    if let Err(error) = sent {
        eprintln!("a sign-in code for no waiting job: {error}");
    }
}
}

/// From docs/signals.md alone: the report waits for its approval, holding nothing;
/// the user approves; it is sent, and its log says what happened.
#[tokio::test]
async fn a_report_waits_for_its_approval_and_is_sent_once_approved() {
    let backend = Backend::builder()
        .handler(approval_page::send_report())
        .build();
    let id = backend
        .queue
        .enqueue("send-report", &"q4", EnqueueOptions::new())
        .unwrap()
        .id;
    backend.settle().await;
    let job = backend.job(id);
    assert_eq!(
        (job.status, job.awaits_signal.as_deref()),
        (JobStatus::Queued, Some("approval"))
    );
    let backend = backend.restart(); // a quit while the user thinks
    backend.advance(60 * MINUTE);
    let approval = approval_page::Approval {
        approved: true,
        note: "looks good".into(),
    };
    backend
        .queue
        .signal(id, "approval", &serde_json::to_value(&approval).unwrap())
        .unwrap();
    backend.settle().await;
    let job = backend.job(id);
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.result, Some(serde_json::json!("draft of q4".len())));
    let said: Vec<_> = backend
        .queue
        .logs(id, 0)
        .unwrap()
        .into_iter()
        .map(|l| l.text)
        .collect();
    assert_eq!(
        said,
        [
            "drafted 11 bytes, waiting for approval",
            "approved: looks good"
        ]
    );
}

/// From docs/signals.md alone: a code that never comes fails the sign-in after ten
/// minutes; one that comes by deep link finishes it.
#[tokio::test]
async fn a_sign_in_finishes_when_its_code_comes_back_and_fails_when_it_never_does() {
    let backend = Backend::builder()
        .handler(deep_link_page::connect_account())
        .build();
    let waited = backend
        .queue
        .enqueue("connect-account", &"github.com", EnqueueOptions::new())
        .unwrap()
        .id;
    let answered = backend
        .queue
        .enqueue("connect-account", &"gitlab.com", EnqueueOptions::new())
        .unwrap()
        .id;
    backend.settle().await;
    deep_link_page::on_deep_link(&backend.queue, answered.raw(), "abc");
    backend.settle().await;
    assert_eq!(
        backend.job(answered).result,
        Some(serde_json::json!("token for abc"))
    );
    backend.advance(10 * MINUTE);
    backend.settle().await;
    let job = backend.job(waited);
    assert_eq!(job.status, JobStatus::Failed);
    assert!(job
        .last_error
        .unwrap()
        .contains("not finished in 10 minutes"));
}
