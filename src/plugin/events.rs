//! Bus events forwarded to the webview as one typed Tauri event.
//!
//! A bounded bus stream feeds a forwarding task, so a frozen webview never blocks the
//! backend or grows its memory: when the webview falls behind, the oldest events are
//! dropped, and every forwarded event carries the running count of dropped ones.

use serde::Serialize;
use tauri::{AppHandle, Runtime};
use tauri_specta::Event as _;

use crate::bus::{Event, EventBus};

/// How many events the webview stream buffers before it drops the oldest.
pub const WEBVIEW_STREAM_CAPACITY: usize = 1024;

/// One bus event for the webview, emitted as `plugin:jobs:jobs-event`.
///
/// Ids and times are JavaScript numbers: durable job ids count up from 1 and
/// timestamps are milliseconds since the epoch, both far below 2^53. Process-local
/// job ids are strings such as `"local-7"`.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
#[serde(rename_all = "camelCase")]
pub struct JobsEvent {
    /// The event.
    pub event: Event,
    /// Events this stream has dropped so far because the webview fell behind.
    pub dropped: u64,
}

/// Forwards bus events to the webview until the bus closes.
pub(crate) fn forward<R: Runtime>(app: AppHandle<R>, bus: &EventBus) {
    let mut stream = bus.subscribe(WEBVIEW_STREAM_CAPACITY);
    tauri::async_runtime::spawn(async move {
        while let Some(event) = stream.next().await {
            let message = JobsEvent {
                event: (*event).clone(),
                dropped: stream.dropped(),
            };
            if let Err(error) = message.emit(&app) {
                tracing::debug!(%error, "could not emit a jobs event");
            }
        }
    });
}
