//! Running a sync: the three entry points (and the triggers that call them for many
//! targets), the decision to join, skip or start a run under the targets lock, the run
//! itself around the source, and the health it leaves. Compared with `decide`, which
//! says what a run's result does to the stored state, this is where a run happens.

use std::sync::Arc;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::decide::{apply, skip_reason, Mode};
use super::source::DynSource;
use super::{
    not_registered, SyncContext, SyncEngine, SyncError, SyncOutcome, SyncPolicy, SyncState,
    SyncTarget, Trigger, WAKE_SPREAD,
};
use crate::bus::{PluginHealth, SyncFinished};
use crate::clock::Timestamp;
use crate::locks::lock;
use crate::model::{Health, HealthStatus};
use crate::panics::CatchUnwind;
use crate::progress::Throttle;
use crate::store::history::SyncRun;

impl SyncEngine {
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
    pub async fn sync_if_due(
        &self,
        target: &SyncTarget,
        trigger: Trigger,
    ) -> crate::Result<SyncOutcome> {
        self.run(target, Mode::IfDue(trigger)).await
    }

    /// The user asked: syncs now unless the server asked to wait.
    pub async fn sync_now(&self, target: &SyncTarget) -> crate::Result<SyncOutcome> {
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
    ) -> crate::Result<SyncOutcome> {
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

    // ===== the run =====

    /// Decides, under the targets lock, whether to join the run in flight, skip, or
    /// start a run; then waits for the outcome.
    async fn run(&self, target: &SyncTarget, mode: Mode) -> crate::Result<SyncOutcome> {
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
                    crate::tasks::spawn(async move {
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
            app: self.inner.app.get().cloned().unwrap_or_default(),
        };
        let attempt_at = self.now();
        let result = tokio::select! {
            result = tracing::Instrument::instrument(
                CatchUnwind(source.sync_boxed(&context)),
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
                    let ended = outcome.clone();
                    let took_ms = now
                        .as_millis()
                        .saturating_sub(attempt_at.as_millis())
                        .max(0) as u64;
                    let saved = tokio::task::spawn_blocking(move || {
                        let run = SyncRun {
                            outcome: &ended,
                            took_ms,
                        };
                        engine.save(&key, &state, Some(run))
                    })
                    .await;
                    match saved {
                        Ok(Ok(())) => {
                            #[cfg(feature = "metrics")]
                            crate::metrics::sync(&target.to_string(), &outcome, took_ms);
                        }
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
            started_by: mode.started_by(),
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
                    let was = entry.health.replace(health.clone());
                    Some(was.map(|was| was.status))
                }
                _ => None,
            }
        };
        if let Some(was) = changed {
            log_health(target, was, &health);
            self.inner.db.bus().publish(PluginHealth {
                component: target.to_string(),
                health,
                at: self.now(),
            });
        }
    }
}

/// Logs a target's health when its verdict changed (not each time its reason does: a
/// retry after two failures instead of one writes no line): WARN when it is failing,
/// offline, throttled or silent, INFO when it is healthy again. A target that starts
/// healthy writes nothing.
fn log_health(target: &SyncTarget, was: Option<HealthStatus>, now: &Health) {
    if was == Some(now.status) || (was.is_none() && now.status == HealthStatus::Healthy) {
        return;
    }
    let reason = now.reason.as_deref().unwrap_or_default();
    match now.status {
        HealthStatus::Healthy => tracing::info!(%target, "sync target healthy again"),
        HealthStatus::Error => tracing::warn!(%target, %reason, "sync target failing"),
        _ => tracing::warn!(%target, %reason, "sync target not healthy"),
    }
}

struct Started {
    target: SyncTarget,
    mode: Mode,
    policy: SyncPolicy,
    source: Arc<dyn DynSource>,
    cancel: CancellationToken,
    state: SyncState,
}
