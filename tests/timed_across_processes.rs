//! Timed work across processes: the runner's timed rounds are kept whatever else
//! touches `raw.db`.
//!
//! - A helper process claims a job and freezes (SIGSTOP: what a hung or suspended
//!   helper looks like). The app's own runner, idle in another process, polling once
//!   an hour, must notice the lease running out and run the job within about one
//!   lease plus one sweep interval (it wakes when the earliest lease runs out), and
//!   not before the lease ran out (a frozen holder is alive). When the frozen helper
//!   wakes, its late write is fenced out.
//! - The same while the file is noisy: another process opens it, reads a row and
//!   closes it every 10 ms (as root, each open changes the owner of the log, which a
//!   file watch reports), and the runner's own process writes through the runner's
//!   connection every 10 ms (as an app's sync state, schedules and progress do), a
//!   write no `data_version` shows. Wake-ups may bring a round earlier, never push
//!   the timed one later.
//! - A job another process delays by a second starts on time under the same noise.
//!
//! Real processes, bounded in time, cleaned up on the way out. A frozen helper is
//! SIGSTOP on Unix and a suspended process on Windows (`NtSuspendProcess`).

use std::io::BufRead;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tauri_plugin_jobs::clock::{Clock, SystemClock, Timestamp};
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, JobId, JobStatus, Queue, QueueOptions, LEASE_SWEEP_INTERVAL,
};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tokio::sync::Notify;

const CHILD_DB: &str = "TAURI_PLUGIN_JOBS_TIMED_DB";
const LEASE: Duration = Duration::from_millis(900);
/// Far longer than the test: only the runner's own timed rounds can start the jobs.
const POLL: Duration = Duration::from_secs(3600);
/// How often the noise touches the file, from each side.
const NOISE_EVERY: Duration = Duration::from_millis(10);
/// How long the noise goes on at most: far past every bound below.
const NOISE_FOR: Duration = Duration::from_secs(20);

/// A child process, woken, killed and reaped however the test ends.
struct Reaper(Child);

impl Drop for Reaper {
    fn drop(&mut self) {
        freeze(&self.0, false);
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Freezes (`true`) or thaws the child as a hung or suspended process is: SIGSTOP and
/// SIGCONT. Returns whether the system did it.
#[cfg(unix)]
fn freeze(child: &Child, frozen: bool) -> bool {
    let signal = if frozen { libc::SIGSTOP } else { libc::SIGCONT };
    // SAFETY: signalling a child this test started and still owns.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) == 0 }
}

/// Windows: the whole process suspended and resumed (ntdll's `NtSuspendProcess`, what
/// Process Explorer's Suspend does).
#[cfg(windows)]
fn freeze(child: &Child, frozen: bool) -> bool {
    use std::os::windows::io::AsRawHandle;
    #[link(name = "ntdll")]
    extern "system" {
        fn NtSuspendProcess(process: *mut std::ffi::c_void) -> i32;
        fn NtResumeProcess(process: *mut std::ffi::c_void) -> i32;
    }
    let handle = child.as_raw_handle();
    // SAFETY: the handle is the child's, open with all access, while `child` lives.
    let status = unsafe {
        if frozen {
            NtSuspendProcess(handle)
        } else {
            NtResumeProcess(handle)
        }
    };
    status >= 0
}

/// Runs one of the ignored tests below in a child process (this test binary again).
fn child(name: &str, path: &std::path::Path) -> (Reaper, ChildStdout) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--nocapture"])
        .env(CHILD_DB, path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    (Reaper(child), stdout)
}

/// The first line the child prints that starts with `prefix`, without it. The rest
/// of what it prints is read too, so that the child never writes into a closed pipe.
async fn line_from(stdout: ChildStdout, prefix: &'static str) -> String {
    let (found, line) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let mut found = Some(found);
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(rest) = line.strip_prefix(prefix) {
                if let Some(found) = found.take() {
                    let _ = found.send(rest.to_owned());
                }
            }
        }
    });
    tokio::time::timeout(Duration::from_secs(30), line)
        .await
        .expect("the child answered in time")
        .expect("the child said what it did")
}

/// What keeps touching the file while a test runs; stops when dropped.
struct Noise {
    stop: Arc<AtomicBool>,
    writes: Option<std::thread::JoinHandle<u32>>,
    _reader: Reaper,
}

impl Noise {
    /// Another process reading the file, and this process writing through `queue`'s
    /// connection (a kind's setting no claim depends on), each every 10 ms.
    async fn start(queue: &Queue) -> Noise {
        let (reader, stdout) = child("noise_reader", &queue.path());
        line_from(stdout, "reading").await;
        let stop = Arc::new(AtomicBool::new(false));
        let writes = std::thread::spawn({
            let (stop, queue) = (stop.clone(), queue.clone());
            move || {
                let until = Instant::now() + NOISE_FOR;
                let mut writes = 0;
                while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                    let expiries = 2 + writes % 2;
                    queue
                        .set_kind_max_lease_expiries("noise", Some(expiries))
                        .unwrap();
                    writes += 1;
                    std::thread::sleep(NOISE_EVERY);
                }
                writes
            }
        });
        Noise {
            stop,
            writes: Some(writes),
            _reader: reader,
        }
    }

    /// Stops it; how many writes this process made meanwhile.
    fn stop(mut self) -> u32 {
        self.stop.store(true, Ordering::Relaxed);
        self.writes.take().unwrap().join().unwrap()
    }
}

impl Drop for Noise {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A handler of `kind` that says when it started, on the wall clock.
fn recording(kind: &str) -> (Handler, Arc<Notify>, Arc<Mutex<Option<Timestamp>>>) {
    let (ran, at) = (Arc::new(Notify::new()), Arc::new(Mutex::new(None)));
    let handler = Handler::new(kind, {
        let (ran, at) = (ran.clone(), at.clone());
        move |_: serde_json::Value, _ctx: JobContext| {
            let (ran, at) = (ran.clone(), at.clone());
            async move {
                *at.lock().unwrap() = Some(SystemClock.now());
                ran.notify_one();
                Ok(())
            }
        }
    });
    (handler, ran, at)
}

/// A job claimed by a helper that is then frozen: the app's runner, idle in this
/// process (with `noise` or without), runs it again within about a lease plus a
/// sweep interval of the claim.
async fn frozen_holders_job_runs_again(noisy: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let id = queue
        .enqueue("helped", &1, EnqueueOptions::new().max_attempts(1))
        .unwrap()
        .id;

    // The helper claims it, says so on stdout, then waits to be frozen.
    let (helper, stdout) = child("frozen_helper", &path);
    line_from(stdout, "claimed").await;
    let claimed_at = Instant::now();
    assert!(freeze(&helper.0, true), "the helper was frozen");
    let held = queue.get(id).unwrap().unwrap();
    assert_eq!(held.status, JobStatus::Running);
    let lease_ends = held.lease_expires_at.expect("a lease");

    // The app's runner, idle: no job it could claim, nothing else written to the
    // file, or only the noise.
    let noise = if noisy {
        Some(Noise::start(&queue).await)
    } else {
        None
    };
    let (handler, ran, started_at) = recording("helped");
    let settings = RunnerSettings::for_tests().poll_interval(POLL);
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    runner.start();
    let bound = LEASE + LEASE_SWEEP_INTERVAL + Duration::from_millis(1500);
    let ran_in_time = tokio::time::timeout(bound, ran.notified()).await.is_ok();
    let took = claimed_at.elapsed();
    let writes = noise.map(Noise::stop);
    eprintln!(
        "reclaimed and run {took:?} after the frozen helper's claim (lease {LEASE:?}; \
         noise: {writes:?} writes of this process)"
    );
    assert!(
        ran_in_time,
        "not run again within {bound:?}: about a lease and a sweep interval is the promise"
    );
    // Frozen is not gone: the helper is alive, and keeps its lease to the end (both
    // times on the wall clock the lease was written on).
    let started = started_at.lock().unwrap().expect("the handler ran");
    assert!(
        started >= lease_ends,
        "run again at {started}, before the lease ran out at {lease_ends}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while queue.get(id).unwrap().unwrap().status != JobStatus::Succeeded {
        assert!(Instant::now() < deadline, "the run was not recorded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    runner.stop(Duration::from_secs(1)).await.unwrap();
    drop(helper);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_runner_reclaims_the_job_of_a_frozen_helper() {
    frozen_holders_job_runs_again(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_noisy_file_does_not_hold_back_the_reclaim_of_a_frozen_helpers_job() {
    frozen_holders_job_runs_again(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_another_process_delays_starts_on_time_in_a_noisy_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let (handler, ran, started_at) = recording("later");
    let settings = RunnerSettings::for_tests().poll_interval(POLL);
    let runner = Runner::new(queue.clone(), vec![handler], settings).unwrap();
    runner.start();
    let noise = Noise::start(&queue).await;

    let (enqueuer, stdout) = child("delayed_enqueuer", &path);
    let id: i64 = line_from(stdout, "enqueued ").await.parse().unwrap();
    let bound = Duration::from_secs(5);
    let ran_in_time = tokio::time::timeout(bound, ran.notified()).await.is_ok();
    let writes = noise.stop();
    assert!(
        ran_in_time,
        "the delayed job did not start within {bound:?}"
    );
    let job = queue.get(JobId::from_raw(id)).unwrap().unwrap();
    let started = started_at.lock().unwrap().expect("the handler ran");
    let late = started.duration_since(job.run_at);
    eprintln!("started {late:?} after its run time ({writes} writes of this process meanwhile)");
    assert!(started >= job.run_at, "started before its run time");
    assert!(
        late < Duration::from_millis(500),
        "started {late:?} after its run time"
    );
    runner.stop(Duration::from_secs(1)).await.unwrap();
    drop(enqueuer);
}

/// The helper: claims the job with a short lease and never renews it.
#[test]
#[ignore = "started by the tests above"]
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

/// The noise from outside: opens the file, reads one row, closes it, every 10 ms.
#[test]
#[ignore = "started by the tests above"]
fn noise_reader() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    println!("reading");
    let until = Instant::now() + NOISE_FOR;
    while Instant::now() < until {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let _: Option<i64> = conn
            .query_row("SELECT id FROM jobs LIMIT 1", [], |row| row.get(0))
            .unwrap_or(None);
        drop(conn);
        std::thread::sleep(NOISE_EVERY);
    }
}

/// Enqueues a job due in a second, and says which.
#[test]
#[ignore = "started by the tests above"]
fn delayed_enqueuer() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let later = EnqueueOptions::new().delay(Duration::from_secs(1));
    let id = queue.enqueue("later", &0, later).unwrap().id;
    println!("enqueued {}", id.raw());
}
