//! The library as an app uses it: a pool set up by `SqliteStorage::setup`, jobs
//! pushed with its sinks, workers built with `WorkerBuilder`, and our own connection
//! beside them to count what the database says is done.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Instant;

use apalis::prelude::*;
use apalis_sqlite::{Config, SqliteStorage};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::{Connection, SqliteConnection};
use tokio::sync::{mpsc, watch};

use crate::harness::{bounded, since_start_ms, wait_limit, Res, WAIT_STARTED_MS};
use crate::{Polling, Settings, ENQUEUE_BATCH, POLL};

// ---------------------------------------------------------------------------
// Database, jobs and workers

/// Where the handler reports the instant a run started (the latency scenario).
pub(crate) static STARTED: Mutex<Option<mpsc::UnboundedSender<Instant>>> = Mutex::new(None);

pub(crate) async fn noop(_n: u64) -> Result<(), BoxDynError> {
    let at = Instant::now();
    if let Some(tx) = STARTED.lock().unwrap().as_ref() {
        let _ = tx.send(at);
    }
    Ok(())
}

pub(crate) fn connect_options(path: &Path) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
}

/// A pool as the library's README makes one, set up with `SqliteStorage::setup`
/// (which sets WAL, `synchronous = OFF` on one connection, and runs the migrations).
pub(crate) async fn open_pool(
    path: &Path,
    polling: Polling,
) -> Res<(SqlitePool, Option<HookListener>)> {
    let (pool, hook) = if polling == Polling::Hooked {
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let (pool, listener) = SqliteStorage::connect_with_callback(&url)?;
        (pool, Some(listener))
    } else {
        let pool = bounded(
            "SqlitePool::connect",
            SqlitePoolOptions::new().connect_with(connect_options(path)),
        )
        .await??;
        (pool, None)
    };
    bounded("SqliteStorage::setup", SqliteStorage::setup(&pool)).await??;
    Ok((pool, hook))
}

pub(crate) type HookListener = apalis_sqlite::callback::HookCallbackListener;

pub(crate) fn storage(pool: &SqlitePool, settings: &Settings) -> SqliteStorage<u64> {
    let storage = SqliteStorage::<u64>::new(pool);
    match settings.batch_size {
        // `new` names the queue after the job type; a new Config must say it again.
        Some(b) => storage.with_config(
            Config::default()
                .queue(std::any::type_name::<u64>())
                .batch_size(b),
        ),
        None => storage,
    }
}

pub(crate) fn fresh_db() -> Res<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("apalis.db");
    Ok((dir, path))
}

pub(crate) async fn enqueue_batched(pool: &SqlitePool, n: usize, from: usize) -> Res<()> {
    let mut backend = SqliteStorage::<u64>::new(pool);
    let mut i = from;
    while i < from + n {
        let end = (i + ENQUEUE_BATCH).min(from + n);
        let jobs: Vec<u64> = (i as u64..end as u64).collect();
        bounded("push_bulk", backend.push_bulk(jobs)).await??;
        i = end;
    }
    Ok(())
}

/// A connection of our own, for reading counts beside the library's pool.
pub(crate) async fn reader(path: &Path) -> Res<SqliteConnection> {
    Ok(bounded(
        "connect",
        SqliteConnection::connect_with(&connect_options(path)),
    )
    .await??)
}

pub(crate) async fn count(conn: &mut SqliteConnection, status: Option<&str>) -> Res<usize> {
    let n: i64 = match status {
        Some(s) => {
            sqlx::query_scalar("SELECT COUNT(*) FROM Jobs WHERE status = ?1")
                .bind(s)
                .fetch_one(&mut *conn)
                .await?
        }
        None => {
            sqlx::query_scalar("SELECT COUNT(*) FROM Jobs")
                .fetch_one(&mut *conn)
                .await?
        }
    };
    Ok(n as usize)
}

/// Waits until `n` jobs are `Done` in the database. Slow progress is fine; the wait
/// limit without one more job done is a failure.
pub(crate) async fn wait_done(conn: &mut SqliteConnection, n: usize) -> Res<()> {
    let outer = WAIT_STARTED_MS.swap(since_start_ms(), Ordering::Relaxed);
    let mut seen = 0;
    let mut progress = Instant::now();
    let result = loop {
        let done = count(conn, Some("Done")).await?;
        if done >= n {
            break Ok(());
        }
        if done != seen {
            seen = done;
            progress = Instant::now();
            WAIT_STARTED_MS.store(since_start_ms(), Ordering::Relaxed);
        }
        if progress.elapsed() > wait_limit() {
            break Err(format!(
                "no progress for {} s: {done} of {n} jobs done",
                wait_limit().as_secs()
            )
            .into());
        }
        tokio::time::sleep(POLL).await;
    };
    WAIT_STARTED_MS.store(outer, Ordering::Relaxed);
    result
}

pub(crate) type WorkerTask = tokio::task::JoinHandle<Result<(), WorkerError>>;

#[macro_export]
macro_rules! spawn_worker {
    ($name:expr, $backend:expr, $concurrency:expr, $stop:expr) => {{
        let mut stop: tokio::sync::watch::Receiver<bool> = $stop;
        let signal = async move {
            let _ = stop.wait_for(|s| *s).await;
            Ok::<(), std::io::Error>(())
        };
        match $concurrency {
            Some(c) => tokio::spawn(
                apalis::prelude::WorkerBuilder::new($name)
                    .backend($backend)
                    .concurrency(c)
                    .build($crate::backend::noop)
                    .run_until(signal),
            ),
            None => tokio::spawn(
                apalis::prelude::WorkerBuilder::new($name)
                    .backend($backend)
                    .build($crate::backend::noop)
                    .run_until(signal),
            ),
        }
    }};
}

pub(crate) struct Workers {
    stop: watch::Sender<bool>,
    tasks: Vec<WorkerTask>,
}

pub(crate) fn start_workers(
    pool: &SqlitePool,
    hook: Option<HookListener>,
    s: &Settings,
) -> Workers {
    let (stop, rx) = watch::channel(false);
    let mut hook = hook;
    let tasks = (0..s.workers)
        .map(|i| {
            let name = format!("bench-worker-{i}");
            let backend = storage(pool, s);
            match (s.polling, hook.take()) {
                (Polling::Hooked, Some(listener)) => {
                    spawn_worker!(
                        name,
                        backend.with_callback(listener),
                        s.concurrency,
                        rx.clone()
                    )
                }
                (Polling::Interval(d), _) => {
                    spawn_worker!(
                        name,
                        backend.poll_with_interval(d),
                        s.concurrency,
                        rx.clone()
                    )
                }
                _ => spawn_worker!(name, backend, s.concurrency, rx.clone()),
            }
        })
        .collect();
    Workers { stop, tasks }
}

pub(crate) async fn stop_workers(workers: Workers) -> Res<()> {
    let _ = workers.stop.send(true);
    for task in workers.tasks {
        bounded("the worker to stop", task).await???;
    }
    Ok(())
}
