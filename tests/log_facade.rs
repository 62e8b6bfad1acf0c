//! Without a `tracing` subscriber, what the plugin logs reaches the `log` facade, which
//! `tauri-plugin-log` and most app loggers read.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use tauri_plugin_jobs::bus::EventBus;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::queue::{EnqueueOptions, JobId, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext};

struct Capture(Mutex<Vec<String>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        self.0.lock().unwrap().push(format!(
            "{} {} {}",
            record.level(),
            record.target(),
            record.args()
        ));
    }
    fn flush(&self) {}
}

/// The process's logger, set once for every test here.
fn capture() -> &'static Capture {
    static CAPTURE: OnceLock<&'static Capture> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let capture: &'static Capture = Box::leak(Box::new(Capture(Mutex::new(Vec::new()))));
        log::set_logger(capture).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
        capture
    })
}

/// Whether a line `matches` was logged within `within`.
fn logged(within: Duration, matches: impl Fn(&str) -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if capture().0.lock().unwrap().iter().any(|line| matches(line)) {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn warnings_reach_the_log_facade() {
    capture();
    let bus = EventBus::new();
    bus.add_handler("fails", |_| Err("on purpose".into()));
    bus.publish(tauri_plugin_jobs::bus::JobStateChanged {
        id: JobId::from_raw(1),
        kind: "k".into(),
        from: None,
        to: tauri_plugin_jobs::queue::JobStatus::Queued,
        attempt: 0,
        at: Timestamp::EPOCH,
    });
    assert!(
        logged(Duration::ZERO, |line| line
            .starts_with("WARN tauri_plugin_jobs")
            && line.contains("event handler failed")),
        "{:?}",
        capture().0.lock().unwrap()
    );
}

/// An app built with `tauri::test` and never run sends no `RunEvent::Ready`: its jobs
/// stay queued, and the plugin says why, once.
#[test]
fn an_app_that_is_never_run_is_told_why_its_jobs_wait() {
    use tauri::test::{mock_builder, mock_context, noop_assets};
    capture();
    let dir = tempfile::tempdir().unwrap();
    Queue::open(dir.path().join("raw.db"), QueueOptions::new())
        .unwrap()
        .enqueue("send", &"note", EnqueueOptions::new())
        .unwrap();
    let _app = mock_builder()
        .plugin(
            tauri_plugin_jobs::Builder::new()
                .database(dir.path().join("raw.db"))
                .config(dir.path().join("config.toml"))
                .handler(Handler::new(
                    "send",
                    |_: String, _ctx: JobContext| async move { Ok(()) },
                ))
                .run_loop_notice(Duration::from_millis(50))
                .build(),
        )
        .build(mock_context(noop_assets()))
        .unwrap();
    assert!(
        logged(Duration::from_secs(10), |line| line
            .starts_with("WARN tauri_plugin_jobs")
            && line.contains("jobs are queued and none runs")
            && line.contains("RunEvent::Ready")),
        "{:?}",
        capture().0.lock().unwrap()
    );
}
