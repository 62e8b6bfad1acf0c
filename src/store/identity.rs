//! Recognising our own file before anything is written to it.
//!
//! A `raw.db` of ours carries our `application_id` in its header (since schema
//! version 5); older ones are recognised by their `user_version` and the exact set of
//! tables that version has. Only an absent file, an empty one, or one of ours is
//! opened for writing; anything else is refused as it is. The look is taken through an
//! immutable, read-only connection, which reads the main file and nothing else: no
//! lock, no `-wal` or `-shm` file is touched.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::at_open;
use super::schema::{tables_at, CURRENT_VERSION};
use crate::error::{Error, Result};

/// The `application_id` in the header of every `raw.db` of ours: "JOBS" in ASCII.
pub(crate) const APPLICATION_ID: i32 = 0x4A4F_4253;

/// How long a look through the write-ahead log waits for SQLite's locks.
const LOOK_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The smallest SQLite database: one page of the smallest page size.
const MIN_DATABASE_LEN: u64 = 512;

/// What is at a path, as far as the queue is concerned.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// Nothing, or a file of zero bytes, or a database without a single table: a new
    /// queue may be made there.
    Empty,
    /// Ours, at this schema version (perhaps newer than this build).
    Ours { version: i64 },
}

/// Looks at the file at `path` without changing anything, and says whether it is ours.
/// A file that is not a database, is damaged, or belongs to another program is an
/// error naming it.
pub(crate) fn inspect(path: &Path) -> Result<Found> {
    let len = match std::fs::metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Empty),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_owned(),
                source,
            })
        }
        Ok(meta) if meta.is_dir() => {
            return Err(Error::Io {
                path: path.to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::IsADirectory,
                    "a directory, not a database file",
                ),
            })
        }
        Ok(meta) => meta.len(),
    };
    if len == 0 {
        return Ok(Found::Empty);
    }
    // A database is at least one page, and pages are at least 512 bytes. SQLite takes
    // a shorter file for an empty database and would write over it. Anything longer
    // has its header checked by SQLite itself (`SQLITE_NOTADB` without the magic
    // string). The file is never opened outside SQLite: on POSIX systems, closing any
    // descriptor of a file drops every lock this process holds on it, the locks of
    // the app's other connections to it included (SQLite keeps its own descriptors
    // open while one of its connections holds a lock).
    if len < MIN_DATABASE_LEN {
        return Err(Error::NotADatabase {
            path: path.to_owned(),
        });
    }
    let found = match look(path, true, Some(len)) {
        // The main file alone is malformed while a write-ahead log holds commits:
        // another connection may be in the middle of a checkpoint, which writes the
        // log's pages into the file in page order (page 1, whose header gives the
        // database's size, before the pages past the file's old end). Look again
        // through the log, under SQLite's locks: a file that is damaged is damaged
        // there too. (A cut-short file is refused again by the same check.)
        Err(Error::Corrupt { .. }) if wal_has_frames(path) => {
            return look(path, false, Some(len));
        }
        found => found?,
    };
    // The main file alone looks empty, but a write-ahead log holds commits: look
    // again through the log. (Only here and above can the look touch the `-shm`
    // index, and only of a file whose log holds commits.)
    if found == Found::Empty && wal_has_frames(path) {
        return look(path, false, None);
    }
    Ok(found)
}

/// Reads the header values and tables through a read-only connection: `immutable`
/// reads the main file only. With the file's length, a file that says it is ours and
/// is not a whole number of its pages is refused as cut short (SQLite writes whole
/// pages; a copy stopped midway or a disk filled outside SQLite leaves a part of one,
/// and the file would open as if nothing had happened).
fn look(path: &Path, immutable: bool, len: Option<u64>) -> Result<Found> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri(path, immutable), flags)
        .map_err(|error| at_open(path, error))?;
    if !immutable {
        // Through the log, a reader may wait for a moment behind another process
        // that is recovering it.
        conn.busy_timeout(LOOK_BUSY_TIMEOUT)
            .map_err(|error| at_open(path, error))?;
    }
    let read = |sql: &str| -> Result<i64> {
        conn.query_row(sql, [], |row| row.get(0))
            .map_err(|error| at_open(path, error))
    };
    let application_id = read("PRAGMA application_id")?;
    let version = read("PRAGMA user_version")?;
    let page_size = u64::try_from(read("PRAGMA page_size")?).unwrap_or(0);
    if let Some(len) = len.filter(|_| application_id == i64::from(APPLICATION_ID)) {
        if page_size > 0 && len % page_size != 0 {
            return Err(Error::Corrupt {
                path: path.to_owned(),
                detail: format!(
                    "{len} bytes is not a whole number of its {page_size}-byte pages: the \
                     file was cut short"
                ),
            });
        }
    }
    let tables = tables(&conn).map_err(|error| at_open(path, error))?;
    classify(path, application_id, version, &tables)
}

/// Whether the write-ahead log next to `path` holds more than its 32-byte header.
fn wal_has_frames(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).is_ok_and(|meta| meta.len() > 32)
}

/// The tables of the database behind `conn` (SQLite's own left out).
pub(crate) fn tables(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    let mut statement = conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )?;
    let names = statement.query_map([], |row| row.get(0))?;
    names.collect()
}

/// Decides what a file with these header values and tables is.
pub(crate) fn classify(
    path: &Path,
    application_id: i64,
    version: i64,
    tables: &BTreeSet<String>,
) -> Result<Found> {
    let foreign = |reason: String| {
        Err(Error::Foreign {
            path: path.to_owned(),
            reason,
        })
    };
    let ours = application_id == i64::from(APPLICATION_ID);
    if !ours && application_id != 0 {
        return foreign(format!(
            "its application id is {application_id:#x}, not this plugin's"
        ));
    }
    if !ours && version == 0 && tables.is_empty() {
        return Ok(Found::Empty);
    }
    if ours && version > CURRENT_VERSION {
        return Ok(Found::Ours { version });
    }
    if !(1..=CURRENT_VERSION).contains(&version) {
        return foreign(format!(
            "its schema version is {version}, which this plugin never wrote, and it holds \
             {}",
            list(tables)
        ));
    }
    let expected = tables_at(version);
    if *tables != expected {
        return foreign(format!(
            "it holds {}, where version {version} of this plugin's schema has {}",
            list(tables),
            list(&expected)
        ));
    }
    Ok(Found::Ours { version })
}

fn list(tables: &BTreeSet<String>) -> String {
    if tables.is_empty() {
        return "no tables".to_owned();
    }
    let names: Vec<&str> = tables.iter().map(String::as_str).take(12).collect();
    let more = tables.len().saturating_sub(names.len());
    let mut text = format!("the tables {}", names.join(", "));
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// A `file:` URI for `path`; `immutable` makes SQLite read the main file only, take no
/// lock and open no journal.
fn uri(path: &Path, immutable: bool) -> String {
    let mut uri = String::from("file:");
    for &byte in path.as_os_str().as_encoded_bytes() {
        match byte {
            b'%' | b'?' | b'#' | 0x80.. => uri.push_str(&format!("%{byte:02X}")),
            _ => uri.push(char::from(byte)),
        }
    }
    if immutable {
        uri.push_str("?immutable=1");
    }
    uri
}
