//! Without a `tracing` subscriber, what the plugin logs reaches the `log` facade, which
//! `tauri-plugin-log` and most app loggers read.

use std::sync::Mutex;

use tauri_plugin_jobs::bus::EventBus;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::queue::JobId;

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

#[test]
fn warnings_reach_the_log_facade() {
    let capture: &'static Capture = Box::leak(Box::new(Capture(Mutex::new(Vec::new()))));
    log::set_logger(capture).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
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
    let lines = capture.0.lock().unwrap();
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("WARN tauri_plugin_jobs")
                && line.contains("event handler failed")),
        "{lines:?}"
    );
}
