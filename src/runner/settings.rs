//! How a runner behaves ([`RunnerSettings`], filled from `config.toml`) and what
//! [`drain`](super::Runner::drain) reports ([`Ran`]).

use std::collections::HashMap;
use std::time::Duration;

use crate::awake::KeepAwake;
use crate::config::JobsConfig;
use crate::model::{JobId, RateLimit};
use crate::queue::{Finished, HistoryKeep};

/// How the runner behaves; `config.toml`'s `[jobs]` section fills it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunnerSettings {
    /// Jobs run at once.
    pub workers: u32,
    /// Lease length for kinds that name none.
    pub lease: Duration,
    /// How often to look for jobs written by other processes.
    pub poll_interval: Duration,
    /// Finished jobs older than this are deleted; `None` keeps them.
    pub retention: Option<Duration>,
    /// How long the history per kind is kept ([`Queue::history`](crate::queue::Queue::history)):
    /// the runner folds and deletes it hourly. `None` leaves it as it is.
    pub history: Option<HistoryKeep>,
    /// Caps per kind that win over the handlers' defaults.
    pub kind_limits: HashMap<String, u32>,
    /// Rate limits per kind that win over the handlers' own.
    pub rate_limits: HashMap<String, RateLimit>,
    /// This runner's worker id, fencing its leases; unique per process by default.
    pub worker_id: String,
    /// Kinds that keep the machine awake (`true`) or not (`false`) while their jobs
    /// run, whatever their handlers ask ([`Handler::keep_awake`](super::Handler::keep_awake)):
    /// `config.toml`'s `[jobs.keep_awake]`.
    pub keep_awake: HashMap<String, bool>,
    /// The process's [`KeepAwake`] (the plugin's, shared with its local jobs); `None`:
    /// the runner makes its own ([`KeepAwake::system`]) when a kind asks for it.
    pub awake: Option<KeepAwake>,
    /// How many lines of each job's log are kept
    /// ([`JobContext::log`](super::JobContext::log)); the older go as new ones come.
    /// [`DEFAULT_LOG_LINES`](crate::queue::DEFAULT_LOG_LINES) by default,
    /// `config.toml`'s `jobs.log_lines`.
    pub log_lines: u32,
}

impl Default for RunnerSettings {
    fn default() -> Self {
        RunnerSettings {
            workers: 4,
            lease: Duration::from_secs(30),
            poll_interval: Duration::from_secs(1),
            retention: Some(Duration::from_secs(7 * 86_400)),
            history: Some(HistoryKeep::default()),
            kind_limits: HashMap::new(),
            rate_limits: HashMap::new(),
            worker_id: format!("runner-{}-{}", std::process::id(), rand::random::<u32>()),
            keep_awake: HashMap::new(),
            awake: None,
            log_lines: crate::queue::DEFAULT_LOG_LINES,
        }
    }
}

impl RunnerSettings {
    /// For tests: the defaults with a fixed worker id (`test-runner`) and no retention
    /// sweep, so that nothing depends on the process or on randomness.
    #[must_use]
    pub fn for_tests() -> Self {
        RunnerSettings {
            retention: None,
            worker_id: "test-runner".to_owned(),
            ..RunnerSettings::default()
        }
    }

    /// Sets how many jobs run at once.
    #[must_use]
    pub fn workers(mut self, workers: u32) -> Self {
        self.workers = workers;
        self
    }

    /// Sets the lease length for kinds that name none.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Sets how often to look for jobs written by other processes.
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets how long finished jobs are kept; `None` keeps them.
    #[must_use]
    pub fn retention(mut self, retention: Option<Duration>) -> Self {
        self.retention = retention;
        self
    }

    /// Sets how long the history per kind is kept; `None` leaves it as it is.
    #[must_use]
    pub fn history(mut self, keep: Option<HistoryKeep>) -> Self {
        self.history = keep;
        self
    }

    /// Caps the running jobs of `kind`, winning over its handler's default.
    #[must_use]
    pub fn kind_limit(mut self, kind: impl Into<String>, cap: u32) -> Self {
        self.kind_limits.insert(kind.into(), cap);
        self
    }

    /// Limits `kind`'s starts, winning over the handler's own
    /// ([`Handler::rate_limit`](crate::runner::Handler::rate_limit)).
    #[must_use]
    pub fn rate_limit(mut self, kind: impl Into<String>, limit: RateLimit) -> Self {
        self.rate_limits.insert(kind.into(), limit);
        self
    }

    /// Makes `kind`'s running jobs keep the machine awake (`true`) or not, whatever its
    /// handler asks.
    #[must_use]
    pub fn keep_awake(mut self, kind: impl Into<String>, on: bool) -> Self {
        self.keep_awake.insert(kind.into(), on);
        self
    }

    /// Shares `awake` (the process's request with the system) with this runner.
    #[must_use]
    pub fn awake(mut self, awake: KeepAwake) -> Self {
        self.awake = Some(awake);
        self
    }

    /// Sets the worker id that fences this runner's leases.
    #[must_use]
    pub fn worker_id(mut self, id: impl Into<String>) -> Self {
        self.worker_id = id.into();
        self
    }

    /// Defaults overridden by what `config.toml` sets.
    #[must_use]
    pub fn from_config(config: &JobsConfig) -> Self {
        let defaults = RunnerSettings::default();
        RunnerSettings {
            workers: config.workers.unwrap_or(defaults.workers),
            lease: config.lease.unwrap_or(defaults.lease),
            poll_interval: config.poll_interval.unwrap_or(defaults.poll_interval),
            retention: config.retention.or(defaults.retention),
            history: defaults.history,
            kind_limits: config.kind_limits.clone(),
            rate_limits: config.rate_limits.clone(),
            worker_id: defaults.worker_id,
            keep_awake: config.keep_awake.clone(),
            awake: None,
            log_lines: config.log_lines.unwrap_or(defaults.log_lines),
        }
    }
}

/// How one job's attempt ended, as [`drain`](super::Runner::drain) reports it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Ran {
    /// The job whose attempt ended.
    pub id: JobId,
    /// Its kind.
    pub kind: String,
    /// Which attempt, from 1.
    pub attempt: u32,
    /// Where the job went; `Err` holds why nothing (or not that) was written.
    pub finished: std::result::Result<Finished, String>,
}
