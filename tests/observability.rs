//! Spans an app's `tracing` subscriber sees: one per job attempt (id, kind, attempt,
//! worker) around the handler, one per sync run (target, trigger) around the source.
//! A subscriber of this binary's own records the span every event was logged in.

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
