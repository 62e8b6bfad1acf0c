//! Exponential backoff with a cap, in the two jitter modes the specs ask for, as pure
//! functions of the failure count and a random sample in `[0, 1)`.
//!
//! After the Nth failure the delay is `min(cap, base * 2^(N-1))`, then jittered:
//!
//! - [`Jitter::Shorten`] for durable jobs ([`RetryPolicy`]): shortened by up to a
//!   fraction, never lengthened, so the cap is a promise;
//! - [`Jitter::Spread`] for sync targets ([`SyncPolicy`](crate::sync::SyncPolicy)):
//!   plus or minus a fraction, so targets that failed together spread out both ways.
//!
//! Jobs or targets that failed together do not retry in lockstep.

use std::time::Duration;

use crate::random::clamp_unit;

/// A retry policy that was refused when built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RetryPolicyError {
    /// `base` was zero.
    #[error("backoff_base must be greater than zero")]
    ZeroBase,
    /// `max` was below `base`.
    #[error("backoff_max ({max:?}) must be at least backoff_base ({base:?})")]
    MaxBelowBase {
        /// The base.
        base: Duration,
        /// The cap.
        max: Duration,
    },
    /// `jitter` was outside `0..=1`.
    #[error("backoff_jitter must be a fraction from 0 to 1, found {0}")]
    JitterOutOfRange(f64),
}

/// How a backoff delay is jittered by a random sample `r` in `[0, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Jitter {
    /// Multiplied by `1 - fraction * r`: shortened by up to `fraction`.
    Shorten(f64),
    /// Multiplied by `1 - fraction + 2 * fraction * r`: within plus or minus `fraction`.
    Spread(f64),
}

/// The delay after `failures` failures (1 for the first): `min(cap, base * 2^(failures-1))`,
/// jittered. `random` outside `[0, 1)` is clamped.
pub(crate) fn delay_for(
    base: Duration,
    cap: Duration,
    jitter: Jitter,
    failures: u32,
    random: f64,
) -> Duration {
    let doublings = failures.saturating_sub(1);
    // Past 2^31 (or on overflow) the cap has long been reached.
    let capped = 1u32
        .checked_shl(doublings)
        .and_then(|factor| base.checked_mul(factor))
        .map_or(cap, |delay| delay.min(cap));
    let random = clamp_unit(random);
    let factor = match jitter {
        Jitter::Shorten(fraction) => 1.0 - fraction * random,
        Jitter::Spread(fraction) => 1.0 - fraction + 2.0 * fraction * random,
    };
    capped.mul_f64(factor)
}

/// Exponential backoff for durable jobs, with a cap and downward jitter. Validated
/// when built.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::RetryPolicy;
///
/// let policy = RetryPolicy::new(Duration::from_secs(2), Duration::from_secs(60), 0.0)?;
/// assert_eq!(policy.delay_for(1, 0.5), Duration::from_secs(2));
/// assert_eq!(policy.delay_for(3, 0.5), Duration::from_secs(8));
/// assert_eq!(policy.delay_for(30, 0.5), Duration::from_secs(60));
/// # Ok::<(), tauri_plugin_jobs::queue::RetryPolicyError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    base: Duration,
    max: Duration,
    jitter: f64,
}

impl Default for RetryPolicy {
    /// 5 s, doubling to at most one hour, shortened by up to 25 %.
    fn default() -> Self {
        RetryPolicy {
            base: Duration::from_secs(5),
            max: Duration::from_secs(3600),
            jitter: 0.25,
        }
    }
}

impl RetryPolicy {
    /// A policy waiting `base * 2^(N-1)` after the Nth failure, at most `max`, shortened
    /// by up to the fraction `jitter`.
    pub fn new(base: Duration, max: Duration, jitter: f64) -> Result<Self, RetryPolicyError> {
        if base.is_zero() {
            return Err(RetryPolicyError::ZeroBase);
        }
        if max < base {
            return Err(RetryPolicyError::MaxBelowBase { base, max });
        }
        if !(0.0..=1.0).contains(&jitter) {
            return Err(RetryPolicyError::JitterOutOfRange(jitter));
        }
        Ok(RetryPolicy { base, max, jitter })
    }

    /// The first delay.
    #[must_use]
    pub fn base(&self) -> Duration {
        self.base
    }

    /// The cap.
    #[must_use]
    pub fn max(&self) -> Duration {
        self.max
    }

    /// The largest fraction by which a delay is shortened.
    #[must_use]
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The delay before the next attempt after `failures` failed attempts (1 for the
    /// first failure). `random` is a sample in `[0, 1)`; values outside are clamped.
    #[must_use]
    pub fn delay_for(&self, failures: u32, random: f64) -> Duration {
        delay_for(
            self.base,
            self.max,
            Jitter::Shorten(self.jitter),
            failures,
            random,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn invalid_policies_are_refused() {
        let s = Duration::from_secs;
        assert_eq!(
            RetryPolicy::new(Duration::ZERO, s(1), 0.1),
            Err(RetryPolicyError::ZeroBase)
        );
        assert!(matches!(
            RetryPolicy::new(s(10), s(1), 0.1),
            Err(RetryPolicyError::MaxBelowBase { .. })
        ));
        assert!(matches!(
            RetryPolicy::new(s(1), s(10), 1.5),
            Err(RetryPolicyError::JitterOutOfRange(_))
        ));
        assert!(matches!(
            RetryPolicy::new(s(1), s(10), f64::NAN),
            Err(RetryPolicyError::JitterOutOfRange(_))
        ));
    }

    #[test]
    fn doubles_then_caps() {
        let policy =
            RetryPolicy::new(Duration::from_secs(1), Duration::from_secs(100), 0.0).unwrap();
        let delays: Vec<u64> = (1..=9)
            .map(|n| policy.delay_for(n, 0.9).as_secs())
            .collect();
        assert_eq!(delays, vec![1, 2, 4, 8, 16, 32, 64, 100, 100]);
        assert_eq!(policy.delay_for(0, 0.0), Duration::from_secs(1));
        assert_eq!(policy.delay_for(u32::MAX, 0.0), Duration::from_secs(100));
    }

    #[test]
    fn jitter_shortens_by_the_sample() {
        let policy =
            RetryPolicy::new(Duration::from_secs(10), Duration::from_secs(100), 0.5).unwrap();
        assert_eq!(policy.delay_for(1, 0.0), Duration::from_secs(10));
        assert_eq!(policy.delay_for(1, 0.5), Duration::from_millis(7_500));
    }

    proptest! {
        #[test]
        fn delay_stays_in_its_band(
            base_ms in 1u64..100_000,
            extra_ms in 0u64..10_000_000,
            jitter in 0.0f64..=1.0,
            failures in 0u32..200,
            random in any::<f64>(),
        ) {
            let base = Duration::from_millis(base_ms);
            let max = base + Duration::from_millis(extra_ms);
            let policy = RetryPolicy::new(base, max, jitter).unwrap();
            let delay = policy.delay_for(failures, random);
            let exponent = failures.saturating_sub(1).min(40);
            let ideal = (base_ms as f64) * 2f64.powi(exponent as i32);
            let ceiling = ideal.min(max.as_millis() as f64);
            prop_assert!(delay.as_secs_f64() * 1000.0 <= ceiling + 0.001);
            prop_assert!(delay.as_secs_f64() * 1000.0 >= ceiling * (1.0 - jitter) - 0.001);
            prop_assert!(delay <= max);
        }
    }
}
