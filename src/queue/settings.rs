//! Settings per kind stored in `raw.db`, so that every claim in every process obeys
//! them whatever the claimer passes: the cap on running jobs, whether the kind is
//! paused, its rate limit, what its jobs need of the machine, and how many lease
//! expiries in a row end a job of it.

use super::prepare::check_kind;
use super::Queue;
use crate::bus::KindPaused;
use crate::db::Notice;
use crate::error::Result;
use crate::model::{Conditions, Constraints, Health, RateLimit, RateState};
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

    /// Limits `kind` to `limit.starts` starts per `limit.per`, across every runner,
    /// agent and process on the file (`None`: no limit). Stored in `raw.db`; each
    /// claim books its starts in its own transaction. A queued job of a kind at its
    /// limit is not claimed, and an idle runner sleeps until the limit frees a start
    /// ([`Queue::next_claimable_at`]); [`Job::rate_limited_until`](crate::queue::Job)
    /// says until when. The app's runner stores what each handler asks for
    /// ([`Handler::rate_limit`](crate::runner::Handler::rate_limit)).
    pub fn set_rate_limit(&self, kind: &str, limit: Option<RateLimit>) -> Result<()> {
        check_kind(kind)?;
        let db = self.db();
        let now = db.now();
        db.write(now, |tx, _| {
            jobs::set_kind_rate_limit(tx, kind, limit.map(RateState::of), now)
        })?;
        // A looser limit may let held-back jobs run.
        db.notify(Notice::Runnable);
        Ok(())
    }

    /// Stores what every job of `kind` needs of the machine before it starts (`None`
    /// or [`Constraints::none`]: nothing), for every claimer of the file. A job's own
    /// constraints ([`EnqueueOptions::constraints`](crate::queue::EnqueueOptions))
    /// count beside these. The app's runner stores what each handler asks for
    /// ([`Handler::constraints`](crate::runner::Handler::constraints)).
    pub fn set_constraints(&self, kind: &str, constraints: Option<Constraints>) -> Result<()> {
        check_kind(kind)?;
        let db = self.db();
        let now = db.now();
        db.write(now, |tx, _| {
            jobs::set_kind_needs(tx, kind, constraints, now)
        })?;
        // Fewer needs may let held-back jobs run.
        db.notify(Notice::Runnable);
        Ok(())
    }

    /// The network came back: every kind held for it (a job found its service
    /// unreachable, [`Deferral::Offline`](crate::queue::Deferral::Offline)) tries
    /// one job at once rather than at its next `offline_retry`; when that gets
    /// through, the rest follow. Returns how many kinds were waiting. The plugin
    /// calls it when the system reports the network back (the sync engine's watch);
    /// not on the webview's `online` hint, which a page could send in a loop (each
    /// call would start a probe). A hold for the service is not touched.
    pub fn network_back(&self) -> Result<usize> {
        network_back_in(self.db())
    }

    /// Holds `kind` for the service until `after` has passed (clamped from a second
    /// to [`MAX_DEFERRAL`](crate::queue::MAX_DEFERRAL)): no job of it starts before
    /// then, in any process on the file, as if one of its handlers had returned
    /// [`JobError::ThrottleKind`](crate::runner::JobError::ThrottleKind). A longer
    /// hold already stored stays. For code that learns of a service's limit outside
    /// a handler (a sync source that got a 429 from the same service).
    pub fn throttle_kind(
        &self,
        kind: &str,
        after: std::time::Duration,
        reason: &str,
    ) -> Result<()> {
        check_kind(kind)?;
        let db = self.db();
        let now = db.now();
        let until = now.saturating_add(super::outcome::clamp_deferral(after));
        let note = crate::model::sanitize_error(reason);
        db.write(now, |tx, _| {
            jobs::hold_for_service(tx, kind, until, &note, now)
        })?;
        Ok(())
    }

    /// What every job of `kind` needs of the machine, as stored in the file.
    pub fn constraints(&self, kind: &str) -> Result<Constraints> {
        Ok(self
            .db()
            .read(|conn| jobs::kind_settings(conn, kind))?
            .needs)
    }

    /// The machine's conditions now, as this handle's
    /// [`ConditionSource`](crate::conditions::ConditionSource) reads them.
    #[must_use]
    pub fn conditions(&self) -> Conditions {
        let db = self.db();
        db.conditions(db.now())
    }

    /// Whether the condition source can tell what the waiting jobs need: healthy when
    /// it can tell everything, or when no queued job (nor its kind) has a constraint on
    /// what it cannot tell; otherwise its warning, which says what it cannot
    /// (constraints on it count as met).
    #[must_use]
    pub fn conditions_health(&self) -> Health {
        let source = self.db().condition_source();
        let health = source.health();
        if health.status == crate::model::HealthStatus::Healthy {
            return health;
        }
        // What the machine cannot tell matters only to a job that waits on it: a
        // desktop with no battery is healthy while no queued job needs one.
        let conditions = source.conditions(self.db().now());
        match self.db().read(jobs::waiting_needs) {
            Ok(needs) if !needs.iter().any(|needs| conditions.cannot_tell(needs)) => {
                Health::healthy()
            }
            _ => health,
        }
    }

    /// The rate limit of `kind` stored in the file, if any.
    pub fn rate_limit(&self, kind: &str) -> Result<Option<RateLimit>> {
        let settings = self.db().read(|conn| jobs::kind_settings(conn, kind))?;
        Ok(settings.rate.map(|rate| {
            RateLimit::new(
                rate.starts,
                std::time::Duration::from_millis(rate.window_ms.max(1) as u64),
            )
            .burst(rate.burst)
        }))
    }

    /// The cap on running jobs of `kind` stored in the file, if any.
    pub fn kind_limit(&self, kind: &str) -> Result<Option<u32>> {
        Ok(self.db().read(|conn| jobs::kind_settings(conn, kind))?.cap)
    }

    /// Stores how many times in a row a job of `kind` may lose its worker (its lease
    /// runs out: the process died or froze) before it ends failed; `None` for
    /// [`DEFAULT_MAX_LEASE_EXPIRIES`](super::DEFAULT_MAX_LEASE_EXPIRIES). Whichever
    /// process sweeps the expired lease obeys it. An attempt lost this way is not
    /// counted against the job's attempts. The app's runner stores the number each
    /// handler asks for ([`Handler::max_lease_expiries`](crate::runner::Handler::max_lease_expiries)).
    pub fn set_kind_max_lease_expiries(&self, kind: &str, expiries: Option<u32>) -> Result<()> {
        check_kind(kind)?;
        if expiries == Some(0) {
            return Err(crate::error::Error::invalid_argument(
                "max_lease_expiries",
                "must be at least 1",
            ));
        }
        let db = self.db();
        let now = db.now();
        db.write(now, |tx, _| {
            jobs::set_kind_max_lease_expiries(tx, kind, expiries, now)
        })
    }

    /// How many lease expiries in a row end a job of `kind`, as stored (`None`: the
    /// default).
    pub fn kind_max_lease_expiries(&self, kind: &str) -> Result<Option<u32>> {
        self.db()
            .read(|conn| jobs::kind_max_lease_expiries(conn, kind))
    }

    /// Copies the file's write-ahead log into it and truncates the log, so that the
    /// next start (after an app update, say) opens a clean file. Returns whether every
    /// frame went: another connection reading meanwhile can hold some back, which is
    /// harmless (they go at a later checkpoint).
    pub fn checkpoint(&self) -> Result<bool> {
        self.db().store().checkpoint()
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

/// [`Queue::network_back`] on the file `db` opens (the sync engine's watch calls it).
pub(crate) fn network_back_in(db: &crate::db::Db) -> Result<usize> {
    let now = db.now();
    let held = db.write(now, |tx, _| jobs::network_back(tx, now))?;
    if held > 0 {
        db.notify(Notice::Runnable);
    }
    Ok(held)
}
