//! Figures that need a process of their own: enqueue-to-start latency from another
//! process, idle CPU and thread wake-ups in ten idle states (an empty queue, a backlog
//! behind a full cap, a paused kind, a spent rate limit, a kind or jobs that need a
//! charger on battery, a job waiting for 10,000 paused pieces, jobs waiting out a
//! backoff, a locked file, throttled sync targets), and resident memory against the number of queued jobs. The
//! suite runs its own binary again with `--child <role> ...` for each.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;
use tauri_plugin_jobs::queue::{EnqueueOptions, Queue};
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError, Runner, RunnerSettings};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};

use crate::report::{count, env_usize, ms, percentile, Report};

fn unix_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// Starts this binary again as a child with `args`; [`finish`] bounds and reads it.
/// Children print a line or two, far less than a pipe holds.
fn child(args: &[&str]) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .arg("--child")
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the child process")
}

/// Waits for `process` at most `limit`, killing it past that; returns its stdout.
fn finish(mut process: std::process::Child, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        if process.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = process.kill();
            let _ = process.wait();
            panic!("a child process ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = process.wait_with_output().unwrap();
    assert!(output.status.success(), "child failed: {:?}", output.status);
    String::from_utf8(output.stdout).unwrap()
}

/// The number after `key` on the child's output.
fn field(output: &str, key: &str) -> f64 {
    output
        .lines()
        .find_map(|line| line.strip_prefix(key)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{key} missing from the child's output: {output}"))
}

pub async fn measure(report: &mut Report) {
    let name =
        "runner: enqueue-to-start latency, idle runner, job from another process, p50 / p99 (ms)";
    if report.wants(name) {
        let samples = env_usize("BENCH_CROSS_SAMPLES", 40);
        let mut latencies = cross_process_latency(samples).await;
        let p50 = percentile(&mut latencies, 0.5);
        let p99 = percentile(&mut latencies, 0.99);
        // The runner watches the file's write-ahead log: the poll is only a safety net.
        report.checked(
            name,
            format!("{:.1} / {:.1}", ms(p50), ms(p99)),
            String::new(),
            "p50 < 5, p99 < 50 (the poll interval is 1,000)",
            p50 < Duration::from_millis(5) && p99 < Duration::from_millis(50),
        );
    }

    let name = "runner: a signal from another process to a waiting job, send-to-run latency, p50 / p99 (ms)";
    if report.wants(name) {
        let samples = env_usize("BENCH_CROSS_SAMPLES", 40);
        let mut latencies = signal_latency(samples).await;
        let p50 = percentile(&mut latencies, 0.5);
        let p99 = percentile(&mut latencies, 0.99);
        report.checked(
            name,
            format!("{:.1} / {:.1}", ms(p50), ms(p99)),
            String::new(),
            "p50 < 5, p99 < 100 (the poll interval is 1,000)",
            p50 < Duration::from_millis(5) && p99 < Duration::from_millis(100),
        );
    }

    let secs = env_usize("BENCH_IDLE_SECS", 60);
    let states = [
        ("empty", "idle: runner + scheduler started, nothing to do"),
        (
            "capped",
            "idle: 10,000 queued behind a cap of 1, the one slot busy",
        ),
        ("paused", "idle: 10,000 queued of a paused kind"),
        (
            "ratelimited",
            "idle: 10,000 queued of a kind at its rate limit (1 an hour)",
        ),
        (
            "onbattery",
            "idle: 10,000 queued of a kind that needs a charger, on battery",
        ),
        (
            "jobsonbattery",
            "idle: 10,000 queued that each need a charger, on battery",
        ),
        (
            "fanin",
            "idle: a job waiting for 10,000 pieces of a paused kind",
        ),
        ("backoff", "idle: 1,000 jobs waiting out a backoff"),
        (
            "locked",
            "idle: a job queued, the file locked by another program",
        ),
        (
            "throttled",
            "idle: sync targets all throttled by their server",
        ),
        (
            "offline",
            "idle: 10,000 queued of a kind waiting for the network (a probe every 15 s)",
        ),
        (
            "kindthrottled",
            "idle: 10,000 queued of a kind the service throttled for an hour",
        ),
        (
            "sleeping",
            "idle: 10,000 jobs in a durable sleep of a day (ctx.sleep)",
        ),
        (
            "awaiting",
            "idle: 10,000 jobs waiting a day for a signal (ctx.wait_for_signal)",
        ),
    ];
    let wanted: Vec<_> = states
        .iter()
        .filter(|(_, name)| report.wants(name))
        .collect();
    // Each state in a process of its own, all at once: CPU time is per process, and
    // idle processes barely compete.
    let children: Vec<_> = wanted
        .iter()
        .map(|(state, _)| child(&["idle", state, &secs.to_string()]))
        .collect();
    for ((_, name), process) in wanted.into_iter().zip(children) {
        let output = finish(process, Duration::from_secs(secs as u64 + 120));
        let per_minute = field(&output, "CPU_MS") * 60.0 / secs as f64;
        let wakes = field(&output, "WAKEUPS") * 60.0 / secs as f64;
        report.checked(
            &format!("{name}, CPU per minute (ms)"),
            format!("{per_minute:.1} ({:.3}% of a core)", per_minute / 600.0),
            String::new(),
            "< 0.1% of a core (60 ms)",
            per_minute < 60.0,
        );
        report.info(
            &format!("{name}, thread wake-ups per minute"),
            format!("{wakes:.0}"),
        );
    }

    let name = "memory: RSS with queued jobs, runner started (MiB)";
    if report.wants(name) {
        let mut figures = Vec::new();
        for queued in [0usize, 1_000, 100_000, 1_000_000] {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("raw.db");
            fill_queued(&db, queued);
            let output = finish(
                child(&["memory", db.to_str().unwrap(), &queued.to_string()]),
                Duration::from_secs(120),
            );
            let rss = field(&output, "RSS_KB") / 1024.0;
            let added = rss - field(&output, "BASE_KB") / 1024.0;
            figures.push((queued, rss));
            let jobs = match queued {
                0 => "idle, no jobs".to_owned(),
                n => format!("{} jobs queued", count(n as f64)),
            };
            if queued != 1_000 {
                // What the queue and the runner add to the process that opens them
                // (the same process read just before): the plugin's goal, in an app.
                report.checked(
                    &format!("memory: what the queue and runner add to the RSS, {jobs} (MiB)"),
                    format!("{added:.1}"),
                    String::new(),
                    "< 10 MiB",
                    added < 10.0,
                );
            }
            if queued != 0 {
                report.info(
                    &format!("memory: RSS, runner started, {jobs} (MiB)"),
                    format!("{rss:.1}"),
                );
            }
        }
        // What grows with the file is SQLite's page cache, capped at 8 MiB for the
        // writer and 4 for reads (store::Store::open, open_reader); anything held per
        // queued job would add tens of MiB for 900,000 more.
        let at = |queued: usize| figures.iter().find(|(n, _)| *n == queued).unwrap().1;
        let growth = at(1_000_000) - at(100_000);
        report.checked(
            "memory: RSS growth from 100,000 to 1,000,000 queued jobs (MiB)",
            format!("{growth:+.1}"),
            String::new(),
            "flat: < the 8 MiB page cache cap",
            growth < 8.0,
        );
    }
}

/// Writes `n` queued no-op jobs straight into a new `raw.db`.
fn fill_queued(db: &Path, n: usize) {
    drop(Queue::open(db, crate::queue::options()).unwrap());
    if n == 0 {
        return;
    }
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(&format!(
        "BEGIN;
         WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < {n})
         INSERT INTO jobs (kind, payload, status, priority, run_at, attempts, max_attempts,
                           actor, created_at, updated_at)
         SELECT 'noop', '{{\"n\":' || i || '}}', 'queued', 50, i, 0, 5, 'system', i, i FROM seq;
         COMMIT;"
    ))
    .unwrap();
}

async fn cross_process_latency(samples: usize) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("raw.db");
    let queue = Queue::open(&db, crate::queue::options()).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = Handler::new(
        "timed",
        move |payload: serde_json::Value, _ctx: JobContext| {
            let now = unix_nanos();
            let sent = payload["sent_unix_ns"]
                .as_str()
                .unwrap()
                .parse::<u128>()
                .unwrap();
            record
                .lock()
                .unwrap()
                .push(Duration::from_nanos(now.saturating_sub(sent) as u64));
            async move { Ok(()) }
        },
    );
    let runner = Runner::new(queue, vec![handler], RunnerSettings::default()).unwrap();
    runner.start();
    let process = child(&["enqueue-timed", db.to_str().unwrap(), &samples.to_string()]);
    let limit = Duration::from_secs(samples as u64 * 2 + 30);
    tokio::task::spawn_blocking(move || finish(process, limit))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.lock().unwrap().len() < samples {
        assert!(Instant::now() < deadline, "every timed job ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    runner.stop(Duration::from_secs(5)).await.unwrap();
    let out = seen.lock().unwrap().clone();
    out
}

// ===== child roles =====

/// Runs the role named by the arguments after `--child`.
pub fn run_child(args: &[String]) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    match args.first().map(String::as_str) {
        Some("enqueue-timed") => enqueue_timed(Path::new(&args[1]), args[2].parse().unwrap()),
        Some("signal-timed") => signal_timed(Path::new(&args[1]), args[2].parse().unwrap()),
        Some("idle") => runtime.block_on(idle(&args[1], args[2].parse().unwrap())),
        Some("memory") => runtime.block_on(memory(Path::new(&args[1]), args[2].parse().unwrap())),
        other => panic!("unknown child role {other:?}"),
    }
}

/// Enqueues `n` jobs at random moments, each carrying the wall-clock time it was sent.
fn enqueue_timed(db: &Path, n: usize) {
    let queue = Queue::open(db, crate::queue::options()).unwrap();
    for _ in 0..n {
        std::thread::sleep(Duration::from_millis(rand::random_range(50..1250)));
        queue
            .enqueue(
                "timed",
                &json!({ "sent_unix_ns": unix_nanos().to_string() }),
                EnqueueOptions::new(),
            )
            .unwrap();
    }
}

/// Sends "go" to jobs 1 to `n` at random moments, each carrying the wall-clock time it
/// was sent.
fn signal_timed(db: &Path, n: usize) {
    let queue = Queue::open(db, crate::queue::options()).unwrap();
    for id in 1..=n {
        std::thread::sleep(Duration::from_millis(rand::random_range(50..1250)));
        let payload = json!({ "sent_unix_ns": unix_nanos().to_string() });
        queue.signal((id as i64).into(), "go", &payload).unwrap();
    }
}

/// `samples` jobs waiting for a signal, each sent by another process: from the send
/// to the handler's return past the wait.
async fn signal_latency(samples: usize) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("raw.db");
    let queue = Queue::open(&db, crate::queue::options()).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let handler = Handler::new("awaits", move |_: serde_json::Value, ctx: JobContext| {
        let record = record.clone();
        async move {
            let sent: Option<serde_json::Value> = ctx
                .wait_for_signal("go", Duration::from_secs(86_400))
                .await?;
            let now = unix_nanos();
            let sent = sent.unwrap_or_default()["sent_unix_ns"]
                .as_str()
                .unwrap_or("0")
                .parse::<u128>()
                .unwrap_or(now);
            record
                .lock()
                .unwrap()
                .push(Duration::from_nanos(now.saturating_sub(sent) as u64));
            Ok(())
        }
    });
    for _ in 0..samples {
        queue
            .enqueue("awaits", &json!({}), EnqueueOptions::new())
            .unwrap();
    }
    let runner = Runner::new(queue.clone(), vec![handler], RunnerSettings::default()).unwrap();
    runner.start();
    // Every job waits before the first signal is sent.
    let deadline = Instant::now() + Duration::from_secs(30);
    while queue
        .list(&tauri_plugin_jobs::queue::JobFilter::new())
        .unwrap()
        .iter()
        .any(|job| job.awaits_signal.is_none())
    {
        assert!(Instant::now() < deadline, "every job began to wait");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let process = child(&["signal-timed", db.to_str().unwrap(), &samples.to_string()]);
    let limit = Duration::from_secs(samples as u64 * 2 + 30);
    tokio::task::spawn_blocking(move || finish(process, limit))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.lock().unwrap().len() < samples {
        assert!(Instant::now() < deadline, "every signalled job ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    runner.stop(Duration::from_secs(5)).await.unwrap();
    let out = seen.lock().unwrap().clone();
    out
}

/// CPU time of the whole process. (The suite runs on Linux; Windows builds it, with
/// this from `GetProcessTimes`, so that clippy sees every target there.)
#[cfg(windows)]
fn cpu_time() -> Duration {
    #[repr(C)]
    #[derive(Default, Clone, Copy)]
    struct FileTime {
        low: u32,
        high: u32,
    }
    #[link(name = "kernel32")]
    extern "system" {
        fn GetCurrentProcess() -> *mut std::ffi::c_void;
        fn GetProcessTimes(
            process: *mut std::ffi::c_void,
            creation: *mut FileTime,
            exit: *mut FileTime,
            kernel: *mut FileTime,
            user: *mut FileTime,
        ) -> i32;
    }
    let mut times = [FileTime::default(); 4];
    let [creation, exit, kernel, user] = &mut times;
    // SAFETY: the current process's pseudo-handle; each pointer is to a FILETIME.
    unsafe { GetProcessTimes(GetCurrentProcess(), creation, exit, kernel, user) };
    let ticks = |t: &FileTime| u64::from(t.high) << 32 | u64::from(t.low);
    Duration::from_nanos((ticks(kernel) + ticks(user)) * 100)
}

/// CPU time of the whole process.
#[cfg(unix)]
fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let cpu = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    cpu(usage.ru_utime) + cpu(usage.ru_stime)
}

/// How many times this process's threads were scheduled in so far (context switches,
/// voluntary and not, summed over `/proc/self/task/*/status`).
fn wakeups() -> u64 {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        for line in status.lines() {
            if let Some(value) = line
                .strip_prefix("voluntary_ctxt_switches:")
                .or_else(|| line.strip_prefix("nonvoluntary_ctxt_switches:"))
            {
                total += value.trim().parse::<u64>().unwrap_or(0);
            }
        }
    }
    total
}

fn hold_forever(kind: &str) -> Handler {
    Handler::new(kind, |_: serde_json::Value, _ctx: JobContext| async move {
        std::future::pending::<()>().await;
        Ok(())
    })
}

fn noop(kind: &str) -> Handler {
    Handler::new(kind, |_: serde_json::Value, _ctx: JobContext| async move {
        Ok(())
    })
}

/// The backend in one of the idle `state`s: CPU and thread wake-ups over `secs`.
async fn idle(state: &str, secs: u64) {
    use tauri_plugin_jobs::queue::NewJob;
    use tauri_plugin_jobs::sync::{
        SyncContext, SyncEngine, SyncError, SyncPolicy, SyncResult, SyncSource, SyncTarget,
        SyncThrottle,
    };

    struct Throttled;
    impl SyncSource for Throttled {
        async fn sync(&self, _: &SyncContext) -> Result<SyncResult, SyncError> {
            Ok(SyncResult::Throttled(SyncThrottle::server_interval(
                Duration::from_secs(3600),
            )))
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    // On battery, for the constrained states; nothing else has constraints.
    let conditions = tauri_plugin_jobs::conditions::FakeConditions::new();
    conditions.set_on_ac_power(Some(false));
    let queue = Queue::open(&path, crate::queue::options().conditions(conditions)).unwrap();
    let many = |kind: &str, n: usize, options: EnqueueOptions| {
        queue
            .enqueue_batch((0..n).map(|i| NewJob::new(kind, json!(i)).options(options.clone())))
            .unwrap();
    };
    let mut runner = None;
    let mut scheduler = None;
    let mut engine = None;
    let mut lock = None;
    match state {
        "empty" => {
            let schedules = Scheduler::new(queue.clone());
            schedules
                .upsert(ScheduleSpec::every(
                    "hourly",
                    "noop",
                    Duration::from_secs(3600),
                ))
                .unwrap();
            scheduler = Some(schedules);
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop")],
                RunnerSettings::default(),
            ));
        }
        "capped" => {
            let handler = hold_forever("gpu").concurrency(1);
            runner = Some(Runner::new(
                queue.clone(),
                vec![handler],
                RunnerSettings::default(),
            ));
            many("gpu", 10_000, EnqueueOptions::new());
        }
        "paused" => {
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop")],
                RunnerSettings::default(),
            ));
            queue.pause_kind("noop").unwrap();
            many("noop", 10_000, EnqueueOptions::new());
        }
        "ratelimited" => {
            let hour = Duration::from_secs(3600);
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop").rate_limit(1, hour)],
                RunnerSettings::default(),
            ));
            // The hour's one start is spent at once; the rest wait for the next.
            many("noop", 10_000, EnqueueOptions::new());
        }
        "onbattery" => {
            let charger = tauri_plugin_jobs::queue::Constraints::none().ac_power();
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop").constraints(charger)],
                RunnerSettings::default(),
            ));
            many("noop", 10_000, EnqueueOptions::new());
        }
        "jobsonbattery" => {
            let charger = tauri_plugin_jobs::queue::Constraints::none().ac_power();
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop")],
                RunnerSettings::default(),
            ));
            many("noop", 10_000, EnqueueOptions::new().constraints(charger));
        }
        "fanin" => {
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop"), noop("last")],
                RunnerSettings::default(),
            ));
            queue.pause_kind("noop").unwrap();
            let pieces: Vec<_> = queue
                .enqueue_batch((0..10_000).map(|i| NewJob::new("noop", json!(i))))
                .unwrap()
                .into_iter()
                .map(|enqueued| enqueued.id)
                .collect();
            queue
                .enqueue("last", &json!({}), EnqueueOptions::new().after(pieces))
                .unwrap();
        }
        "backoff" => {
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop")],
                RunnerSettings::default(),
            ));
            many(
                "noop",
                1_000,
                EnqueueOptions::new().delay(Duration::from_secs(3600)),
            );
        }
        "locked" => {
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop")],
                RunnerSettings::default(),
            ));
            many("noop", 1, EnqueueOptions::new());
            let other = rusqlite::Connection::open(&path).unwrap();
            other.execute_batch("BEGIN IMMEDIATE").unwrap();
            lock = Some(other);
        }
        "throttled" => {
            let sync = SyncEngine::new(queue.clone());
            for name in ["a", "b", "c", "d", "e"] {
                sync.register(
                    SyncTarget::new("api", "me", name),
                    SyncPolicy::every(Duration::from_secs(60)),
                    Arc::new(Throttled),
                )
                .unwrap();
            }
            engine = Some(sync);
        }
        "offline" => {
            // Every attempt finds the network gone: the kind waits, and tries one
            // job every offline_retry.
            let offline = Handler::new("noop", |_: serde_json::Value, _ctx: JobContext| async {
                Err::<(), _>(JobError::offline("no route to host"))
            });
            runner = Some(Runner::new(
                queue.clone(),
                vec![offline],
                RunnerSettings::default(),
            ));
            many("noop", 10_000, EnqueueOptions::new());
        }
        "kindthrottled" => {
            runner = Some(Runner::new(
                queue.clone(),
                vec![noop("noop")],
                RunnerSettings::default(),
            ));
            queue
                .throttle_kind("noop", Duration::from_secs(3600), "HTTP 429")
                .unwrap();
            many("noop", 10_000, EnqueueOptions::new());
        }
        "sleeping" => {
            // Each job's first attempt begins a day's durable sleep (a step recorded,
            // the attempt deferred): the first rounds below run all 10,000 of them.
            let sleeper =
                Handler::new("noop", |_: serde_json::Value, ctx: JobContext| async move {
                    ctx.sleep("a-day", Duration::from_secs(86_400)).await?;
                    Ok(())
                });
            runner = Some(Runner::new(
                queue.clone(),
                vec![sleeper],
                RunnerSettings::default(),
            ));
            many("noop", 10_000, EnqueueOptions::new());
        }
        "awaiting" => {
            let waiter = Handler::new("noop", |_: serde_json::Value, ctx: JobContext| async move {
                let _: Option<serde_json::Value> = ctx
                    .wait_for_signal("go", Duration::from_secs(86_400))
                    .await?;
                Ok(())
            });
            runner = Some(Runner::new(
                queue.clone(),
                vec![waiter],
                RunnerSettings::default(),
            ));
            many("noop", 10_000, EnqueueOptions::new());
        }
        other => panic!("unknown idle state {other:?}"),
    }
    let runner = runner.map(|made| made.unwrap());
    if let Some(runner) = &runner {
        runner.start();
    }
    if let Some(scheduler) = &scheduler {
        scheduler.start();
    }
    if let Some(engine) = &engine {
        engine.start();
    }
    // The first rounds (the schedule's first run, the first syncs) settle.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (cpu_before, wakes_before) = (cpu_time(), wakeups());
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let (cpu_after, wakes_after) = (cpu_time(), wakeups());
    println!("CPU_MS {}", (cpu_after - cpu_before).as_secs_f64() * 1e3);
    println!("WAKEUPS {}", wakes_after.saturating_sub(wakes_before));
    drop(lock);
    // Held jobs are simply left running; the file is a temporary one.
    std::process::exit(0);
}

/// A started runner over a file full of queued jobs, its four slots held by handlers
/// that never return, the UI's counts and first page read: resident memory.
async fn memory(db: &Path, queued: usize) {
    // The process before the queue opens: the suite's binary with its runtime, what
    // an app is before it adds the plugin.
    println!("BASE_KB {}", rss_kb());
    let queue = Queue::open(db, crate::queue::options()).unwrap();
    let runner = Runner::new(
        queue.clone(),
        vec![hold_forever("noop")],
        RunnerSettings::default(),
    )
    .unwrap();
    runner.start();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let reader = queue.clone();
    tokio::task::spawn_blocking(move || {
        reader.counts().unwrap();
        reader
            .list(&tauri_plugin_jobs::queue::JobFilter::default())
            .unwrap();
    })
    .await
    .unwrap();
    assert_eq!(runner.running(), queued.min(4), "every slot holds a job");
    println!("RSS_KB {}", rss_kb());
    // The held jobs are simply left running; the file is a temporary one.
    std::process::exit(0);
}

/// This process's resident set, in KiB.
fn rss_kb() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .unwrap()
        .trim()
        .trim_end_matches(" kB")
        .to_owned()
}
