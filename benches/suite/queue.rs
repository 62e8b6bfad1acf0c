//! The queue's API driven directly from threads: enqueue, claim, finish.

use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, NewJob, Outcome, Queue, QueueOptions,
};

use crate::ceiling::{Ceilings, Paired, PerStep};
use crate::report::{count, median, ms, percentile, rate, ratio, Report};

/// The queue on `dir/raw.db`. The integrity check of a large file (10 s after open,
/// up to 30 s of one core) is put off past any row's end, so that it runs inside no
/// measurement; `startup.rs` times it on its own.
pub fn open(dir: &Path) -> Queue {
    Queue::open(dir.join("raw.db"), options()).expect("open queue")
}

/// The options every row opens its queue with (see [`open`]).
pub fn options() -> QueueOptions {
    QueueOptions::new().integrity_check_after(Duration::from_secs(24 * 3600))
}

pub fn enqueue_all(queue: &Queue, kinds: &[&str], n: usize) {
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
/// one batch (or one by one when `per_claim` is 1), until no job is left. Returns
/// every claim's latency.
pub fn drain(
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

/// Runs `scenario` as many times as the report says and returns the median.
fn repeat(report: &Report, scenario: impl Fn() -> f64) -> f64 {
    median((0..report.repeat).map(|_| scenario()).collect())
}

pub fn measure(report: &mut Report, ceilings: &Ceilings) {
    let n = report.jobs;

    let name = "queue API: enqueue, one job per transaction (jobs/s)";
    if report.wants(name) {
        let value = repeat(report, || {
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
        report.compared(name, count(value), ratio(value, ceilings.insert, "C1"));
    }

    let name = "queue API: enqueue, batches of 1000 (jobs/s)";
    if report.wants(name) {
        let value = repeat(report, || {
            let dir = tempfile::tempdir().unwrap();
            let queue = open(dir.path());
            let started = Instant::now();
            enqueue_all(&queue, &["k"], n);
            rate(n, started.elapsed())
        });
        report.compared(
            name,
            count(value),
            ratio(value, ceilings.insert_batch, "CB"),
        );
    }

    let name = "queue API: enqueue + claim + complete, one commit per step (jobs/s)";
    if report.wants(name) {
        let mut paired = PerStep::new();
        for _ in 0..report.repeat {
            let ceilings = PerStep::ceilings(n);
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
            paired.add(ceilings, rate(n, started.elapsed()));
        }
        // The target is the runner's (end to end, default settings); this is the
        // queue's own path for comparison.
        paired.row(report, name, false);
    }

    for workers in [1, 4] {
        let name =
            format!("queue API: claim + complete, one job per step, {workers} thread(s) (jobs/s)");
        if report.wants(&name) {
            let value = repeat(report, || {
                let dir = tempfile::tempdir().unwrap();
                let queue = open(dir.path());
                enqueue_all(&queue, &["k"], n);
                let started = Instant::now();
                drain(&queue, &["k"], &[], workers, 1);
                rate(n, started.elapsed())
            });
            report.info(&name, count(value));
        }
    }

    // A workflow's fan-in: the same drain with one job waiting for every piece. The
    // pieces' finishes resolve it (one row more written per finish); the target is
    // that nobody would notice.
    let name = "queue API: claim + complete 10,000 pieces, one job waiting for all of them (of the same without it)";
    if report.wants(name) {
        let pieces = 10_000usize;
        let mut ratios = Vec::new();
        for _ in 0..report.repeat {
            let mut rates = [0.0; 2];
            for (slot, waiting) in [(0, false), (1, true)] {
                let dir = tempfile::tempdir().unwrap();
                let queue = open(dir.path());
                let ids: Vec<_> = (0..pieces)
                    .collect::<Vec<_>>()
                    .chunks(1000)
                    .flat_map(|chunk| {
                        queue
                            .enqueue_batch(
                                chunk.iter().map(|&i| NewJob::new("k", json!({ "n": i }))),
                            )
                            .unwrap()
                    })
                    .map(|enqueued| enqueued.id)
                    .collect();
                if waiting {
                    queue
                        .enqueue("last", &json!({}), EnqueueOptions::new().after(ids))
                        .unwrap();
                }
                let started = Instant::now();
                drain(&queue, &["k"], &[], 1, 1);
                rates[slot] = rate(pieces, started.elapsed());
            }
            ratios.push(rates[1] / rates[0]);
        }
        let ratio = median(ratios);
        report.checked(
            name,
            format!("{:.0}%", ratio * 100.0),
            String::new(),
            ">= 95%",
            ratio >= 0.95,
        );
    }

    let name = "queue API: enqueue 1000 per commit, claim 16 + complete 16 per commit (jobs/s)";
    if report.wants(name) {
        let mut paired = Paired::new();
        for _ in 0..report.repeat {
            let ceiling = crate::ceiling::grouped_once(n);
            let dir = tempfile::tempdir().unwrap();
            let queue = open(dir.path());
            let started = Instant::now();
            enqueue_all(&queue, &["k"], n);
            drain(&queue, &["k"], &[], 1, 16);
            paired.add(ceiling, rate(n, started.elapsed()));
        }
        let (value, vs_cg) = paired.result();
        report.checked(
            name,
            count(value),
            format!("{:.0}% of CG", vs_cg * 100.0),
            ">= 40,000",
            value >= 40_000.0,
        );
    }

    let name = "queue API: 4 threads, 4 kinds capped at 1/2/2/4, one job per step (jobs/s)";
    if report.wants(name) {
        let value = repeat(report, || {
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
        });
        report.checked(
            name,
            count(value),
            ratio(value, ceilings.per_step, "C3"),
            ">= 8,000",
            value >= 8_000.0,
        );
    }

    finished_rows(report);
}

/// Claim + complete with a million finished rows in the table.
fn finished_rows(report: &mut Report) {
    let n = report.jobs;
    let rows = crate::report::env_usize("BENCH_FINISHED_ROWS", 1_000_000);
    let name = format!(
        "queue API: claim + complete with {} finished rows (jobs/s)",
        count(rows as f64)
    );
    if !report.wants(&name) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path()));
    {
        let conn = rusqlite::Connection::open(dir.path().join("raw.db")).unwrap();
        conn.execute_batch(&format!(
            "BEGIN;
             WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < {rows})
             INSERT INTO jobs (kind, payload, status, priority, run_at, attempts, max_attempts,
                               actor, created_at, updated_at, finished_at, result)
             SELECT CASE i % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'k' ELSE 'b' END, '{{}}', 'succeeded', 50, i, 1, 5,
                    'system', i, i, i, 'null' FROM seq;
             COMMIT;"
        ))
        .unwrap();
    }
    let queue = open(dir.path());
    let mut results = Vec::new();
    let mut latencies = Vec::new();
    for _ in 0..report.repeat {
        enqueue_all(&queue, &["k"], n);
        let started = Instant::now();
        latencies.extend(drain(&queue, &["k"], &[], 1, 1));
        results.push(rate(n, started.elapsed()));
    }
    let value = median(results);
    report.info(&name, count(value));
    let p50 = percentile(&mut latencies, 0.5);
    let p99 = percentile(&mut latencies, 0.99);
    report.checked(
        &format!(
            "queue API: claim latency with {} finished rows, p50 / p99 (ms)",
            count(rows as f64)
        ),
        format!("{:.3} / {:.3}", ms(p50), ms(p99)),
        String::new(),
        "p99 < 1 ms",
        p99 < Duration::from_millis(1),
    );
}
