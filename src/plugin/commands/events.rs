//! Event subscriptions: a page hears the plugin's events on a channel of its own, only
//! those its window may read (see [`events`](crate::plugin::events)).

use tauri::ipc::Channel;
use tauri::State;

use super::CommandResult;
use crate::plugin::error::{CommandError, ErrorCode};
use crate::plugin::events::JobsEvent;
use crate::plugin::scope::{CallingWebview, ReadScopes};
use crate::plugin::Jobs;

/// Sends the plugin's events that this window may read to `on_event`, until
/// `unsubscribe`, a new page in the webview, or the webview's end. Returns the
/// subscription's id.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn subscribe(
    jobs: State<'_, Jobs>,
    reads: ReadScopes,
    on_event: Channel<JobsEvent>,
) -> CommandResult<u32> {
    jobs.subscriptions.subscribe(&reads, on_event)
}

/// Ends one of this webview's subscriptions.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn unsubscribe(
    jobs: State<'_, Jobs>,
    caller: CallingWebview,
    id: u32,
) -> CommandResult<()> {
    if jobs.subscriptions.unsubscribe(&caller.0, id) {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::NotFound,
            format!("this webview has no event subscription {id}"),
        ))
    }
}
