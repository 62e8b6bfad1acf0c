//! Signals and job logs from windows: a window sends a signal only to jobs of its own
//! kinds, and reads only their logs; a job of another kind answers exactly as a
//! missing one; a window without `jobs:signals` cannot send at all.

use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions};

use super::*;

#[test]
fn a_window_signals_and_reads_the_logs_of_its_own_kinds_only() {
    let app = app(&[("plain", json!(["jobs:default"]))]);
    let queue = app.ui.jobs().queue();
    let mine = queue
        .enqueue("export", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let other = queue
        .enqueue("ingest", &2, EnqueueOptions::new())
        .unwrap()
        .id;
    // Both wait for "go", as their handlers (agents here) would.
    for job in queue
        .claim(&ClaimRequest::new("agent:test", ["export", "ingest"]).max_jobs(2))
        .unwrap()
    {
        queue
            .finish(
                &job.lease,
                tauri_plugin_jobs::queue::Outcome::Deferred(
                    tauri_plugin_jobs::queue::Deferral::Signal {
                        name: "go".into(),
                        until: tauri_plugin_jobs::clock::Timestamp::from_millis(i64::MAX / 2),
                    },
                ),
            )
            .unwrap();
    }
    let signal = |window: &str, id: &Value| {
        app.ui.invoke_in(
            window,
            "signal_job",
            json!({"id": id, "name": "go", "payload": {"ok": true}}),
        )
    };
    let sent = signal("scoped", &json!(mine)).unwrap();
    assert_eq!(sent["woke"], json!(true), "{sent}");
    // Another kind's job: as for no job at all.
    let hidden = signal("scoped", &json!(other)).unwrap_err();
    let missing = signal("scoped", &json!(424_242)).unwrap_err();
    assert_code(&hidden, "notFound");
    assert_eq!(
        hidden["message"]
            .as_str()
            .unwrap()
            .replace(&other.to_string(), "N"),
        missing["message"].as_str().unwrap().replace("424242", "N"),
        "the same words"
    );
    // Without the permission, nothing at all.
    let refused = signal("plain", &json!(mine)).unwrap_err();
    assert!(
        refused.as_str().unwrap_or_default().contains("not allowed"),
        "{refused}"
    );
    // An ended job's refusal is typed.
    let ended = signal("main", &json!(other));
    assert!(ended.is_ok(), "the other window may: {ended:?}");
    // Logs: its own kind's, `null` for another's, as for a missing job.
    let logs = app
        .ui
        .invoke_in("scoped", "get_job_logs", json!({"id": other}))
        .unwrap();
    assert_eq!(logs, Value::Null);
    let logs = app
        .ui
        .invoke_in("scoped", "get_job_logs", json!({"id": mine}))
        .unwrap();
    assert_eq!(logs, json!([]));
}
