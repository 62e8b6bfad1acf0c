//! What the app's start waits for, at a million jobs (the inspector's file): opening
//! `raw.db` (`Queue::open`, migrations none due), and the plugin's whole start in a
//! mock Tauri app, from building the app to the first claimable job's handler running
//! (open, config, runner, scheduler and sync engine started, the first claim).

use std::time::{Duration, Instant};

use tauri_plugin_jobs::plugin::Builder;
use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
use tauri_plugin_jobs::JobsExt;

use crate::report::{count, ms, percentile, Report};

const OPENS: usize = 50;
const STARTS: usize = 10;

pub fn measure(report: &mut Report) {
    let rows = crate::report::env_usize("BENCH_INSPECTOR_ROWS", 1_000_000);
    let prefix = format!("start-up at {} jobs:", count(rows as f64));
    if !report.wants(&prefix) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    drop(crate::queue::open(dir.path()));
    crate::inspector::fill(&path, rows);
    // The inspector's rows are dated from 1970: moved to the last hour, so that the
    // start's pruning (a week of retention) finds nothing to delete, as in an app
    // that runs every day.
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        - 3_600_000;
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(&format!(
            "UPDATE jobs SET run_at = run_at + {base}, created_at = created_at + {base},
                 updated_at = updated_at + {base}, finished_at = finished_at + {base},
                 lease_expires_at = lease_expires_at + {base}"
        ))
        .unwrap();
    drop(crate::queue::open(dir.path()));

    let mut opens: Vec<Duration> = (0..OPENS)
        .map(|_| {
            let started = Instant::now();
            let queue = crate::queue::open(dir.path());
            let took = started.elapsed();
            drop(queue);
            took
        })
        .collect();
    let (p50, p99) = (percentile(&mut opens, 0.5), percentile(&mut opens, 0.99));
    report.checked(
        &format!("{prefix} Queue::open, p50 / p99 (ms)"),
        format!("{:.2} / {:.2}", ms(p50), ms(p99)),
        String::new(),
        "p99 < 5 ms",
        p99 < Duration::from_millis(5),
    );

    // The check a large file gets in the background, once per start, timed whole.
    let queue = tauri_plugin_jobs::queue::Queue::open(
        &path,
        tauri_plugin_jobs::queue::QueueOptions::new().integrity_check_after(Duration::ZERO),
    )
    .unwrap();
    let started = Instant::now();
    let found = queue.wait_for_integrity(Duration::from_secs(120));
    let took = started.elapsed();
    drop(queue);
    report.info(
        &format!("{prefix} the integrity check in the background, whole file (s)"),
        format!("{:.1} ({found:?})", took.as_secs_f64()),
    );

    let config = dir.path().join("config.toml");
    let mut starts: Vec<Duration> = (0..STARTS).map(|_| plugin_start(&path, &config)).collect();
    let (p50, worst) = (percentile(&mut starts, 0.5), percentile(&mut starts, 1.0));
    report.checked(
        &format!(
            "{prefix} the plugin's start, to the first claimable job's handler running, p50 / max (ms)"
        ),
        format!("{:.1} / {:.1}", ms(p50), ms(worst)),
        String::new(),
        "p50 < 20 ms",
        p50 < Duration::from_millis(20),
    );

    // The first start after a month away: every finished job is past retention. The
    // sweep waits a minute after the start, so the start does not wait for it.
    let month = 30 * 24 * 3_600_000_i64;
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(&format!(
            "UPDATE jobs SET created_at = created_at - {month},
                 finished_at = finished_at - {month} WHERE finished_at IS NOT NULL"
        ))
        .unwrap();
    let mut starts: Vec<Duration> = (0..STARTS).map(|_| plugin_start(&path, &config)).collect();
    let (p50, worst) = (percentile(&mut starts, 0.5), percentile(&mut starts, 1.0));
    report.checked(
        &format!("{prefix} the same start with every finished job past retention, p50 / max (ms)"),
        format!("{:.1} / {:.1}", ms(p50), ms(worst)),
        String::new(),
        "p50 < 20 ms",
        p50 < Duration::from_millis(20),
    );
}

/// Builds a mock app with the plugin on `database` and times it until a handler of
/// one of the queued kinds starts; the job is then given back (the app exits before
/// it is recorded), so that every start finds the same file.
fn plugin_start(database: &std::path::Path, config: &std::path::Path) -> Duration {
    let (tx, rx) = std::sync::mpsc::channel::<Instant>();
    let tx = std::sync::Mutex::new(tx);
    let handler = Handler::new("k3", move |_: serde_json::Value, ctx: JobContext| {
        let _ = tx.lock().unwrap().send(Instant::now());
        async move {
            ctx.cancelled().await;
            Err::<(), _>(JobError::retryable("stopped"))
        }
    })
    .concurrency(1);
    let context = tauri::test::mock_context(tauri::test::noop_assets());
    let started = Instant::now();
    let app = tauri::test::mock_builder()
        .plugin(
            Builder::new()
                .database(database)
                .config(config)
                .without_network_watch()
                .grace(Duration::from_millis(1))
                .handler(handler)
                .build(),
        )
        .build(context)
        .expect("the app builds");
    let ran = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("a handler started within 30 s");
    let took = ran.saturating_duration_since(started);
    tauri::async_runtime::block_on(app.jobs().shutdown());
    drop(app);
    took
}
