//! Keeping the machine awake while work that asked for it runs ([`KeepAwake`]).
//!
//! A durable kind ([`Handler::keep_awake`](crate::runner::Handler::keep_awake)) or a
//! local kind (`Builder::keep_awake_local_kind`) asks that the system not sleep on its
//! idle timer while one of its jobs runs. The process then holds one request with the
//! system (an [`Inhibitor`]): taken when the first such job starts waiting on
//! something (a durable job that finishes within its first poll never takes one), let go when
//! the last one ends, however it ends (success, failure, a panic, a cancel, a lost
//! lease, the runner stopping: the [`AwakeGuard`] each job holds is dropped with its
//! future). The system's own release when a process exits is the backstop: every form
//! of the request belongs to the process (a file descriptor on Linux, a handle on
//! Windows, an assertion of the task on macOS), so none outlives a crash.
//!
//! A local job takes its part when it starts (its body is spawned, not polled first).
//! The system is told the reason of the first job that held the request when it was
//! taken; it is not told again while the request stays.
//!
//! The display may still sleep, and a user's own suspend is not the idle timer: see
//! [`SystemInhibitor`] for what each system does. Where no request can be taken (no
//! logind, a sandbox), the [`health`](KeepAwake::health) says so, once, and the work
//! goes on.
//!
//! Requests are taken and let go on a thread of the [`KeepAwake`]'s own (a D-Bus call
//! must not hold a runner's thread), so [`KeepAwake::hold`] costs a lock and a
//! notification.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::locks::lock;
use crate::model::Health;

mod system;

pub use system::SystemInhibitor;

/// The component `pluginHealth()` names for [`KeepAwake::health`].
pub const AWAKE_COMPONENT: &str = "awake";

/// What asks the system not to sleep on its idle timer.
pub trait Inhibitor: Send + Sync + 'static {
    /// Takes a request, saying `why` (the system may show it); what comes back holds
    /// it until dropped. An error says why none could be taken.
    ///
    /// # Errors
    ///
    /// The system refused or cannot be asked (no logind, a sandbox), in words.
    fn inhibit(&self, why: &str) -> Result<Box<dyn Send>, String>;
}

/// A job that keeps the machine awake while it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AwakeJob {
    /// Its kind.
    pub kind: String,
    /// Its id: a durable job's number, or a local job's id.
    pub id: String,
    /// Whether it is a local job.
    pub local: bool,
}

impl AwakeJob {
    /// A durable job.
    #[must_use]
    pub fn durable(kind: impl Into<String>, id: crate::model::JobId) -> Self {
        AwakeJob {
            kind: kind.into(),
            id: id.to_string(),
            local: false,
        }
    }

    /// A local job.
    #[must_use]
    pub fn local(kind: impl Into<String>, id: impl std::fmt::Display) -> Self {
        AwakeJob {
            kind: kind.into(),
            id: id.to_string(),
            local: true,
        }
    }
}

impl std::fmt::Display for AwakeJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.local {
            write!(f, "{} ({})", self.kind, self.id)
        } else {
            write!(f, "{} #{}", self.kind, self.id)
        }
    }
}

/// Whether the machine is kept awake now, and for which jobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AwakeStatus {
    /// Whether the system holds this process's request now.
    pub held: bool,
    /// The jobs running that asked for it, oldest first.
    pub jobs: Vec<AwakeJob>,
    /// Why the request could not be taken, while jobs that asked for it run; `None`
    /// again once the last of them has ended.
    pub error: Option<String>,
}

/// Keeps the machine awake while at least one [`AwakeGuard`] lives. Cheap to clone:
/// clones share one request with the system.
#[derive(Clone)]
pub struct KeepAwake {
    owner: Arc<Owner>,
}

/// Two handles are equal when they share one request.
impl PartialEq for KeepAwake {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.owner, &other.owner)
    }
}

impl std::fmt::Debug for KeepAwake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeepAwake")
            .field("status", &self.status())
            .finish()
    }
}

/// Held by a job while it keeps the machine awake; dropping it lets go of its part.
#[must_use = "the machine is kept awake only while the guard lives"]
pub struct AwakeGuard {
    shared: Arc<Shared>,
    key: u64,
}

impl std::fmt::Debug for AwakeGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AwakeGuard")
            .field("key", &self.key)
            .finish()
    }
}

impl Drop for AwakeGuard {
    fn drop(&mut self) {
        let mut state = lock(&self.shared.state);
        state.holders.remove(&self.key);
        state.version += 1;
        drop(state);
        self.shared.changed.notify_all();
    }
}

/// Stops the thread when the last [`KeepAwake`] goes (guards may live on: they only
/// write the state).
struct Owner {
    shared: Arc<Shared>,
}

impl Drop for Owner {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.changed.notify_all();
    }
}

struct Shared {
    inhibitor: Arc<dyn Inhibitor>,
    state: Mutex<State>,
    changed: Condvar,
    /// Told when the request is taken or let go, or cannot be taken.
    listener: Mutex<Option<Listener>>,
}

type Listener = Arc<dyn Fn(&AwakeStatus) + Send + Sync>;

#[derive(Default)]
struct State {
    holders: BTreeMap<u64, (AwakeJob, Option<String>)>,
    next: u64,
    /// Counts every change of `holders`; `acted` is the one the thread last acted on.
    version: u64,
    acted: u64,
    held: bool,
    error: Option<String>,
    /// Whether an error was logged since the last request that was taken.
    warned: bool,
    thread: bool,
    stop: bool,
}

impl KeepAwake {
    /// Requests through `inhibitor`.
    #[must_use]
    pub fn new(inhibitor: impl Inhibitor) -> Self {
        KeepAwake::with(Arc::new(inhibitor))
    }

    /// Requests through this system's own means ([`SystemInhibitor`]).
    #[must_use]
    pub fn system() -> Self {
        KeepAwake::new(SystemInhibitor::new())
    }

    fn with(inhibitor: Arc<dyn Inhibitor>) -> Self {
        KeepAwake {
            owner: Arc::new(Owner {
                shared: Arc::new(Shared {
                    inhibitor,
                    state: Mutex::new(State::default()),
                    changed: Condvar::new(),
                    listener: Mutex::new(None),
                }),
            }),
        }
    }

    /// Keeps the machine awake for `job` until the guard is dropped. `reason` is what
    /// the system may show ("Importing mailboxes"); the first job's, when several
    /// run ("Running import" when it gives none).
    pub fn hold(&self, job: AwakeJob, reason: Option<String>) -> AwakeGuard {
        let shared = &self.owner.shared;
        let mut state = lock(&shared.state);
        let key = state.next;
        state.next += 1;
        state.holders.insert(key, (job, reason));
        state.version += 1;
        let start = !state.thread;
        state.thread = true;
        drop(state);
        if start {
            let thread = shared.clone();
            let spawned = std::thread::Builder::new()
                .name("jobs-keep-awake".into())
                .spawn(move || keep(&thread));
            if let Err(error) = spawned {
                let mut state = lock(&shared.state);
                state.thread = false;
                state.error = Some(format!("no thread to keep the machine awake: {error}"));
            }
        }
        shared.changed.notify_all();
        AwakeGuard {
            shared: shared.clone(),
            key,
        }
    }

    /// Whether the machine is kept awake now, and for which jobs.
    #[must_use]
    pub fn status(&self) -> AwakeStatus {
        status_of(&lock(&self.owner.shared.state))
    }

    /// Calls `listener` (on the [`KeepAwake`]'s thread) after each change it acted on:
    /// the request taken or let go or refused, or a job joining or leaving it;
    /// replaces the one before. It runs after [`settle`](KeepAwake::settle) returns. The plugin
    /// publishes a [`PluginHealth`](crate::bus::PluginHealth) event of component
    /// [`AWAKE_COMPONENT`] from it.
    pub fn on_change(&self, listener: impl Fn(&AwakeStatus) + Send + Sync + 'static) {
        *lock(&self.owner.shared.listener) = Some(Arc::new(listener));
    }

    /// Healthy, saying which jobs keep the machine awake while some do; a warning
    /// when the system would not take the request (the work goes on all the same).
    #[must_use]
    pub fn health(&self) -> Health {
        self.health_of(|_| true)
    }

    /// The health `status` says, naming no job.
    #[must_use]
    pub fn health_without_jobs(status: &AwakeStatus) -> Health {
        let mut status = status.clone();
        status.jobs.clear();
        health_of_status(&status, 0)
    }

    /// [`health`](KeepAwake::health), naming only the jobs `shown` lets through (a
    /// window's scope): the others are counted, not named.
    #[must_use]
    pub fn health_of(&self, shown: impl Fn(&AwakeJob) -> bool) -> Health {
        let mut status = self.status();
        let hidden = status.jobs.len();
        status.jobs.retain(|job| shown(job));
        let hidden = hidden - status.jobs.len();
        health_of_status(&status, hidden)
    }

    /// Waits until the request with the system matches the jobs that hold it (taken
    /// while any does, let go when none does), up to `timeout`; whether it did. For
    /// tests: the request is taken and let go on a thread of its own.
    pub fn settle(&self, timeout: Duration) -> bool {
        let shared = &self.owner.shared;
        let deadline = Instant::now() + timeout;
        let mut state = lock(&shared.state);
        while state.acted != state.version {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = shared
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        true
    }
}

/// The health of `status`, `hidden` of its jobs counted rather than named.
fn health_of_status(status: &AwakeStatus, hidden: usize) -> Health {
    if let Some(error) = &status.error {
        return Health::warning(format!(
            "cannot keep the machine awake ({error}); the work goes on and the \
             machine may sleep on its idle timer"
        ));
    }
    if status.held {
        let mut jobs: Vec<String> = status.jobs.iter().map(ToString::to_string).collect();
        match hidden {
            0 => {}
            1 => jobs.push("1 other job".to_owned()),
            n => jobs.push(format!("{n} other jobs")),
        }
        return Health {
            reason: Some(if jobs.is_empty() {
                "keeping the machine awake".to_owned()
            } else {
                format!("keeping the machine awake for {}", jobs.join(", "))
            }),
            ..Health::healthy()
        };
    }
    Health::healthy()
}

fn status_of(state: &State) -> AwakeStatus {
    AwakeStatus {
        held: state.held,
        jobs: state.holders.values().map(|(job, _)| job.clone()).collect(),
        error: state.error.clone(),
    }
}

/// The text the system is given: the first job's reason, or its kind.
fn why(holders: &BTreeMap<u64, (AwakeJob, Option<String>)>) -> String {
    let Some((job, reason)) = holders.values().next() else {
        return String::new();
    };
    let first = reason
        .clone()
        .unwrap_or_else(|| format!("Running {}", job.kind));
    match holders.len() {
        1 => first,
        n => format!("{first} (and {} more)", n - 1),
    }
}

/// The thread: takes the request while any job holds it, lets it go when none does.
fn keep(shared: &Shared) {
    let mut held: Option<Box<dyn Send>> = None;
    let mut state = lock(&shared.state);
    loop {
        let version = state.version;
        let wanted = !state.holders.is_empty() && !state.stop;
        if wanted && held.is_none() {
            let reason = why(&state.holders);
            drop(state);
            // An inhibitor that panics (the trait is the app's to implement) is a
            // request refused, never the end of this thread.
            let taken =
                std::panic::catch_unwind(AssertUnwindSafe(|| shared.inhibitor.inhibit(&reason)))
                    .unwrap_or_else(|panic| {
                        Err(format!(
                            "the inhibitor panicked: {}",
                            crate::panics::panic_message(&*panic)
                        ))
                    });
            state = lock(&shared.state);
            match taken {
                Ok(request) => {
                    held = Some(request);
                    state.error = None;
                    state.warned = false;
                    tracing::debug!(reason, "keeping the machine awake");
                }
                Err(error) => {
                    if !state.warned {
                        tracing::warn!(%error, "cannot keep the machine awake; the work goes on");
                        state.warned = true;
                    }
                    state.error = Some(error);
                }
            }
        } else if !wanted && held.is_some() {
            drop(state);
            let request = held.take();
            if std::panic::catch_unwind(AssertUnwindSafe(|| drop(request))).is_err() {
                tracing::warn!("letting go of the keep-awake request panicked");
            }
            tracing::debug!("the machine may sleep again");
            state = lock(&shared.state);
        }
        if !wanted {
            // The warning says the work that asked may let the machine sleep: with none
            // left, there is nothing to warn of (the log said it once).
            state.error = None;
        }
        state.held = held.is_some();
        state.acted = version;
        // Told of every change: the request, or the jobs that hold it.
        let status = status_of(&state);
        let listener = lock(&shared.listener).clone();
        if let Some(listener) = listener {
            drop(state);
            // A listener that panics is the app's bug, never the end of this thread.
            let told = std::panic::catch_unwind(AssertUnwindSafe(|| listener(&status)));
            if told.is_err() {
                tracing::warn!("a keep-awake listener panicked");
            }
            state = lock(&shared.state);
        }
        shared.changed.notify_all();
        if state.stop && held.is_none() {
            state.thread = false;
            return;
        }
        // Asleep until a job comes or goes (a failed request is tried again when the
        // next job starts).
        while state.version == version && !state.stop {
            state = shared
                .changed
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

#[cfg(test)]
mod tests;
