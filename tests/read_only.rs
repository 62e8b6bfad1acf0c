//! A read-only `raw.db`, or a read-only directory around it: a clear error, the file
//! untouched, never a silent re-creation. As root (CI) file permissions do not bind,
//! so the check runs in a child process as `nobody` through `setpriv`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::Error;

const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_READONLY_DB";

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Opens `path` as an unprivileged user and reports what happened, as one line.
fn open_unprivileged(path: &Path) -> String {
    if is_root() {
        let output = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(std::env::current_exe().unwrap())
            .args([
                "read_only_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DB, path)
            .output()
            .expect("setpriv runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        stdout
            .lines()
            .find_map(|line| line.split_once("OUTCOME ").map(|(_, rest)| rest.to_owned()))
            .unwrap_or_else(|| {
                format!(
                    "no outcome: {stdout} {}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })
    } else {
        outcome(path)
    }
}

fn outcome(path: &Path) -> String {
    match Queue::open(path, QueueOptions::new()) {
        Ok(queue) => match queue.enqueue("k", &1, EnqueueOptions::new()) {
            Ok(_) => "opened and wrote".to_owned(),
            Err(error) => format!("write error: {}", kind(&error)),
        },
        Err(error) => format!("open error: {}: {error}", kind(&error)),
    }
}

fn kind(error: &Error) -> &'static str {
    match error {
        Error::ReadOnly { .. } => "read-only",
        Error::Io { .. } => "io",
        _ => "other",
    }
}

/// A closed database with one job, readable by everyone.
fn made_db(dir: &Path) -> std::path::PathBuf {
    chmod(dir, 0o755);
    let path = dir.join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    queue.enqueue("k", &"kept", EnqueueOptions::new()).unwrap();
    drop(queue);
    path
}

#[test]
fn a_read_only_file_is_a_clear_error_and_stays_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = made_db(dir.path());
    chmod(&path, 0o444);
    let before = std::fs::read(&path).unwrap();
    let outcome = open_unprivileged(&path);
    assert!(
        outcome.starts_with("open error: read-only") || outcome.starts_with("open error: io"),
        "{outcome}"
    );
    assert!(
        outcome.contains("raw.db"),
        "the error names the file: {outcome}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_read_only_directory_is_a_clear_error_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = made_db(dir.path());
    chmod(&path, 0o666);
    chmod(dir.path(), 0o555);
    let before = std::fs::read(&path).unwrap();
    let outcome = open_unprivileged(&path);
    chmod(dir.path(), 0o755);
    assert!(outcome.starts_with("open error"), "{outcome}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!path.with_extension("db-wal").exists());

    // A missing file in a read-only directory is not created either.
    let empty = tempfile::tempdir().unwrap();
    chmod(empty.path(), 0o555);
    let missing = empty.path().join("raw.db");
    let outcome = open_unprivileged(&missing);
    chmod(empty.path(), 0o755);
    assert!(outcome.starts_with("open error"), "{outcome}");
    assert!(!missing.exists());
}

#[test]
#[ignore = "started by the read-only tests as an unprivileged user"]
fn read_only_child() {
    let path = std::env::var(CHILD_DB).expect("started by a parent test");
    println!("OUTCOME {}", outcome(Path::new(&path)));
}
