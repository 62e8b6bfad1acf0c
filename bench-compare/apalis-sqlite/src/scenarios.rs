//! The scenarios, each on a fresh database file in a fresh runtime.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use apalis::prelude::*;
use apalis_sqlite::SqliteStorage;
use sqlx::sqlite::SqlitePoolOptions;
use tokio::sync::{mpsc, watch};

use crate::backend::{
    connect_options, count, enqueue_batched, fresh_db, open_pool, reader, start_workers,
    stop_workers, storage, wait_done, STARTED,
};
use crate::harness::{bounded, percentile, rate, wait_limit, BoxError, Res};
use crate::{Polling, Settings};

// ---------------------------------------------------------------------------
// Scenarios

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("build tokio runtime")
}

pub(crate) fn enqueue_one_by_one(n: usize) -> Res<f64> {
    let (_dir, path) = fresh_db()?;
    runtime().block_on(async {
        let (pool, _) = open_pool(&path, Polling::Default).await?;
        let mut backend = SqliteStorage::<u64>::new(&pool);
        let started = Instant::now();
        for i in 0..n as u64 {
            bounded("push", backend.push(i)).await??;
        }
        let elapsed = started.elapsed();
        expect_rows(&path, n).await?;
        pool.close().await;
        Ok(rate(n, elapsed))
    })
}

pub(crate) fn enqueue_batches(n: usize) -> Res<f64> {
    let (_dir, path) = fresh_db()?;
    runtime().block_on(async {
        let (pool, _) = open_pool(&path, Polling::Default).await?;
        let started = Instant::now();
        enqueue_batched(&pool, n, 0).await?;
        let elapsed = started.elapsed();
        expect_rows(&path, n).await?;
        pool.close().await;
        Ok(rate(n, elapsed))
    })
}

pub(crate) async fn expect_rows(path: &Path, n: usize) -> Res<()> {
    let found = count(&mut reader(path).await?, None).await?;
    if found != n {
        return Err(format!("expected {n} rows in Jobs, found {found}").into());
    }
    Ok(())
}

/// Queued no-op jobs run to the end. With `finished_first`, that many jobs are run to
/// the end first on the same file by workers of the same names, as an app's worker
/// (the README names its own) goes on from one start of the app to the next; their
/// rows in `Workers` are then dated a minute back, as after a restart a minute later
/// (the library refuses a name seen in the last heartbeat interval).
pub(crate) fn end_to_end(n: usize, s: &Settings, finished_first: usize) -> Res<f64> {
    let (_dir, path) = fresh_db()?;
    runtime().block_on(async {
        let (pool, hook) = open_pool(&path, s.polling).await?;
        let mut conn = reader(&path).await?;
        if finished_first > 0 {
            enqueue_batched(&pool, finished_first, 0).await?;
            let workers = start_workers(
                &pool,
                None,
                &Settings {
                    polling: Polling::Interval(Duration::from_millis(100)),
                    ..*s
                },
            );
            wait_done(&mut conn, finished_first).await?;
            stop_workers(workers).await?;
            sqlx::query("UPDATE Workers SET last_seen = last_seen - 60")
                .execute(&mut conn)
                .await?;
        }
        enqueue_batched(&pool, n, finished_first).await?;
        let started = Instant::now();
        let workers = start_workers(&pool, hook, s);
        wait_done(&mut conn, finished_first + n).await?;
        let elapsed = started.elapsed();
        stop_workers(workers).await?;
        pool.close().await;
        Ok(rate(n, elapsed))
    })
}

/// Enqueue-to-handler-start latency with an idle worker in the same process.
pub(crate) fn latency(samples: usize, s: &Settings) -> Res<(Duration, Duration)> {
    let (_dir, path) = fresh_db()?;
    let (tx, mut rx) = mpsc::unbounded_channel();
    *STARTED.lock().unwrap() = Some(tx);
    let result = runtime().block_on(async {
        let (pool, hook) = open_pool(&path, s.polling).await?;
        let mut conn = reader(&path).await?;
        let workers = start_workers(&pool, hook, s);
        // Let the worker register, find the queue empty and go idle.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut backend = SqliteStorage::<u64>::new(&pool);
        let mut out = Vec::with_capacity(samples);
        for i in 0..samples {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let sent = Instant::now();
            bounded("push", backend.push(i as u64)).await??;
            let began = bounded("the handler to start", rx.recv())
                .await?
                .ok_or("handler channel closed")?;
            out.push(began.saturating_duration_since(sent));
            wait_done(&mut conn, i + 1).await?;
        }
        stop_workers(workers).await?;
        pool.close().await;
        Ok::<_, BoxError>(out)
    });
    *STARTED.lock().unwrap() = None;
    let mut out = result?;
    out.sort();
    Ok((percentile(&out, 50.0), percentile(&out, 99.0)))
}

/// What SQLite really runs with: the journal mode and `synchronous` of every
/// connection of a pool made and set up as the README does, read back.
pub(crate) fn journal_mode() -> Res<String> {
    let (_dir, path) = fresh_db()?;
    runtime().block_on(async {
        let (pool, _) = open_pool(&path, Polling::Default).await?;
        let size = pool.options().get_max_connections() as usize;
        let mut conns = Vec::new();
        for _ in 0..size {
            conns.push(bounded("acquire", pool.acquire()).await??);
        }
        let mut modes = Vec::new();
        for conn in &mut conns {
            let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
                .fetch_one(&mut **conn)
                .await?;
            let sync: i64 = sqlx::query_scalar("PRAGMA synchronous")
                .fetch_one(&mut **conn)
                .await?;
            let sync = ["OFF", "NORMAL", "FULL", "EXTRA"]
                .get(sync as usize)
                .copied()
                .unwrap_or("?");
            modes.push(format!("{mode} / {sync}"));
        }
        drop(conns);
        pool.close().await;
        let mut distinct = modes.clone();
        distinct.sort();
        distinct.dedup();
        let parts: Vec<String> = distinct
            .iter()
            .map(|m| {
                let k = modes.iter().filter(|x| *x == m).count();
                format!("{m} on {k} of {size} pool connections")
            })
            .collect();
        Ok(parts.join("; "))
    })
}

/// Two worker processes on one file, as two windows of an app or an app and its
/// helper would run: each a child of this binary with the documented defaults.
pub(crate) fn two_processes(n: usize) -> Res<String> {
    let (_dir, path) = fresh_db()?;
    runtime().block_on(async {
        let (pool, _) = open_pool(&path, Polling::Default).await?;
        enqueue_batched(&pool, n, 0).await?;
        pool.close().await;
        Ok::<_, BoxError>(())
    })?;
    let exe = std::env::current_exe()?;
    let limit = wait_limit().as_secs().to_string();
    let children: Vec<_> = (0..2)
        .map(|i| {
            std::process::Command::new(&exe)
                .args([
                    "--child",
                    &path.display().to_string(),
                    &n.to_string(),
                    &limit,
                ])
                .arg(format!("child-{i}"))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    let mut failures = Vec::new();
    for child in children {
        let out = child.wait_with_output()?;
        if !out.status.success() {
            let text = String::from_utf8_lossy(&out.stderr);
            failures.push(text.lines().last().unwrap_or("no message").to_owned());
        }
    }
    let done =
        runtime().block_on(async { count(&mut reader(&path).await?, Some("Done")).await })?;
    Ok(if failures.is_empty() {
        format!("both ran to the end, {done} of {n} done")
    } else {
        format!(
            "{} of 2 failed ({}), {done} of {n} done",
            failures.len(),
            failures.join("; ")
        )
    })
}

/// The child of `two_processes`: a worker with the documented defaults plus polling
/// (so that it does not sit out a heartbeat), until `n` jobs are done in the file.
pub(crate) fn child(path: &Path, n: usize, limit_secs: u64, name: &str) -> Res<()> {
    crate::harness::set_wait_limit(Duration::from_secs(limit_secs));
    runtime().block_on(async {
        let pool = SqlitePoolOptions::new()
            .connect_with(connect_options(path))
            .await?;
        bounded("SqliteStorage::setup", SqliteStorage::setup(&pool)).await??;
        let s = Settings {
            polling: Polling::Interval(Duration::from_millis(100)),
            ..Settings::defaults()
        };
        let (stop, rx) = watch::channel(false);
        let task = crate::spawn_worker!(
            name.to_owned(),
            storage(&pool, &s).poll_with_interval(Duration::from_millis(100)),
            s.concurrency,
            rx
        );
        let mut conn = reader(path).await?;
        let waited = tokio::select! {
            r = wait_done(&mut conn, n) => r,
            r = task => return Err(format!("the worker stopped: {:?}", r?).into()),
        };
        let _ = stop.send(true);
        waited
    })
}
