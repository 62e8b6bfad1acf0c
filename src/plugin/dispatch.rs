//! The invoke handler: one function answers every command.
//!
//! `tauri::generate_handler!` gives each async command a task type of its own on the
//! async runtime, with Tauri's argument and reply glue around it; in a release build
//! that is tens of KiB per command. Here each command's body is boxed into one future
//! type, so the runtime's code for a task, the reply and the error glue are in the
//! app once (docs/performance.md). The arguments are read as the generated handler
//! reads them ([`CommandArg`], the same keys, the same errors naming the argument),
//! and Tauri has checked the command's name against the capabilities before this
//! runs. An unknown name answers `false`: Tauri's "command not found".
//!
//! With Tauri's `removeUnusedCommands` (`tauri.conf.json`, `build`), the commands the
//! app's capabilities never allow are left out of the handler, as
//! `generate_handler!` leaves them out: build.rs reads the list Tauri's plugin build
//! writes and sets `cfg(jobs_unused = "<command>")` for each.

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use tauri::ipc::{CommandArg, CommandItem, Invoke, InvokeError, InvokeMessage, InvokeResponseBody};
use tauri::utils::acl::resolved::ResolvedCommand;
use tauri::Runtime;

use super::error::CommandError;
use super::{commands, PLUGIN_NAME};

/// What every command's body becomes: one type of future.
type Reply = Pin<Box<dyn Future<Output = Result<InvokeResponseBody, InvokeError>> + Send>>;

/// Reads the argument `key` of command `name` as the generated handler does: a value
/// the webview sent under that key, or what Tauri supplies (the state, the scope).
fn arg<'a, R: Runtime, T: CommandArg<'a, R>>(
    message: &'a InvokeMessage<R>,
    acl: &'a Option<Vec<ResolvedCommand>>,
    name: &'static str,
    key: &'static str,
) -> Result<T, InvokeError> {
    T::from_command(CommandItem {
        plugin: Some(PLUGIN_NAME),
        name,
        key,
        message,
        acl,
    })
}

/// A command's result as the webview receives it: the value as JSON, or the error.
fn answer<T: Serialize>(
    result: Result<T, CommandError>,
) -> Result<InvokeResponseBody, InvokeError> {
    match result {
        Ok(value) => serde_json::to_string(&value)
            .map(InvokeResponseBody::Json)
            .map_err(InvokeError::from_error),
        Err(error) => Err(InvokeError::from(error)),
    }
}

/// Writes [`invoke`] from the list of commands.
macro_rules! dispatch {
    ($($(#[$cfg:meta])* $command:literal => commands::$module:ident::$name:ident($($key:ident),*),)*) => {
        /// The plugin's invoke handler.
        pub(super) fn invoke<R: Runtime>(invoke: Invoke<R>) -> bool {
            let Invoke { message, resolver, acl } = invoke;
            let reply: Reply = match message.command() {
                $(
                    $(#[$cfg])*
                    #[cfg(not(jobs_unused = $command))]
                    $command => Box::pin(async move {
                        let result = commands::$module::$name(
                            $(arg(&message, &acl, $command, stringify!($key))?),*
                        )
                        .await;
                        answer(result)
                    }),
                )*
                _ => return false,
            };
            resolver.respond_async_serialized(reply);
            true
        }
    };
}

every_command!(dispatch);
