//! Settings per kind stored in `raw.db`, so that every claim in every process obeys
//! them whatever the claimer passes: the cap on running jobs, and whether the kind is
//! paused.

use super::enqueue::check_kind;
use super::Queue;
use crate::bus::KindPaused;
use crate::db::Notice;
use crate::error::Result;
use crate::store::jobs;

impl Queue {
    /// Stores the cap on running jobs of `kind` (`None`: no cap) in the file, where
    /// every claim in every process enforces it, whatever the claimer asks for. The
    /// app's runner stores the caps in effect for its kinds when it is built.
    pub fn set_kind_limit(&self, kind: &str, limit: Option<u32>) -> Result<()> {
        check_kind(kind)?;
        let db = self.db();
        let now = db.now();
        db.write(now, |tx, _| jobs::set_kind_limit(tx, kind, limit, now))?;
        // A higher cap may let held-back jobs run.
        db.notify(Notice::Runnable);
        Ok(())
    }

    /// The cap on running jobs of `kind` stored in the file, if any.
    pub fn kind_limit(&self, kind: &str) -> Result<Option<u32>> {
        Ok(self.db().read(|conn| jobs::kind_settings(conn, kind))?.0)
    }

    /// Pauses `kind`: claims in every process skip it until it is resumed. Jobs of
    /// the kind already running go on; queued ones wait, and can still be cancelled.
    pub fn pause_kind(&self, kind: &str) -> Result<()> {
        self.set_paused(kind, true)
    }

    /// Resumes a paused `kind`; its queued jobs run again in the usual order.
    pub fn resume_kind(&self, kind: &str) -> Result<()> {
        self.set_paused(kind, false)?;
        self.db().notify(Notice::Runnable);
        Ok(())
    }

    /// The paused kinds, by name.
    pub fn paused_kinds(&self) -> Result<Vec<String>> {
        self.db().read(jobs::paused_kinds)
    }

    fn set_paused(&self, kind: &str, paused: bool) -> Result<()> {
        check_kind(kind)?;
        let db = self.db();
        let now = db.now();
        db.write(now, |tx, _| jobs::set_kind_paused(tx, kind, paused, now))?;
        db.bus().publish(KindPaused {
            kind: kind.to_owned(),
            paused,
            at: now,
        });
        Ok(())
    }
}
