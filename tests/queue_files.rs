//! Opening `raw.db`: foreign, damaged and newer files are refused and left untouched.

use std::path::Path;

use tauri_plugin_jobs::queue::{EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::Error;

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read file")
}

/// A closed database with one job in it, checkpointed into the main file.
fn made_db(path: &Path) {
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    queue
        .enqueue("k", &"keep me", EnqueueOptions::new())
        .unwrap();
    drop(queue);
    assert!(
        !path.with_extension("db-wal").exists(),
        "closing checkpoints the WAL"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let text = "these are my notes, not a database\n".repeat(200);
    std::fs::write(&path, &text).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::NotADatabase { path: p } if p == &path),
        "{err}"
    );
    assert!(err.to_string().contains("raw.db"));
    assert_eq!(bytes(&path), text.as_bytes());
}

#[test]
fn a_newer_schema_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    made_db(&path);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
    }
    let before = bytes(&path);
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(err, Error::NewerSchema { found: 999, supported, .. } if supported < 999),
        "{err}"
    );
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_corrupt_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    made_db(&path);
    let mut damaged = bytes(&path);
    // Keep the 100-byte header, scribble over the schema page behind it.
    for byte in &mut damaged[100..4096] {
        *byte = 0xA5;
    }
    std::fs::write(&path, &damaged).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(err, Error::Corrupt { .. } | Error::NotADatabase { .. }),
        "{err:?}"
    );
    assert_eq!(bytes(&path), damaged);
}

#[test]
fn a_truncated_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    std::fs::write(&path, b"SQLite format 3\0 but then it stops").unwrap();
    let before = bytes(&path);
    assert!(Queue::open(&path, QueueOptions::new()).is_err());
    assert_eq!(bytes(&path), before);
}

#[test]
fn reopening_keeps_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/raw.db");
    made_db(&path);
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let jobs = queue.list(&Default::default()).unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].payload, serde_json::json!("keep me"));
}
