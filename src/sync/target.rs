//! Sync targets and where their state lives.

use std::fmt;

use crate::error::{Error, Result};

/// One thing to keep in sync: a connector, an account on it, and a named feed.
///
/// Its state lives under `acct.<connector>.<account>.sync.<name>`, so disconnecting
/// the account removes it with everything else the account owned. The parts may not
/// contain `.` or `/` and are at most 128 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SyncTarget {
    connector: String,
    account: String,
    name: String,
}

impl SyncTarget {
    /// A target; [`SyncEngine::register`](super::SyncEngine::register) checks the parts.
    #[must_use]
    pub fn new(
        connector: impl Into<String>,
        account: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        SyncTarget {
            connector: connector.into(),
            account: account.into(),
            name: name.into(),
        }
    }

    /// The connector.
    #[must_use]
    pub fn connector(&self) -> &str {
        &self.connector
    }

    /// The account.
    #[must_use]
    pub fn account(&self) -> &str {
        &self.account
    }

    /// The feed's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Parses `connector/account/name`, the form events and IPC use.
    pub fn parse(text: &str) -> Result<SyncTarget> {
        let parts: Vec<&str> = text.split('/').collect();
        match parts.as_slice() {
            [connector, account, name] => {
                let target = SyncTarget::new(*connector, *account, *name);
                target.check()?;
                Ok(target)
            }
            _ => Err(Error::invalid_argument(
                "target",
                format!("{text:?} is not connector/account/name"),
            )),
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        check_parts(
            "target",
            [
                ("connector", self.connector.as_str()),
                ("account", self.account.as_str()),
                ("name", self.name.as_str()),
            ],
        )
    }

    /// Checks a connector and an account as a target's parts are checked: 1 to 128
    /// bytes without `.` or `/`, so that the account's keys are its own and no other
    /// account's (`me.sync` would reach into the keys of account `me`).
    pub fn check_account(connector: &str, account: &str) -> Result<()> {
        check_parts("account", [("connector", connector), ("account", account)])
    }

    /// The prefix of every key the account owns.
    pub(crate) fn account_prefix(connector: &str, account: &str) -> String {
        format!("acct.{connector}.{account}.")
    }

    /// The key of this target's sync state.
    pub(crate) fn state_key(&self) -> String {
        format!(
            "{}sync.{}",
            Self::account_prefix(&self.connector, &self.account),
            self.name
        )
    }
}

fn check_parts<'a>(
    argument: &'static str,
    parts: impl IntoIterator<Item = (&'static str, &'a str)>,
) -> Result<()> {
    for (what, part) in parts {
        if part.is_empty() || part.len() > 128 || part.contains(['.', '/']) {
            return Err(Error::invalid_argument(
                argument,
                format!("{what} {part:?} must be 1 to 128 bytes without '.' or '/'"),
            ));
        }
    }
    Ok(())
}

impl fmt::Display for SyncTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.connector, self.account, self.name)
    }
}
