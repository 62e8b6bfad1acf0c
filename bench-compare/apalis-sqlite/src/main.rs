//! Side-by-side benchmark of `apalis-sqlite` 1.0 (with `apalis` 1.0), the SQLite job
//! queue most Rust projects pick today.
//!
//! Driven by the tauri-plugin-jobs benchmark suite as a subprocess, like the effectum
//! binary in `../`:
//!
//! ```text
//! bench-compare-apalis-sqlite [--jobs N] [--small N] [--repeat R] [--timeout-secs S] [--tune]
//! ```
//!
//! Result rows go to stdout as `ROW\t<scenario>\t<value>`, with the same scenario names
//! as the effectum binary where the work is the same; progress and notes go to stderr.
//! Rates are the median of R runs, each on a fresh database file in a temporary
//! directory. Completion is counted from the database (rows in status `Done`), never
//! from a counter in the handler.
//!
//! The command line, the bounded waits and the figures are shared with the effectum
//! binary (`../../harness.rs`); `--wal-preset` is accepted and changes nothing, as
//! apalis-sqlite sets WAL itself.
//!
//! * `--small N` (default 2000): the second size, to show how the cost grows with the
//!   table (`--jobs` is the first, 20000 by default).
//! * `--timeout-secs S` (default 120): the longest any wait may go without progress.
//!   A watchdog thread ends the process (exit code 2) should a wait hang past it.
//! * `--tune`: sweep the library's own settings for the end-to-end scenario and print
//!   each result on stderr; used to pick `Settings::best()`.

#[path = "../../harness.rs"]
mod harness;

mod backend;
mod scenarios;

use std::path::Path;
use std::time::Duration;

use harness::{median_of, ms, row, Args, Res};
use scenarios::{
    child, end_to_end, enqueue_batches, enqueue_one_by_one, journal_mode, latency, two_processes,
};

/// Printed in the `library` row; Cargo.toml pins these exact versions.
pub(crate) const LIBRARY: &str = "apalis-sqlite 1.0.0 (apalis 1.0.0, sqlx 0.9.0)";
/// Jobs per `push_bulk` call, the same batch size as ours and effectum's.
pub(crate) const ENQUEUE_BATCH: usize = 1000;
pub(crate) const LATENCY_SAMPLES: usize = 200;
/// Samples for the latency of the documented defaults, where each may wait for a
/// heartbeat (30 s by default).
pub(crate) const DEFAULT_LATENCY_SAMPLES: usize = 3;
/// How often completion is read from the database while waiting.
pub(crate) const POLL: Duration = Duration::from_millis(1);

// ---------------------------------------------------------------------------
// Settings: only the library's own knobs

/// How an idle worker learns of new jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Polling {
    /// No strategy: a worker that found the queue empty fetches again at its next
    /// heartbeat (`Config::heartbeat_interval`, 30 s by default).
    Default,
    /// `BackendExt::poll_with_interval`.
    Interval(Duration),
    /// `SqliteStorage::connect_with_callback` + `with_callback`: SQLite's update hook
    /// wakes the worker (same process only).
    Hooked,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    workers: usize,
    /// `Config::batch_size` (default 10).
    batch_size: Option<usize>,
    /// `WorkerBuilderExt::concurrency` (default: no limit beyond the batch).
    concurrency: Option<usize>,
    polling: Polling,
}

impl Settings {
    /// The README's basic worker: `SqliteStorage::new(&pool)` and a `WorkerBuilder`.
    fn defaults() -> Self {
        Settings {
            workers: 1,
            batch_size: None,
            concurrency: None,
            polling: Polling::Default,
        }
    }

    /// Best end-to-end settings on the 2-core benchmark machine, from `--tune`.
    fn best() -> Self {
        Settings {
            workers: 1,
            batch_size: Some(500),
            concurrency: None,
            polling: Polling::Interval(Duration::from_millis(100)),
        }
    }

    fn describe(&self) -> String {
        let mut parts = vec![format!(
            "{} worker{}",
            self.workers,
            if self.workers == 1 { "" } else { "s" }
        )];
        parts.push(match self.batch_size {
            Some(b) => format!("batch_size {b}"),
            None => "batch_size default (10)".into(),
        });
        if let Some(c) = self.concurrency {
            parts.push(format!("concurrency {c}"));
        }
        parts.push(match self.polling {
            Polling::Default => "no poll strategy (default)".into(),
            Polling::Interval(d) => format!("poll_with_interval {} ms", d.as_millis()),
            Polling::Hooked => "update hook (connect_with_callback)".into(),
        });
        parts.join(", ")
    }
}

// ---------------------------------------------------------------------------
// Driver

fn tune(n: usize, repeat: usize) -> Res<()> {
    // The defaults are measured by the rows themselves.
    let mut grid = vec![];
    let poll = Polling::Interval(Duration::from_millis(100));
    // More than one worker on a file stops with "database is locked" (see the
    // README's notes), so the sweep is of one worker's knobs, and one pair of workers
    // to show it.
    for batch_size in [10, 100, 500, 1000] {
        for concurrency in [None, Some(64)] {
            grid.push(Settings {
                workers: 1,
                batch_size: Some(batch_size),
                concurrency,
                polling: poll,
            });
        }
    }
    grid.push(Settings {
        workers: 2,
        batch_size: Some(100),
        concurrency: None,
        polling: poll,
    });
    grid.push(Settings {
        polling: Polling::Hooked,
        batch_size: Some(500),
        ..Settings::defaults()
    });
    // `BENCH_TUNE_ONLY`: only the settings whose description contains it.
    let only = std::env::var("BENCH_TUNE_ONLY").unwrap_or_default();
    for s in grid {
        let label = s.describe();
        if !label.contains(&only) {
            continue;
        }
        match median_of(&label, repeat, || end_to_end(n, &s, 0)) {
            Ok(v) => eprintln!("TUNE\t{label}\t{v:.0}"),
            Err(e) => eprintln!("TUNE\t{label}\tfailed: {e}"),
        }
    }
    Ok(())
}

fn run(args: Args) -> Res<()> {
    let (n, small, r) = (args.jobs, args.small, args.repeat);
    if args.tune {
        return tune(n, r);
    }
    eprintln!("bench-compare-apalis-sqlite: {LIBRARY}, {n} and {small} jobs, median of {r}");
    row("library", LIBRARY);

    let v = median_of("enqueue one by one", r, || enqueue_one_by_one(n))?;
    row("enqueue, one job per call (jobs/s)", &format!("{v:.0}"));
    eprintln!("note: batch = TaskSink::push_bulk, {ENQUEUE_BATCH} jobs per call");
    let v = median_of("enqueue batch", r, || enqueue_batches(n))?;
    row("enqueue, batch (jobs/s)", &format!("{v:.0}"));

    let defaults = Settings::defaults();
    let best = Settings::best();
    for size in [n, small] {
        let suffix = if size == n {
            String::new()
        } else {
            format!(", {size} jobs")
        };
        let v = median_of("end to end, defaults", r, || end_to_end(size, &defaults, 0))?;
        row(
            &format!("end to end, no-op handler, documented defaults{suffix} (jobs/s)"),
            &format!("{v:.0}"),
        );
        let v = median_of("end to end, best", r, || end_to_end(size, &best, 0))?;
        row(
            &format!(
                "end to end, no-op handler, best settings{suffix}: {} (jobs/s)",
                best.describe()
            ),
            &format!("{v:.0}"),
        );
    }
    let v = median_of("end to end, best, after finished", r, || {
        end_to_end(small, &best, n)
    })?;
    row(
        &format!(
            "end to end, no-op handler, best settings, {small} jobs on a table of {n} finished (jobs/s)"
        ),
        &format!("{v:.0}"),
    );

    let polled = Settings {
        polling: Polling::Interval(Duration::from_millis(100)),
        ..defaults
    };
    let hooked = Settings {
        polling: Polling::Hooked,
        ..defaults
    };
    for (label, s, samples) in [
        ("idle worker", &hooked, LATENCY_SAMPLES),
        (
            "idle worker, poll_with_interval 100 ms",
            &polled,
            LATENCY_SAMPLES,
        ),
        (
            "idle worker, documented defaults",
            &defaults,
            DEFAULT_LATENCY_SAMPLES,
        ),
    ] {
        let (p50, p99) = latency(samples, s)?;
        row(
            &format!("enqueue-to-start latency, {label}, p50 / p99 (ms)"),
            &format!("{:.3} / {:.3}", ms(p50), ms(p99)),
        );
    }
    eprintln!("note: the first latency row uses the update hook (connect_with_callback)");

    row("journal mode / synchronous", &journal_mode()?);
    row(
        &format!("two worker processes on one file, {small} jobs"),
        &two_processes(small)?,
    );
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        let result = (|| -> Res<()> {
            let [_, path, n, limit, name] = &args[..] else {
                return Err("--child PATH N LIMIT NAME".into());
            };
            child(Path::new(path), n.parse()?, limit.parse()?, name)
        })();
        if let Err(e) = result {
            eprintln!("child: error: {e}");
            std::process::exit(1);
        }
        return;
    }
    harness::main_with("bench-compare-apalis-sqlite", run);
}
