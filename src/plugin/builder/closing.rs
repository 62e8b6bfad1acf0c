//! What the plugin does when the app's windows close or it quits: the work that
//! finishes first ([`super::super::quit`]).

use std::sync::Arc;
use std::time::Duration;

use super::super::notices::{DoneNotice, Notifier};
use super::Builder;

impl Builder {
    /// Lets jobs of `kind` (durable or local) finish before the app quits: when the
    /// app's last window closes, or the app calls `app.exit(code)`, while such jobs
    /// run (durable ones in any process on the file) or are queued and could start
    /// within
    /// [`FINISH_SOON`](super::super::quit::FINISH_SOON), the plugin holds the exit,
    /// runs only jobs of these kinds, and ends the app once none is left, or at the
    /// [deadline](Builder::quit_deadline), giving back what still runs (it runs again
    /// at the next start). Nothing is hidden that the app did not hide: the process
    /// stays with no window after the last one closed, and a window still open when
    /// the app called `exit` stays open. A second quit ends the app at once
    /// ([`Jobs::quit_now`](super::super::Jobs::quit_now), or `app.exit` again). What
    /// Tauri ends without asking is not held (docs/closing.md): the Quit item of
    /// macOS's app menu, a log-out or shutdown, a signal.
    pub fn finish_before_quit(mut self, kind: impl Into<String>) -> Self {
        self.quit.kinds.insert(kind.into());
        self
    }

    /// The longest a quit waits for the work of
    /// [`finish_before_quit`](Builder::finish_before_quit)'s kinds: 10 minutes by
    /// default ([`QUIT_DEADLINE`](super::super::quit::QUIT_DEADLINE)).
    pub fn quit_deadline(mut self, deadline: Duration) -> Self {
        self.quit.deadline = Some(deadline);
        self
    }

    /// Says that the app keeps running when its last window closes (it calls
    /// `api.prevent_exit()` on `RunEvent::ExitRequested` without a code: a tray app).
    /// The plugin cannot see that, and would end the app once the work is done; with
    /// this, closing the last window holds nothing (the app does not quit), and only
    /// the app's own `app.exit` is held.
    pub fn keeps_running_without_windows(mut self, yes: bool) -> Self {
        self.quit.runs_without_windows = yes;
        self
    }

    /// Tells the user when jobs of `kind` (durable or local; a workflow: its parent's
    /// kind) end while no window of the app has the focus, with `notice`'s texts; the
    /// ends of the kind that come within a moment of each other make one notice ("12
    /// photos imported"). Shown by the app's [`notifier`](Builder::notifier): without
    /// one nothing is shown (and the plugin warns at start).
    pub fn notify_when_done(mut self, kind: impl Into<String>, notice: DoneNotice) -> Self {
        self.notices.insert(kind.into(), notice);
        self
    }

    /// What shows the notices of [`notify_when_done`](Builder::notify_when_done): a
    /// closure that calls Tauri's notification plugin, or any [`Notifier`].
    pub fn notifier(mut self, notifier: impl Notifier) -> Self {
        self.notifier = Some(Arc::new(notifier));
        self
    }
}

/// Starts telling the user about the ends of the kinds the app named, if any.
pub(super) fn watch_notices<R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    jobs: &super::super::Jobs,
    kinds: std::collections::HashMap<String, super::super::notices::DoneNotice>,
    notifier: Option<Arc<dyn super::super::notices::Notifier>>,
) {
    if kinds.is_empty() {
        return;
    }
    let Some(notifier) = notifier else {
        tracing::warn!(
            kinds = ?kinds.keys().collect::<Vec<_>>(),
            "notify_when_done without a notifier: no notice is shown (Builder::notifier)"
        );
        return;
    };
    super::super::notices::Notices {
        kinds,
        notifier,
        app_name: app.package_info().name.clone(),
        app: crate::app::AppSlot::of(app),
        focus: jobs.focus.clone(),
        queue: jobs.queue.clone(),
        #[cfg(feature = "local")]
        local: jobs.local.clone(),
    }
    .watch(&jobs.bus, jobs.stop.clone());
}
