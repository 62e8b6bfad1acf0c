//! A helper process claims a job and freezes (SIGSTOP: what a hung or suspended
//! helper looks like). The app's own runner, idle in another process, with nothing
//! else happening in the file and a poll interval of an hour, must notice the lease
//! running out and run the job within about one lease plus one sweep interval (it
//! wakes when the earliest lease runs out). When the frozen helper wakes, its
//! late write is fenced out. Real processes, bounded in time, cleaned up on the way
//! out; Unix only (SIGSTOP).

#![cfg(unix)]

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobStatus, Queue, QueueOptions, LEASE_SWEEP_INTERVAL,
};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tokio::sync::Notify;

const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_FROZEN_DB";
const LEASE: Duration = Duration::from_millis(900);
/// Far longer than the test: only the wake at the lease's end can start the job.
const POLL: Duration = Duration::from_secs(3600);

struct Reaper(Child);

impl Drop for Reaper {
    fn drop(&mut self) {
        let pid = self.0.id() as libc::pid_t;
        // SAFETY: signalling a child this test started and still owns.
        unsafe {
            libc::kill(pid, libc::SIGCONT);
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_runner_reclaims_the_job_of_a_frozen_helper() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let id = queue
        .enqueue("helped", &1, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;

    // The helper claims it, says so on stdout, then waits to be frozen.
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "frozen_helper", "--ignored", "--nocapture"])
        .env(CHILD_DB, &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let helper = Reaper(child);
    let claimed = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line == "claimed")
    });
    assert!(
        tokio::time::timeout(Duration::from_secs(30), claimed)
            .await
            .expect("the helper claimed in time")
            .unwrap(),
        "the helper claimed the job"
    );
    let claimed_at = Instant::now();
    // SAFETY: signalling the child this test started.
    assert_eq!(
        unsafe { libc::kill(helper.0.id() as libc::pid_t, libc::SIGSTOP) },
        0
    );
    assert_eq!(queue.get(id).unwrap().unwrap().status, JobStatus::Running);

    // The app's runner, idle: no job it could claim, nothing written to the file.
    let ran = Arc::new(Notify::new());
    let handler = Handler::new("helped", {
        let ran = ran.clone();
        move |_: serde_json::Value, _ctx: JobContext| {
            let ran = ran.clone();
            async move {
                ran.notify_one();
                Ok(())
            }
        }
    });
    let settings = RunnerSettings::for_tests().poll_interval(POLL);
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    runner.start();
    tokio::time::timeout(Duration::from_secs(30), ran.notified())
        .await
        .expect("the job ran again in another process");
    let took = claimed_at.elapsed();
    eprintln!("reclaimed and run {took:?} after the frozen helper's claim (lease {LEASE:?})");
    assert!(
        took < LEASE + LEASE_SWEEP_INTERVAL + Duration::from_secs(2),
        "took {took:?}, about a lease and a sweep interval is the promise"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while queue.get(id).unwrap().unwrap().status != JobStatus::Succeeded {
        assert!(Instant::now() < deadline, "the run was not recorded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    runner.stop(Duration::from_secs(1)).await.unwrap();
    drop(helper);
}

/// The helper: claims the job with a short lease and never renews it.
#[test]
#[ignore = "started by an_idle_runner_reclaims_the_job_of_a_frozen_helper"]
fn frozen_helper() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let claimed = queue
        .claim(&ClaimRequest::new("helper", ["helped"]).lease(LEASE))
        .unwrap();
    assert_eq!(claimed.len(), 1);
    println!("claimed");
    std::thread::sleep(Duration::from_secs(60));
    // Woken late: the lease is gone, and so is the right to write.
    assert!(queue.complete(&claimed[0].lease, None).is_err());
}
