//! Randomness, injected.
//!
//! Jitter is the only random decision in the crate. It takes its value from a
//! [`RandomSource`] so that tests can pin it: [`ThreadRandom`] for the app,
//! [`FixedRandom`] for tests.

use std::fmt;

/// A source of uniform random numbers in `[0, 1)`.
pub trait RandomSource: Send + Sync + fmt::Debug + 'static {
    /// A uniform sample in `[0, 1)`.
    fn unit(&self) -> f64;
}

/// Thread-local randomness from `rand`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadRandom;

impl RandomSource for ThreadRandom {
    fn unit(&self) -> f64 {
        rand::random::<f64>()
    }
}

/// Always the same value, clamped into `[0, 1)`. For tests.
///
/// ```
/// use tauri_plugin_jobs::random::{FixedRandom, RandomSource};
/// assert_eq!(FixedRandom(0.25).unit(), 0.25);
/// assert!(FixedRandom(7.0).unit() < 1.0);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FixedRandom(pub f64);

impl RandomSource for FixedRandom {
    fn unit(&self) -> f64 {
        clamp_unit(self.0)
    }
}

/// Clamps any float into `[0, 1)`; NaN becomes 0.
pub(crate) fn clamp_unit(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, 1.0 - f64::EPSILON)
    }
}
