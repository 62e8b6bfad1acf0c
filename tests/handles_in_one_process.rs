//! A second handle on `raw.db` in the same process must not take away the first one's
//! locks. On POSIX systems closing any descriptor of a file drops every lock the
//! process holds on it; a look at the file made outside SQLite (to recognise it before
//! opening) would leave the first handle's connection unlocked, and another process
//! closing its own connection would then take itself for the last one, checkpoint,
//! and delete the write-ahead log under the first handle, which stops seeing other
//! processes' commits (seen with SQLite 3.46: a runner that never heard of new jobs).

use std::process::Command;
use std::time::Duration;

use tauri_plugin_jobs::queue::{EnqueueOptions, JobFilter, Queue, QueueOptions};

const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_HANDLES_DB";

fn enqueue_from_another_process(path: &std::path::Path) {
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--ignored", "--nocapture"])
        .env(CHILD_DB, path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_second_handle_keeps_the_first_ones_view_of_other_processes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let first = Queue::open(&path, QueueOptions::new()).unwrap();
    first.enqueue("mine", &0, EnqueueOptions::new()).unwrap();
    let wal = dir.path().join("raw.db-wal");
    assert!(wal.exists());
    // Opened and dropped while the first is open.
    drop(Queue::open(&path, QueueOptions::new()).unwrap());

    for round in 1..=2 {
        enqueue_from_another_process(&path);
        // The first handle still holds the file: nobody else may remove its log.
        assert!(
            wal.exists(),
            "round {round}: another process took itself for the last one"
        );
        let seen = first.list(&JobFilter::new()).unwrap().len();
        assert_eq!(
            seen,
            1 + round,
            "round {round}: the first handle lost sight"
        );
    }
}

#[test]
#[ignore = "started by the test above"]
fn child() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    queue.enqueue("theirs", &0, EnqueueOptions::new()).unwrap();
    drop(queue);
    // Nothing to wait for: the parent looks once this process has ended.
    std::thread::sleep(Duration::ZERO);
}
