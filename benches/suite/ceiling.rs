//! The raw SQLite ceilings: the least SQL a job queue must run, written straight
//! against rusqlite with cached statements, no checks, no events, one thread. Every
//! other figure is read as a share of one of these, measured in the same run.

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

/// The smallest table a queue can work with: a partial index of ready jobs.
fn minimal_queue(conn: &Connection) {
    conn.execute_batch(
        "CREATE TABLE jobs (
             id INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL,
             status TEXT NOT NULL, priority INTEGER NOT NULL, run_at INTEGER NOT NULL,
             attempts INTEGER NOT NULL DEFAULT 0, lease_expires_at INTEGER);
         CREATE INDEX ready ON jobs (priority DESC, run_at, id) WHERE status = 'queued';",
    )
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
                "SELECT id FROM jobs
                 WHERE status = 'queued' AND kind = 'k' AND run_at <= ?1
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

pub fn measure(report: &mut Report) -> Ceilings {
    let n = report.jobs;
    let runs = report.repeat;
    let insert_rate = median(
        (0..runs)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let conn = connect(dir.path());
                minimal_queue(&conn);
                let started = Instant::now();
                for i in 0..n {
                    insert(&conn, i);
                }
                rate(n, started.elapsed())
            })
            .collect(),
    );
    let insert_batch = median(
        (0..runs)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let conn = connect(dir.path());
                minimal_queue(&conn);
                let started = Instant::now();
                for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
                    in_txn(&conn, || chunk.iter().for_each(|&i| insert(&conn, i)));
                }
                rate(n, started.elapsed())
            })
            .collect(),
    );
    let per_step = median(
        (0..runs)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let conn = connect(dir.path());
                minimal_queue(&conn);
                let started = Instant::now();
                for i in 0..n {
                    in_txn(&conn, || insert(&conn, i));
                    let ids = in_txn(&conn, || claim(&conn, 1, i64::MAX / 2));
                    in_txn(&conn, || complete(&conn, ids[0]));
                }
                rate(n, started.elapsed())
            })
            .collect(),
    );
    let per_step_schema = median(
        (0..runs)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let conn = queue_schema(dir.path());
                let started = Instant::now();
                for i in 0..n {
                    schema_step(&conn, i);
                }
                rate(n, started.elapsed())
            })
            .collect(),
    );
    let grouped = median(
        (0..runs)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let conn = connect(dir.path());
                minimal_queue(&conn);
                let started = Instant::now();
                for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
                    in_txn(&conn, || chunk.iter().for_each(|&i| insert(&conn, i)));
                }
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
            })
            .collect(),
    );
    let ceilings = Ceilings {
        insert: insert_rate,
        insert_batch,
        per_step,
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
        "**C3** raw SQLite queue: insert, claim, complete, one commit each (jobs/s)",
        count(ceilings.per_step),
    );
    report.info(
        "**C3q** raw SQLite, the queue's own table and indexes: insert, claim, complete, one commit each (jobs/s)",
        count(ceilings.per_step_schema),
    );
    report.info(
        "**CG** raw SQLite queue: insert 1000 per commit, claim 16 + complete 16 per commit (jobs/s)",
        count(ceilings.grouped),
    );
    ceilings
}
