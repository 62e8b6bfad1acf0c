//! Side-by-side benchmark of a published SQLite-backed Rust job queue, `effectum`.
//!
//! Driven by the tauri-plugin-jobs benchmark suite as a subprocess:
//!
//! ```text
//! bench-compare [--jobs N] [--small N] [--repeat R] [--timeout-secs S] [--wal-preset] [--tune]
//! ```
//!
//! Result rows go to stdout, one per line, as `ROW\t<scenario>\t<value>`; everything
//! else (progress, notes) goes to stderr. Rates are the median of R runs, each run on a
//! fresh temporary database.
//!
//! The command line, the bounded waits and the figures are shared with the other
//! comparison binaries (`../harness.rs`).
//!
//! * `--small N` (default 2000): the second size, to show how the cost grows with the
//!   table (`--jobs` is the first).
//! * `--timeout-secs S` (default 120): the longest any single library call may take,
//!   and the longest a wait for jobs to finish may go without one job running, before
//!   the binary gives up with a message on stderr (exit code 1). A watchdog thread
//!   exits with code 2 should a runtime stop making progress altogether.
//! * `--wal-preset`: also print extra rows measured on a database file that we switch
//!   to WAL before effectum opens it (effectum itself never enables WAL, see
//!   `JOURNAL_NOTE`).
//! * `--tune`: instead of the rows, sweep worker settings for the end-to-end scenario
//!   and print each result on stderr; used to pick `best_settings()`.

#[path = "../harness.rs"]
mod harness;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::{
    bounded, median_of, ms, percentile, rate, row, since_start_ms, wait_limit, Args, BoxError, Res,
    WAIT_STARTED_MS,
};

use effectum::{Job, JobRunner, Queue, RunningJob, Worker};
use serde_json::json;
use tokio::sync::mpsc;

/// Printed in the `library` row; Cargo.toml pins this exact version.
const LIB_NAME: &str = "effectum";
const LIB_VERSION: &str = "0.7.0";

const JOB_TYPE: &str = "noop";
/// Jobs per `add_jobs` call, the same batch size as our own queue benchmark.
const ENQUEUE_BATCH: usize = 1000;
const LATENCY_SAMPLES: usize = 200;
/// How often completion is polled while waiting for jobs to finish.
const POLL: Duration = Duration::from_micros(500);

// ---------------------------------------------------------------------------
// Settings

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    CurrentThread,
    MultiThread,
}

impl Flavor {
    fn runtime(self) -> tokio::runtime::Runtime {
        let mut builder = match self {
            Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
            Flavor::MultiThread => tokio::runtime::Builder::new_multi_thread(),
        };
        builder.enable_all().build().expect("build tokio runtime")
    }

    fn label(self) -> &'static str {
        match self {
            Flavor::CurrentThread => "current-thread runtime",
            Flavor::MultiThread => "multi-thread runtime",
        }
    }
}

/// How the workers are set up for an end-to-end run. `None` leaves the library's
/// default in place (max_concurrency 1, min_concurrency = max_concurrency).
#[derive(Clone, Copy, Debug)]
struct WorkerSettings {
    workers: usize,
    max_concurrency: Option<u16>,
    min_concurrency: Option<u16>,
    flavor: Flavor,
}

impl WorkerSettings {
    /// The library's documented defaults: one worker, builder defaults, and the
    /// current-thread runtime used by the README/crate-docs example.
    fn defaults() -> Self {
        WorkerSettings {
            workers: 1,
            max_concurrency: None,
            min_concurrency: None,
            flavor: Flavor::CurrentThread,
        }
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        parts.push(format!(
            "{} worker{}",
            self.workers,
            if self.workers == 1 { "" } else { "s" }
        ));
        match self.max_concurrency {
            Some(max) => parts.push(format!("max_concurrency {max}")),
            None => parts.push("max_concurrency default (1)".into()),
        }
        match self.min_concurrency {
            Some(min) => parts.push(format!("min_concurrency {min}")),
            None => parts.push("min_concurrency default (= max)".into()),
        }
        parts.push(self.flavor.label().into());
        parts.join(", ")
    }
}

/// Best end-to-end settings on the 2-core benchmark machine, chosen with `--tune`
/// (see the sweep in `tune()`). Concurrency is the lever the docs give for throughput:
/// `max_concurrency` defaults to 1 and the docs say you will usually want it higher;
/// a `min_concurrency` below it makes the worker fetch ready jobs in larger batches.
/// Throughput plateaued from max_concurrency ~512 up (the library's single writer
/// thread commits at most 50 queued operations per transaction, so more jobs in
/// flight mostly means fuller commits). 512/256 on a multi-thread runtime was the
/// most consistent of the top settings; the 10 workers x 20 of the repository's own
/// stress test was slower and noisier here.
fn best_settings() -> WorkerSettings {
    WorkerSettings {
        workers: 1,
        max_concurrency: Some(512),
        min_concurrency: Some(256),
        flavor: Flavor::MultiThread,
    }
}

// ---------------------------------------------------------------------------
// Job handler and queue helpers

/// Shared with every handler run: how many runs started, and optionally where to
/// report the instant a run started (for the latency scenario).
#[derive(Clone, Debug)]
struct Ctx {
    ran: Arc<AtomicUsize>,
    started_tx: Option<mpsc::UnboundedSender<Instant>>,
}

impl Ctx {
    fn new(started_tx: Option<mpsc::UnboundedSender<Instant>>) -> Self {
        Ctx {
            ran: Arc::new(AtomicUsize::new(0)),
            started_tx,
        }
    }
}

async fn noop_handler(_job: RunningJob, ctx: Ctx) -> Result<(), String> {
    let started = Instant::now();
    if let Some(tx) = &ctx.started_tx {
        let _ = tx.send(started);
    }
    ctx.ran.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

fn new_job(i: usize) -> Res<Job> {
    Ok(Job::builder(JOB_TYPE)
        .json_payload(&json!({ "n": i }))?
        .build())
}

/// A fresh database in its own temporary directory. With `preset_wal`, the file is
/// created in WAL mode first (the mode persists in the file, so effectum inherits it).
fn fresh_db(preset_wal: bool) -> Res<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("effectum.db");
    if preset_wal {
        let conn = rusqlite::Connection::open(&path)?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if mode != "wal" {
            return Err(format!("could not preset WAL, journal_mode is {mode}").into());
        }
    }
    Ok((dir, path))
}

async fn open_queue(path: &Path) -> Res<Queue> {
    Ok(bounded("Queue::new", Queue::new(path)).await??)
}

async fn close_queue(queue: Queue) -> Res<()> {
    let limit = wait_limit();
    bounded("Queue::close", queue.close(limit)).await??;
    Ok(())
}

/// Enqueues jobs 0..n with `add_jobs`, `ENQUEUE_BATCH` per call.
async fn enqueue_batched(queue: &Queue, n: usize) -> Res<()> {
    let mut i = 0;
    while i < n {
        let end = (i + ENQUEUE_BATCH).min(n);
        let jobs = (i..end).map(new_job).collect::<Res<Vec<_>>>()?;
        bounded("Queue::add_jobs", queue.add_jobs(jobs)).await??;
        i = end;
    }
    Ok(())
}

async fn start_workers(queue: &Queue, ctx: &Ctx, settings: &WorkerSettings) -> Res<Vec<Worker>> {
    let runner = JobRunner::builder(JOB_TYPE, noop_handler).build();
    let mut workers = Vec::with_capacity(settings.workers);
    for _ in 0..settings.workers {
        let mut builder = Worker::builder(queue, ctx.clone()).jobs([runner.clone()]);
        if let Some(max) = settings.max_concurrency {
            builder = builder.max_concurrency(max);
        }
        if let Some(min) = settings.min_concurrency {
            builder = builder.min_concurrency(min);
        }
        workers.push(bounded("Worker::build", builder.build()).await??);
    }
    Ok(workers)
}

async fn stop_workers(workers: Vec<Worker>) -> Res<()> {
    let limit = wait_limit();
    for worker in workers {
        bounded("Worker::unregister", worker.unregister(Some(limit))).await??;
    }
    Ok(())
}

/// Waits until the handler ran `n` times and the queue reports no pending or running
/// job (a job leaves `active_jobs` only once its completion is committed). Slow
/// progress is fine (the default settings take close to a minute for 20000 jobs);
/// going the whole wait limit without a single handler run is a failure.
async fn wait_all_done(queue: &Queue, ctx: &Ctx, n: usize) -> Res<()> {
    let limit = wait_limit();
    let outer = WAIT_STARTED_MS.swap(since_start_ms(), Ordering::Relaxed);
    let mut seen = ctx.ran.load(Ordering::Relaxed);
    let mut last_progress = Instant::now();
    let result = loop {
        let ran = ctx.ran.load(Ordering::Relaxed);
        if ran != seen {
            seen = ran;
            last_progress = Instant::now();
            WAIT_STARTED_MS.store(since_start_ms(), Ordering::Relaxed);
        }
        if ran >= n {
            match bounded("Queue::num_active_jobs", queue.num_active_jobs()).await {
                Ok(Ok(active)) if active.pending == 0 && active.running == 0 => break Ok(()),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => break Err(e.into()),
                Err(e) => break Err(e),
            }
        }
        if last_progress.elapsed() > limit {
            break Err(format!(
                "no progress for {} s waiting for all jobs to finish (handler ran {ran} of {n})",
                limit.as_secs()
            )
            .into());
        }
        tokio::time::sleep(POLL).await;
    };
    WAIT_STARTED_MS.store(outer, Ordering::Relaxed);
    result
}

/// After the queue is closed: every job must be in state `succeeded`, read with our
/// own connection.
fn verify_succeeded(path: &Path, n: usize) -> Res<()> {
    let conn = rusqlite::Connection::open(path)?;
    conn.busy_timeout(wait_limit())?;
    let (total, succeeded): (i64, i64) = conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(status = 'succeeded'), 0) FROM jobs",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if total as usize != n || succeeded as usize != n {
        return Err(format!("expected {n} succeeded jobs, found {succeeded} of {total}").into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Scenarios (each run on a fresh database, in a fresh runtime)

fn enqueue_one_by_one(n: usize, preset_wal: bool) -> Res<f64> {
    let (_dir, path) = fresh_db(preset_wal)?;
    Flavor::CurrentThread.runtime().block_on(async {
        let queue = open_queue(&path).await?;
        let started = Instant::now();
        for i in 0..n {
            bounded("Queue::add_job", queue.add_job(new_job(i)?)).await??;
        }
        let elapsed = started.elapsed();
        close_queue(queue).await?;
        Ok(rate(n, elapsed))
    })
}

fn enqueue_batches(n: usize, preset_wal: bool) -> Res<f64> {
    let (_dir, path) = fresh_db(preset_wal)?;
    Flavor::CurrentThread.runtime().block_on(async {
        let queue = open_queue(&path).await?;
        let started = Instant::now();
        enqueue_batched(&queue, n).await?;
        let elapsed = started.elapsed();
        close_queue(queue).await?;
        Ok(rate(n, elapsed))
    })
}

/// Queued no-op jobs run to the end. With `finished_first`, that many jobs are run to
/// the end first on the same file (best settings), so the timed round meets a table
/// of finished jobs.
fn end_to_end(
    n: usize,
    settings: &WorkerSettings,
    preset_wal: bool,
    finished_first: usize,
) -> Res<f64> {
    let (_dir, path) = fresh_db(preset_wal)?;
    let elapsed = settings.flavor.runtime().block_on(async {
        let queue = open_queue(&path).await?;
        if finished_first > 0 {
            enqueue_batched(&queue, finished_first).await?;
            let ctx = Ctx::new(None);
            let workers = start_workers(&queue, &ctx, &best_settings()).await?;
            wait_all_done(&queue, &ctx, finished_first).await?;
            stop_workers(workers).await?;
        }
        enqueue_batched(&queue, n).await?;
        let ctx = Ctx::new(None);
        let started = Instant::now();
        let workers = start_workers(&queue, &ctx, settings).await?;
        wait_all_done(&queue, &ctx, n).await?;
        let elapsed = started.elapsed();
        stop_workers(workers).await?;
        close_queue(queue).await?;
        Ok::<_, BoxError>(elapsed)
    })?;
    verify_succeeded(&path, finished_first + n)?;
    Ok(rate(n, elapsed))
}

/// Enqueue-to-handler-start latency with an idle worker at default settings.
fn latency(samples: usize, preset_wal: bool) -> Res<(Duration, Duration)> {
    let (_dir, path) = fresh_db(preset_wal)?;
    let settings = WorkerSettings::defaults();
    let mut latencies = settings.flavor.runtime().block_on(async {
        let queue = open_queue(&path).await?;
        let (tx, mut rx) = mpsc::unbounded_channel();
        let ctx = Ctx::new(Some(tx));
        let workers = start_workers(&queue, &ctx, &settings).await?;
        // Let the worker reach its idle wait.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut latencies = Vec::with_capacity(samples);
        for i in 0..samples {
            let job = new_job(i)?;
            let before = Instant::now();
            bounded("add_job", queue.add_job(job)).await??;
            let handler_started = bounded("the handler to start", rx.recv())
                .await?
                .ok_or("handler channel closed")?;
            latencies.push(handler_started.saturating_duration_since(before));
            wait_all_done(&queue, &ctx, i + 1).await?;
        }
        stop_workers(workers).await?;
        close_queue(queue).await?;
        Ok::<_, BoxError>(latencies)
    })?;
    verify_succeeded(&path, samples)?;
    latencies.sort();
    Ok((percentile(&latencies, 50.0), percentile(&latencies, 99.0)))
}

/// What SQLite actually runs with: run a job through a queue, close it, then read the
/// journal mode from the file with our own connection.
fn journal_mode() -> Res<String> {
    let (_dir, path) = fresh_db(false)?;
    Flavor::CurrentThread.runtime().block_on(async {
        let queue = open_queue(&path).await?;
        enqueue_batched(&queue, 1).await?;
        let ctx = Ctx::new(None);
        let workers = start_workers(&queue, &ctx, &WorkerSettings::defaults()).await?;
        wait_all_done(&queue, &ctx, 1).await?;
        stop_workers(workers).await?;
        close_queue(queue).await?;
        Ok::<_, BoxError>(())
    })?;
    let wal_file = PathBuf::from(format!("{}-wal", path.display()));
    let conn = rusqlite::Connection::open(&path)?;
    let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
    eprintln!(
        "note: journal_mode read back from the file: {mode}; -wal file present: {}",
        wal_file.exists()
    );
    Ok(mode)
}

/// effectum 0.7.0 opens its writer connection with `PRAGMA journal = wal` (not
/// `journal_mode`, so SQLite ignores it as an unknown pragma) and
/// `PRAGMA synchronous = normal`; its read pool (deadpool-sqlite) sets neither.
const JOURNAL_NOTE: &str =
    "NORMAL on its single writer connection (read-pool connections keep the default FULL)";

// ---------------------------------------------------------------------------
// Driver

fn tune(n: usize, repeat: usize) -> Res<()> {
    let mut grid = vec![WorkerSettings::defaults()];
    for flavor in [Flavor::CurrentThread, Flavor::MultiThread] {
        for (workers, max, min) in [
            (1, 10, None),
            (1, 32, None),
            (1, 64, None),
            (1, 64, Some(32)),
            (1, 128, None),
            (1, 128, Some(64)),
            (1, 256, None),
            (1, 256, Some(128)),
            (1, 256, Some(64)),
            (1, 512, None),
            (1, 512, Some(256)),
            (1, 1024, Some(512)),
            (2, 256, None),
            (10, 20, None),
        ] {
            grid.push(WorkerSettings {
                workers,
                max_concurrency: Some(max),
                min_concurrency: min,
                flavor,
            });
        }
    }
    for settings in grid {
        let label = settings.describe();
        let v = median_of(&label, repeat, || end_to_end(n, &settings, false, 0))?;
        eprintln!("TUNE\t{label}\t{v:.0}");
    }
    Ok(())
}

fn run(args: Args) -> Res<()> {
    let (n, small, r) = (args.jobs, args.small, args.repeat);

    if args.tune {
        return tune(n, r);
    }
    // Only the batched enqueue, for a profiler (`perf record`).
    if std::env::var_os("BENCH_PROFILE_BATCH").is_some() {
        let v = median_of("enqueue batch", r, || enqueue_batches(n, false))?;
        eprintln!("enqueue batch: {v:.0} jobs/s");
        return Ok(());
    }
    // Only the best settings on a WAL file, for a profiler (`perf record`).
    if std::env::var_os("BENCH_PROFILE_BEST_WAL").is_some() {
        let v = median_of("end to end, best, WAL", r, || {
            end_to_end(n, &best_settings(), true, 0)
        })?;
        eprintln!("best settings, WAL: {v:.0} jobs/s");
        return Ok(());
    }

    eprintln!(
        "bench-compare: {LIB_NAME} {LIB_VERSION}, {n} jobs, median of {r} run(s); \
         temp dir {}",
        std::env::temp_dir().display()
    );
    row("library", &format!("{LIB_NAME} {LIB_VERSION}"));

    let v = median_of("enqueue one by one", r, || enqueue_one_by_one(n, false))?;
    row("enqueue, one job per call (jobs/s)", &format!("{v:.0}"));

    eprintln!("note: batch = Queue::add_jobs, {ENQUEUE_BATCH} jobs per call");
    let v = median_of("enqueue batch", r, || enqueue_batches(n, false))?;
    row("enqueue, batch (jobs/s)", &format!("{v:.0}"));

    let defaults = WorkerSettings::defaults();
    eprintln!("note: defaults = {}", defaults.describe());
    let v = median_of("end to end, defaults", r, || {
        end_to_end(n, &defaults, false, 0)
    })?;
    row(
        "end to end, no-op handler, documented defaults (jobs/s)",
        &format!("{v:.0}"),
    );

    let best = best_settings();
    let v = median_of("end to end, best", r, || end_to_end(n, &best, false, 0))?;
    row(
        &format!(
            "end to end, no-op handler, best settings: {} (jobs/s)",
            best.describe()
        ),
        &format!("{v:.0}"),
    );

    // The same at a second size, and on a table that already holds `n` finished jobs:
    // how the cost grows with the table.
    let v = median_of("end to end, defaults, small", r, || {
        end_to_end(small, &defaults, false, 0)
    })?;
    row(
        &format!("end to end, no-op handler, documented defaults, {small} jobs (jobs/s)"),
        &format!("{v:.0}"),
    );
    let v = median_of("end to end, best, small", r, || {
        end_to_end(small, &best, false, 0)
    })?;
    row(
        &format!(
            "end to end, no-op handler, best settings, {small} jobs: {} (jobs/s)",
            best.describe()
        ),
        &format!("{v:.0}"),
    );
    let v = median_of("end to end, best, after finished", r, || {
        end_to_end(small, &best, false, n)
    })?;
    row(
        &format!(
            "end to end, no-op handler, best settings, {small} jobs on a table of {n} finished (jobs/s)"
        ),
        &format!("{v:.0}"),
    );

    let (p50, p99) = latency(LATENCY_SAMPLES, false)?;
    row(
        "enqueue-to-start latency, idle worker, p50 / p99 (ms)",
        &format!("{:.3} / {:.3}", ms(p50), ms(p99)),
    );

    let mode = journal_mode()?;
    let value = if mode == "wal" {
        format!("{mode} / {JOURNAL_NOTE}")
    } else {
        format!(
            "{mode} / {JOURNAL_NOTE}; WAL is never enabled: the library runs \
             `PRAGMA journal = wal`, an unknown pragma that SQLite ignores"
        )
    };
    row("journal mode / synchronous", &value);

    if args.wal_preset {
        eprintln!("note: extra rows on a database file switched to WAL by us before Queue::new");
        let v = median_of("enqueue one by one, WAL", r, || enqueue_one_by_one(n, true))?;
        row(
            "enqueue, one job per call, db preset to WAL (jobs/s)",
            &format!("{v:.0}"),
        );
        let v = median_of("end to end, defaults, WAL", r, || {
            end_to_end(n, &defaults, true, 0)
        })?;
        row(
            "end to end, no-op handler, documented defaults, db preset to WAL (jobs/s)",
            &format!("{v:.0}"),
        );
        let v = median_of("end to end, best, WAL", r, || end_to_end(n, &best, true, 0))?;
        row(
            &format!(
                "end to end, no-op handler, best settings: {}, db preset to WAL (jobs/s)",
                best.describe()
            ),
            &format!("{v:.0}"),
        );
        let (p50, p99) = latency(LATENCY_SAMPLES, true)?;
        row(
            "enqueue-to-start latency, idle worker, db preset to WAL, p50 / p99 (ms)",
            &format!("{:.3} / {:.3}", ms(p50), ms(p99)),
        );
    }
    Ok(())
}

fn main() {
    harness::main_with("bench-compare", run);
}
