//! Command scopes: which durable job kinds, local job kinds and sync targets a window
//! may touch, in the form Tauri plugins use.
//!
//! A permission (or a capability's entry for one) carries `allow` and `deny` lists of
//! [`ScopeEntry`], each naming a `kind`, a `localKind` or a `target` pattern (`*` for
//! any run of characters: `export`, `sync.*`, `github/me/*`). Tauri merges the entries
//! of every capability that grants the command to the calling window; the plugin's
//! global scope applies on top. For each of the three, a window is unrestricted while
//! no entry names it (so apps that scope nothing keep working), restricted to the
//! allowed names once one does, and never reaches a denied name.
//!
//! Refusals are [`CommandError`]s with the code `forbidden`, naming the kind or target,
//! and come before any work or write. Reads leave out what is outside the scope: a
//! list is filtered (never refused whole), and a job of another kind is not found.

use serde::Deserialize;
use tauri::ipc::{CommandArg, CommandItem, CommandScope, GlobalScope, InvokeError};
use tauri::Runtime;

use super::error::{CommandError, ErrorCode};
use crate::model::Patterns;

/// One entry of a scope: exactly one of a durable job kind, a local job kind or a sync
/// target (`connector/account/name`), each a pattern with `*`.
///
/// ```json
/// { "identifier": "jobs:allow-enqueue", "allow": [{ "kind": "export" }, { "kind": "thumb.*" }] }
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScopeEntry {
    /// A durable job kind pattern.
    #[serde(default)]
    pub kind: Option<String>,
    /// A process-local job kind pattern.
    #[serde(default)]
    pub local_kind: Option<String>,
    /// A sync target pattern, `connector/account/name`.
    #[serde(default)]
    pub target: Option<String>,
}

/// The calling window's scope for a command, as Tauri resolved it: what it may touch.
/// Commands take it as an argument; it is not something the webview sends.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    kinds: Patterns,
    local_kinds: Patterns,
    targets: Patterns,
}

impl Scope {
    fn add(&mut self, entry: &ScopeEntry, deny: bool) {
        for (pattern, patterns) in [
            (&entry.kind, &mut self.kinds),
            (&entry.local_kind, &mut self.local_kinds),
            (&entry.target, &mut self.targets),
        ] {
            if let Some(pattern) = pattern {
                let list = if deny {
                    &mut patterns.deny
                } else {
                    &mut patterns.allow
                };
                list.push(pattern.clone());
            }
        }
    }

    /// The durable job kinds allowed.
    pub(crate) fn kinds(&self) -> &Patterns {
        &self.kinds
    }

    /// Refuses a durable job kind outside the scope.
    pub(crate) fn kind(&self, kind: &str) -> Result<(), CommandError> {
        check(&self.kinds, "job kind", kind)
    }

    /// Whether a durable job kind is inside the scope.
    pub(crate) fn allows_kind(&self, kind: &str) -> bool {
        self.kinds.allows(kind)
    }

    /// Refuses a local job kind outside the scope.
    pub(crate) fn local_kind(&self, kind: &str) -> Result<(), CommandError> {
        check(&self.local_kinds, "local job kind", kind)
    }

    /// Whether a local job kind is inside the scope.
    pub(crate) fn allows_local_kind(&self, kind: &str) -> bool {
        self.local_kinds.allows(kind)
    }

    /// Refuses a sync target outside the scope.
    pub(crate) fn target(&self, target: &str) -> Result<(), CommandError> {
        check(&self.targets, "sync target", target)
    }

    /// Whether a sync target is inside the scope.
    pub(crate) fn allows_target(&self, target: &str) -> bool {
        self.targets.allows(target)
    }

    /// Refuses what needs the whole queue (deleting finished jobs of every kind) when
    /// the window is restricted to some kinds.
    pub(crate) fn every_kind(&self, what: &str) -> Result<(), CommandError> {
        if self.kinds.is_open() {
            Ok(())
        } else {
            Err(CommandError::new(
                ErrorCode::Forbidden,
                format!("{what} touches every job kind; this window is scoped to some"),
            ))
        }
    }
}

fn check(patterns: &Patterns, what: &str, name: &str) -> Result<(), CommandError> {
    if patterns.allows(name) {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::Forbidden,
            format!("{what} {name:?} is outside this window's scope"),
        ))
    }
}

impl<'de, R: Runtime> CommandArg<'de, R> for Scope {
    fn from_command(command: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let again = || CommandItem {
            plugin: command.plugin,
            name: command.name,
            key: command.key,
            message: command.message,
            acl: command.acl,
        };
        let scoped = CommandScope::<ScopeEntry>::from_command(again())?;
        let global = GlobalScope::<ScopeEntry>::from_command(again())?;
        let mut scope = Scope::default();
        for entry in scoped.allows().iter().chain(global.allows()) {
            scope.add(entry, false);
        }
        for entry in scoped.denies().iter().chain(global.denies()) {
            scope.add(entry, true);
        }
        Ok(scope)
    }
}

/// Not part of the webview's call: Tauri supplies it.
#[cfg(feature = "specta")]
impl specta::function::FunctionArg for Scope {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}
