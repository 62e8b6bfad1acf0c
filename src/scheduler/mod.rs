//! The scheduler: fixed intervals and five-field cron, in UTC or on a wall clock
//! (the machine's, or a named zone), stored in `raw.db`.
//!
//! A schedule names a job (kind, payload, priority, dedupe key, actor) and when to
//! enqueue it. Its `next_run` lives in `raw.db`, and [`tick`](Scheduler::tick)
//! enqueues every due job and advances `next_run` in the same transaction, so a
//! restart neither repeats a run nor skips one, and two schedulers on one file (two
//! processes) never enqueue the same slot twice. After downtime of several periods
//! the missed runs collapse into one, and `next_run` moves to the first slot after
//! now.
//!
//! The background loop ([`start`](Scheduler::start)) is a thin wrapper around `tick`.
//! It never sleeps more than [`MAX_SLEEP`] at a time and judges due-ness on the
//! wall clock, because monotonic timers stop while the machine is suspended: a run
//! that fell due during a suspension happens within `MAX_SLEEP` of waking up.
//!
//! Choices worth knowing:
//! - A new interval schedule first runs one interval after it is added; a new cron
//!   schedule at its first slot after now.
//! - [`upsert`](Scheduler::upsert) of an existing schedule keeps its `next_run` when
//!   the timing (interval or expression) is unchanged, so changing a payload does not
//!   shift the cadence; a changed timing resets it to the first slot after now.
//!   [`reset`](Scheduler::reset) resets it on purpose.
//! - A paused schedule does not run; [`resume`](Scheduler::resume) sets `next_run` to
//!   the first slot after now, so a pause does not end in a burst.
//! - A due run whose payload no longer fits its kind's schema is skipped (logged) and
//!   the schedule moves on.
//! - On a wall clock ([`ScheduleSpec::zone`]), a slot in an hour daylight saving skips
//!   runs once, right after the jump, and a slot in an hour it repeats runs once;
//!   intervals stay in absolute time. A schedule on the machine's zone follows it: when
//!   the zone has changed at a tick, its `next_run` moves to the next slot on the new
//!   wall clock before anything runs.
//! - [`declare`](Scheduler::declare) applies `config.toml`'s `[schedules.*]` over the
//!   app's own schedules at start, and removes those the file no longer declares.

mod declare;
mod run;
mod spec;

use std::sync::Arc;

pub use crate::background::MAX_SLEEP;
pub use crate::model::{Cron, CronError};

use crate::background::Background;
use crate::bus::ScheduleChanged;
use crate::clock::Timestamp;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::model::Patterns;
use crate::queue::{self, Queue};
use crate::store::schedules::{self, ScheduleRow};

pub use crate::clock::TimeZone;
use spec::check_spec;
pub use spec::{Every, Schedule, ScheduleSpec, Ticked, MIN_INTERVAL};
/// A schedule [`Scheduler::check`] found fit to write.
struct Checked {
    spec: ScheduleSpec,
    payload_version: u32,
    zone: TimeZone,
    zone_seen: Option<String>,
}

/// Schedules on a queue's `raw.db`. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Scheduler {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: Db,
    background: Background,
}

impl Scheduler {
    /// A scheduler writing to `queue`'s file, on `queue`'s clock.
    #[must_use]
    pub fn new(queue: Queue) -> Self {
        Scheduler {
            inner: Arc::new(Inner {
                db: queue.db().clone(),
                background: Background::default(),
            }),
        }
    }

    fn now(&self) -> Timestamp {
        self.inner.db.now()
    }

    /// The time zone a schedule's `zone` names, and for `"local"` the identity of the
    /// machine's zone now (to notice when it changes). An unknown name is an error
    /// naming it.
    fn wall_clock(&self, zone: Option<&str>) -> Result<(TimeZone, Option<String>)> {
        match zone {
            None => Ok((TimeZone::UTC, None)),
            Some("local") => {
                let local = local_zone(&**self.inner.db.clock())?;
                let seen = zone_identity(&local);
                Ok((local, Some(seen)))
            }
            Some(name) => named_zone(name).map(|zone| (zone, None)),
        }
    }

    /// Adds a schedule, or changes the one with the same name (see the module docs for
    /// what happens to its `next_run`). The payload is checked as an enqueue would.
    pub fn upsert(&self, spec: ScheduleSpec) -> Result<Schedule> {
        let checked = self.check(spec)?;
        self.write(checked)
    }

    /// What [`upsert`](Scheduler::upsert) checks before it writes: the spec, its
    /// payload as an enqueue would, and its zone. Writes nothing.
    fn check(&self, mut spec: ScheduleSpec) -> Result<Checked> {
        check_spec(&spec)?;
        let db = &self.inner.db;
        let payload_version = spec.payload_version.unwrap_or_else(|| {
            db.kinds()
                .specs()
                .get(&spec.kind)
                .map_or(1, crate::queue::KindSpec::version)
        });
        spec.payload_version = Some(payload_version);
        queue::check_new(db, spec.new_job(), db.now())?;
        let (zone, zone_seen) = self.wall_clock(spec.zone.as_deref())?;
        Ok(Checked {
            spec,
            payload_version,
            zone,
            zone_seen,
        })
    }

    /// Writes a checked schedule.
    fn write(&self, checked: Checked) -> Result<Schedule> {
        let Checked {
            spec,
            payload_version,
            zone,
            zone_seen,
        } = checked;
        let db = &self.inner.db;
        let now = db.now();
        let payload = spec.payload.to_string();
        let (interval_ms, cron) = spec.every.columns();
        let row = db.write(now, |tx, _| {
            let existing = schedules::get(tx, &spec.name)?;
            let next_run = match &existing {
                Some(old)
                    if old.interval_ms == interval_ms
                        && old.cron == cron
                        && old.zone == spec.zone
                        && old.zone_seen == zone_seen =>
                {
                    old.next_run
                }
                _ => spec.every.first_after(now, &zone),
            };
            let row = ScheduleRow {
                name: spec.name.clone(),
                kind: spec.kind.clone(),
                payload: payload.clone(),
                priority: spec.priority,
                dedupe_key: spec.dedupe_key.clone(),
                actor: spec.actor,
                interval_ms,
                cron: cron.clone(),
                next_run,
                paused: existing.as_ref().is_some_and(|old| old.paused),
                last_run: existing.as_ref().and_then(|old| old.last_run),
                last_job: existing.as_ref().and_then(|old| old.last_job),
                created_at: existing.as_ref().map_or(now, |old| old.created_at),
                updated_at: now,
                zone: spec.zone.clone(),
                zone_seen: zone_seen.clone(),
                origin: spec.origin,
                payload_version,
            };
            schedules::upsert(tx, &row)?;
            Ok(row)
        })?;
        self.changed(&row.name, &row.kind, now);
        Schedule::from_row(row)
    }

    /// Wakes the loop and tells listeners a schedule (of job kind `kind`) changed.
    fn changed(&self, name: &str, kind: &str, at: Timestamp) {
        self.inner.background.wake();
        self.published(name, kind, at);
    }

    /// Tells listeners a schedule (of job kind `kind`) changed.
    fn published(&self, name: &str, kind: &str, at: Timestamp) {
        self.inner.db.bus().publish(ScheduleChanged {
            name: name.to_owned(),
            kind: kind.to_owned(),
            at,
        });
    }

    /// Sets `next_run` to the first slot after now.
    pub fn reset(&self, name: &str) -> Result<Schedule> {
        self.change(name, |row, now| {
            let every = Every::from_columns(row.interval_ms, row.cron.as_deref())?;
            let (zone, seen) = self.wall_clock(row.zone.as_deref())?;
            row.next_run = every.first_after(now, &zone);
            row.zone_seen = seen;
            Ok(())
        })
    }

    /// Stops a schedule from running until resumed.
    pub fn pause(&self, name: &str) -> Result<Schedule> {
        self.pause_within(name, None)
    }

    /// [`pause`](Scheduler::pause) for a caller that may only touch the kinds `reach`
    /// allows; checked in the transaction, another kind's schedule is not found.
    pub(crate) fn pause_within(&self, name: &str, reach: Option<&Patterns>) -> Result<Schedule> {
        self.change_within(name, reach, |row, _| {
            row.paused = true;
            Ok(())
        })
    }

    /// Lets a paused schedule run again, from its first slot after now.
    pub fn resume(&self, name: &str) -> Result<Schedule> {
        self.resume_within(name, None)
    }

    /// [`resume`](Scheduler::resume) for a caller that may only touch the kinds
    /// `reach` allows; checked in the transaction, another kind's schedule is not found.
    pub(crate) fn resume_within(&self, name: &str, reach: Option<&Patterns>) -> Result<Schedule> {
        self.change_within(name, reach, |row, now| {
            if row.paused {
                row.paused = false;
                let every = Every::from_columns(row.interval_ms, row.cron.as_deref())?;
                let (zone, seen) = self.wall_clock(row.zone.as_deref())?;
                row.next_run = every.first_after(now, &zone);
                row.zone_seen = seen;
            }
            Ok(())
        })
    }

    fn change(
        &self,
        name: &str,
        edit: impl FnMut(&mut ScheduleRow, Timestamp) -> Result<()>,
    ) -> Result<Schedule> {
        self.change_within(name, None, edit)
    }

    fn change_within(
        &self,
        name: &str,
        reach: Option<&Patterns>,
        mut edit: impl FnMut(&mut ScheduleRow, Timestamp) -> Result<()>,
    ) -> Result<Schedule> {
        let now = self.now();
        let row = self.inner.db.write(now, |tx, _| {
            let mut row = schedules::get(tx, name)?
                .filter(|row| reach.is_none_or(|reach| reach.allows(&row.kind)))
                .ok_or_else(|| not_found(name))?;
            edit(&mut row, now)?;
            row.updated_at = now;
            schedules::upsert(tx, &row)?;
            Ok(row)
        })?;
        self.changed(name, &row.kind, now);
        Schedule::from_row(row)
    }

    /// Removes a schedule; returns whether it existed. Jobs it enqueued stay.
    pub fn remove(&self, name: &str) -> Result<bool> {
        let now = self.now();
        let removed = self
            .inner
            .db
            .write(now, |tx, _| schedules::remove(tx, name))?;
        if let Some(kind) = &removed {
            self.changed(name, kind, now);
        }
        Ok(removed.is_some())
    }

    /// One schedule.
    pub fn get(&self, name: &str) -> Result<Option<Schedule>> {
        self.inner
            .db
            .read(|conn| schedules::get(conn, name))?
            .map(Schedule::from_row)
            .transpose()
    }

    /// Every schedule, by name.
    pub fn list(&self) -> Result<Vec<Schedule>> {
        self.inner
            .db
            .read(schedules::list)?
            .into_iter()
            .map(Schedule::from_row)
            .collect()
    }
}

/// A time zone by IANA name (or `UTC`), or an error naming the name.
/// The wall clock `name` names for a durable sleep (`JobContext::sleep_until_next`):
/// `"local"` (the machine's zone now, from `clock`), `"UTC"`, or an IANA name.
pub(crate) fn zone_named(name: &str, clock: &dyn crate::clock::Clock) -> Result<TimeZone> {
    if name == "local" {
        return local_zone(clock);
    }
    named_zone(name)
}

/// The machine's zone now, as `clock` tells it; in a build without the `schedules`
/// feature (no time-zone code), an error naming the feature.
pub(crate) fn local_zone(clock: &dyn crate::clock::Clock) -> Result<TimeZone> {
    #[cfg(feature = "schedules")]
    return Ok(clock.local_zone());
    #[cfg(not(feature = "schedules"))]
    {
        let _ = clock;
        Err(without_zones("local"))
    }
}

pub(crate) fn named_zone(name: &str) -> Result<TimeZone> {
    if name.eq_ignore_ascii_case("utc") {
        return Ok(TimeZone::UTC);
    }
    #[cfg(not(feature = "schedules"))]
    return Err(without_zones(name));
    #[cfg(feature = "schedules")]
    TimeZone::get(name).map_err(|_| {
        Error::invalid_argument(
            "zone",
            format!(
                "unknown time zone {name:?} (an IANA name such as \"Europe/Berlin\", or \"local\")"
            ),
        )
    })
}

/// A zone other than UTC asked of a build that reads no time-zone rules.
#[cfg(not(feature = "schedules"))]
fn without_zones(name: &str) -> Error {
    Error::invalid_argument(
        "zone",
        format!(
            "time zone {name:?}: the app is built without the `schedules` feature of \
             tauri-plugin-jobs, which brings time zones (only \"UTC\" works without it)"
        ),
    )
}

/// What tells one zone from another: its IANA name, else its rules as written.
fn zone_identity(zone: &TimeZone) -> String {
    zone.iana_name()
        .map_or_else(|| format!("{zone:?}"), str::to_owned)
}

fn not_found(name: &str) -> Error {
    Error::ScheduleNotFound(name.to_owned())
}
