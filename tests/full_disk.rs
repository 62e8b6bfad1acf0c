//! A full disk never wedges the queue: `raw.db` alone on a 2 MiB volume (a tmpfs the
//! test mounts, skipped with a message where the machine does not allow it) keeps
//! taking jobs through, reports a volume filled by something else as `Error::Full`,
//! and works again as soon as a little space is free. The same with `max_page_count`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, Queue, QueueOptions};
use tauri_plugin_jobs::Error;

/// A tmpfs of a given size, mounted for the test and unmounted after it.
struct Volume {
    dir: tempfile::TempDir,
}

impl Volume {
    fn mount(size: &str) -> Option<Volume> {
        let dir = tempfile::tempdir().ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        match mounted {
            Ok(output) if output.status.success() => Some(Volume { dir }),
            Ok(output) => {
                eprintln!(
                    "skipped: cannot mount a small tmpfs here ({})",
                    String::from_utf8_lossy(&output.stderr).trim()
                );
                None
            }
            Err(error) => {
                eprintln!("skipped: no mount command ({error})");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Volume {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Takes `n` jobs through the queue, one commit per step, as a runner would.
fn run_jobs(queue: &Queue, n: usize) -> Result<(), Error> {
    let request = ClaimRequest::new("w", ["work"]);
    for i in 0..n {
        queue.enqueue(
            "work",
            &json!({"n": i, "pad": "p".repeat(200)}),
            EnqueueOptions::new(),
        )?;
        for job in queue.claim(&request)? {
            queue.complete(&job.lease, Some(json!({"done": i})))?;
        }
    }
    Ok(())
}

/// Fills what is left of the volume with a file; returns it.
fn fill(volume: &Path) -> PathBuf {
    use std::io::Write;
    let filler = volume.join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 4096];
    while file.write_all(&block).is_ok() {}
    let _ = file.sync_all();
    filler
}

fn size_of(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

#[test]
fn raw_db_alone_on_a_two_mib_volume_keeps_taking_jobs_through() {
    // Before: about 80 jobs, then `Full` for good (the WAL took the whole volume).
    let Some(volume) = Volume::mount("2m") else {
        return;
    };
    let path = volume.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    // 10,000 jobs, the finished ones pruned every 2,000 as retention would.
    for round in 0..5 {
        run_jobs(&queue, 2_000).unwrap_or_else(|error| panic!("round {round}: {error}"));
        queue.prune(std::time::Duration::ZERO).unwrap();
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    assert!(
        size_of(Path::new(&wal)) < 1536 * 1024,
        "the WAL stays small: {} bytes",
        size_of(Path::new(&wal))
    );
}

#[test]
fn a_volume_filled_by_something_else_is_full_then_works_again_once_space_is_freed() {
    let Some(volume) = Volume::mount("2m") else {
        return;
    };
    let path = volume.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    run_jobs(&queue, 200).unwrap();
    let filler = fill(volume.path());
    let mut full = None;
    for _ in 0..2_000 {
        match run_jobs(&queue, 1) {
            Ok(()) => {}
            Err(error) => {
                full = Some(error);
                break;
            }
        }
    }
    let error = full.expect("a full volume shows");
    assert!(matches!(error, Error::Full { .. }), "{error:?}");
    // A little space comes back: the queue works at once, no restart needed.
    let free = size_of(&filler).saturating_sub(256 * 1024);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&filler)
        .unwrap()
        .set_len(free)
        .unwrap();
    run_jobs(&queue, 500).expect("works again with 256 KiB free");
    drop(queue);
    let reopened = Queue::open(&path, QueueOptions::new()).expect("and reopens");
    run_jobs(&reopened, 10).unwrap();
}

#[test]
fn a_page_cap_is_full_then_works_again_after_a_prune() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new().max_page_count(64)).unwrap();
    let mut outcome = Ok(());
    for _ in 0..10 {
        outcome = run_jobs(&queue, 500);
        if outcome.is_err() {
            break;
        }
    }
    let error = outcome.expect_err("64 pages fill up");
    assert!(matches!(error, Error::Full { .. }), "{error:?}");
    // Finished jobs make room once deleted.
    queue.prune(std::time::Duration::ZERO).unwrap();
    run_jobs(&queue, 100).expect("works again after a prune");
}
