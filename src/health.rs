//! The shared health model, re-exported from [`crate::model`] where it lives: how a
//! component (a sync target, the runner, the plugin) is doing, with a reason a person
//! can read.

pub use crate::model::{Health, HealthStatus};
