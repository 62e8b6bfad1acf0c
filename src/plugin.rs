//! The Tauri plugin. For now it only carries the plugin's name; commands, events and
//! the builder arrive with the Tauri layer.

use tauri::plugin::{Builder, TauriPlugin};
use tauri::Runtime;

/// The plugin, with nothing registered yet.
#[must_use]
pub fn init<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("jobs").build()
}
