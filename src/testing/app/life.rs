//! The app's life in a [`MockApp`]: the events of a run loop the mock app never runs
//! (a quit asked for, a window focused), and what the plugin does with them.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::MockApp;
use crate::plugin::quit::ExitFn;

/// The codes the plugin ended the app with, in order.
#[derive(Default)]
pub(super) struct Exits {
    codes: Mutex<Vec<i32>>,
    changed: Condvar,
}

impl Exits {
    /// What stands in for `app.exit` in a mock app.
    pub(super) fn recorder(self: &Arc<Self>) -> ExitFn {
        let exits = self.clone();
        Arc::new(move |code| {
            exits
                .codes
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(code);
            exits.changed.notify_all();
        })
    }
}

impl MockApp {
    /// What the plugin does when Tauri asks the app to exit (`RunEvent::ExitRequested`):
    /// `code` is `None` when the app's last window closed, `Some` for `app.exit(code)`.
    /// Returns whether the plugin held the exit
    /// ([`Builder::finish_before_quit`](crate::Builder::finish_before_quit)); when it
    /// did, it ends the app itself once the work is done, which
    /// [`wait_for_exit`](MockApp::wait_for_exit) sees. The `Exit` that would follow in
    /// an app is not sent: call [`Jobs::shutdown`](crate::Jobs::shutdown) to give
    /// back what still runs, as it does.
    pub fn request_exit(&self, code: Option<i32>) -> bool {
        self.jobs().quit.exit_requested(code)
    }

    /// Waits up to `wait` for the plugin to end the app (`app.exit` in an app), and
    /// returns the code it ended it with; `None` if it did not.
    #[must_use]
    pub fn wait_for_exit(&self, wait: Duration) -> Option<i32> {
        let deadline = Instant::now() + wait;
        let mut codes = self.exits.codes.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(code) = codes.first() {
                return Some(*code);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            codes = self
                .exits
                .changed
                .wait_timeout(codes, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Window `window` got the focus (`WindowEvent::Focused(true)`): what the plugin
    /// does then (a sync on focus, a held quit called off).
    ///
    /// # Panics
    ///
    /// When the app has no such window.
    pub fn focus(&self, window: &str) {
        let _ = self.window(window);
        crate::plugin::window_focus(self.app.handle(), self.jobs(), window, true);
    }

    /// Window `window` lost the focus (`WindowEvent::Focused(false)`).
    ///
    /// # Panics
    ///
    /// When the app has no such window.
    pub fn blur(&self, window: &str) {
        let _ = self.window(window);
        crate::plugin::window_focus(self.app.handle(), self.jobs(), window, false);
    }
}
