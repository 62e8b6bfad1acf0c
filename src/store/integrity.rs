//! The integrity check of `raw.db` (`PRAGMA quick_check`), kept off the app's start.
//!
//! A small file (up to [`CHECK_AT_OPEN_PAGES`] pages, a few milliseconds of checking)
//! is checked whole at open, and damage refuses the open. A larger one opens at once
//! and is checked on a thread of its own, on a read-only connection, for up to
//! [`BACKGROUND_BUDGET`]: what it finds is kept for [`Integrity`] readers, logged, and
//! published as the health of the component `raw.db`. A damaged page the app reads
//! before (or after) is reported by that read as an error naming the file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::locks::lock;

/// The largest file (in pages, 4 KiB each by default) checked at open: about 1 MiB,
/// a few milliseconds.
pub(crate) const CHECK_AT_OPEN_PAGES: i64 = 256;

/// How long the check at open may take before it gives up (a courtesy bound: a file
/// of [`CHECK_AT_OPEN_PAGES`] takes far less).
pub(crate) const AT_OPEN_BUDGET: Duration = Duration::from_millis(100);

/// How long after open the background check of a larger file starts: the app's start
/// (its first claims, its first window) has the disk and the cores to itself.
pub const DEFAULT_DELAY: Duration = Duration::from_secs(10);

/// How long the background check of a larger file may run before it gives up.
pub const BACKGROUND_BUDGET: Duration = Duration::from_secs(30);

/// What the integrity check of `raw.db` found, as far as it got.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Integrity {
    /// A large file is being checked in the background.
    Checking,
    /// The whole file passed.
    Ok,
    /// The check found damage: SQLite's first complaint.
    Damaged(String),
    /// The check ran out of time (or its handle closed) before the end of the file.
    Unfinished,
    /// The check could not run (the file could not be opened for reading again).
    Failed(String),
}

/// One check's verdict.
pub(crate) enum Verdict {
    Ok,
    Damaged(String),
    OutOfTime,
}

/// Runs `PRAGMA quick_check` on `conn` until `deadline` (or `stop`).
pub(crate) fn quick_check(
    conn: &Connection,
    deadline: Instant,
    stop: Option<Arc<AtomicBool>>,
) -> rusqlite::Result<Verdict> {
    // `let _`: setting a handler cannot fail here (and returns nothing in older
    // rusqlite releases).
    let _ = conn.progress_handler(
        10_000,
        Some(move || {
            Instant::now() > deadline || stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
        }),
    );
    let verdict: rusqlite::Result<String> =
        conn.query_row("PRAGMA quick_check(1)", [], |row| row.get(0));
    let _ = conn.progress_handler(0, None::<fn() -> bool>);
    match verdict {
        Ok(verdict) if verdict == "ok" => Ok(Verdict::Ok),
        Ok(problem) => Ok(Verdict::Damaged(problem)),
        Err(error) if error.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) => {
            Ok(Verdict::OutOfTime)
        }
        Err(error) => Err(error),
    }
}

/// Whether the file `conn` has open is small enough to check at open.
pub(crate) fn small(conn: &Connection) -> rusqlite::Result<bool> {
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |row| row.get(0))?;
    Ok(pages <= CHECK_AT_OPEN_PAGES)
}

/// The check's state, shared by the handle and its background thread.
#[derive(Debug)]
pub(crate) struct Check {
    state: Mutex<Integrity>,
    settled: Condvar,
    stop: Arc<AtomicBool>,
}

impl Check {
    /// A check already done (at open).
    pub(crate) fn done(verdict: Integrity) -> Arc<Check> {
        Arc::new(Check {
            state: Mutex::new(verdict),
            settled: Condvar::new(),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Starts checking `path` on a thread of its own after `delay` (unless stopped
    /// first); `report` hears the verdict once.
    pub(crate) fn in_background(
        path: &Path,
        delay: Duration,
        report: impl FnOnce(&Integrity) + Send + 'static,
    ) -> Arc<Check> {
        let check = Check::done(Integrity::Checking);
        let shared = check.clone();
        let path: PathBuf = path.to_owned();
        let spawned = std::thread::Builder::new()
            .name("jobs-integrity".into())
            .spawn(move || {
                let stopped = || shared.stop.load(Ordering::Relaxed);
                drop(
                    shared
                        .settled
                        .wait_timeout_while(lock(&shared.state), delay, |_| !stopped())
                        .unwrap_or_else(std::sync::PoisonError::into_inner),
                );
                let verdict = if stopped() {
                    Integrity::Unfinished
                } else {
                    check_file(&path, shared.stop.clone())
                };
                // Reported first: whoever waits for the verdict finds it published.
                // A check stopped because its handle closed has nobody to tell.
                if !stopped() {
                    report(&verdict);
                }
                *lock(&shared.state) = verdict;
                shared.settled.notify_all();
            });
        if let Err(error) = spawned {
            *lock(&check.state) = Integrity::Failed(error.to_string());
        }
        check
    }

    /// What the check found so far.
    pub(crate) fn state(&self) -> Integrity {
        lock(&self.state).clone()
    }

    /// Waits up to `timeout` for the check to settle; what it found by then.
    pub(crate) fn wait(&self, timeout: Duration) -> Integrity {
        let state = lock(&self.state);
        let (state, _) = self
            .settled
            .wait_timeout_while(state, timeout, |state| *state == Integrity::Checking)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.clone()
    }

    /// Asks a waiting or running check to stop (its handle closed).
    pub(crate) fn stop(&self) {
        let _state = lock(&self.state);
        self.stop.store(true, Ordering::Relaxed);
        self.settled.notify_all();
    }
}

fn check_file(path: &Path, stop: Arc<AtomicBool>) -> Integrity {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(conn) => conn,
        Err(error) => return Integrity::Failed(error.to_string()),
    };
    match quick_check(&conn, Instant::now() + BACKGROUND_BUDGET, Some(stop)) {
        Ok(Verdict::Ok) => Integrity::Ok,
        Ok(Verdict::Damaged(problem)) => Integrity::Damaged(problem),
        Ok(Verdict::OutOfTime) => Integrity::Unfinished,
        Err(error) if error.sqlite_error_code() == Some(ErrorCode::DatabaseCorrupt) => {
            Integrity::Damaged(error.to_string())
        }
        Err(error) => Integrity::Failed(error.to_string()),
    }
}
