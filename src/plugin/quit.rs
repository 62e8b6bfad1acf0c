//! Quitting while work runs: the kinds an app names ([`Builder::finish_before_quit`])
//! hold its quit until their jobs end, or until a deadline, and then the app exits.
//!
//! A quit reaches the plugin as Tauri's `RunEvent::ExitRequested`: when the app's last
//! window closes (no code) and when the app calls `app.exit(code)`. The plugin
//! prevents that exit while jobs of those kinds run (durable ones in any process on
//! the file, local ones here) or are queued and could start within [`FINISH_SOON`]
//! (a retry's backoff),
//! claims only jobs of those kinds meanwhile, and calls `app.exit` itself once none is
//! left or the deadline passed: the `Exit` that follows gives back what still runs,
//! as every exit does. A second quit (`app.exit` again, [`Jobs::quit_now`]) is not
//! held. What Tauri ends without asking (macOS's Quit menu item and a log-out, a
//! Windows shutdown, a signal) is not held either: it is given back and runs at the
//! next start.
//!
//! [`Builder::finish_before_quit`]: super::Builder::finish_before_quit
//! [`Jobs::quit_now`]: super::Jobs::quit_now

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Notify;

use crate::bus::{Event, EventBus, EventStream, PluginHealth};
use crate::clock::Timestamp;
#[cfg(feature = "local")]
use crate::local::LocalJobs;
use crate::locks::lock;
use crate::model::Health;
#[cfg(feature = "local")]
use crate::model::LocalJobStatus;
use crate::queue::{PendingKind, Queue};
use crate::runner::Runner;

/// The component `pluginHealth()` says a held quit under: healthy, saying what is
/// being finished while a quit waits.
pub const QUIT_COMPONENT: &str = "quit";

/// How far ahead a queued job counts as work to finish before quitting: a retry due
/// within it (its backoff) keeps the quit held.
pub const FINISH_SOON: Duration = Duration::from_secs(60);

/// The longest a quit is held, unless the app sets its own
/// ([`Builder::quit_deadline`](super::Builder::quit_deadline)).
pub const QUIT_DEADLINE: Duration = Duration::from_secs(600);

/// How often a held quit looks again at what is left when no job event came.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// A quit the plugin holds until work ends ([`Jobs::finishing`](super::Jobs::finishing)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Finishing {
    /// When the quit was asked for.
    pub since: Timestamp,
    /// When the app exits whatever is left (what still runs is given back).
    pub deadline: Timestamp,
    /// The exit code the app ends with.
    pub code: i32,
    /// What is left to finish, per kind: jobs running in this process, and queued
    /// ones that could start within [`FINISH_SOON`].
    pub work: Vec<PendingKind>,
}

impl Finishing {
    /// "finishing 3 jobs before quitting: upload 2, import 1".
    #[must_use]
    pub fn describe(&self) -> String {
        let total: u32 = self.work.iter().map(PendingKind::total).sum();
        let kinds: Vec<String> = self
            .work
            .iter()
            .map(|kind| format!("{} {}", kind.kind, kind.total()))
            .collect();
        let jobs = if total == 1 { "job" } else { "jobs" };
        format!(
            "finishing {total} {jobs} before quitting: {}",
            kinds.join(", ")
        )
    }
}

/// What the app said about quitting ([`Builder`](super::Builder)).
#[derive(Debug, Clone, Default)]
pub(crate) struct QuitSettings {
    pub kinds: BTreeSet<String>,
    pub deadline: Option<Duration>,
    pub runs_without_windows: bool,
}

/// Ends the app with a code: `app.exit`, or a test's stand-in.
pub(crate) type ExitFn = Arc<dyn Fn(i32) + Send + Sync>;

/// Why a quit is held: a focused window brings the app back from the first and the
/// last, not from the app's own `exit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeldFor {
    WindowsClosed,
    Exit,
    WhenDone,
}

#[derive(Debug)]
enum State {
    Open,
    Finishing(Finishing, HeldFor),
    Exiting,
}

/// Where the work a held quit waits for is seen, and the runner that runs only it
/// meanwhile.
#[derive(Clone)]
pub(crate) struct Work {
    pub queue: Queue,
    pub runner: Runner,
    #[cfg(feature = "local")]
    pub local: LocalJobs,
}

impl Work {
    /// What is left of `kinds`, per kind: durable jobs running (in any process on the
    /// file: one whose holder crashed counts until it is taken back and run again) or
    /// queued and due within [`FINISH_SOON`], and local jobs running.
    fn left(&self, kinds: &BTreeSet<String>) -> crate::Result<Vec<PendingKind>> {
        let names: Vec<&str> = kinds.iter().map(String::as_str).collect();
        #[cfg_attr(not(feature = "local"), allow(unused_mut))]
        let mut left = self.queue.pending(&names, FINISH_SOON)?;
        #[cfg(feature = "local")]
        for job in self.local.list() {
            if job.status != LocalJobStatus::Running || !kinds.contains(&job.kind) {
                continue;
            }
            match left.iter_mut().find(|pending| pending.kind == job.kind) {
                Some(pending) => pending.running += 1,
                None => left.push(PendingKind {
                    kind: job.kind.clone(),
                    running: 1,
                    due: 0,
                }),
            }
        }
        Ok(left)
    }
}

/// The plugin's part in the app's quit. One per plugin.
pub(crate) struct Quit {
    settings: QuitSettings,
    work: Work,
    bus: EventBus,
    state: Mutex<State>,
    exit: Mutex<Option<ExitFn>>,
    // Wakes the task that watches a held quit.
    changed: Notify,
    // The user asked to quit now: no grace at the exit. Relaxed: read at the exit,
    // after the write that asked for it went through the run loop.
    now: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Quit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quit")
            .field("kinds", &self.settings.kinds)
            .field("state", &*lock(&self.state))
            .finish_non_exhaustive()
    }
}

impl Quit {
    pub(crate) fn new(settings: QuitSettings, work: Work, bus: EventBus) -> Self {
        Quit {
            settings,
            work,
            bus,
            state: Mutex::new(State::Open),
            exit: Mutex::new(None),
            changed: Notify::new(),
            now: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// How the app is ended: `app.exit` in an app, a recorder in a test's mock app.
    pub(crate) fn set_exit(&self, exit: ExitFn) {
        *lock(&self.exit) = Some(exit);
    }

    fn deadline(&self) -> Duration {
        self.settings.deadline.unwrap_or(QUIT_DEADLINE)
    }

    /// The quit held now, if one is.
    pub(crate) fn finishing(&self) -> Option<Finishing> {
        match &*lock(&self.state) {
            State::Finishing(finishing, _) => Some(finishing.clone()),
            _ => None,
        }
    }

    /// The work of the kinds that finish before quitting, pending now: to decide at a
    /// start whether to finish it hidden.
    pub(crate) fn pending(&self) -> crate::Result<Vec<PendingKind>> {
        self.work.left(&self.settings.kinds)
    }

    /// Whether the app is to exit now, without the grace that lets running jobs end:
    /// a second quit, or [`quit_now`](Quit::quit_now).
    pub(crate) fn without_grace(&self) -> bool {
        self.now.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Tauri asks to exit, with `code` (`None`: the last window closed). Whether the
    /// plugin holds the exit: `true` to prevent it.
    pub(crate) fn exit_requested(self: &Arc<Self>, code: Option<i32>) -> bool {
        if code == Some(tauri::RESTART_EXIT_CODE) {
            // Tauri does not let a restart be held.
            return false;
        }
        let mut state = lock(&self.state);
        match &*state {
            State::Exiting => false,
            // A second quit of the app's own ends it now; closing a window again
            // (the app had come back with one) keeps the hold.
            State::Finishing(finishing, _) => {
                if code.is_some() {
                    tracing::info!(left = %finishing.describe(), "quit again: exiting now");
                    self.now.store(true, std::sync::atomic::Ordering::Relaxed);
                    *state = State::Exiting;
                    drop(state);
                    self.publish_health(None);
                    false
                } else {
                    true
                }
            }
            State::Open => {
                if code.is_none() && self.settings.runs_without_windows {
                    return false;
                }
                let held = if code.is_some() {
                    HeldFor::Exit
                } else {
                    HeldFor::WindowsClosed
                };
                self.begin(&mut state, code.unwrap_or(0), held)
            }
        }
    }

    /// Holds the quit while there is work: `true` when it began.
    fn begin(self: &Arc<Self>, state: &mut State, code: i32, held: HeldFor) -> bool {
        if self.settings.kinds.is_empty() {
            return false;
        }
        let work = match self.work.left(&self.settings.kinds) {
            Ok(work) => work,
            Err(error) => {
                tracing::warn!(%error, "could not tell what is left to finish: quitting");
                return false;
            }
        };
        if work.is_empty() {
            return false;
        }
        let now = self.work.queue.clock().now();
        let finishing = Finishing {
            since: now,
            deadline: now.saturating_add(self.deadline()),
            code,
            work,
        };
        tracing::info!(work = %finishing.describe(), deadline_ms = %finishing.deadline, "holding the quit");
        self.work
            .runner
            .claim_only(Some(self.settings.kinds.iter().cloned().collect()));
        self.publish_health(Some(&finishing));
        *state = State::Finishing(finishing, held);
        self.watch();
        true
    }

    /// The app asks to exit once the work is done (started hidden after a reboot):
    /// `true` while it waits for work, `false` when none is left and it exits now.
    pub(crate) fn quit_when_done(self: &Arc<Self>) -> bool {
        let mut state = lock(&self.state);
        match &*state {
            State::Finishing(..) => true,
            State::Exiting => false,
            State::Open => {
                if self.begin(&mut state, 0, HeldFor::WhenDone) {
                    return true;
                }
                *state = State::Exiting;
                drop(state);
                self.exit(0);
                false
            }
        }
    }

    /// Exits now, whatever is left (given back, as at any exit).
    pub(crate) fn quit_now(&self) {
        self.now.store(true, std::sync::atomic::Ordering::Relaxed);
        let code = match std::mem::replace(&mut *lock(&self.state), State::Exiting) {
            State::Finishing(finishing, _) => finishing.code,
            _ => 0,
        };
        self.publish_health(None);
        self.changed.notify_one();
        self.exit(code);
    }

    /// A window has focus: an app that closed its windows (or started hidden) and
    /// opened one again is not quitting any more.
    pub(crate) fn window_focused(&self) {
        let mut state = lock(&self.state);
        if let State::Finishing(_, HeldFor::WindowsClosed | HeldFor::WhenDone) = &*state {
            tracing::info!("a window is back: the quit is off");
            *state = State::Open;
            drop(state);
            self.work.runner.claim_only(None);
            self.publish_health(None);
            self.changed.notify_one();
        }
    }

    /// The app exits (`RunEvent::Exit`): nothing is held from now on.
    pub(crate) fn exiting(&self) {
        *lock(&self.state) = State::Exiting;
        self.changed.notify_one();
    }

    fn exit(&self, code: i32) {
        let exit = lock(&self.exit).clone();
        match exit {
            Some(exit) => exit(code),
            None => tracing::warn!("no app to exit"),
        }
    }

    fn publish_health(&self, finishing: Option<&Finishing>) {
        self.bus.publish(PluginHealth {
            component: QUIT_COMPONENT.to_owned(),
            health: health(finishing),
            at: self.work.queue.clock().now(),
        });
    }

    /// The `quit` component's health now.
    pub(crate) fn health(&self) -> Health {
        health(self.finishing().as_ref())
    }

    /// Watches a held quit until its work is done or its deadline passed, then exits.
    fn watch(self: &Arc<Self>) {
        let quit = self.clone();
        let mut events = self.bus.subscribe(256);
        crate::tasks::spawn_in_app(async move {
            loop {
                let changed = quit.changed.notified();
                let Some(code) = quit.look() else {
                    return;
                };
                if let Some(code) = code {
                    quit.exit(code);
                    return;
                }
                tokio::select! {
                    () = changed => {}
                    () = tokio::time::sleep(LOOK_EVERY) => {}
                    () = next_change(&mut events) => {}
                }
            }
        });
    }

    /// Looks at a held quit: `None` when it is over (the app came back, or exits
    /// already); `Some(Some(code))` to exit now with `code`; `Some(None)` to go on.
    fn look(&self) -> Option<Option<i32>> {
        let (code, deadline) = match &*lock(&self.state) {
            State::Finishing(finishing, _) => (finishing.code, finishing.deadline),
            _ => return None,
        };
        let now = self.work.queue.clock().now();
        let left = match self.work.left(&self.settings.kinds) {
            Ok(left) => left,
            Err(error) => {
                tracing::warn!(%error, "could not tell what is left to finish: quitting");
                Vec::new()
            }
        };
        let mut state = lock(&self.state);
        let State::Finishing(finishing, _) = &mut *state else {
            return None;
        };
        if left.is_empty() || now >= deadline {
            if left.is_empty() {
                tracing::info!("the work is done: quitting");
            } else {
                tracing::info!(left = %finishing.describe(), "the quit's deadline passed: quitting, giving back what is left");
            }
            *state = State::Exiting;
            drop(state);
            self.publish_health(None);
            return Some(Some(code));
        }
        if finishing.work != left {
            finishing.work = left;
            let finishing = finishing.clone();
            drop(state);
            self.publish_health(Some(&finishing));
        }
        Some(None)
    }
}

/// Waits for a job to start or end (progress and the rest are not looked at).
async fn next_change(events: &mut EventStream) {
    while let Some(event) = events.next().await {
        if matches!(
            &*event,
            Event::JobStateChanged(_) | Event::LocalJobChanged(_)
        ) {
            return;
        }
    }
    std::future::pending::<()>().await;
}

fn health(finishing: Option<&Finishing>) -> Health {
    match finishing {
        Some(finishing) => Health {
            reason: Some(finishing.describe()),
            ..Health::healthy()
        },
        None => Health::healthy(),
    }
}
