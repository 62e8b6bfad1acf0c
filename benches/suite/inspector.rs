//! What the inspector reads, at a million jobs: counts per kind and status, and pages
//! of 50 under each filter it offers. The file is filled with SQL (the same rows the
//! queue writes) so that building it takes seconds: ten kinds of 10 % each and a rare
//! one of 0.1 %, the newest 10,000 queued and 50 running, 1 % failed, 0.4 % cancelled,
//! the rest succeeded; 5 % enqueued by agents; 100 pieces of one parent. The history
//! holds 30 days of every kind: 48 hours by minute, the rest by hour, as the runner
//! keeps it, each row with a histogram of a dozen buckets.

use std::time::{Duration, Instant};

use tauri_plugin_jobs::clock::{Clock, SystemClock};
use tauri_plugin_jobs::queue::{
    Actor, HistoryRange, HistoryStep, JobFilter, JobId, JobStatus, MAX_HISTORY_SPAN,
};

use crate::queue::open;
use crate::report::{count, ms, percentile, Report};

const SAMPLES: usize = 200;

pub fn measure(report: &mut Report) {
    let rows = crate::report::env_usize("BENCH_INSPECTOR_ROWS", 1_000_000);
    let prefix = format!("inspector at {} jobs:", count(rows as f64));
    if !report.wants(&prefix) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path()));
    fill(&dir.path().join("raw.db"), rows);
    let queue = open(dir.path());

    let (p50, p99) = timed(|| {
        let counts = queue.counts().unwrap();
        assert!(counts.len() >= 30);
    });
    report.checked(
        &format!("{prefix} counts per kind and status, p50 / p99 (ms)"),
        format!("{:.3} / {:.3}", ms(p50), ms(p99)),
        String::new(),
        "p99 < 5 ms",
        p99 < Duration::from_millis(5),
    );
    // What counting cost before migration 8: a full scan, kept here for comparison.
    let raw = rusqlite::Connection::open(dir.path().join("raw.db")).unwrap();
    let (_, scan) = timed_n(5, || {
        let mut statement = raw
            .prepare_cached("SELECT kind, status, count(*) FROM jobs GROUP BY kind, status")
            .unwrap();
        let groups = statement.query_map([], |_| Ok(())).unwrap().count();
        assert!(groups >= 30);
    });
    report.info(
        &format!("{prefix} the same counts by a full scan (before), p99 (ms)"),
        format!("{:.1}", ms(scan)),
    );

    let middle = JobId::from_raw((rows / 2) as i64);
    let pages: [(&str, JobFilter); 9] = [
        ("newest, no filter", JobFilter::new()),
        ("status failed", JobFilter::new().status(JobStatus::Failed)),
        (
            "status failed, deep (before the middle id)",
            JobFilter::new().status(JobStatus::Failed).before(middle),
        ),
        (
            "status cancelled",
            JobFilter::new().status(JobStatus::Cancelled),
        ),
        (
            "status queued (10,000 queued)",
            JobFilter::new().status(JobStatus::Queued),
        ),
        ("kind (10 %)", JobFilter::new().kind("k3")),
        (
            "kind and status succeeded",
            JobFilter::new().kind("k3").status(JobStatus::Succeeded),
        ),
        ("actor agent (5 %)", JobFilter::new().actor(Actor::Agent)),
        (
            "parent (100 pieces)",
            JobFilter::new().parent(JobId::from_raw(42)),
        ),
    ];
    for (name, filter) in pages {
        let filter = filter.limit(50);
        let (p50, p99) = timed(|| {
            let page = queue.list(&filter).unwrap();
            assert!(!page.is_empty(), "{name}");
        });
        report.checked(
            &format!("{prefix} a page of 50, {name}, p50 / p99 (ms)"),
            format!("{:.3} / {:.3}", ms(p50), ms(p99)),
            String::new(),
            "p99 < 5 ms",
            p99 < Duration::from_millis(5),
        );
    }
    // A kind that is 0.1 % of the jobs: the page reads the table newest first until
    // it has 50 (no index on kind: it would cost every enqueue a page write).
    let rare = JobFilter::new().kind("rare").limit(50);
    let (p50, p99) = timed_n(20, || {
        queue.list(&rare).unwrap();
    });
    report.info(
        &format!("{prefix} a page of 50, a kind of 0.1 % (no index), p50 / p99 (ms)"),
        format!("{:.1} / {:.1}", ms(p50), ms(p99)),
    );

    // The History tab: one chart is one kind's history; the tab reads the kinds with
    // any, then each one's.
    let now = SystemClock.now();
    let month = HistoryRange::new(
        now.saturating_sub(MAX_HISTORY_SPAN - Duration::from_secs(86_400)),
        now,
        HistoryStep::Hour,
    );
    let charts: [(&str, HistoryRange); 3] = [
        ("the last hour by minute", HistoryRange::last_hour(now)),
        ("the last day by hour", HistoryRange::last_day(now)),
        ("30 days by hour", month),
    ];
    for (name, range) in charts {
        let (p50, p99) = timed(|| {
            let points = queue.history("k3", range).unwrap();
            assert!(!points.is_empty(), "{name}");
        });
        report.checked(
            &format!("{prefix} one kind's chart (30 days of history), {name}, p50 / p99 (ms)"),
            format!("{:.3} / {:.3}", ms(p50), ms(p99)),
            String::new(),
            "p99 < 5 ms",
            p99 < Duration::from_millis(5),
        );
    }
    let (p50, p99) = timed_n(50, || {
        let range = HistoryRange::last_hour(now);
        let kinds = queue.history_kinds(range).unwrap();
        assert_eq!(kinds.len(), 11);
        for kind in kinds {
            queue.history(&kind, range).unwrap();
        }
    });
    report.info(
        &format!("{prefix} the History tab, every kind's last hour (11 kinds), p50 / p99 (ms)"),
        format!("{:.2} / {:.2}", ms(p50), ms(p99)),
    );
}

fn timed(work: impl FnMut()) -> (Duration, Duration) {
    timed_n(SAMPLES, work)
}

fn timed_n(samples: usize, mut work: impl FnMut()) -> (Duration, Duration) {
    work();
    let mut times: Vec<Duration> = (0..samples)
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    (percentile(&mut times, 0.5), percentile(&mut times, 0.99))
}

pub fn fill(path: &std::path::Path, rows: usize) {
    let queued_from = rows.saturating_sub(10_000);
    let running_from = queued_from.saturating_sub(50);
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(&format!(
        "BEGIN;
         WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < {rows})
         INSERT INTO jobs (kind, payload, status, priority, run_at, attempts, max_attempts,
                           actor, created_at, updated_at, finished_at, result, last_error,
                           parent_id, lease_owner, lease_expires_at)
         SELECT CASE WHEN i % 1000 = 0 THEN 'rare' ELSE 'k' || (i % 10) END,
                '{{\"n\":' || i || '}}',
                CASE WHEN i > {queued_from} THEN 'queued'
                     WHEN i > {running_from} THEN 'running'
                     WHEN i % 100 = 7 THEN 'failed'
                     WHEN i % 250 = 3 THEN 'cancelled'
                     ELSE 'succeeded' END,
                50, i, 1, 5,
                CASE WHEN i % 20 = 0 THEN 'agent' WHEN i % 7 = 0 THEN 'system' ELSE 'user' END,
                i, i,
                CASE WHEN i > {running_from} THEN NULL ELSE i END,
                CASE WHEN i > {running_from} THEN NULL ELSE 'null' END,
                CASE WHEN i % 100 = 7 THEN 'HTTP 502 from upstream' END,
                CASE WHEN i BETWEEN 1000 AND 1099 THEN 42 END,
                CASE WHEN i > {running_from} AND i <= {queued_from} THEN 'bench' END,
                CASE WHEN i > {running_from} AND i <= {queued_from} THEN i END
         FROM seq;
         -- Rows written behind the queue's back: count the finished ones as the
         -- queue's own writes would have (migration 8 does the same).
         DELETE FROM job_counts WHERE kind <> '';
         INSERT INTO job_counts (kind, status, n)
             SELECT kind, status, count(*) FROM jobs
             WHERE status <> 'queued' AND status <> 'running' GROUP BY kind, status;
         COMMIT;"
    ))
    .unwrap();
    fill_history(&conn);
}

/// 30 days of history for every kind of [`fill`]: the last 48 hours by minute, the
/// rest by hour, each row with a dozen histogram buckets of counts.
fn fill_history(conn: &rusqlite::Connection) {
    let now = SystemClock.now().as_millis();
    let minute = now - now.rem_euclid(60_000);
    let hour = now - now.rem_euclid(3_600_000);
    let histogram: Vec<u8> = (0..24u32).flat_map(|b| (b % 5).to_le_bytes()).collect();
    conn.execute_batch("BEGIN").unwrap();
    {
        let mut insert = conn
            .prepare(
                "INSERT INTO job_history (kind, span, at, succeeded, failed, cancelled, retries, \
                 waits, runs) VALUES (?1, ?2, ?3, 40, 1, 0, 2, ?4, ?4)",
            )
            .unwrap();
        let kinds: Vec<String> = (0..10)
            .map(|k| format!("k{k}"))
            .chain(["rare".to_owned()])
            .collect();
        for kind in &kinds {
            for m in 0..48 * 60 {
                insert
                    .execute(rusqlite::params![
                        kind,
                        60_000,
                        minute - m * 60_000,
                        histogram
                    ])
                    .unwrap();
            }
            for h in 48..30 * 24 {
                insert
                    .execute(rusqlite::params![
                        kind,
                        3_600_000,
                        hour - h * 3_600_000,
                        histogram
                    ])
                    .unwrap();
            }
        }
    }
    conn.execute_batch("COMMIT").unwrap();
}
