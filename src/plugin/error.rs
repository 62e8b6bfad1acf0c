//! The error every command returns, serialised as a clear message with a stable code.

use serde::Serialize;

use crate::error::Error;

/// A command's error, as the webview sees it: `{ code, message }`.
///
/// `code` is one of `invalidArgument`, `notFound`, `alreadyRunning`, `lostLease`,
/// `invalidPayload`, `invalidResult`, `busy`, `full`, `readOnly`, `corrupt`,
/// `foreign`, `database`, `config`, `io`, `jobFailed`, `cancelled`, `forbidden`; `message` says what was wrong and names the
/// argument when one was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CommandError {
    /// A stable, machine-readable code.
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
}

impl CommandError {
    pub(crate) fn new(code: &str, message: impl Into<String>) -> Self {
        CommandError {
            code: code.to_owned(),
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
            Error::InvalidArgument { .. } => "invalidArgument",
            Error::JobNotFound(_) => "notFound",
            Error::AlreadyRunning { .. } => "alreadyRunning",
            Error::LostLease { .. } => "lostLease",
            Error::InvalidPayload { .. } => "invalidPayload",
            Error::InvalidResult { .. } => "invalidResult",
            Error::Busy { .. } => "busy",
            Error::Full { .. } => "full",
            Error::ReadOnly { .. } => "readOnly",
            Error::Corrupt { .. } | Error::NotADatabase { .. } | Error::StoredJson { .. } => {
                "corrupt"
            }
            Error::Foreign { .. } => "foreign",
            Error::Config { .. } => "config",
            Error::Io { .. } => "io",
            _ => "database",
        };
        CommandError::new(code, error.to_string())
    }
}
