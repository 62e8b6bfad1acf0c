//! The shared health model: how a component (a sync target, the runner, the plugin)
//! is doing, with a reason a person can read.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How healthy something is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum HealthStatus {
    /// Working as expected.
    Healthy,
    /// Working, but something needs a look (stale, slow, recovering).
    Warning,
    /// Not working.
    Error,
}

impl fmt::Display for HealthStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HealthStatus::Healthy => "healthy",
            HealthStatus::Warning => "warning",
            HealthStatus::Error => "error",
        })
    }
}

/// A health verdict and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// The verdict.
    pub status: HealthStatus,
    /// Why, for anything but healthy.
    pub reason: Option<String>,
}

impl Health {
    /// Healthy, no reason needed.
    #[must_use]
    pub fn healthy() -> Self {
        Health {
            status: HealthStatus::Healthy,
            reason: None,
        }
    }

    /// A warning with its reason.
    #[must_use]
    pub fn warning(reason: impl Into<String>) -> Self {
        Health {
            status: HealthStatus::Warning,
            reason: Some(reason.into()),
        }
    }

    /// An error with its reason.
    #[must_use]
    pub fn error(reason: impl Into<String>) -> Self {
        Health {
            status: HealthStatus::Error,
            reason: Some(reason.into()),
        }
    }
}
