//! What started a run ([`Trigger`]); why one did not happen and how it ended live in
//! [`crate::model`] (the bus carries them) and are re-exported here.

use serde::{Deserialize, Serialize};

/// What started an automatic sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Trigger {
    /// A window gained focus.
    Focus,
    /// The network came back: offline targets retry at once.
    NetworkBack,
    /// The machine woke from sleep.
    Wake,
}

pub use crate::model::{SkipReason, StartedBy, SyncOutcome};
