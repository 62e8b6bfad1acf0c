//! The work of some kinds that is running or could start soon: what an app reads to
//! decide whether to hold its quit, or to start hidden after a reboot and finish it.

use std::time::Duration;

use serde::Serialize;

use super::Queue;
use crate::error::Result;
use crate::kinds::KindSpec;
use crate::store::jobs;

/// Jobs of one kind that are running or could start soon ([`Queue::pending`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PendingKind {
    /// The kind.
    pub kind: String,
    /// Its jobs running now, in every process on the file (a job whose holder
    /// crashed counts until its lease is taken back: it runs again then).
    pub running: u32,
    /// Its queued jobs that could start within the time asked: due by then, the kind
    /// not paused nor held for the network or the service past it, and what they
    /// need of the machine offered now. Not those waiting for other jobs, for a
    /// signal or a durable sleep that ends later.
    pub due: u32,
}

impl PendingKind {
    /// Running and due together.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.running.saturating_add(self.due)
    }
}

impl Queue {
    /// For each of `kinds` with any, the jobs running now and the queued ones that
    /// could start within `within` of now ([`PendingKind`]); each count stops at
    /// 10,000. A read: cheap enough for an app's start or an exit, not for a loop.
    pub fn pending(&self, kinds: &[&str], within: Duration) -> Result<Vec<PendingKind>> {
        let db = self.db();
        let now = db.now();
        let by = now.saturating_add(within);
        let conditions = db.conditions(now);
        let specs = db.kinds().specs();
        db.read(|conn| {
            let mut pending = Vec::new();
            for kind in kinds {
                let version = specs.get(*kind).map_or(1, KindSpec::version);
                let (running, due) = jobs::pending(conn, (kind, version), by, &conditions)?;
                if running > 0 || due > 0 {
                    pending.push(PendingKind {
                        kind: (*kind).to_owned(),
                        running,
                        due,
                    });
                }
            }
            Ok(pending)
        })
    }
}
