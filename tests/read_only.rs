//! A read-only `raw.db`, or a read-only directory around it: a clear error, the file
//! untouched, never a silent re-creation. On Unix, as root (CI) file permissions do
//! not bind, so the check runs in a child process as `nobody` through `setpriv`. On
//! Windows the file's read-only attribute is the form (it binds for administrators
//! too); a folder's read-only attribute does not stop files being made in it, so the
//! directory case is Unix only and says so when skipped.

use std::path::Path;
#[cfg(unix)]
use std::process::Command;

use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::Error;

#[cfg(unix)]
const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_READONLY_DB";

#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(unix)]
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Windows has the read-only attribute only: set for a mode without write bits.
#[cfg(windows)]
fn chmod(path: &Path, mode: u32) {
    if path.is_file() {
        let mut permissions = std::fs::metadata(path).unwrap().permissions();
        permissions.set_readonly(mode & 0o222 == 0);
        std::fs::set_permissions(path, permissions).unwrap();
    }
}

/// Windows: the attribute binds for every user, so this process opens it itself.
/// Under Wine it binds only where Unix permissions do (Wine keeps it as the file's
/// mode, which root passes): then the check cannot be made, and says so.
#[cfg(windows)]
fn open_unprivileged(path: &Path) -> String {
    if std::fs::OpenOptions::new().write(true).open(path).is_ok() {
        return "skipped".to_owned();
    }
    outcome(path)
}

/// Opens `path` as an unprivileged user and reports what happened, as one line.
#[cfg(unix)]
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
    if outcome == "skipped" {
        eprintln!(
            "skipped: this user may write a file with the read-only attribute (Wine as \
             root keeps the attribute as Unix permissions, which root passes; Windows \
             binds it for everyone)"
        );
        return;
    }
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

#[cfg(windows)]
#[test]
fn a_read_only_directory_is_a_clear_error_and_nothing_is_created() {
    eprintln!(
        "skipped: Windows has no read-only folders (the attribute does not stop files \
         being made in one); the read-only file is checked"
    );
}

#[cfg(unix)]
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

#[cfg(unix)]
#[test]
#[ignore = "started by the read-only tests as an unprivileged user"]
fn read_only_child() {
    let path = std::env::var(CHILD_DB).expect("started by a parent test");
    println!("OUTCOME {}", outcome(Path::new(&path)));
}
