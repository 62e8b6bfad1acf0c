//! Two instances of one app on one `raw.db` (started twice by mistake): each sees the
//! other in `pluginHealth` (component `instances`) while it runs, and not once it is
//! gone. The other instance is a child process: the test binary again, as the
//! multi-process tests do.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tauri_plugin_jobs::testing::MockApp;

/// Where the child's app keeps its `raw.db`.
const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_INSTANCE_DB";

fn app_on(db: &std::path::Path) -> MockApp {
    MockApp::new(
        tauri_plugin_jobs::Builder::new().database(db),
        json!(["jobs:allow-plugin-health"]),
    )
}

fn instances_health(app: &MockApp) -> Value {
    let health = app.invoke("plugin_health", json!({})).unwrap();
    health
        .as_array()
        .unwrap()
        .iter()
        .find(|component| component["component"] == "instances")
        .expect("an instances component")["health"]
        .clone()
}

/// Kills the child however the test ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_second_instance_on_the_same_file_is_a_warning_until_it_is_gone() {
    if !cfg!(any(target_os = "linux", windows, target_os = "macos")) {
        println!("skipped: no process marks on this system, so no instance is seen");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("raw.db");
    let first = app_on(&db);
    assert_eq!(instances_health(&first)["status"], "healthy");

    let mut child = Killed(
        Command::new(std::env::current_exe().unwrap())
            .args([
                "instances::child_instance",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DB, &db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    let pid = child.0.id();
    let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
    // Bounded: the child says it is up, or ends (and the read ends with it).
    assert!(
        lines.any(|line| line.is_ok_and(|line| line.contains("instance up"))),
        "the child's app did not start"
    );
    let health = instances_health(&first);
    assert_eq!(health["status"], "warning", "{health}");
    let reason = health["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("pid {pid}")), "{reason}");
    assert!(reason.contains("single-instance"), "{reason}");

    // Gone (kill -9 leaves its row behind): healthy again, the row cleared.
    drop(child);
    let health = instances_health(&first);
    assert_eq!(health["status"], "healthy", "{health}");
}

/// The child side: an app on the parent's file, up until the parent kills it.
#[test]
#[ignore = "started by the test above"]
fn child_instance() {
    let db = std::env::var_os(CHILD_DB).expect("started by the parent test");
    let app = app_on(std::path::Path::new(&db));
    let health = instances_health(&app);
    // The parent's app was there first: the second sees it from its own start.
    assert_eq!(health["status"], "warning", "{health}");
    println!("instance up");
    // Until the parent kills it; bounded all the same.
    std::thread::sleep(Duration::from_secs(60));
}
