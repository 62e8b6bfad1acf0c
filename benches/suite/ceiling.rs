//! The raw SQLite ceilings: the least SQL a job queue must run, written straight
//! against rusqlite with cached statements, no checks, no events, one thread. Every
//! other figure is read as a share of one of these, measured in the same run.
//!
//! "A job queue" here means one with leases: a claimed job stays findable by index
//! until it finishes, so that a dead worker's job can be found and run again. That
//! costs the finish one index write. A queue without that (a claim takes the job out
//! of every index, and a crash loses it) is measured too, for comparison, as C3-.

use std::path::Path;
use std::time::Instant;

use rusqlite::Connection;

use crate::report::{count, median, rate, Report};

/// The ceilings measured in this run, in rows or jobs per second.
pub struct Ceilings {
    /// C1: one INSERT per commit.
    pub insert: f64,
    /// CB: 1000 INSERTs per commit.
    pub insert_batch: f64,
    /// C3: a job as insert, claim, complete, one commit each.
    pub per_step: f64,
    /// C3-: the same without lease recovery.
    pub per_step_lossy: f64,
    /// C3q: the same on the queue's own table and indexes.
    pub per_step_schema: f64,
    /// CG: insert 1000 per commit, then claim 16 + complete 16 per commit.
    pub grouped: f64,
}

fn connect(dir: &Path) -> Connection {
    let conn = Connection::open(dir.join("raw.db")).unwrap();
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
    // As the queue does: plans that do not peek at bound values, so a cached claim
    // statement is not re-prepared for every new `now` (rusqlite's SQLite has STAT4).
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .unwrap();
    conn
}

/// The smallest table a queue can work with. With `leases`, one partial index over
/// queued and running jobs (claims seek queued ones; a sweep finds running ones whose
/// lease ran out); without, an index of queued jobs only.
fn minimal_queue(conn: &Connection, leases: bool) {
    conn.execute_batch(
        "CREATE TABLE jobs (
             id INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL,
             status TEXT NOT NULL, priority INTEGER NOT NULL, run_at INTEGER NOT NULL,
             attempts INTEGER NOT NULL DEFAULT 0, lease_expires_at INTEGER);",
    )
    .unwrap();
    conn.execute_batch(if leases {
        "CREATE INDEX active ON jobs (status DESC, priority DESC, run_at, id, lease_expires_at)
             WHERE status = 'queued' OR status = 'running';"
    } else {
        "CREATE INDEX ready ON jobs (priority DESC, run_at, id) WHERE status = 'queued';"
    })
    .unwrap();
}

/// The queue's own schema, made by opening a queue on the file.
fn queue_schema(dir: &Path) -> Connection {
    drop(tauri_plugin_jobs::queue::Queue::open(dir.join("raw.db"), Default::default()).unwrap());
    connect(dir)
}

/// Insert, claim, complete on the queue's schema: the columns and indexes each
/// step must write, with none of the queue's checks or bookkeeping.
fn schema_step(conn: &Connection, i: usize) {
    in_txn(conn, || {
        conn.prepare_cached(
            "INSERT INTO jobs (kind, payload, status, priority, run_at, max_attempts, actor,
                               created_at, updated_at)
             VALUES ('k', ?1, 'queued', 50, ?2, 5, 'system', ?2, ?2)",
        )
        .unwrap()
        .execute(rusqlite::params![format!("{{\"n\":{i}}}"), i as i64])
        .unwrap();
    });
    let id: i64 = in_txn(conn, || {
        let id = conn
            .prepare_cached(
                // The queue's claim reads one lane of `needs` (0: no constraints).
                "SELECT id FROM jobs
                 WHERE status = 'queued' AND kind = 'k' AND needs = 0 AND run_at <= ?1
                 ORDER BY priority DESC, run_at, id LIMIT 1",
            )
            .unwrap()
            .query_row([i as i64], |r| r.get(0))
            .unwrap();
        conn.prepare_cached(
            "UPDATE jobs SET status = 'running', lease_owner = 'w', lease_expires_at = ?2,
             attempts = attempts + 1, updated_at = ?2 WHERE id = ?1",
        )
        .unwrap()
        .execute(rusqlite::params![id, i as i64 + 30_000])
        .unwrap();
        id
    });
    in_txn(conn, || {
        conn.prepare_cached(
            "UPDATE jobs SET status = 'succeeded', finished_at = ?2, updated_at = ?2,
             lease_owner = NULL, lease_expires_at = NULL WHERE id = ?1 AND status = 'running'",
        )
        .unwrap()
        .execute(rusqlite::params![id, i as i64])
        .unwrap();
    });
}

fn insert(conn: &Connection, i: usize) {
    conn.prepare_cached(
        "INSERT INTO jobs (kind, payload, status, priority, run_at) VALUES ('k', ?1, 'queued', 50, ?2)",
    )
    .unwrap()
    .execute(rusqlite::params![format!("{{\"n\":{i}}}"), i as i64])
    .unwrap();
}

/// Claims up to `n` jobs; returns their ids.
fn claim(conn: &Connection, n: usize, now: i64) -> Vec<i64> {
    let ids: Vec<i64> = conn
        .prepare_cached(
            "SELECT id FROM jobs WHERE status = 'queued' AND run_at <= ?1
             ORDER BY priority DESC, run_at, id LIMIT ?2",
        )
        .unwrap()
        .query_map(rusqlite::params![now, n as i64], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut update = conn
        .prepare_cached(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_expires_at = ?2
             WHERE id = ?1",
        )
        .unwrap();
    for id in &ids {
        update.execute(rusqlite::params![id, now + 30_000]).unwrap();
    }
    ids
}

fn complete(conn: &Connection, id: i64) {
    conn.prepare_cached(
        "UPDATE jobs SET status = 'succeeded' WHERE id = ?1 AND status = 'running'",
    )
    .unwrap()
    .execute([id])
    .unwrap();
}

fn in_txn<T>(conn: &Connection, work: impl FnOnce() -> T) -> T {
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = work();
    conn.execute_batch("COMMIT").unwrap();
    out
}

/// C1, one run.
fn insert_once(n: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let conn = connect(dir.path());
    minimal_queue(&conn, true);
    let started = Instant::now();
    for i in 0..n {
        insert(&conn, i);
    }
    rate(n, started.elapsed())
}

/// Inserts `n` jobs, 1000 per commit.
fn insert_batches(conn: &Connection, n: usize) {
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        in_txn(conn, || chunk.iter().for_each(|&i| insert(conn, i)));
    }
}

/// CB, one run.
fn insert_batch_once(n: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let conn = connect(dir.path());
    minimal_queue(&conn, true);
    let started = Instant::now();
    insert_batches(&conn, n);
    rate(n, started.elapsed())
}

/// C3 (or C3- without `leases`), one run.
pub fn per_step_once(n: usize, leases: bool) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let conn = connect(dir.path());
    minimal_queue(&conn, leases);
    let started = Instant::now();
    for i in 0..n {
        in_txn(&conn, || insert(&conn, i));
        let ids = in_txn(&conn, || claim(&conn, 1, i64::MAX / 2));
        in_txn(&conn, || complete(&conn, ids[0]));
    }
    rate(n, started.elapsed())
}

/// C3q, one run.
pub fn per_step_schema_once(n: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let conn = queue_schema(dir.path());
    let started = Instant::now();
    for i in 0..n {
        schema_step(&conn, i);
    }
    rate(n, started.elapsed())
}

/// CG, one run.
pub fn grouped_once(n: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let conn = connect(dir.path());
    minimal_queue(&conn, true);
    let started = Instant::now();
    insert_batches(&conn, n);
    // Each commit completes the previous claim and claims the next 16.
    let mut held: Vec<i64> = Vec::new();
    loop {
        let claimed = in_txn(&conn, || {
            held.iter().for_each(|&id| complete(&conn, id));
            claim(&conn, 16, i64::MAX / 2)
        });
        if claimed.is_empty() {
            break;
        }
        held = claimed;
    }
    rate(n, started.elapsed())
}

/// Figures that carry a target are measured in pairs with their ceiling, each run of
/// ours right after a run of the ceiling, so that a noisy neighbour on the machine
/// slows both alike. Returns the median of ours and the median of the ratios.
pub struct Paired {
    ours: Vec<f64>,
    ratios: Vec<f64>,
}

impl Paired {
    pub fn new() -> Self {
        Paired {
            ours: Vec::new(),
            ratios: Vec::new(),
        }
    }

    pub fn add(&mut self, ceiling: f64, ours: f64) {
        self.ours.push(ours);
        self.ratios.push(ours / ceiling);
    }

    /// (median of ours, median ratio).
    pub fn result(self) -> (f64, f64) {
        (median(self.ours), median(self.ratios))
    }
}

/// A figure measured one commit per step, against C3 and C3q run just before it
/// each time. Adds its row with the target ">= 90% of C3".
pub struct PerStep {
    c3: Paired,
    c3q: Paired,
}

impl PerStep {
    pub fn new() -> Self {
        PerStep {
            c3: Paired::new(),
            c3q: Paired::new(),
        }
    }

    /// Runs both ceilings once; pass their rates to [`PerStep::add`] with ours.
    pub fn ceilings(n: usize) -> (f64, f64) {
        (per_step_once(n, true), per_step_schema_once(n))
    }

    pub fn add(&mut self, (c3, c3q): (f64, f64), ours: f64) {
        self.c3.add(c3, ours);
        self.c3q.add(c3q, ours);
    }

    /// Adds the row; with `checked`, against the target ">= 90% of C3".
    pub fn row(self, report: &mut Report, name: &str, checked: bool) {
        let (value, vs_c3) = self.c3.result();
        let (_, vs_c3q) = self.c3q.result();
        let ratio = format!("{:.0}% of C3, {:.0}% of C3q", vs_c3 * 100.0, vs_c3q * 100.0);
        if checked {
            report.checked(name, count(value), ratio, ">= 90% of C3", vs_c3 >= 0.9);
        } else {
            report.compared(name, count(value), ratio);
        }
    }
}

pub fn measure(report: &mut Report) -> Ceilings {
    if std::env::var_os("BENCH_NO_CEILINGS").is_some() {
        // For a profiler: the rows alone, their shares of a ceiling left as NaN.
        return Ceilings {
            insert: f64::NAN,
            insert_batch: f64::NAN,
            per_step: f64::NAN,
            per_step_lossy: f64::NAN,
            per_step_schema: f64::NAN,
            grouped: f64::NAN,
        };
    }
    let n = report.jobs;
    let runs = report.repeat;
    let repeat = |f: fn(usize) -> f64| median((0..runs).map(|_| f(n)).collect());
    let insert_rate = repeat(insert_once);
    let insert_batch = repeat(insert_batch_once);
    let per_step = repeat(|n| per_step_once(n, true));
    let per_step_lossy = repeat(|n| per_step_once(n, false));
    let per_step_schema = repeat(per_step_schema_once);
    let grouped = repeat(grouped_once);
    let ceilings = Ceilings {
        insert: insert_rate,
        insert_batch,
        per_step,
        per_step_lossy,
        per_step_schema,
        grouped,
    };
    report.info(
        "**C1** raw SQLite: one INSERT per commit (rows/s)",
        count(ceilings.insert),
    );
    report.info(
        "**CB** raw SQLite: 1000 INSERTs per commit (rows/s)",
        count(ceilings.insert_batch),
    );
    report.info(
        "**C3** raw SQLite queue with leases: insert, claim, complete, one commit each (jobs/s)",
        count(ceilings.per_step),
    );
    report.info(
        "**C3-** the same without lease recovery: a claimed job leaves every index, a dead worker's job is lost (jobs/s)",
        count(ceilings.per_step_lossy),
    );
    report.info(
        "**C3q** raw SQLite, the queue's own table and indexes: insert, claim, complete, one commit each (jobs/s)",
        count(ceilings.per_step_schema),
    );
    report.info(
        "**CG** raw SQLite queue with leases: insert 1000 per commit, claim 16 + complete 16 per commit (jobs/s)",
        count(ceilings.grouped),
    );
    ceilings
}
