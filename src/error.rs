//! The crate's error type.
//!
//! Every error names what was wrong: the file, the kind, the job, the argument. Errors
//! from SQLite are sorted into the cases a caller can act on (full, read-only, busy,
//! corrupt) instead of being passed through as codes.

use std::path::PathBuf;

use rusqlite::ErrorCode;

use crate::model::{truncate_chars, JobId, SignalRefusal, MAX_ERROR_CHARS};

/// A specialised `Result` for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file exists but is not a SQLite database. It was left untouched.
    #[error("{path}: not a SQLite database (the file was left untouched)")]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file is a SQLite database that this plugin did not write (another
    /// program's, or ours with its tables changed by hand). It was left untouched.
    #[error("{path}: not a queue database of this plugin: {reason} (the file was left untouched)")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What shows it is not ours: its application id, schema version or tables.
        reason: String,
    },
    /// SQLite reports the database as corrupt. Found at open (a quick check bounded in
    /// time) or on first use; nothing more is written to it.
    #[error("{path}: the database is corrupt ({detail}); nothing more was written to it")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// SQLite's description.
        detail: String,
    },
    /// The file was written by a newer version of this plugin.
    #[error(
        "{path}: schema version {found} is newer than this build supports ({supported}); \
         update the app (the file was left untouched)"
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// The version stored in the file.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// A setting did not take effect, such as WAL mode on a file system that refuses it.
    #[error("{path}: PRAGMA {pragma} reads back {actual:?}, expected {expected:?}")]
    PragmaNotApplied {
        /// The file.
        path: PathBuf,
        /// The pragma.
        pragma: &'static str,
        /// What was asked for.
        expected: String,
        /// What SQLite reports.
        actual: String,
    },
    /// The disk, or the database's size limit, is full. Nothing stored was lost.
    #[error("the database is full ({detail}); nothing stored was lost, free some space and retry")]
    Full {
        /// SQLite's description.
        detail: String,
    },
    /// The database, its directory or its journal cannot be written.
    #[error("the database is read-only ({detail})")]
    ReadOnly {
        /// SQLite's description.
        detail: String,
    },
    /// Another connection held the write lock for longer than the busy timeout allows.
    #[error("the database stayed locked by another connection for {waited_ms} ms")]
    Busy {
        /// How long this call waited.
        waited_ms: u64,
    },
    /// Any other SQLite error.
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),
    /// A payload does not fit the kind's schema or limits. Nothing was stored.
    #[error("invalid payload for kind {kind:?}: {reason}")]
    InvalidPayload {
        /// The job kind.
        kind: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A result does not fit the kind's schema. The attempt was counted as failed.
    #[error("invalid result for job {id} of kind {kind:?}: {reason}")]
    InvalidResult {
        /// The job.
        id: JobId,
        /// Its kind.
        kind: String,
        /// What is wrong with the result.
        reason: String,
    },
    /// A worker tried to act on a job whose lease it no longer holds.
    #[error("worker {worker:?} no longer holds the lease on job {id} (attempt {attempt})")]
    LostLease {
        /// The job.
        id: JobId,
        /// The worker that lost it.
        worker: String,
        /// The attempt it was working on.
        attempt: u32,
    },
    /// A job of this kind is already running and the spawn asked for exclusivity.
    #[error("a {kind:?} job is already running")]
    AlreadyRunning {
        /// The kind.
        kind: String,
    },
    /// No job has this id.
    #[error("no job with id {0}")]
    JobNotFound(JobId),
    /// A job would not take a signal: it has ended, its handler waits for none of
    /// that name, or its wait for it timed out.
    #[error("job {id} takes no signal {name:?}: {reason}")]
    SignalRefused {
        /// The job.
        id: JobId,
        /// The signal.
        name: String,
        /// Why.
        reason: SignalRefusal,
    },
    /// No schedule has this name.
    #[error("no schedule named {0:?}")]
    ScheduleNotFound(String),
    /// An argument is out of range or malformed.
    #[error("invalid argument `{name}`: {reason}")]
    InvalidArgument {
        /// The argument.
        name: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// Stored JSON could not be read back (written by something else than this crate).
    #[error("job {id}: stored {column} is not valid JSON: {reason}")]
    StoredJson {
        /// The job.
        id: JobId,
        /// The column.
        column: &'static str,
        /// The parser's message.
        reason: String,
    },
    /// `config.toml` has a key that is unknown, of the wrong type or out of range, or
    /// is not valid TOML. Nothing was started.
    #[error("{path}: {key}: {reason}")]
    Config {
        /// The file.
        path: PathBuf,
        /// The key, such as `jobs.workers` (empty for a syntax error).
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A file could not be created or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The operating system refused to report network changes.
    #[error("cannot watch network interfaces: {0}")]
    NetworkWatch(String),
    /// A handler, local job or sync source asked for the Tauri app (`ctx.app()`) where
    /// there is none on that runtime.
    #[error("no Tauri app on runtime `{wanted}`: {reason}")]
    NoApp {
        /// The runtime asked for.
        wanted: &'static str,
        /// Why there is none: no app at all, or one on another runtime.
        reason: String,
    },
}

impl Error {
    /// An argument refused, saying why; the reason is cut to
    /// [`MAX_ERROR_CHARS`](crate::model::MAX_ERROR_CHARS) characters, since it may quote
    /// what the caller sent.
    pub(crate) fn invalid_argument(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name,
            reason: truncate_chars(&reason.into(), MAX_ERROR_CHARS),
        }
    }

    /// Names the file in an error that came from SQLite without it.
    pub(crate) fn in_file(self, file: &std::path::Path) -> Self {
        match self {
            Error::Corrupt { path, detail } if path.as_os_str().is_empty() => Error::Corrupt {
                path: file.to_owned(),
                detail,
            },
            other => other,
        }
    }

    /// Whether retrying the same call later may succeed (busy, full).
    #[must_use]
    pub fn is_transient(&self) -> bool {
        matches!(self, Error::Busy { .. } | Error::Full { .. })
    }
}

impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Self {
        let detail = error.to_string();
        match error.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Error::Full { detail },
            Some(ErrorCode::ReadOnly) => Error::ReadOnly { detail },
            Some(ErrorCode::DatabaseCorrupt) => Error::Corrupt {
                path: PathBuf::new(),
                detail,
            },
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                Error::Busy { waited_ms: 0 }
            }
            _ => Error::Sqlite(error),
        }
    }
}
