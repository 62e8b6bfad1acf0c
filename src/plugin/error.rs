//! The error every command returns, serialised as a clear message with a stable code.

use serde::Serialize;

use crate::error::Error;

/// What kind of failure a command reports: a closed set the webview can switch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ErrorCode {
    /// An argument is out of range or malformed; the message names it.
    InvalidArgument,
    /// No job (or local job) with that id, or no schedule with that name.
    NotFound,
    /// An exclusive local kind already has a job running.
    AlreadyRunning,
    /// An agent's lease is no longer held: write nothing more for that attempt.
    LostLease,
    /// A payload does not fit its kind's schema or limits.
    InvalidPayload,
    /// A result does not fit its kind's schema or limits.
    InvalidResult,
    /// The database stayed locked by another program past the busy deadline.
    Busy,
    /// The disk (or the database's size cap) is full.
    Full,
    /// The database cannot be written.
    ReadOnly,
    /// The file is damaged, or a stored value cannot be read.
    Corrupt,
    /// The file is another program's database.
    Foreign,
    /// Any other database failure.
    Database,
    /// `config.toml` is wrong.
    Config,
    /// A file could not be read or created, or the system refused a watch.
    Io,
    /// A job failed (a local job's body, or a durable job a wrapper waited for).
    JobFailed,
    /// A job was cancelled (local, or durable when a wrapper waited for it).
    Cancelled,
    /// Outside the window's scope: the message names the kind or target.
    Forbidden,
    /// A limit on what one window may hold or start at once was reached; the message
    /// names it.
    LimitReached,
    /// An enqueue named a job kind no handler of this app runs and the builder did not
    /// declare as run by agents (`Builder::agent_kind`): it would wait forever.
    UnknownKind,
    /// A job would not take a signal: it has ended, its handler waits for none of that
    /// name, or its wait for it timed out; the message says which.
    SignalRefused,
}

impl ErrorCode {
    /// The code as the webview sees it, such as `invalidArgument`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalidArgument",
            ErrorCode::NotFound => "notFound",
            ErrorCode::AlreadyRunning => "alreadyRunning",
            ErrorCode::LostLease => "lostLease",
            ErrorCode::InvalidPayload => "invalidPayload",
            ErrorCode::InvalidResult => "invalidResult",
            ErrorCode::Busy => "busy",
            ErrorCode::Full => "full",
            ErrorCode::ReadOnly => "readOnly",
            ErrorCode::Corrupt => "corrupt",
            ErrorCode::Foreign => "foreign",
            ErrorCode::Database => "database",
            ErrorCode::Config => "config",
            ErrorCode::Io => "io",
            ErrorCode::JobFailed => "jobFailed",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::LimitReached => "limitReached",
            ErrorCode::UnknownKind => "unknownKind",
            ErrorCode::SignalRefused => "signalRefused",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A command's error, as the webview sees it: `{ code, message }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct CommandError {
    /// A stable, machine-readable code.
    pub code: ErrorCode,
    /// What went wrong, for people; names the argument, kind or target when one was.
    pub message: String,
}

impl CommandError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CommandError {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl From<Error> for CommandError {
    fn from(error: Error) -> Self {
        let code = match &error {
            Error::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            Error::JobNotFound(_) | Error::ScheduleNotFound(_) => ErrorCode::NotFound,
            Error::AlreadyRunning { .. } => ErrorCode::AlreadyRunning,
            Error::LostLease { .. } => ErrorCode::LostLease,
            Error::SignalRefused { .. } => ErrorCode::SignalRefused,
            Error::InvalidPayload { .. } => ErrorCode::InvalidPayload,
            Error::InvalidResult { .. } => ErrorCode::InvalidResult,
            Error::Busy { .. } => ErrorCode::Busy,
            Error::Full { .. } => ErrorCode::Full,
            Error::ReadOnly { .. } => ErrorCode::ReadOnly,
            Error::Corrupt { .. } | Error::NotADatabase { .. } | Error::StoredJson { .. } => {
                ErrorCode::Corrupt
            }
            Error::Foreign { .. } => ErrorCode::Foreign,
            Error::Config { .. } => ErrorCode::Config,
            Error::Io { .. } | Error::NetworkWatch(_) => ErrorCode::Io,
            _ => ErrorCode::Database,
        };
        CommandError::new(code, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_cross_ipc_as_their_names() {
        for code in [
            ErrorCode::InvalidArgument,
            ErrorCode::Forbidden,
            ErrorCode::Io,
        ] {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::json!(code.as_str())
            );
        }
    }
}
