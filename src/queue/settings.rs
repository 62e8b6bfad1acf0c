//! Settings per kind stored in `raw.db`, so that every claim in every process obeys
//! them whatever the claimer passes: the cap on running jobs.

use super::enqueue::check_kind;
use super::Queue;
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
        db.write(now, |tx, _| jobs::set_kind_limit(tx, kind, limit, now))
    }

    /// The cap on running jobs of `kind` stored in the file, if any.
    pub fn kind_limit(&self, kind: &str) -> Result<Option<u32>> {
        Ok(jobs::kind_settings(self.db().store().conn(), kind)?.0)
    }
}
