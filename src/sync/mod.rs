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
//! Alt-tabbing twenty times means at most one sync; an explicit Refresh always
//! syncs, except while the server itself asked to wait (`Retry-After`, a used-up
//! quota): the engine honours that for every entry point and reports it.
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
mod http;
mod network;
mod outcome;
mod policy;
mod source;
mod state;
mod target;
pub mod testing;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use decide::{apply, skip_reason, Mode};
pub use http::{poll_interval, retry_after};
pub use network::{NetworkWatch, NETWORK_DEBOUNCE};
pub use outcome::{SkipReason, SyncOutcome, Trigger};
pub use policy::{SyncPolicy, SyncPolicyError};
pub use source::{
    BoxFuture, SyncContext, SyncError, SyncReport, SyncResult, SyncSource, SyncThrottle,
    ThrottleReason,
};
pub use state::{health_of, SyncState, FAILURES_FOR_ERROR};
pub use target::SyncTarget;

pub use crate::background::MAX_SLEEP;

use crate::background::Background;
use crate::bus::{AccountDisconnected, PluginHealth, SyncFinished};
use crate::clock::Timestamp;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::locks::lock;
use crate::model::Health;
use crate::panics::CatchUnwind;
use crate::progress::Throttle;
use crate::queue::Queue;
use crate::random::{RandomSource, ThreadRandom};
use crate::store::kv;

/// Over how long, at most, the starts of targets that fell due together are spread
/// after a wake from sleep.
pub const WAKE_SPREAD: std::time::Duration = std::time::Duration::from_secs(5);

struct Entry {
    policy: SyncPolicy,
    source: Arc<dyn SyncSource>,
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
            }),
        }
    }

    fn now(&self) -> Timestamp {
        self.inner.db.now()
    }

    /// Registers a target with its policy and source. Registering again keeps the
    /// stored state and takes the new policy and source. A first registration makes
    /// the target due at once.
    pub fn register(
        &self,
        target: SyncTarget,
        policy: SyncPolicy,
        source: Arc<dyn SyncSource>,
    ) -> Result<()> {
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
                self.save(&target, &fresh)?;
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
    pub fn state(&self, target: &SyncTarget) -> Result<Option<SyncState>> {
        self.load(target)
    }

    /// A registered target's health now.
    pub fn health(&self, target: &SyncTarget) -> Result<Health> {
        let targets = lock(&self.inner.targets);
        let entry = targets.get(target).ok_or_else(|| not_registered(target))?;
        Ok(health_of(&entry.state, &entry.policy, self.now()))
    }

    // ===== entry points =====

    /// Over how long the starts of `count` runs are spread: after a wake from sleep
    /// (the wake trigger, or the loop's first look after one), when many targets fell
    /// due at once, [`WAKE_SPREAD`] at random (the injected randomness), so that
    /// opening a laptop's lid does not send every request in the same instant.
    fn spread(&self, mode: Mode, count: usize) -> std::time::Duration {
        if count < 2 {
            return std::time::Duration::ZERO;
        }
        let after_wake = match mode {
            Mode::IfDue(Trigger::Wake) => true,
            Mode::Due => self
                .inner
                .db
                .woke_at()
                .is_some_and(|at| self.now().duration_since(at) < WAKE_SPREAD),
            _ => false,
        };
        if after_wake {
            WAKE_SPREAD
        } else {
            std::time::Duration::ZERO
        }
    }

    /// Runs every target due at `now` (concurrently) and reports each outcome.
    /// Also re-checks every target's health, so one that went quiet is reported.
    pub async fn run_due(&self, now: Timestamp) -> Vec<(SyncTarget, SyncOutcome)> {
        let mut due = Vec::new();
        for target in self.targets() {
            let is_due = lock(&self.inner.targets)
                .get(&target)
                .is_some_and(|entry| entry.state.next_due.is_none_or(|at| at <= now));
            if is_due {
                due.push(target);
            } else {
                self.refresh_health(&target);
            }
        }
        self.run_each(due, Mode::Due).await
    }

    /// Runs `targets` concurrently (each its own task, so one slow source delays no
    /// other) and reports each outcome.
    async fn run_each(
        &self,
        targets: Vec<SyncTarget>,
        mode: Mode,
    ) -> Vec<(SyncTarget, SyncOutcome)> {
        let spread = self.spread(mode, targets.len());
        let runs: Vec<_> = targets
            .into_iter()
            .map(|target| {
                let engine = self.clone();
                let run_target = target.clone();
                // Awake time (a tokio timer): a start spread over a few seconds.
                let delay = if spread.is_zero() {
                    spread
                } else {
                    spread.mul_f64(self.inner.random.unit())
                };
                let run = tokio::spawn(async move {
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    engine.run(&run_target, mode).await
                });
                (target, run)
            })
            .collect();
        let mut outcomes = Vec::with_capacity(runs.len());
        for (target, run) in runs {
            match run.await {
                Ok(Ok(outcome)) => outcomes.push((target, outcome)),
                Ok(Err(error)) => tracing::warn!(%target, %error, "sync run failed to start"),
                Err(error) => tracing::warn!(%target, %error, "sync run task failed"),
            }
        }
        outcomes
    }

    /// An automatic trigger: syncs unless the last run is within `min_interval`, the
    /// target is backing off after failures, or the server asked to wait. A
    /// [`Trigger::NetworkBack`] retries an offline target at once.
    pub async fn sync_if_due(&self, target: &SyncTarget, trigger: Trigger) -> Result<SyncOutcome> {
        self.run(target, Mode::IfDue(trigger)).await
    }

    /// The user asked: syncs now unless the server asked to wait.
    pub async fn sync_now(&self, target: &SyncTarget) -> Result<SyncOutcome> {
        self.run(target, Mode::Now).await
    }

    /// [`sync_now`](SyncEngine::sync_now) for presses of a Refresh button that may come
    /// in bursts (or from a page that loops): a press while a run is in flight joins
    /// it, as always, and a press within `floor` of the end of the target's last run
    /// gets that run's outcome instead of starting another.
    pub(crate) async fn sync_now_coalesced(
        &self,
        target: &SyncTarget,
        floor: std::time::Duration,
    ) -> Result<SyncOutcome> {
        {
            let targets = lock(&self.inner.targets);
            let entry = targets.get(target).ok_or_else(|| not_registered(target))?;
            if let (None, Some((ended, outcome))) = (&entry.flight, &entry.last) {
                if self.now().duration_since(*ended) < floor {
                    return Ok(outcome.clone());
                }
            }
        }
        let outcome = self.run(target, Mode::Now).await?;
        if let Some(entry) = lock(&self.inner.targets).get_mut(target) {
            entry.last = Some((self.now(), outcome.clone()));
        }
        Ok(outcome)
    }

    /// `sync_if_due` for `targets`, concurrently.
    pub(crate) async fn trigger_some(
        &self,
        targets: Vec<SyncTarget>,
        trigger: Trigger,
    ) -> Vec<(SyncTarget, SyncOutcome)> {
        self.run_each(targets, Mode::IfDue(trigger)).await
    }

    /// `sync_if_due` for every registered target, concurrently; for window focus,
    /// network back and wake-up.
    pub async fn trigger_all(&self, trigger: Trigger) -> Vec<(SyncTarget, SyncOutcome)> {
        self.run_each(self.targets(), Mode::IfDue(trigger)).await
    }

    /// Every key stored under `acct.<connector>.<account>.`: what
    /// [`disconnect`](SyncEngine::disconnect) removes.
    pub fn stored_keys(&self, connector: &str, account: &str) -> Result<Vec<String>> {
        SyncTarget::check_account(connector, account)?;
        let prefix = SyncTarget::account_prefix(connector, account);
        self.inner.db.read(|conn| kv::keys(conn, &prefix))
    }

    /// Removes everything stored under `acct.<connector>.<account>.`, unregisters the
    /// account's targets and cancels their runs in flight. Returns how many keys went.
    ///
    /// Both names are checked as a target's parts are (1 to 128 bytes, no `.` or `/`),
    /// so one account never reaches another's keys.
    pub fn disconnect(&self, connector: &str, account: &str) -> Result<u64> {
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
        let removed = self
            .inner
            .db
            .write(self.now(), |tx, _| kv::delete_prefix(tx, &prefix))?;
        self.inner.background.wake();
        self.inner.db.bus().publish(AccountDisconnected {
            account: format!("{connector}/{account}"),
            targets: gone,
            at: self.now(),
        });
        Ok(removed)
    }

    // ===== the run =====

    /// Decides, under the targets lock, whether to join the run in flight, skip, or
    /// start a run; then waits for the outcome.
    async fn run(&self, target: &SyncTarget, mode: Mode) -> Result<SyncOutcome> {
        let mut flight = {
            let mut targets = lock(&self.inner.targets);
            let entry = targets
                .get_mut(target)
                .ok_or_else(|| not_registered(target))?;
            match entry.flight.clone() {
                Some(flight) => flight,
                None => {
                    let state = entry.state.clone();
                    if let Some(reason) = skip_reason(&state, &entry.policy, mode, self.now()) {
                        return Ok(SyncOutcome::Skipped(reason));
                    }
                    let (sender, receiver) = watch::channel(None);
                    entry.flight = Some(receiver.clone());
                    let engine = self.clone();
                    let started = Started {
                        target: target.clone(),
                        mode,
                        policy: entry.policy,
                        source: entry.source.clone(),
                        cancel: entry.cancel.clone(),
                        state,
                    };
                    tokio::spawn(async move {
                        let outcome = engine.execute(started).await;
                        let _ = sender.send(Some(outcome));
                    });
                    receiver
                }
            }
        };
        let outcome = flight
            .wait_for(Option::is_some)
            .await
            .map(|outcome| outcome.clone().unwrap_or(SyncOutcome::Cancelled))
            .unwrap_or(SyncOutcome::Cancelled);
        Ok(outcome)
    }

    async fn execute(&self, started: Started) -> SyncOutcome {
        let Started {
            target,
            mode,
            policy,
            source,
            cancel,
            mut state,
        } = started;
        let context = SyncContext {
            target: target.clone(),
            etag: state.etag.clone(),
            last_modified: state.last_modified.clone(),
            cursor: state.cursor.clone(),
            cancel: cancel.clone(),
            bus: self.inner.db.bus().clone(),
            clock: self.inner.db.clock().clone(),
            progress: Throttle::new(self.inner.db.clock().clone()),
        };
        let attempt_at = self.now();
        let result = tokio::select! {
            result = tracing::Instrument::instrument(
                CatchUnwind(source.sync(&context)),
                // One span per run around the source, so an app's subscriber (or `log`)
                // shows which sync logged what.
                tracing::info_span!("sync", target = %target, trigger = ?mode),
            ) => Some(result),
            _ = cancel.cancelled() => None,
        };
        context.finish_progress();
        let outcome = match result {
            None => SyncOutcome::Cancelled,
            Some(result) => {
                let result = result.unwrap_or_else(|panic| {
                    Err(SyncError::failed(format!("source panicked: {panic}")))
                });
                let now = self.now();
                let outcome = apply(
                    &mut state,
                    &policy,
                    result,
                    attempt_at,
                    now,
                    self.inner.random.unit(),
                );
                // A disconnect while the source ran removed the state: keep it removed.
                if !cancel.is_cancelled() {
                    if let Some(entry) = lock(&self.inner.targets).get_mut(&target) {
                        entry.state = state.clone();
                    }
                    // Off the async threads: a locked file must not stall IPC.
                    let engine = self.clone();
                    let key = target.clone();
                    let saved =
                        tokio::task::spawn_blocking(move || engine.save(&key, &state)).await;
                    match saved {
                        Ok(Ok(())) => {}
                        Ok(Err(error)) => {
                            tracing::error!(%target, %error, "could not store sync state")
                        }
                        Err(error) => {
                            tracing::error!(%target, %error, "the task storing sync state failed")
                        }
                    }
                }
                outcome
            }
        };
        if let Some(entry) = lock(&self.inner.targets).get_mut(&target) {
            entry.flight = None;
        }
        self.inner.db.bus().publish(SyncFinished {
            target: target.to_string(),
            outcome: outcome.clone(),
            at: self.now(),
        });
        if !cancel.is_cancelled() {
            self.refresh_health(&target);
        }
        self.inner.background.wake();
        outcome
    }

    /// Publishes the target's health if it changed since last published.
    fn refresh_health(&self, target: &SyncTarget) {
        let Ok(health) = self.health(target) else {
            return;
        };
        let changed = {
            let mut targets = lock(&self.inner.targets);
            match targets.get_mut(target) {
                Some(entry) if entry.health.as_ref() != Some(&health) => {
                    entry.health = Some(health.clone());
                    true
                }
                _ => false,
            }
        };
        if changed {
            self.inner.db.bus().publish(PluginHealth {
                component: target.to_string(),
                health,
                at: self.now(),
            });
        }
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

    fn load(&self, target: &SyncTarget) -> Result<Option<SyncState>> {
        let key = target.state_key();
        let Some(text) = self.inner.db.read(|conn| kv::get(conn, &key))? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| Error::invalid_argument("sync state", format!("{key}: {error}")))
    }

    fn save(&self, target: &SyncTarget, state: &SyncState) -> Result<()> {
        let key = target.state_key();
        let text = serde_json::to_string(state)
            .map_err(|error| Error::invalid_argument("sync state", error.to_string()))?;
        let now = self.now();
        self.inner
            .db
            .write(now, |tx, _| kv::put(tx, &key, &text, now))
    }
}

fn not_registered(target: &SyncTarget) -> Error {
    Error::invalid_argument("target", format!("{target} is not registered"))
}

struct Started {
    target: SyncTarget,
    mode: Mode,
    policy: SyncPolicy,
    source: Arc<dyn SyncSource>,
    cancel: CancellationToken,
    state: SyncState,
}
