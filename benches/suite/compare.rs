//! The side-by-side comparison: a published Rust job queue on SQLite, built as its
//! own crate in `bench-compare/` (outside the workspace, its own Cargo.lock, so its
//! SQLite never meets ours), run as a child process in the same run. Its rows join
//! the main table, and a second table puts them beside ours.

use std::path::PathBuf;
use std::process::Command;

use crate::report::Report;

/// The side-by-side table: a label, the start of their row's name (as the comparison
/// binary prints it), and a part of the name of our row that does the same work.
const PAIRS: &[(&str, &str, &str)] = &[
    (
        "enqueue, one job per call (jobs/s)",
        "enqueue, one job per call (jobs/s)",
        "queue API: enqueue, one job per transaction",
    ),
    (
        "enqueue, 1000 per call (jobs/s)",
        "enqueue, batch (jobs/s)",
        "queue API: enqueue, batches of 1000",
    ),
    (
        "queued no-op jobs run to the end, defaults: ours 4 workers, theirs max_concurrency 1 (jobs/s)",
        "end to end, no-op handler, documented defaults (jobs/s)",
        "jobs queued first, 4 workers",
    ),
    (
        "the same, best settings: ours 64 workers, theirs max_concurrency 512 (jobs/s)",
        "end to end, no-op handler, best settings: 1 worker",
        "jobs queued first, 64 workers",
    ),
    (
        "enqueue-to-start latency, idle, same process, p50 / p99 (ms)",
        "enqueue-to-start latency, idle worker, p50 / p99 (ms)",
        "runner: enqueue-to-start latency, idle runner, same process",
    ),
    (
        "enqueue, one job per call, their file switched to WAL first (jobs/s)",
        "enqueue, one job per call, db preset to WAL",
        "queue API: enqueue, one job per transaction",
    ),
    (
        "defaults as above, their file switched to WAL first (jobs/s)",
        "end to end, no-op handler, documented defaults, db preset to WAL",
        "jobs queued first, 4 workers",
    ),
    (
        "best settings as above, their file switched to WAL first (jobs/s)",
        "end to end, no-op handler, best settings: 1 worker, max_concurrency 512, min_concurrency 256, multi-thread runtime, db preset to WAL",
        "jobs queued first, 64 workers",
    ),
    (
        "latency as above, their file switched to WAL first (ms)",
        "enqueue-to-start latency, idle worker, db preset to WAL",
        "runner: enqueue-to-start latency, idle runner, same process",
    ),
];

pub fn measure(report: &mut Report) {
    if !report.wants("compared") {
        return;
    }
    let binary = std::env::var_os("BENCH_COMPARE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("bench-compare/target/release/bench-compare")
        });
    if !binary.exists() {
        report.info(
            "compared: (not built; scripts/bench.sh builds bench-compare/)",
            "skipped".into(),
        );
        return;
    }
    let output = Command::new(&binary)
        .args([
            "--jobs",
            &report.jobs.to_string(),
            "--repeat",
            &report.repeat.to_string(),
            "--wal-preset",
        ])
        .output()
        .expect("run bench-compare");
    assert!(
        output.status.success(),
        "bench-compare failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut library = String::from("compared");
    let mut theirs = Vec::new();
    for line in stdout.lines() {
        let mut fields = line.split('\t');
        if fields.next() != Some("ROW") {
            continue;
        }
        let (Some(name), Some(value)) = (fields.next(), fields.next()) else {
            continue;
        };
        if name == "library" {
            library = value.to_owned();
            continue;
        }
        // Plain numbers get thousands separators, as ours do.
        let value = value
            .parse::<f64>()
            .map_or_else(|_| value.to_owned(), crate::report::count);
        report.info(&format!("compared, {library}: {name}"), value.clone());
        theirs.push((name.to_owned(), value));
    }

    let mut table =
        format!("| same work | tauri-plugin-jobs | {library} |\n| --- | ---: | ---: |\n");
    for (label, their_name, our_name) in PAIRS {
        let Some((_, value)) = theirs.iter().find(|(n, _)| n.starts_with(their_name)) else {
            continue;
        };
        let ours = report.value_of(our_name).unwrap_or_else(|| "-".into());
        table.push_str(&format!("| {label} | {ours} | {value} |\n"));
    }
    table.push_str(&format!(
        "| journal mode / synchronous | wal / NORMAL (read back at open) | {} |\n",
        theirs
            .iter()
            .find(|(n, _)| n.starts_with("journal mode"))
            .map_or("-", |(_, v)| v.as_str())
    ));
    report.appendix(table);
}
