//! What an app's `tracing` subscriber sees. Spans: one per job attempt (id, kind,
//! attempt, worker) around the handler, one per sync run (target, trigger) around the
//! source. Lines, each at its documented level (docs/logs.md): a job failed for good
//! (WARN), a retry scheduled (DEBUG), a lease taken back (INFO), a sync target's health
//! changing (WARN, or INFO when it recovers; once per change, not per retry), the
//! TypeScript declarations a debug build cannot write (WARN), with no secret in any
//! of them. A subscriber of this binary's own records every event, with
//! its level, target and fields, and the span it was logged in.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tauri_plugin_jobs::sync::{
    SyncContext, SyncEngine, SyncError, SyncPolicy, SyncResult, SyncSource, SyncTarget,
};

/// A span's name and its fields, as text.
type SpanFields = (String, HashMap<String, String>);

#[derive(Default)]
struct Recorder {
    next: AtomicU64,
    spans: Mutex<HashMap<u64, SpanFields>>,
    /// Each event's message, with the span it was logged in.
    events: Mutex<Vec<(String, Option<SpanFields>)>>,
    /// Each event of the plugin: its level, message and fields.
    lines: Mutex<Vec<Line>>,
}

/// One event the plugin logged.
#[derive(Debug, Clone)]
struct Line {
    level: tracing::Level,
    message: String,
    fields: HashMap<String, String>,
}

thread_local! {
    static STACK: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[derive(Default)]
struct Fields(HashMap<String, String>);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl tracing::Subscriber for &'static Recorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let id = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fields = Fields::default();
        span.record(&mut fields);
        self.spans
            .lock()
            .unwrap()
            .insert(id, (span.metadata().name().to_owned(), fields.0));
        tracing::span::Id::from_u64(id)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let message = fields.0.remove("message").unwrap_or_default();
        if event.metadata().target().starts_with("tauri_plugin_jobs") {
            self.lines.lock().unwrap().push(Line {
                level: *event.metadata().level(),
                message: message.clone(),
                fields: fields.0.clone(),
            });
        }
        let current = STACK.with(|stack| stack.borrow().last().copied());
        let span = current.and_then(|id| self.spans.lock().unwrap().get(&id).cloned());
        self.events.lock().unwrap().push((message, span));
    }
    fn enter(&self, span: &tracing::span::Id) {
        STACK.with(|stack| stack.borrow_mut().push(span.into_u64()));
    }
    fn exit(&self, _: &tracing::span::Id) {
        STACK.with(|stack| {
            stack.borrow_mut().pop();
        });
    }
}

fn recorder() -> &'static Recorder {
    static RECORDER: OnceLock<&'static Recorder> = OnceLock::new();
    RECORDER.get_or_init(|| {
        let recorder: &'static Recorder = Box::leak(Box::default());
        tracing::subscriber::set_global_default(recorder).expect("one subscriber");
        recorder
    })
}

fn logged_in(recorder: &Recorder, message: &str) -> SpanFields {
    recorder
        .events
        .lock()
        .unwrap()
        .iter()
        .find(|(text, _)| text == message)
        .and_then(|(_, span)| span.clone())
        .unwrap_or_else(|| panic!("{message:?} was not logged inside a span"))
}

#[tokio::test]
async fn a_handler_logs_inside_its_attempts_span() {
    let recorder = recorder();
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let handler = Handler::new("thumb", |_: serde_json::Value, _ctx: JobContext| {
        tracing::info!("closure runs");
        async {
            tokio::task::yield_now().await;
            tracing::info!("future runs");
            Ok(())
        }
    });
    let mut settings = RunnerSettings::default();
    settings.worker_id = "observed".into();
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    let id = queue
        .enqueue("thumb", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    for message in ["closure runs", "future runs"] {
        let (name, fields) = logged_in(recorder, message);
        assert_eq!(name, "job");
        assert_eq!(fields["id"], id.to_string());
        assert_eq!(fields["kind"], "thumb");
        assert_eq!(fields["attempt"], "1");
        assert_eq!(fields["worker"], "observed");
    }
}

struct Logs;

impl SyncSource for Logs {
    async fn sync(&self, _: &SyncContext) -> Result<SyncResult, SyncError> {
        tracing::info!("source runs");
        Ok(SyncResult::NotModified)
    }
}

#[tokio::test]
async fn a_sync_source_logs_inside_its_runs_span() {
    let recorder = recorder();
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new().clock(clock)).unwrap();
    let engine = SyncEngine::new(queue);
    let target = SyncTarget::new("mail", "me", "inbox");
    engine
        .register(
            target.clone(),
            SyncPolicy::every(Duration::from_secs(60)),
            Arc::new(Logs),
        )
        .unwrap();
    engine.sync_now(&target).await.unwrap();
    let (name, fields) = logged_in(recorder, "source runs");
    assert_eq!(name, "sync");
    assert_eq!(fields["target"], "mail/me/inbox");
    assert_eq!(fields["trigger"], "Now");
}

/// The plugin's lines whose `field` is `value`.
fn lines_where(recorder: &Recorder, field: &str, value: &str) -> Vec<Line> {
    recorder
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.fields.get(field).is_some_and(|v| v == value))
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_job_failed_for_good_writes_one_warn_line_and_a_retry_one_debug_line() {
    use tauri_plugin_jobs::runner::JobError;
    let recorder = recorder();
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
    let queue = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new().clock(clock.clone()),
    )
    .unwrap();
    let flaky = Handler::new(
        "flaky-logged",
        |_: serde_json::Value, _ctx: JobContext| async {
            Err::<(), _>(JobError::retryable(
                "HTTP 503 from https://bob:hunter2@example.com/feed",
            ))
        },
    )
    .max_attempts(2);
    let doomed = Handler::new(
        "doomed-logged",
        |_: serde_json::Value, _ctx: JobContext| async {
            Err::<(), _>(JobError::permanent("message 0 does not exist"))
        },
    );
    let runner = Runner::new(
        queue.clone(),
        vec![flaky, doomed],
        RunnerSettings::for_tests(),
    )
    .unwrap();
    let id = queue
        .enqueue("flaky-logged", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let gone = queue
        .enqueue("doomed-logged", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    clock.advance(Duration::from_secs(3600));
    runner.drain().await.unwrap();

    let flaky: Vec<Line> = recorder
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.fields.get("job") == Some(&id.to_string()))
        .filter(|line| line.message == "retry scheduled" || line.message == "job failed for good")
        .cloned()
        .collect();
    let retries: Vec<&Line> = flaky
        .iter()
        .filter(|l| l.message == "retry scheduled")
        .collect();
    assert_eq!(retries.len(), 1, "{flaky:?}");
    assert_eq!(retries[0].level, tracing::Level::DEBUG);
    let failed = lines_where(recorder, "kind", "flaky-logged");
    let failed: Vec<&Line> = failed
        .iter()
        .filter(|l| l.message == "job failed for good")
        .collect();
    assert_eq!(failed.len(), 1, "one line, at its end: {failed:?}");
    assert_eq!(failed[0].level, tracing::Level::WARN);
    assert_eq!(failed[0].fields["attempts"], "2");
    assert!(failed[0].fields["error"].contains("HTTP 503"), "{failed:?}");
    for line in retries.iter().chain(&failed) {
        assert!(
            !format!("{:?}", line.fields).contains("hunter2"),
            "a secret in {line:?}"
        );
    }
    let doomed = lines_where(recorder, "kind", "doomed-logged");
    assert_eq!(doomed.len(), 1, "{doomed:?}");
    assert_eq!(doomed[0].fields["job"], gone.to_string());
    assert_eq!(doomed[0].fields["attempts"], "1");
    assert!(doomed[0].fields["error"].contains("message 0 does not exist"));
}

#[tokio::test]
async fn a_lease_taken_back_writes_an_info_line() {
    use tauri_plugin_jobs::queue::ClaimRequest;
    let recorder = recorder();
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
    let queue = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new().clock(clock.clone()),
    )
    .unwrap();
    queue
        .enqueue("abandoned-logged", &1, EnqueueOptions::new())
        .unwrap();
    let request = ClaimRequest::new("w", ["abandoned-logged"]).lease(Duration::from_secs(1));
    assert_eq!(queue.claim(&request).unwrap().len(), 1);
    clock.advance(Duration::from_secs(2));
    assert_eq!(
        queue.claim(&request).unwrap().len(),
        1,
        "taken back and claimed again"
    );
    let lines = lines_where(recorder, "kind", "abandoned-logged");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].level, tracing::Level::INFO);
    assert!(
        lines[0].message.starts_with("lease taken back"),
        "{lines:?}"
    );
    assert_eq!(lines[0].fields["now"], "queued");
}

#[tokio::test]
async fn a_sync_target_logs_each_change_of_its_health_once() {
    use tauri_plugin_jobs::sync::testing::FakeSource;
    let recorder = recorder();
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new().clock(clock)).unwrap();
    let engine = SyncEngine::new(queue);
    let (failing, offline) = (
        SyncTarget::new("logged", "me", "failing"),
        SyncTarget::new("logged", "me", "offline"),
    );
    let (source, unreachable) = (Arc::new(FakeSource::new()), Arc::new(FakeSource::new()));
    let policy = SyncPolicy::every(Duration::from_secs(60));
    engine
        .register(failing.clone(), policy, source.clone())
        .unwrap();
    engine
        .register(offline.clone(), policy, unreachable.clone())
        .unwrap();
    // Healthy first: nothing. Three failures: a line when it is retrying, one when it
    // is failing (not one per retry). Then healthy again.
    engine.sync_now(&failing).await.unwrap();
    for _ in 0..4 {
        source.push(Err(SyncError::failed("HTTP 500 token=abc123secret")));
        engine.sync_now(&failing).await.unwrap();
    }
    engine.sync_now(&failing).await.unwrap();
    unreachable.push(Err(SyncError::offline("connection refused")));
    engine.sync_now(&offline).await.unwrap();
    engine.sync_now(&offline).await.unwrap();

    let of = |target: &str| -> Vec<(tracing::Level, String)> {
        lines_where(recorder, "target", target)
            .into_iter()
            .filter(|line| line.message.starts_with("sync target"))
            .map(|line| (line.level, line.message))
            .collect()
    };
    use tracing::Level;
    assert_eq!(
        of("logged/me/failing"),
        [
            (Level::WARN, "sync target not healthy".to_owned()),
            (Level::WARN, "sync target failing".to_owned()),
            (Level::INFO, "sync target healthy again".to_owned()),
        ]
    );
    assert_eq!(
        of("logged/me/offline"),
        [
            (Level::WARN, "sync target not healthy".to_owned()),
            (Level::INFO, "sync target healthy again".to_owned()),
        ]
    );
    let reasons: Vec<String> = lines_where(recorder, "target", "logged/me/failing")
        .into_iter()
        .filter_map(|line| line.fields.get("reason").cloned())
        .collect();
    assert!(
        reasons.iter().all(|r| !r.contains("abc123secret")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("HTTP 500")),
        "{reasons:?}"
    );
}

/// A payload whose shape cannot be traced (an internally tagged enum reads through
/// `deserialize_any`) and that nobody typed.
#[derive(serde::Deserialize)]
#[serde(tag = "type")]
enum Resize {
    #[allow(dead_code)]
    Width { width: u32 },
}

#[test]
fn declarations_it_cannot_write_in_a_debug_build_are_one_warn_line_naming_the_type() {
    use tauri_plugin_jobs::runner::Handler as AppHandler;
    use tauri_plugin_jobs::testing::MockApp;
    use tauri_plugin_jobs::typescript::Typescript;
    let recorder = recorder();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jobs-kinds.d.ts");
    let _app = MockApp::new(
        tauri_plugin_jobs::Builder::new()
            .handler(AppHandler::new(
                "resize",
                |_: Resize, _ctx: JobContext| async move { Ok(()) },
            ))
            .typescript(Typescript::new(&file)),
        serde_json::json!([]),
    );
    let lines: Vec<Line> = recorder
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.message == "the TypeScript declarations were not written")
        .filter(|line| {
            line.fields
                .get("error")
                .is_some_and(|e| e.contains("Resize"))
        })
        .cloned()
        .collect();
    // The tests are a debug build: the plugin tried, and said why it could not.
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].level, tracing::Level::WARN);
    assert!(lines[0].fields["error"].contains("\"resize\""), "{lines:?}");
    assert!(!file.exists(), "nothing written");
}
