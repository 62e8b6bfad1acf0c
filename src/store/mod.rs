//! `raw.db`: opening it safely, its schema, and the SQL that reads and writes it.
//!
//! Nothing above this module writes SQL. Opening a file never overwrites or recreates
//! it: a file that is not a database, is corrupt, belongs to another program or comes
//! from a newer version is refused with a typed error naming it, before anything is
//! written (see `identity`).
//!
//! Every connection runs in WAL mode (read back and checked: SQLite ignores a pragma it
//! does not understand, and a queue in rollback-journal mode is several times slower),
//! with a busy timeout, and writes with `BEGIN IMMEDIATE` so two writers never deadlock
//! upgrading a read lock. `SQLITE_BUSY` is retried here, never turned into a failed job.

pub(crate) mod history;
mod identity;
pub(crate) mod integrity;
pub(crate) mod jobs;
pub(crate) mod kv;
pub(crate) mod schedules;
mod schema;
mod space;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};

use crate::error::{Error, Result};

use identity::{Found, APPLICATION_ID};
use integrity::Verdict;
pub(crate) use schema::CURRENT_VERSION;

/// How hard SQLite works to make each commit durable.
///
/// With WAL both keep the file consistent through any crash. `Normal` (the default)
/// survives a crash of the app with nothing lost; after a power cut or an OS crash the
/// last few commits may be rolled back. `Full` keeps those too, at about 4.5 times the
/// cost per commit on this class of machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Synchronous {
    /// `PRAGMA synchronous = NORMAL`.
    #[default]
    Normal,
    /// `PRAGMA synchronous = FULL`.
    Full,
}

impl Synchronous {
    fn pragma_value(self) -> i64 {
        match self {
            Synchronous::Normal => 1,
            Synchronous::Full => 2,
        }
    }
}

impl std::str::FromStr for Synchronous {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "normal" => Ok(Synchronous::Normal),
            "full" => Ok(Synchronous::Full),
            other => Err(format!("expected \"normal\" or \"full\", found {other:?}")),
        }
    }
}

/// How a connection to `raw.db` is opened.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StoreOptions {
    /// Durability of each commit.
    pub synchronous: Synchronous,
    /// How long one statement waits for another connection's write lock.
    pub busy_timeout: Duration,
    /// How long a write keeps retrying `SQLITE_BUSY` before giving up with
    /// [`Error::Busy`].
    pub busy_deadline: Duration,
    /// A cap on the file's size in pages (`PRAGMA max_page_count`); writes past it
    /// fail with [`Error::Full`] and change nothing. `None`: SQLite's own limit.
    pub max_page_count: Option<u64>,
    /// How long after open a file too large to check at open is checked in the
    /// background.
    pub integrity_delay: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            synchronous: Synchronous::Normal,
            busy_timeout: Duration::from_secs(5),
            busy_deadline: Duration::from_secs(60),
            max_page_count: None,
            integrity_delay: integrity::DEFAULT_DELAY,
        }
    }
}

/// Where the file's own id is kept ([`Store::file_id`]).
const FILE_ID_KEY: &str = "queue.file_id";

/// Draws the file's id, unless it has one: 16 bytes from SQLite's `randomblob` (the
/// injected randomness, which only jitters delays and which a test may pin: two files
/// must never share an id), as a JSON string of 32 hex digits.
const FILE_ID_INSERT: &str = "INSERT OR IGNORE INTO kv (key, value, updated_at) \
     VALUES ('queue.file_id', '\"' || lower(hex(randomblob(16))) || '\"', 0)";

/// One open connection to `raw.db`, checked and migrated.
#[derive(Debug)]
pub(crate) struct Store {
    conn: Connection,
    path: PathBuf,
    busy_deadline: Duration,
    busy_timeout: Duration,
    checked_at_open: bool,
}

impl Store {
    /// Opens (creating if missing) and migrates the database at `path`.
    pub(crate) fn open(path: &Path, options: &StoreOptions) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        // Look before writing anything: this is where a foreign, damaged or newer
        // file shows, and it is left as it is.
        if let Found::Ours { version } = identity::inspect(path)? {
            if version > CURRENT_VERSION {
                return Err(Error::NewerSchema {
                    path: path.to_owned(),
                    found: version,
                    supported: CURRENT_VERSION,
                });
            }
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| at_open(path, e))?;
        conn.busy_timeout(options.busy_timeout)
            .map_err(|e| at_open(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
            busy_deadline: options.busy_deadline,
            busy_timeout: options.busy_timeout,
            checked_at_open: false,
        };
        store.set_pragmas(options)?;
        history::register(&store.conn).map_err(|e| at_open(path, e))?;
        store.migrate()?;
        store.checked_at_open = store.check_if_small()?;
        store.fit_wal_to_disk();
        if let Some(pages) = options.max_page_count {
            store
                .conn
                .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
                .map_err(|e| at_open(&store.path, e))?;
        }
        // 8 MiB of page cache (the default is 2): the queue's indexes stay in memory
        // with a million finished rows in the table.
        tune(&store.conn, &store.path, 8192)?;
        Ok(store)
    }

    /// A second connection on the same file for reads alone, so that a read (a
    /// window's page of jobs, its counts) never waits behind this connection's writes:
    /// in WAL mode readers and the writer do not block each other. Set up like this
    /// one for reads (busy timeout, fixed query plans, statement cache; a smaller page
    /// cache).
    pub(crate) fn open_reader(&self) -> Result<Connection> {
        let path = &self.path;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| at_open(path, e))?;
        conn.busy_timeout(self.busy_timeout)
            .map_err(|e| at_open(path, e))?;
        tune(&conn, path, 4096)?;
        Ok(conn)
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for the store's own tests.
    #[cfg(test)]
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `read` on the connection; a corrupt page it meets is reported naming the
    /// file.
    pub(crate) fn read<T>(&self, read: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        read(&self.conn).map_err(|error| error.in_file(&self.path))
    }

    /// Runs `work` in one `BEGIN IMMEDIATE` transaction and commits it. On
    /// `SQLITE_BUSY` the whole transaction is retried until the busy deadline; `work`
    /// may therefore run more than once and must not have effects outside the database.
    pub(crate) fn write<T>(
        &mut self,
        mut work: impl FnMut(&Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        // The retries below are the same for every caller: compiled once, with the
        // caller's work behind a `dyn` (one indirect call a transaction), not once per
        // closure type.
        let mut value = None;
        self.write_dyn(&mut |tx| {
            value = Some(work(tx)?);
            Ok(())
        })?;
        // Set by the attempt that committed: `write_dyn` is Ok only after one did.
        Ok(value.expect("a committed write ran its work"))
    }

    fn write_dyn(&mut self, work: &mut dyn FnMut(&Transaction<'_>) -> Result<()>) -> Result<()> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            let mut attempt = self.try_write(&mut *work);
            if matches!(attempt, Err(Error::Full { .. })) && self.make_room() {
                // The log was checkpointed and truncated: the room it held is free.
                attempt = self.try_write(&mut *work);
            }
            match attempt.map_err(|error| error.in_file(&self.path)) {
                Err(Error::Busy { .. }) if started.elapsed() < self.busy_deadline => {
                    // Sleeping a little longer each time keeps two cores from spinning
                    // against each other; SQLite's own busy handler already waited.
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                Err(Error::Busy { .. }) => {
                    return Err(Error::Busy {
                        waited_ms: started.elapsed().as_millis() as u64,
                    })
                }
                other => return other,
            }
        }
    }

    /// Sets the WAL's checkpoint threshold from the free space on the disk (see
    /// `space`). Best effort: a setting that does not take changes nothing else.
    fn fit_wal_to_disk(&mut self) {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let page_size = self
            .conn
            .query_row("PRAGMA page_size", [], |row| row.get::<_, i64>(0))
            .map_or(4096, |size| size.max(512) as u64);
        let pages = space::checkpoint_pages(dir, page_size);
        let _ = self
            .conn
            .query_row(&format!("PRAGMA wal_autocheckpoint = {pages}"), [], |_| {
                Ok(())
            });
        let _ = self.conn.query_row(
            &format!("PRAGMA journal_size_limit = {}", pages * page_size),
            [],
            |_| Ok(()),
        );
    }

    /// Copies the write-ahead log into the main file and truncates it; whether every
    /// frame went (another connection reading an older snapshot can hold some back).
    pub(crate) fn checkpoint(&mut self) -> Result<bool> {
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))
            .map_err(|error| Error::from(error).in_file(&self.path))?;
        Ok(busy == 0)
    }

    /// After a write met a full disk: checkpoints the WAL into the main file and
    /// truncates it, and fits the checkpoint threshold to the room left. Returns
    /// whether the checkpoint went through, so the write is worth one more try.
    fn make_room(&mut self) -> bool {
        let done = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                row.get::<_, i64>(0)
            })
            .is_ok_and(|busy| busy == 0);
        self.fit_wal_to_disk();
        done
    }

    fn try_write(&mut self, work: &mut dyn FnMut(&Transaction<'_>) -> Result<()>) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        work(&tx)?;
        tx.commit()?;
        Ok(())
    }

    fn set_pragmas(&mut self, options: &StoreOptions) -> Result<()> {
        let path = self.path.clone();
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(|e| at_open(&path, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::PragmaNotApplied {
                path,
                pragma: "journal_mode",
                expected: "wal".into(),
                actual: mode,
            });
        }
        let wanted = options.synchronous.pragma_value();
        self.conn
            .pragma_update(None, "synchronous", wanted)
            .map_err(|e| at_open(&path, e))?;
        let actual: i64 = self
            .conn
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .map_err(|e| at_open(&path, e))?;
        if actual != wanted {
            return Err(Error::PragmaNotApplied {
                path,
                pragma: "synchronous",
                expected: wanted.to_string(),
                actual: actual.to_string(),
            });
        }
        Ok(())
    }

    fn migrate(&mut self) -> Result<()> {
        let path = self.path.clone();
        self.write(|tx| {
            // Look again inside the lock, now with everything committed in view (the
            // first look read the main file only): another process may have migrated
            // meanwhile, or made the file its own.
            let read = |sql: &str| -> Result<i64> { Ok(tx.query_row(sql, [], |row| row.get(0))?) };
            let (application_id, version) =
                (read("PRAGMA application_id")?, read("PRAGMA user_version")?);
            let tables = identity::tables(tx)?;
            let version = match identity::classify(&path, application_id, version, &tables)? {
                Found::Empty => 0,
                Found::Ours { version } if version > CURRENT_VERSION => {
                    return Err(Error::NewerSchema {
                        path: path.clone(),
                        found: version,
                        supported: CURRENT_VERSION,
                    });
                }
                Found::Ours { version } => version,
            };
            for (index, sql) in schema::MIGRATIONS.iter().enumerate().skip(version as usize) {
                tx.execute_batch(sql)?;
                tx.pragma_update(None, "user_version", index as i64 + 1)?;
            }
            if application_id != i64::from(APPLICATION_ID) {
                tx.pragma_update(None, "application_id", APPLICATION_ID)?;
            }
            // The file's own id (a row, not a migration: a build that knows no such
            // row opens the file as before).
            tx.prepare_cached(FILE_ID_INSERT)?.execute([])?;
            Ok(())
        })
    }

    /// The file's own id: 32 hex digits drawn when it was made, or first opened by a
    /// build that knows them (`kv` `queue.file_id`; `""` if a hand removed the row
    /// since).
    pub(crate) fn file_id(&self) -> Result<String> {
        let stored = kv::get(&self.conn, FILE_ID_KEY)?;
        Ok(stored
            .and_then(|text| serde_json::from_str::<String>(&text).ok())
            .unwrap_or_default())
    }

    /// Checks the whole file at open when it is small (see [`integrity`]): damage
    /// refuses the open. Returns whether it was checked; a larger file (or one whose
    /// check ran out of time) is left to the check in the background.
    fn check_if_small(&mut self) -> Result<bool> {
        if !integrity::small(&self.conn).map_err(|e| at_open(&self.path, e))? {
            return Ok(false);
        }
        let deadline = Instant::now() + integrity::AT_OPEN_BUDGET;
        match integrity::quick_check(&self.conn, deadline, None) {
            Ok(Verdict::Ok) => Ok(true),
            Ok(Verdict::Damaged(problem)) => Err(Error::Corrupt {
                path: self.path.clone(),
                detail: problem,
            }),
            Ok(Verdict::OutOfTime) => Ok(false),
            Err(error) => Err(at_open(&self.path, error)),
        }
    }

    /// Whether the whole file was checked at open.
    pub(crate) fn checked_at_open(&self) -> bool {
        self.checked_at_open
    }
}

/// What every connection of ours gets beside its pragmas: a statement cache for the
/// hot paths of every module, fixed query plans, and `cache_kib` of page cache.
fn tune(conn: &Connection, path: &Path, cache_kib: i64) -> Result<()> {
    conn.set_prepared_statement_cache_capacity(64);
    // Query plans that never depend on bound values. Without this, SQLite's STAT4
    // build (rusqlite's bundled one) re-prepares a cached statement whenever a value
    // compared with an indexed column changes (`run_at <= ?`, on every claim):
    // measured at 4% of a batched claim. The queue's plans are fixed by its partial
    // indexes anyway.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map_err(|e| at_open(path, e))?;
    conn.pragma_update(None, "cache_size", -cache_kib)
        .map_err(|e| at_open(path, e))?;
    Ok(())
}

/// Sorts an error met while opening into the typed cases, naming the file.
pub(crate) fn at_open(path: &Path, error: rusqlite::Error) -> Error {
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase {
            path: path.to_owned(),
        },
        Some(ErrorCode::ReadOnly) => Error::ReadOnly {
            detail: format!("{}: {error}", path.display()),
        },
        Some(ErrorCode::CannotOpen) => Error::Io {
            path: path.to_owned(),
            source: std::io::Error::other(error.to_string()),
        },
        _ => match Error::from(error) {
            // Whatever else went wrong at open is about this file: say which.
            Error::Sqlite(error) => Error::Io {
                path: path.to_owned(),
                source: std::io::Error::other(error.to_string()),
            },
            Error::Full { detail } => Error::Full {
                detail: format!("{}: {detail}", path.display()),
            },
            other => other.in_file(path),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_file_is_wal_and_current() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("raw.db"), &StoreOptions::default()).unwrap();
        let mode: String = store
            .conn()
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let version: i64 = store
            .conn()
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, CURRENT_VERSION);
    }

    #[test]
    fn the_claims_seek_reads_jobs_in_claim_order_from_the_index_with_no_sort() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("raw.db"), &StoreOptions::default()).unwrap();
        let plan_of = |seek: &str| -> String {
            let plan: Vec<String> = store
                .conn()
                .prepare(&format!("EXPLAIN QUERY PLAN {seek}"))
                .unwrap()
                .query_map([1, 2, 3, 4], |row| row.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            plan.join("; ")
        };
        let plan = plan_of(jobs::CANDIDATES);
        assert!(plan.contains("USING COVERING INDEX jobs_active"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        // The runner's seek reads the rows it will claim, in the same order.
        let plan = plan_of(jobs::CANDIDATES_TO_START);
        assert!(plan.contains("USING INDEX jobs_active"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }

    #[test]
    fn full_synchronous_is_applied() {
        let dir = tempfile::tempdir().unwrap();
        let options = StoreOptions {
            synchronous: Synchronous::Full,
            ..StoreOptions::default()
        };
        let store = Store::open(&dir.path().join("raw.db"), &options).unwrap();
        let value: i64 = store
            .conn()
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .unwrap();
        assert_eq!(value, 2);
    }

    #[test]
    fn reopening_does_not_migrate_twice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("raw.db");
        drop(Store::open(&path, &StoreOptions::default()).unwrap());
        let store = Store::open(&path, &StoreOptions::default()).unwrap();
        let tables: i64 = store
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'jobs'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(tables, 1);
    }

    #[test]
    fn version_3_files_keep_their_jobs_and_checks_through_migration_4() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("raw.db");
        {
            let conn = Connection::open(&path).unwrap();
            for sql in &schema::MIGRATIONS[..3] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", 3).unwrap();
            conn.execute_batch(
                "INSERT INTO jobs (id, kind, payload, status, priority, run_at, max_attempts,
                                   dedupe_key, actor, created_at, updated_at)
                 VALUES (7, 'mail', '{\"to\":1}', 'queued', 50, 10, 5, 'k1', 'user', 1, 2)",
            )
            .unwrap();
        }
        let store = Store::open(&path, &StoreOptions::default()).unwrap();
        let row: (i64, String, String, String) = store
            .conn()
            .query_row(
                "SELECT id, payload, dedupe_key, actor FROM jobs WHERE kind = 'mail'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(row, (7, "{\"to\":1}".into(), "k1".into(), "user".into()));
        // The checks still refuse what they refused, and the dedupe index still holds.
        let bad_status = store
            .conn()
            .execute("UPDATE jobs SET status = 'paused' WHERE id = 7", []);
        assert!(bad_status.unwrap_err().to_string().contains("CHECK"));
        let duplicate = store.conn().execute(
            "INSERT INTO jobs (kind, payload, status, priority, run_at, max_attempts,
                               dedupe_key, actor, created_at, updated_at)
             VALUES ('mail', '{}', 'running', 50, 10, 5, 'k1', 'agent', 1, 2)",
            [],
        );
        assert!(duplicate.unwrap_err().to_string().contains("UNIQUE"));
        let indexes: i64 = store
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'
                 AND name LIKE 'jobs_%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            indexes, 4,
            "jobs_active, jobs_dedupe, jobs_parent, jobs_ended_badly"
        );
    }

    /// The counts a full scan gives, to compare with `jobs::counts`.
    fn scanned_counts(conn: &Connection) -> Vec<(String, String, i64)> {
        let mut statement = conn
            .prepare("SELECT kind, status, count(*) FROM jobs GROUP BY kind, status ORDER BY kind, status")
            .unwrap();
        let rows = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    }

    fn kept_counts(conn: &Connection) -> Vec<(String, String, i64)> {
        jobs::counts(conn)
            .unwrap()
            .into_iter()
            .map(|c| (c.kind, c.status.as_str().to_owned(), i64::from(c.count)))
            .collect()
    }

    #[test]
    fn migration_8_counts_the_finished_jobs_already_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("raw.db");
        {
            let conn = Connection::open(&path).unwrap();
            for sql in &schema::MIGRATIONS[..7] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", 7).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID)
                .unwrap();
            conn.execute_batch(
                "INSERT INTO jobs (kind, payload, status, priority, run_at, max_attempts,
                                   actor, created_at, updated_at)
                 VALUES ('a', '{}', 'succeeded', 50, 1, 5, 'user', 1, 1),
                        ('a', '{}', 'succeeded', 50, 1, 5, 'user', 1, 1),
                        ('a', '{}', 'failed', 50, 1, 5, 'user', 1, 1),
                        ('b', '{}', 'cancelled', 50, 1, 5, 'user', 1, 1),
                        ('b', '{}', 'queued', 50, 1, 5, 'user', 1, 1),
                        ('b', '{}', 'running', 50, 1, 5, 'user', 1, 1)",
            )
            .unwrap();
        }
        let store = Store::open(&path, &StoreOptions::default()).unwrap();
        let conn = store.conn();
        assert_eq!(kept_counts(conn), scanned_counts(conn));
        assert_eq!(kept_counts(conn), scanned_counts(conn));
    }

    #[test]
    fn synchronous_parses_case_insensitively() {
        assert_eq!("FULL".parse::<Synchronous>(), Ok(Synchronous::Full));
        assert!("fast".parse::<Synchronous>().unwrap_err().contains("fast"));
    }
}
