//! The side-by-side comparison: the published Rust job queues on SQLite, each built
//! as its own crate under `bench-compare/` (outside the workspace, a lockfile of its
//! own, so their SQLite never meets ours), run as child processes in the same run.
//! Their rows join the main table, and a second table puts them beside ours, with
//! the target (at least 2x each peer's best settings on every shared workload)
//! marked per row.

use std::path::PathBuf;
use std::process::Command;

use crate::report::Report;

/// A comparison binary: the variable that can point elsewhere, and where
/// `scripts/bench.sh` builds it.
const PEERS: &[(&str, &str)] = &[
    (
        "BENCH_COMPARE_BIN",
        "bench-compare/target/release/bench-compare",
    ),
    (
        "BENCH_COMPARE_APALIS_BIN",
        "bench-compare/apalis-sqlite/target/release/bench-compare-apalis-sqlite",
    ),
];

/// How a row of the side-by-side table is judged.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Jobs a second, higher is better; counts for the 2x target.
    Rate,
    /// A rate shown for context (documented defaults, a file prepared by hand).
    RateShown,
    /// "p50 / p99" in ms, lower is better; the p50 counts for the 2x target.
    Latency,
    /// Text, shown as it is.
    Text,
}

struct Line {
    label: String,
    /// A part of the name of our row that does the same work (None: text below).
    ours: Option<String>,
    /// The starts of the peer's row names to look for, first found wins.
    theirs: Vec<String>,
    kind: Kind,
}

/// The rows of the side-by-side table, at the suite's two sizes.
fn lines(small_n: usize, jobs_n: usize) -> Vec<Line> {
    let mk = |label: String, ours: Option<&str>, theirs: &[&str], kind| Line {
        label,
        ours: ours.map(str::to_owned),
        theirs: theirs.iter().map(|t| t.to_string()).collect(),
        kind,
    };
    let small = crate::report::count(small_n as f64);
    let jobs = crate::report::count(jobs_n as f64);
    let our_small = format!("runner: {small} jobs queued first");
    let their_small_defaults =
        format!("end to end, no-op handler, documented defaults, {small_n} jobs");
    let their_small_best = format!("end to end, no-op handler, best settings, {small_n} jobs:");
    let their_small_table =
        format!("end to end, no-op handler, best settings, {small_n} jobs on a table of {jobs_n}");
    vec![
        mk(
            "enqueue, one job per call (jobs/s)".into(),
            Some("queue API: enqueue, one job per transaction"),
            &["enqueue, one job per call (jobs/s)"],
            Kind::Rate,
        ),
        mk(
            "enqueue, 1000 per call (jobs/s)".into(),
            Some("queue API: enqueue, batches of 1000"),
            &["enqueue, batch (jobs/s)"],
            Kind::Rate,
        ),
        mk(
            format!("{jobs} queued no-op jobs run to the end, documented defaults (jobs/s)"),
            Some("jobs queued first, 4 workers"),
            &["end to end, no-op handler, documented defaults (jobs/s)"],
            Kind::RateShown,
        ),
        mk(
            format!("{jobs} queued no-op jobs run to the end, best settings (jobs/s)"),
            Some("jobs queued first, 64 workers"),
            &["end to end, no-op handler, best settings:"],
            Kind::Rate,
        ),
        mk(
            format!("{small} queued no-op jobs run to the end, documented defaults (jobs/s)"),
            Some(&format!("{our_small}, 4 workers")),
            &[&their_small_defaults],
            Kind::RateShown,
        ),
        mk(
            format!("{small} queued no-op jobs run to the end, best settings (jobs/s)"),
            Some(&format!("{our_small}, 64 workers")),
            &[&their_small_best],
            Kind::Rate,
        ),
        mk(
            format!("the same {small} on a table of {jobs} finished, best settings (jobs/s)"),
            Some("finished, 64 workers"),
            &[&their_small_table],
            Kind::Rate,
        ),
        mk(
            "enqueue-to-start latency, idle worker, best settings, p50 / p99 (ms)".into(),
            Some("runner: enqueue-to-start latency, idle runner, same process"),
            &["enqueue-to-start latency, idle worker, p50 / p99 (ms)"],
            Kind::Latency,
        ),
        mk(
            "enqueue-to-start latency, idle worker, documented defaults, p50 / p99 (ms)".into(),
            Some("runner: enqueue-to-start latency, idle runner, same process"),
            &[
                "enqueue-to-start latency, idle worker, documented defaults",
                "enqueue-to-start latency, idle worker, p50 / p99 (ms)",
            ],
            Kind::Text,
        ),
        mk(
            "enqueue, one job per call, their file switched to WAL by hand first (jobs/s)".into(),
            Some("queue API: enqueue, one job per transaction"),
            &["enqueue, one job per call, db preset to WAL"],
            Kind::RateShown,
        ),
        mk(
            format!("{jobs} run to the end, best settings, their file switched to WAL by hand first (jobs/s)"),
            Some("jobs queued first, 64 workers"),
            &["end to end, no-op handler, best settings: 1 worker, max_concurrency 512, min_concurrency 256, multi-thread runtime, db preset to WAL"],
            Kind::RateShown,
        ),
        mk(
            "journal mode / synchronous (read back)".into(),
            None,
            &["journal mode"],
            Kind::Text,
        ),
        mk(
            "worker processes on one file".into(),
            None,
            &["two worker processes on one file"],
            Kind::Text,
        ),
    ]
}

/// What our column says for the text rows.
fn our_text(label: &str) -> &'static str {
    if label.starts_with("journal mode") {
        "wal / NORMAL on the writing connection, read back at open (the reading one never writes)"
    } else {
        "4 processes, 10,000 jobs, each run once, no SQLITE_BUSY (tests/queue_processes.rs)"
    }
}

struct Peer {
    library: String,
    rows: Vec<(String, String)>,
}

impl Peer {
    fn find(&self, starts: &[String]) -> Option<&str> {
        starts.iter().find_map(|start| {
            self.rows
                .iter()
                .find(|(n, _)| n.starts_with(start))
                .map(|(_, v)| v.as_str())
        })
    }

    /// Each best-settings row's settings, as the binary describes them.
    fn best_settings(&self) -> Option<&str> {
        self.rows.iter().find_map(|(n, _)| {
            n.strip_prefix("end to end, no-op handler, best settings: ")
                .map(|s| s.trim_end_matches(" (jobs/s)"))
        })
    }
}

fn run_peer(report: &mut Report, variable: &str, default: &str, small: usize) -> Option<Peer> {
    let binary = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(default));
    if !binary.exists() {
        report.info(
            &format!("compared: {default} (not built; scripts/bench.sh builds it)"),
            "skipped".into(),
        );
        return None;
    }
    let output = Command::new(&binary)
        .args([
            "--jobs",
            &report.jobs.to_string(),
            "--small",
            &small.to_string(),
            "--repeat",
            &report.repeat.to_string(),
            "--wal-preset",
        ])
        .output()
        .expect("run a comparison binary");
    assert!(
        output.status.success(),
        "{} failed: {}",
        binary.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut peer = Peer {
        library: "compared".into(),
        rows: Vec::new(),
    };
    for line in stdout.lines() {
        let mut fields = line.split('\t');
        if fields.next() != Some("ROW") {
            continue;
        }
        let (Some(name), Some(value)) = (fields.next(), fields.next()) else {
            continue;
        };
        if name == "library" {
            peer.library = value.to_owned();
            continue;
        }
        // Plain numbers get thousands separators, as ours do.
        let value = value
            .parse::<f64>()
            .map_or_else(|_| value.to_owned(), crate::report::count);
        report.info(
            &format!("compared, {}: {name}", peer.library),
            value.clone(),
        );
        peer.rows.push((name.to_owned(), value));
    }
    Some(peer)
}

/// The leading number of a figure such as "58,500" or "0.412 / 0.950".
fn number(value: &str) -> Option<f64> {
    value
        .split(" / ")
        .next()?
        .replace(',', "")
        .trim()
        .parse()
        .ok()
}

/// Ours against theirs as a factor in our favour (rates: ours / theirs; latencies:
/// theirs / ours).
fn factor(kind: Kind, ours: &str, theirs: &str) -> Option<f64> {
    let (ours, theirs) = (number(ours)?, number(theirs)?);
    match kind {
        Kind::Rate | Kind::RateShown => Some(ours / theirs),
        Kind::Latency => Some(theirs / ours),
        Kind::Text => None,
    }
}

pub fn measure(report: &mut Report) {
    if !report.wants("compared") {
        return;
    }
    let small = crate::report::env_usize("BENCH_SMALL", 2_000);
    let peers: Vec<Peer> = PEERS
        .iter()
        .filter_map(|(variable, default)| run_peer(report, variable, default, small))
        .collect();
    if peers.is_empty() {
        return;
    }

    let mut table = String::from("| same work | tauri-plugin-jobs |");
    let mut rule = String::from("| --- | ---: |");
    for peer in &peers {
        table.push_str(&format!(" {} | ours ÷ theirs |", peer.library));
        rule.push_str(" ---: | ---: |");
    }
    table.push_str(" 2x each peer |\n");
    table.push_str(&rule);
    table.push_str(" --- |\n");
    let mut misses = Vec::new();
    let mut unjudged = 0;
    for line in lines(small, report.jobs) {
        let label = &line.label;
        let ours = match &line.ours {
            Some(part) => report.value_of(part).unwrap_or_else(|| "-".into()),
            None => our_text(label).into(),
        };
        table.push_str(&format!("| {label} | {ours} |"));
        let mut all_met = true;
        let mut judged = false;
        for peer in &peers {
            let theirs = peer.find(&line.theirs).unwrap_or("-");
            let f = factor(line.kind, &ours, theirs);
            let shown = f.map_or(String::new(), |f| format!("{f:.2}x"));
            table.push_str(&format!(" {theirs} | {shown} |"));
            if matches!(line.kind, Kind::Rate | Kind::Latency) {
                match f {
                    Some(f) => {
                        judged = true;
                        if f < 2.0 {
                            all_met = false;
                            misses.push(format!("{label}: {f:.2}x {}", peer.library));
                        }
                    }
                    None => unjudged += 1,
                }
            }
        }
        let mark = match (judged, all_met) {
            (false, _) => "",
            (true, true) => "met",
            (true, false) => "**missed**",
        };
        table.push_str(&format!(" {mark} |\n"));
    }
    for peer in &peers {
        if let Some(best) = peer.best_settings() {
            table.push_str(&format!(
                "\n{}'s best settings (a sweep of its own knobs, `--tune`): {best}.",
                peer.library
            ));
        }
    }
    table.push_str("\nOurs at best settings: 64 workers; at documented defaults: 4.\n");
    report.appendix(table);
    if unjudged > 0 {
        report.info(
            "compared: ours against each peer's best settings, every shared workload",
            format!("not judged: {unjudged} figure(s) missing (BENCH_ONLY?)"),
        );
        return;
    }
    report.checked(
        "compared: ours against each peer's best settings, every shared workload",
        if misses.is_empty() {
            "all >= 2x".into()
        } else {
            misses.join("; ")
        },
        String::new(),
        ">= 2x",
        misses.is_empty(),
    );
}
