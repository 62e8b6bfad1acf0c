//! Command scopes: which durable job kinds, local job kinds and sync targets a window
//! may touch, in the form Tauri plugins use.
//!
//! A permission (or a capability's entry for one) carries `allow` and `deny` lists of
//! [`ScopeEntry`], each naming a `kind`, a `localKind` or a `target` pattern (`*` for
//! any run of characters: `export`, `sync.*`, `github/me/*`). Tauri merges the entries
//! of every capability that grants the command to the calling window; the plugin's
//! global scope applies on top.
//!
//! Scopes fail closed, as the official plugins' do (`fs` and `http` reach nothing
//! outside their scope): in each of the three dimensions a window reaches only the
//! names an allow entry matches and no deny entry does. A dimension no allow entry
//! names reaches nothing, so bare `jobs:default` reaches no kind, local kind or target
//! at all; `{ "kind": "*" }` opens a dimension on purpose.
//!
//! Refusals of what the window names itself (a kind it enqueues, a target it syncs)
//! are `forbidden` errors naming it. What it reaches through an id or a name that
//! points at a stored row (a job, a schedule) is checked in the transaction that acts
//! on the row, and a row outside the scope answers exactly like a missing one
//! (`notFound`), so the answer tells nothing about rows the window may not see. ReadScopes
//! leave out what is outside the scope: a list is filtered, never refused whole.

use serde::Deserialize;
use tauri::ipc::{CommandArg, CommandItem, CommandScope, GlobalScope, InvokeError};
use tauri::Runtime;

use super::error::{CommandError, ErrorCode};
use super::PLUGIN_NAME;
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
/// Commands take it as an argument; it is not something the webview sends. The
/// default reaches nothing.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    kinds: Patterns,
    local_kinds: Patterns,
    targets: Patterns,
}

/// One of a scope's three dimensions, for messages.
#[derive(Clone, Copy)]
enum Dimension {
    Kind,
    LocalKind,
    Target,
}

impl Dimension {
    fn what(self) -> &'static str {
        match self {
            Dimension::Kind => "job kind",
            Dimension::LocalKind => "local job kind",
            Dimension::Target => "sync target",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Dimension::Kind => "kind",
            Dimension::LocalKind => "localKind",
            Dimension::Target => "target",
        }
    }
}

impl Scope {
    /// The scope of `allows` and `denies` entries (a command's and the global ones).
    fn of<'a>(
        allows: impl IntoIterator<Item = &'a ScopeEntry>,
        denies: impl IntoIterator<Item = &'a ScopeEntry>,
    ) -> Self {
        let mut scope = Scope::default();
        for entry in allows {
            scope.add(entry, false);
        }
        for entry in denies {
            scope.add(entry, true);
        }
        scope
    }

    /// Everything, in every dimension: what the app's own Rust code reaches.
    #[cfg(test)]
    pub(crate) fn open() -> Self {
        Scope {
            kinds: Patterns::open(),
            local_kinds: Patterns::open(),
            targets: Patterns::open(),
        }
    }

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

    /// The durable job kinds reached.
    pub(crate) fn kinds(&self) -> &Patterns {
        &self.kinds
    }

    /// The local job kinds reached.
    pub(crate) fn local_kinds(&self) -> &Patterns {
        &self.local_kinds
    }

    /// The sync targets reached.
    pub(crate) fn targets(&self) -> &Patterns {
        &self.targets
    }

    /// Refuses a durable job kind the window named that is outside the scope.
    pub(crate) fn kind(&self, kind: &str) -> Result<(), CommandError> {
        check(&self.kinds, Dimension::Kind, kind)
    }

    /// Whether a durable job kind is inside the scope.
    pub(crate) fn allows_kind(&self, kind: &str) -> bool {
        self.kinds.allows(kind)
    }

    /// Refuses a local job kind the window named that is outside the scope.
    pub(crate) fn local_kind(&self, kind: &str) -> Result<(), CommandError> {
        check(&self.local_kinds, Dimension::LocalKind, kind)
    }

    /// Whether a local job kind is inside the scope.
    pub(crate) fn allows_local_kind(&self, kind: &str) -> bool {
        self.local_kinds.allows(kind)
    }

    /// Refuses a sync target the window named that is outside the scope.
    pub(crate) fn target(&self, target: &str) -> Result<(), CommandError> {
        check(&self.targets, Dimension::Target, target)
    }

    /// Whether a sync target is inside the scope.
    pub(crate) fn allows_target(&self, target: &str) -> bool {
        self.targets.allows(target)
    }

    /// Refuses an account unless every target it could have is inside the scope: an
    /// allow entry covers `connector/account/*` and no deny entry could match any
    /// target of it.
    pub(crate) fn account(&self, connector: &str, account: &str) -> Result<(), CommandError> {
        if self
            .targets
            .allows_every_name_under(&format!("{connector}/{account}/"))
        {
            return Ok(());
        }
        Err(CommandError::new(
            ErrorCode::Forbidden,
            format!(
                "account {connector:?}/{account:?}: not every sync target of it is in this \
                 window's scope (allow {{ \"target\": \"{connector}/{account}/*\" }}, with no \
                 deny entry that could match one of its targets)"
            ),
        ))
    }

    /// Refuses what needs the whole queue (deleting finished jobs of every kind) unless
    /// the window reaches every kind (`{ "kind": "*" }` and no deny entry).
    pub(crate) fn every_kind(&self, what: &str) -> Result<(), CommandError> {
        if self.kinds.is_open() {
            Ok(())
        } else {
            Err(CommandError::new(
                ErrorCode::Forbidden,
                format!(
                    "{what} touches every job kind; this window's scope does not reach every \
                     kind (it needs {{ \"kind\": \"*\" }} and no deny entry)"
                ),
            ))
        }
    }
}

fn check(patterns: &Patterns, dimension: Dimension, name: &str) -> Result<(), CommandError> {
    if patterns.allows(name) {
        return Ok(());
    }
    let (what, field) = (dimension.what(), dimension.field());
    let hint = if patterns.allow.is_empty() {
        // The first thing a new app runs into: say what to write.
        format!(
            "; the window's capability allows no {what} for this command: add \
             {{ \"{field}\": \"{name}\" }} (or \"*\") to the `allow` list of the permission \
             that grants it"
        )
    } else {
        String::new()
    };
    Err(CommandError::new(
        ErrorCode::Forbidden,
        format!("{what} {name:?} is outside this window's scope{hint}"),
    ))
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
        Ok(Scope::of(
            scoped.allows().iter().chain(global.allows()).map(|e| &**e),
            scoped.denies().iter().chain(global.denies()).map(|e| &**e),
        ))
    }
}

/// Not part of the webview's call: Tauri supplies it.
#[cfg(feature = "specta")]
impl specta::function::FunctionArg for Scope {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}

// ===== what a window may read, from inside another command =====

/// The calling window's scopes for the plugin's read commands, resolved for a command
/// that needs them (`subscribe`, to filter events): for each, `None` when the window
/// may not call it at all. A command argument Tauri supplies, not something the
/// webview sends.
#[derive(Debug, Clone, Default)]
pub struct ReadScopes {
    /// The webview that called.
    pub(crate) webview: String,
    /// `get_job`: which durable jobs it may read.
    pub(crate) jobs: Option<Scope>,
    /// `get_local_job`: which local jobs it may read.
    pub(crate) local_jobs: Option<Scope>,
    /// `sync_status`: which targets' state and health it may read.
    pub(crate) sync: Option<Scope>,
    /// `paused_kinds`: which kinds' pauses it may read.
    pub(crate) paused: Option<Scope>,
    /// `list_schedules`: which schedules it may read (by their job kind).
    pub(crate) schedules: Option<Scope>,
}

/// The scope `webview` has for the plugin's `command`, or `None` when it may not call it.
fn scope_for<R: Runtime>(webview: &tauri::Webview<R>, command: &str) -> Option<Scope> {
    match webview.resolve_command_scope::<ScopeEntry>(PLUGIN_NAME, command) {
        Ok(Some(resolved)) => {
            let (scoped, global) = (resolved.command_scope(), resolved.global_scope());
            Some(Scope::of(
                scoped.allows().iter().chain(global.allows()).map(|e| &**e),
                scoped.denies().iter().chain(global.denies()).map(|e| &**e),
            ))
        }
        Ok(None) => None,
        // A scope that cannot be read reaches nothing.
        Err(error) => {
            tracing::warn!(%error, command, "could not resolve a command scope");
            None
        }
    }
}

impl<'de, R: Runtime> CommandArg<'de, R> for ReadScopes {
    fn from_command(command: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let webview = command.message.webview();
        Ok(ReadScopes {
            webview: webview.label().to_owned(),
            jobs: scope_for(&webview, "get_job"),
            local_jobs: scope_for(&webview, "get_local_job"),
            sync: scope_for(&webview, "sync_status"),
            paused: scope_for(&webview, "paused_kinds"),
            schedules: scope_for(&webview, "list_schedules"),
        })
    }
}

#[cfg(feature = "specta")]
impl specta::function::FunctionArg for ReadScopes {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}

/// The durable job kinds the calling window may read (through `get_job`), for what
/// another command checks against them (an enqueue's parent). A command argument
/// Tauri supplies.
#[derive(Debug, Clone, Default)]
pub struct ReadableKinds(pub(crate) Patterns);

impl<'de, R: Runtime> CommandArg<'de, R> for ReadableKinds {
    fn from_command(command: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let webview = command.message.webview();
        Ok(ReadableKinds(
            scope_for(&webview, "get_job").map_or_else(Patterns::closed, |scope| scope.kinds),
        ))
    }
}

#[cfg(feature = "specta")]
impl specta::function::FunctionArg for ReadableKinds {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}

/// The label of the webview that called, for what is counted per window. A command
/// argument Tauri supplies.
#[derive(Debug, Clone)]
pub struct CallingWebview(pub(crate) String);

impl<'de, R: Runtime> CommandArg<'de, R> for CallingWebview {
    fn from_command(command: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        Ok(CallingWebview(command.message.webview().label().to_owned()))
    }
}

#[cfg(feature = "specta")]
impl specta::function::FunctionArg for CallingWebview {
    fn to_datatype(_: &mut specta::Types) -> Option<specta::datatype::DataType> {
        None
    }
}
