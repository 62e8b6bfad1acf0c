//! Queue benchmark: prints jobs per second for the queue's main paths.
//!
//! Run with `cargo bench --bench queue`. Knobs (environment variables):
//! `BENCH_JOBS` (default 20000) jobs per scenario, `BENCH_FINISHED_ROWS` (default
//! 1000000) finished rows for the large-table scenario, `BENCH_REPEAT` (default 3)
//! runs per scenario, of which the median is printed.

use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, NewJob, Outcome, Queue, QueueOptions,
};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn open(dir: &Path) -> Queue {
    Queue::open(dir.join("raw.db"), QueueOptions::new()).expect("open queue")
}

fn enqueue_all(queue: &Queue, kinds: &[&str], n: usize) {
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        queue
            .enqueue_batch(
                chunk
                    .iter()
                    .map(|&i| NewJob::new(kinds[i % kinds.len()], json!({ "n": i }))),
            )
            .unwrap();
    }
}

/// Runs `workers` threads, each claiming up to `per_claim` jobs and finishing them in
/// one batch (or one by one when `per_claim` is 1), until no job is left.
fn drain(
    queue: &Queue,
    kinds: &[&str],
    caps: &[(&str, u32)],
    workers: usize,
    per_claim: u32,
) -> Vec<Duration> {
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let queue = queue.clone();
            let mut request = ClaimRequest::new(format!("w{w}"), kinds.iter().copied())
                .max_jobs(per_claim)
                .lease(Duration::from_secs(60));
            for (kind, cap) in caps {
                request = request.limit(*kind, *cap);
            }
            thread::spawn(move || {
                let mut latencies = Vec::new();
                let mut idle = 0;
                loop {
                    let started = Instant::now();
                    let claimed = queue.claim(&request).unwrap();
                    latencies.push(started.elapsed());
                    if claimed.is_empty() {
                        idle += 1;
                        // Other workers may hold the last capped jobs; stop once the
                        // queue stays empty.
                        if idle > 50 {
                            return latencies;
                        }
                        thread::yield_now();
                        continue;
                    }
                    idle = 0;
                    if claimed.len() == 1 {
                        queue.complete(&claimed[0].lease, None).unwrap();
                    } else {
                        let batch = claimed
                            .into_iter()
                            .map(|c| (c.lease, Outcome::Succeeded(None)))
                            .collect();
                        for result in queue.finish_batch(batch).unwrap() {
                            result.unwrap();
                        }
                    }
                }
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect()
}

fn rate(n: usize, elapsed: Duration) -> f64 {
    n as f64 / elapsed.as_secs_f64()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Prints one row a scenario; `BENCH_ONLY=text` runs only scenarios whose name has it.
struct Bench {
    repeat: usize,
    only: Option<String>,
}

impl Bench {
    fn wants(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| name.contains(only.as_str()))
    }

    fn row(&self, name: &str, value: String, target: &str) {
        println!("{name:<66} {value:>16}   {target}");
    }

    /// Runs `scenario` `repeat` times and prints the median rate it returns.
    fn run(&self, name: &str, target: &str, scenario: impl Fn() -> f64) {
        if self.wants(name) {
            let value = median((0..self.repeat).map(|_| scenario()).collect());
            self.row(name, format!("{value:.0}"), target);
        }
    }
}

fn main() {
    let n = env_usize("BENCH_JOBS", 20_000);
    let finished_rows = env_usize("BENCH_FINISHED_ROWS", 1_000_000);
    let repeat = env_usize("BENCH_REPEAT", 3).max(1);
    let cores = thread::available_parallelism().map_or(1, |c| c.get());
    println!(
        "queue benchmark: {n} jobs per scenario, median of {repeat}, {cores} cores, synchronous=NORMAL, WAL"
    );
    println!("{:<66} {:>16}   target", "scenario", "result");
    let bench = Bench {
        repeat,
        only: std::env::var("BENCH_ONLY").ok(),
    };

    bench.run(
        "raw SQLite ceiling: one INSERT per commit (rows/s)",
        "",
        || {
            let dir = tempfile::tempdir().unwrap();
            let conn = rusqlite::Connection::open(dir.path().join("raw.db")).unwrap();
            conn.pragma_update(None, "journal_mode", "WAL").unwrap();
            conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
            conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
                .unwrap();
            let started = Instant::now();
            for i in 0..n {
                conn.execute("INSERT INTO t (v) VALUES (?1)", [i.to_string()])
                    .unwrap();
            }
            rate(n, started.elapsed())
        },
    );

    bench.run("enqueue, one job per transaction (jobs/s)", "", || {
        let dir = tempfile::tempdir().unwrap();
        let queue = open(dir.path());
        let started = Instant::now();
        for i in 0..n {
            queue
                .enqueue("k", &json!({ "n": i }), EnqueueOptions::new())
                .unwrap();
        }
        rate(n, started.elapsed())
    });

    bench.run("enqueue, batches of 1000 (jobs/s)", "", || {
        let dir = tempfile::tempdir().unwrap();
        let queue = open(dir.path());
        let started = Instant::now();
        enqueue_all(&queue, &["k"], n);
        rate(n, started.elapsed())
    });

    bench.run(
        "enqueue + claim + complete, one commit per step (jobs/s)",
        ">= 8000",
        || {
            let dir = tempfile::tempdir().unwrap();
            let queue = open(dir.path());
            let request = ClaimRequest::new("w", ["k"]);
            let started = Instant::now();
            for i in 0..n {
                queue
                    .enqueue("k", &json!({ "n": i }), EnqueueOptions::new())
                    .unwrap();
                let claimed = queue.claim(&request).unwrap();
                queue.complete(&claimed[0].lease, None).unwrap();
            }
            rate(n, started.elapsed())
        },
    );

    for workers in [1, 4] {
        bench.run(
            &format!("claim + complete, one job per step, {workers} worker(s) (jobs/s)"),
            "",
            || {
                let dir = tempfile::tempdir().unwrap();
                let queue = open(dir.path());
                enqueue_all(&queue, &["k"], n);
                let started = Instant::now();
                drain(&queue, &["k"], &[], workers, 1);
                rate(n, started.elapsed())
            },
        );
    }

    bench.run(
        "enqueue 1000/txn + claim 16 + complete 16 per txn (jobs/s)",
        ">= 30000",
        || {
            let dir = tempfile::tempdir().unwrap();
            let queue = open(dir.path());
            let started = Instant::now();
            enqueue_all(&queue, &["k"], n);
            drain(&queue, &["k"], &[], 1, 16);
            rate(n, started.elapsed())
        },
    );

    bench.run(
        "4 workers, 4 kinds capped at 1/2/2/4, one job per step (jobs/s)",
        ">= 8000",
        || {
            let dir = tempfile::tempdir().unwrap();
            let queue = open(dir.path());
            let kinds = ["a", "b", "c", "d"];
            enqueue_all(&queue, &kinds, n);
            let started = Instant::now();
            drain(
                &queue,
                &kinds,
                &[("a", 1), ("b", 2), ("c", 2), ("d", 4)],
                4,
                1,
            );
            rate(n, started.elapsed())
        },
    );

    // A million finished rows in the table.
    let name = format!("claim + complete with {finished_rows} finished rows (jobs/s)");
    if !bench.wants(&name) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    drop(open(dir.path()));
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let started = Instant::now();
        conn.execute_batch(&format!(
            "BEGIN;
             WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < {finished_rows})
             INSERT INTO jobs (kind, payload, status, priority, run_at, attempts, max_attempts,
                               actor, created_at, updated_at, finished_at, result)
             SELECT CASE i % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'k' ELSE 'b' END, '{{}}', 'succeeded', 50, i, 1, 5,
                    'system', i, i, i, 'null' FROM seq;
             COMMIT;"
        ))
        .unwrap();
        println!(
            "({finished_rows} finished rows written in {:.1} s)",
            started.elapsed().as_secs_f64()
        );
    }
    let queue = open(dir.path());
    let mut results = Vec::new();
    let mut all_latencies = Vec::new();
    for _ in 0..repeat {
        enqueue_all(&queue, &["k"], n);
        let started = Instant::now();
        let latencies = drain(&queue, &["k"], &[], 1, 1);
        results.push(rate(n, started.elapsed()));
        all_latencies.extend(latencies);
    }
    all_latencies.sort();
    bench.row(&name, format!("{:.0}", median(results)), "");
    bench.row(
        "  claim latency p50 / p99 (ms)",
        format!(
            "{:.3} / {:.3}",
            percentile(&all_latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&all_latencies, 0.99).as_secs_f64() * 1e3
        ),
        "p99 < 1 ms",
    );
}
