//! The sync engine: sources decide how data is fetched, the engine decides when.
//!
//! Three entry points start a run:
//!
//! | entry point | who calls it | throttled? |
//! | --- | --- | --- |
//! | [`run_due`](SyncEngine::run_due) | the scheduler loop | follows the policy |
//! | [`sync_if_due`](SyncEngine::sync_if_due) | window focus, network back, wake | by `min_interval` |
//! | [`sync_now`](SyncEngine::sync_now) | the user pressed Refresh | no |
//!
//! Alt-tabbing twenty times means at most one sync (a network-back trigger for a
//! target that is offline skips `min_interval`: the attempt is the probe). An explicit
//! Refresh syncs through a server's polling interval
//! ([`SyncThrottle::server_interval`]: `Retry-After`, `X-Poll-Interval`), which shapes
//! automatic runs only; a used-up quota ([`SyncThrottle::quota`]) holds back every
//! entry point, Refresh included, which is told at once until when. From the webview,
//! a Refresh within the plugin's refresh floor (2 s) of the target's last one gets
//! that run's outcome.
//!
//! Failures back off exponentially with a cap and ±20 % jitter
//! ([`SyncPolicy::delay_for`]); a service that cannot be reached gets a short flat
//! retry instead, and a network-back trigger retries an offline target at once: the
//! attempt itself is the probe. A response without validators keeps the stored ones.
//! Runs are single-flight: a second caller of any entry point waits for the run in
//! flight and gets its outcome. Runs are tokio tasks, so a caller that goes away does
//! not strand the run.
//!
//! State lives in `raw.db` under `acct.<connector>.<account>.sync.<name>`;
//! [`disconnect`](SyncEngine::disconnect) removes every key under
//! `acct.<connector>.<account>.`, unregisters the account's targets and cancels their
//! runs. Health changes are published as plugin-health events.

mod decide;
mod history;

#[cfg(feature = "sync")]
mod network;
mod outcome;
mod policy;
mod run;
mod source;
mod state;
mod target;
pub mod testing;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use crate::http::{poll_interval, retry_after};
pub use history::SyncHistoryPoint;
#[cfg(feature = "sync")]
pub use network::{NetworkWatch, NETWORK_DEBOUNCE};
pub use outcome::{SkipReason, StartedBy, SyncOutcome, Trigger};
pub use policy::{SyncPolicy, SyncPolicyError};
pub use source::{
    BoxFuture, Result, SyncContext, SyncError, SyncReport, SyncResult, SyncSource, SyncThrottle,
    ThrottleReason,
};
pub use state::{health_of, SyncState, FAILURES_FOR_ERROR};
pub use target::SyncTarget;

pub(crate) use source::DynSource;

pub use crate::background::MAX_SLEEP;

use crate::background::Background;
use crate::bus::AccountDisconnected;
use crate::clock::Timestamp;
use crate::db::Db;
use crate::error::Error;
use crate::locks::lock;
use crate::model::Health;
use crate::queue::Queue;
use crate::random::{RandomSource, ThreadRandom};
use crate::store::history::{forget_account, record_sync, SyncRun};
use crate::store::kv;

/// Over how long, at most, the starts of targets that fell due together are spread
/// after a wake from sleep.
pub const WAKE_SPREAD: std::time::Duration = std::time::Duration::from_secs(5);

struct Entry {
    policy: SyncPolicy,
    source: Arc<dyn DynSource>,
    // What is stored in `raw.db`, kept here so that decisions read no file: the engine
    // is its target's only writer.
    state: SyncState,
    flight: Option<watch::Receiver<Option<SyncOutcome>>>,
    // When the last Refresh press got its outcome, and which, for presses that share it.
    last: Option<(Timestamp, SyncOutcome)>,
    cancel: CancellationToken,
    health: Option<Health>,
}

struct Inner {
    db: Db,
    random: Arc<dyn RandomSource>,
    // Mutex: decisions to start a run (and single-flight) are made under it; sources
    // run outside it.
    targets: Mutex<HashMap<SyncTarget, Entry>>,
    background: Background,
    // The app sources reach through `SyncContext::app`; set once by the plugin.
    app: std::sync::OnceLock<crate::app::AppSlot>,
}

/// The sync engine over one `raw.db`. Cheap to clone.
#[derive(Clone)]
pub struct SyncEngine {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SyncEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncEngine").finish_non_exhaustive()
    }
}

impl SyncEngine {
    /// The network came back: besides the sync targets, the durable kinds waiting for
    /// it on this file try one job each ([`Queue::network_back`](crate::queue::Queue::network_back)).
    #[cfg(feature = "sync")]
    pub(crate) fn network_back(&self) -> crate::Result<usize> {
        crate::queue::network_back_in(&self.inner.db)
    }

    /// An engine keeping its state in `queue`'s file, on `queue`'s clock and bus,
    /// with thread randomness for jitter.
    #[must_use]
    pub fn new(queue: Queue) -> Self {
        Self::with_random(queue, ThreadRandom)
    }

    /// The same with the jitter's randomness injected.
    #[must_use]
    pub fn with_random(queue: Queue, random: impl RandomSource) -> Self {
        SyncEngine {
            inner: Arc::new(Inner {
                db: queue.db().clone(),
                random: Arc::new(random),
                targets: Mutex::new(HashMap::new()),
                background: Background::default(),
                app: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Hands `app` to every source this engine runs, as [`SyncContext::app`]: the
    /// plugin does it; an engine of one's own does it here. Once: a second call
    /// changes nothing and returns `false`.
    pub fn set_app<R: tauri::Runtime>(&self, app: &tauri::AppHandle<R>) -> bool {
        self.inner.app.set(crate::app::AppSlot::of(app)).is_ok()
    }

    fn now(&self) -> Timestamp {
        self.inner.db.now()
    }

    /// Registers a target with its policy and source. Registering again keeps the
    /// stored state and takes the new policy and source. A first registration makes
    /// the target due at once.
    pub fn register<S: SyncSource>(
        &self,
        target: SyncTarget,
        policy: SyncPolicy,
        source: Arc<S>,
    ) -> crate::Result<()> {
        self.register_dyn(target, policy, source)
    }

    /// [`register`](SyncEngine::register) for a source already behind the engine's
    /// pointer type.
    pub(crate) fn register_dyn(
        &self,
        target: SyncTarget,
        policy: SyncPolicy,
        source: Arc<dyn DynSource>,
    ) -> crate::Result<()> {
        target.check()?;
        policy
            .validate()
            .map_err(|error| Error::invalid_argument("policy", format!("{target}: {error}")))?;
        let now = self.now();
        let state = match self.load(&target)? {
            Some(state) => state,
            None => {
                let fresh = SyncState {
                    registered_at: Some(now),
                    next_due: Some(now),
                    ..SyncState::default()
                };
                self.save(&target, &fresh, None)?;
                fresh
            }
        };
        let mut targets = lock(&self.inner.targets);
        match targets.get_mut(&target) {
            Some(entry) => {
                entry.policy = policy;
                entry.source = source;
            }
            None => {
                targets.insert(
                    target,
                    Entry {
                        policy,
                        source,
                        state,
                        flight: None,
                        last: None,
                        cancel: CancellationToken::new(),
                        health: None,
                    },
                );
            }
        }
        drop(targets);
        self.inner.background.wake();
        Ok(())
    }

    /// The registered targets, sorted.
    #[must_use]
    pub fn targets(&self) -> Vec<SyncTarget> {
        let mut targets: Vec<SyncTarget> = lock(&self.inner.targets).keys().cloned().collect();
        targets.sort();
        targets
    }

    /// A target's stored state.
    pub fn state(&self, target: &SyncTarget) -> crate::Result<Option<SyncState>> {
        self.load(target)
    }

    /// A registered target's health now.
    pub fn health(&self, target: &SyncTarget) -> crate::Result<Health> {
        let targets = lock(&self.inner.targets);
        let entry = targets.get(target).ok_or_else(|| not_registered(target))?;
        Ok(health_of(&entry.state, &entry.policy, self.now()))
    }

    /// Every key stored under `acct.<connector>.<account>.`: what
    /// [`disconnect`](SyncEngine::disconnect) removes.
    pub fn stored_keys(&self, connector: &str, account: &str) -> crate::Result<Vec<String>> {
        SyncTarget::check_account(connector, account)?;
        let prefix = SyncTarget::account_prefix(connector, account);
        self.inner.db.read(|conn| kv::keys(conn, &prefix))
    }

    /// Removes everything stored under `acct.<connector>.<account>.` and the history of
    /// the account's targets, unregisters the targets and cancels their runs in
    /// flight. Returns how many keys went.
    ///
    /// Both names are checked as a target's parts are (1 to 128 bytes, no `.` or `/`),
    /// so one account never reaches another's keys.
    pub fn disconnect(&self, connector: &str, account: &str) -> crate::Result<u64> {
        SyncTarget::check_account(connector, account)?;
        let mut gone = Vec::new();
        {
            let mut targets = lock(&self.inner.targets);
            targets.retain(|target, entry| {
                let owned = target.connector() == connector && target.account() == account;
                if owned {
                    entry.cancel.cancel();
                    gone.push(target.to_string());
                }
                !owned
            });
        }
        gone.sort();
        let prefix = SyncTarget::account_prefix(connector, account);
        let removed = self.inner.db.write(self.now(), |tx, _| {
            forget_account(tx, connector, account)?;
            kv::delete_prefix(tx, &prefix)
        })?;
        self.inner.background.wake();
        self.inner.db.bus().publish(AccountDisconnected {
            account: format!("{connector}/{account}"),
            targets: gone,
            at: self.now(),
        });
        Ok(removed)
    }

    // ===== background =====

    /// Starts the background loop on the current tokio runtime: `run_due`, then sleep
    /// until the next due time (at most [`MAX_SLEEP`], judged on the wall clock) or a
    /// change.
    pub fn start(&self) {
        let engine = self.clone();
        self.inner.background.start(move || {
            let engine = engine.clone();
            async move {
                engine.run_due(engine.now()).await;
                let now = engine.now();
                // A target is due at its next_due, and not before a server throttle
                // ends: a throttled target is no reason to wake.
                let wait = lock(&engine.inner.targets)
                    .values()
                    .filter_map(|entry| {
                        let due = entry.state.next_due?;
                        Some(
                            entry
                                .state
                                .throttled_until
                                .map_or(due, |until| due.max(until)),
                        )
                    })
                    .map(|at| at.duration_since(now))
                    .fold(MAX_SLEEP, Duration::min);
                Some(wait.max(Duration::from_millis(10)))
            }
        });
    }

    /// Stops the background loop. Runs in flight finish on their own.
    pub async fn stop(&self) {
        self.inner.background.stop().await;
    }

    // ===== state =====

    fn load(&self, target: &SyncTarget) -> crate::Result<Option<SyncState>> {
        let key = target.state_key();
        let Some(text) = self.inner.db.read(|conn| kv::get(conn, &key))? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| Error::invalid_argument("sync state", format!("{key}: {error}")))
    }

    /// Stores the target's state and, after a run, adds the run to its history in
    /// the same transaction.
    fn save(
        &self,
        target: &SyncTarget,
        state: &SyncState,
        run: Option<SyncRun<'_>>,
    ) -> crate::Result<()> {
        let key = target.state_key();
        let text = serde_json::to_string(state)
            .map_err(|error| Error::invalid_argument("sync state", error.to_string()))?;
        let now = self.now();
        self.inner.db.write(now, |tx, _| {
            kv::put(tx, &key, &text, now)?;
            if let Some(run) = run {
                record_sync(tx, &target.to_string(), run, now)?;
            }
            Ok(())
        })
    }
}

fn not_registered(target: &SyncTarget) -> Error {
    Error::invalid_argument("target", format!("{target} is not registered"))
}
