//! Four real processes claiming 10,000 jobs from one `raw.db`: each job succeeds
//! exactly once, a per-kind cap is never exceeded at any sampled moment, and no call
//! fails with `SQLITE_BUSY` (the children unwrap every result). Bounded in time;
//! children are killed on the way out.

mod common;

use common::unfinished;

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::queue::{ClaimRequest, JobStatus, NewJob, Queue, QueueOptions};

const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_CHILD_DB";
const CHILD_NAME: &str = "TAURI_PLUGIN_JOBS_CHILD_NAME";
/// Set for children that claim like an agent that names no cap at all.
const CHILD_NO_CAP: &str = "TAURI_PLUGIN_JOBS_CHILD_NO_CAP";
const GPU_CAP: u32 = 2;

/// Kills the children if the test fails half-way.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn caps_and_exactly_once_hold_across_four_processes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let jobs =
        (0..5_000).flat_map(|i| [NewJob::new("gpu", json!(i)), NewJob::new("cpu", json!(i))]);
    queue.enqueue_batch(jobs).unwrap();
    let run = run_children(&path, &["a", "b", "c", "d"], false);
    assert!(
        run.max_gpu_running <= GPU_CAP,
        "saw {} gpu jobs running",
        run.max_gpu_running
    );
    assert_every_job_done_once(&queue, &path, run, 10_000);
}

#[test]
fn a_stored_cap_binds_agents_in_other_processes_that_name_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    // What the app's runner stores for a handler with `concurrency(1)`.
    queue.set_kind_limit("gpu", Some(1)).unwrap();
    let jobs =
        (0..1_000).flat_map(|i| [NewJob::new("gpu", json!(i)), NewJob::new("cpu", json!(i))]);
    queue.enqueue_batch(jobs).unwrap();
    let run = run_children(&path, &["agent-x", "agent-y"], true);
    assert!(
        run.max_gpu_running <= 1,
        "saw {} gpu jobs running",
        run.max_gpu_running
    );
    assert_every_job_done_once(&queue, &path, run, 2_000);
}

/// What the children did, and the most gpu jobs seen running at once.
struct Run {
    done: Vec<i64>,
    samples: u32,
    max_gpu_running: u32,
}

/// Runs a child worker per name on `path` until every job is done, sampling the
/// running gpu jobs meanwhile.
fn run_children(path: &std::path::Path, names: &[&str], no_cap: bool) -> Run {
    let exe = std::env::current_exe().unwrap();
    let mut children = Children(Vec::new());
    for name in names {
        let mut command = Command::new(&exe);
        command
            .args([
                "child_worker",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DB, path)
            .env(CHILD_NAME, name)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if no_cap {
            command.env(CHILD_NO_CAP, "1");
        }
        children.0.push(command.spawn().unwrap());
    }
    // Read the children's output while they run: a child that writes more than a
    // pipe holds (64 KiB, some 6,000 "done" lines) would otherwise block in println,
    // never exit, and keep the jobs it had claimed running.
    let readers: Vec<_> = children
        .0
        .iter_mut()
        .map(|child| {
            let stdout = child.stdout.take().unwrap();
            std::thread::spawn(move || {
                BufReader::new(stdout)
                    .lines()
                    .map(|line| line.unwrap())
                    .collect::<Vec<String>>()
            })
        })
        .collect();

    // Sample the running gpu jobs while the children work.
    let sampler = rusqlite::Connection::open(path).unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut samples = 0;
    let mut max_running = 0;
    while children
        .0
        .iter_mut()
        .any(|c| c.try_wait().unwrap().is_none())
    {
        assert!(Instant::now() < deadline, "children did not finish in time");
        let running: u32 = sampler
            .query_row(
                "SELECT count(*) FROM jobs WHERE kind = 'gpu' AND status = 'running'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        max_running = max_running.max(running);
        samples += 1;
    }

    let mut done = Vec::new();
    for child in &mut children.0 {
        assert!(child.wait().unwrap().success());
    }
    for reader in readers {
        for line in reader.join().unwrap() {
            // libtest may have written "test child_worker ... " in front of the first.
            if let Some((_, id)) = line.split_once("done ") {
                done.push(id.parse::<i64>().unwrap());
            }
        }
    }
    Run {
        done,
        samples,
        max_gpu_running: max_running,
    }
}

fn assert_every_job_done_once(queue: &Queue, path: &std::path::Path, run: Run, jobs: usize) {
    let Run { done, samples, .. } = run;
    let sampler = rusqlite::Connection::open(path).unwrap();
    let unique: HashSet<i64> = done.iter().copied().collect();
    assert_eq!(
        done.len(),
        jobs,
        "every job completed once ({samples} samples)"
    );
    assert_eq!(unique.len(), jobs, "no job completed twice");
    let counts = queue.counts().unwrap();
    assert!(
        counts.iter().all(|c| c.status == JobStatus::Succeeded),
        "{counts:?}"
    );
    let attempts: i64 = sampler
        .query_row("SELECT max(attempts) FROM jobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(attempts, 1);
}

/// The child side of the tests above; runs only when a parent starts it.
#[test]
#[ignore = "started by the multi-process tests above"]
fn child_worker() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let name = std::env::var(CHILD_NAME).unwrap();
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    let mut request = ClaimRequest::new(name.clone(), ["gpu", "cpu"])
        .max_jobs(3)
        .lease(Duration::from_secs(120));
    if std::env::var_os(CHILD_NO_CAP).is_none() {
        request = request.limit("gpu", GPU_CAP);
    }
    loop {
        let claimed = queue.claim(&request).unwrap();
        if claimed.is_empty() {
            let left = unfinished(&queue);
            if left == 0 {
                return;
            }
            std::thread::yield_now();
            continue;
        }
        for job in claimed {
            queue.complete(&job.lease, Some(json!(name))).unwrap();
            println!("done {}", job.job.id);
        }
    }
}
