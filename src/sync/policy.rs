//! When a target syncs: its cadence, backoff and limits. Validated when registered.

use std::time::Duration;

use crate::backoff::{self, Jitter};
use crate::config::SyncConfig;

/// A policy refused at registration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SyncPolicyError {
    /// A duration that must be positive was zero.
    #[error("{0} must be longer than zero")]
    Zero(&'static str),
    /// The backoff cap was below its base.
    #[error("backoff_cap must be at least backoff_base")]
    CapBelowBase,
}

/// How often a target syncs and how it recovers from failures.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::sync::SyncPolicy;
///
/// let policy = SyncPolicy::every(Duration::from_secs(60))
///     .min_interval(Duration::from_secs(15))
///     .offline_retry(Duration::from_secs(10));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct SyncPolicy {
    pub(crate) every: Duration,
    pub(crate) min_interval: Duration,
    pub(crate) backoff_base: Duration,
    pub(crate) backoff_cap: Duration,
    pub(crate) offline_retry: Duration,
    pub(crate) max_throttle: Duration,
}

impl SyncPolicy {
    /// Sync every `every`. Defaults: automatic triggers at most every 30 s (or
    /// `every`, if shorter), backoff from 30 s doubling to one hour, offline retry
    /// every 15 s, server throttles clamped to 24 h.
    pub fn every(every: Duration) -> Self {
        SyncPolicy {
            every,
            min_interval: every.min(Duration::from_secs(30)),
            backoff_base: Duration::from_secs(30),
            backoff_cap: Duration::from_secs(3600),
            offline_retry: Duration::from_secs(15),
            max_throttle: Duration::from_secs(24 * 3600),
        }
    }

    /// The least time between two runs started by automatic triggers (focus, network
    /// back, wake); the lower of `every` and 30 s by default. A network-back trigger
    /// for a target that is offline skips it (the attempt is the probe); Refresh
    /// (`sync_now`) and the policy's own runs never wait for it.
    pub fn min_interval(mut self, min_interval: Duration) -> Self {
        self.min_interval = min_interval;
        self
    }

    /// Backoff after failures: `base * 2^(failures-1)`, at most `cap`, then ±20 %.
    pub fn backoff(mut self, base: Duration, cap: Duration) -> Self {
        self.backoff_base = base;
        self.backoff_cap = cap;
        self
    }

    /// The flat retry delay while the service cannot be reached.
    pub fn offline_retry(mut self, retry: Duration) -> Self {
        self.offline_retry = retry;
        self
    }

    /// The longest a server throttle may defer the next run.
    pub fn max_throttle(mut self, max: Duration) -> Self {
        self.max_throttle = max;
        self
    }

    /// The policy with what a `[sync."<target>"]` section of `config.toml` changes: the
    /// cadence, `min_interval`, the backoff cap (`max_backoff`; the base comes down to
    /// it if it was higher) and `max_throttle`.
    pub fn with_config(mut self, section: &SyncConfig) -> Self {
        if let Some(every) = section.every {
            self.every = every;
        }
        if let Some(min_interval) = section.min_interval {
            self.min_interval = min_interval;
        }
        if let Some(cap) = section.max_backoff {
            self.backoff_cap = cap;
            self.backoff_base = self.backoff_base.min(cap);
        }
        if let Some(max) = section.max_throttle {
            self.max_throttle = max;
        }
        self
    }

    /// The cadence.
    #[must_use]
    pub fn interval(&self) -> Duration {
        self.every
    }

    /// Checks the numbers; registration calls it.
    pub fn validate(&self) -> Result<(), SyncPolicyError> {
        for (name, value) in [
            ("every", self.every),
            ("backoff_base", self.backoff_base),
            ("offline_retry", self.offline_retry),
            ("max_throttle", self.max_throttle),
        ] {
            if value.is_zero() {
                return Err(SyncPolicyError::Zero(name));
            }
        }
        if self.backoff_cap < self.backoff_base {
            return Err(SyncPolicyError::CapBelowBase);
        }
        Ok(())
    }

    /// The delay after `failures` consecutive failures (1 for the first), with
    /// `random` in `[0, 1)` giving the jitter: `min(cap, base * 2^(failures-1))`
    /// times a factor from 0.8 to 1.2, so targets that failed together spread out.
    #[must_use]
    pub fn delay_for(&self, failures: u32, random: f64) -> Duration {
        backoff::delay_for(
            self.backoff_base,
            self.backoff_cap,
            Jitter::Spread(0.2),
            failures,
            random,
        )
    }

    /// A server's requested delay, clamped to `max_throttle`.
    #[must_use]
    pub fn clamp_throttle(&self, delay: Duration) -> Duration {
        delay.min(self.max_throttle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bad_policies_are_refused() {
        let every = SyncPolicy::every(Duration::from_secs(60));
        assert_eq!(
            SyncPolicy::every(Duration::ZERO).validate(),
            Err(SyncPolicyError::Zero("every"))
        );
        assert_eq!(
            every
                .backoff(Duration::from_secs(10), Duration::from_secs(1))
                .validate(),
            Err(SyncPolicyError::CapBelowBase)
        );
        assert_eq!(
            every.offline_retry(Duration::ZERO).validate(),
            Err(SyncPolicyError::Zero("offline_retry"))
        );
        assert!(every.validate().is_ok());
    }

    #[test]
    fn backoff_doubles_to_its_cap() {
        let policy = SyncPolicy::every(Duration::from_secs(60))
            .backoff(Duration::from_secs(10), Duration::from_secs(100));
        let mid: Vec<u64> = (1..=6)
            .map(|n| policy.delay_for(n, 0.5).as_secs())
            .collect();
        assert_eq!(mid, vec![10, 20, 40, 80, 100, 100]);
        assert_eq!(policy.delay_for(1, 0.0), Duration::from_secs(8));
        assert!(policy.delay_for(1, 0.999_999) > Duration::from_millis(11_999));
    }

    proptest! {
        #[test]
        fn jitter_stays_within_twenty_percent(
            base_s in 1u64..1000, extra_s in 0u64..100_000, failures in 0u32..100, random in any::<f64>()
        ) {
            let base = Duration::from_secs(base_s);
            let cap = base + Duration::from_secs(extra_s);
            let policy = SyncPolicy::every(Duration::from_secs(60)).backoff(base, cap);
            let delay = policy.delay_for(failures, random).as_secs_f64();
            let ideal = (base_s as f64 * 2f64.powi(failures.saturating_sub(1).min(60) as i32)).min(cap.as_secs_f64());
            prop_assert!(delay >= ideal * 0.8 - 1e-6);
            prop_assert!(delay <= ideal * 1.2 + 1e-6);
        }
    }
}
