//! The whole benchmark suite in one run, printed as one Markdown table.
//!
//! `scripts/bench.sh` (or `cargo bench --bench suite`). Every throughput is also shown
//! as a share of a raw SQLite ceiling measured at the start of the same run
//! (`ceiling.rs`). Knobs: `BENCH_JOBS` (20000 jobs per scenario), `BENCH_REPEAT` (3
//! runs, the median shown), `BENCH_ONLY` (run only rows whose name contains it),
//! `BENCH_FINISHED_ROWS` (1000000), `BENCH_INSPECTOR_ROWS` (1000000), `BENCH_EVENTS` (1000000), `BENCH_IDLE_SECS` (60),
//! `BENCH_CROSS_SAMPLES` (40), `BENCH_BATCH_WORKERS` (64), `BENCH_SMALL` (2000, the
//! second size of the runner and peer rows), `BENCH_COMPARE_BIN` and
//! `BENCH_COMPARE_APALIS_BIN` (the comparison binaries; default under
//! `bench-compare/`), `BENCH_SIZE_ROWS` (the rows `scripts/size.sh` wrote),
//! `BENCH_NO_CEILINGS` (skip the ceilings, for a profiler: shares print as NaN).
//!
//! Rows with a target against a ceiling are measured in pairs: each run of ours right
//! after a run of its ceiling, the ratio taken per pair and its median shown, so that
//! a noisy neighbour on the machine slows both alike.
//!
//! Asserts nothing about speed: rows that miss their target are marked, and the
//! exit status stays 0.

mod ceiling;
mod compare;
mod events;
mod inspector;
mod process;
mod queue;
mod reads;
mod report;
mod runner;
mod size;
mod startup;

use report::{env_usize, Report};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        process::run_child(&args[1..]);
        return;
    }
    let mut report = Report::new(
        env_usize("BENCH_JOBS", 20_000),
        env_usize("BENCH_REPEAT", 3).max(1),
        std::env::var("BENCH_ONLY").ok(),
    );
    eprintln!(
        "benchmark suite: {} jobs per scenario, median of {}, synchronous=NORMAL, WAL",
        report.jobs, report.repeat
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let ceilings = ceiling::measure(&mut report);
    queue::measure(&mut report, &ceilings);
    inspector::measure(&mut report);
    startup::measure(&mut report);
    runtime.block_on(runner::measure(&mut report));
    reads::measure(&mut report);
    runtime.block_on(events::measure(&mut report));
    runtime.block_on(process::measure(&mut report));
    compare::measure(&mut report);
    size::measure(&mut report);
    println!("{}", report.markdown());
    if report.missed() > 0 {
        println!("{} row(s) missed their target.", report.missed());
    }
}
