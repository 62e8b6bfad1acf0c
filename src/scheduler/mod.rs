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

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::background::MAX_SLEEP;
pub use crate::model::{Cron, CronError};

use crate::background::Background;
use crate::bus::ScheduleChanged;
use crate::clock::{duration_millis, Timestamp};
use crate::db::Db;
use crate::error::{Error, Result};
use crate::model::{sanitize_error, Actor, JobId, Patterns, Priority};
use crate::queue::{self, EnqueueOptions, NewJob, Queue, MAX_KIND_BYTES};
use crate::store::schedules::{self, Origin, ScheduleRow};

pub use crate::clock::TimeZone;
/// The shortest interval a schedule may have.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);

/// When a schedule runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Every {
    /// A fixed interval, phase kept from the first slot.
    Interval(Duration),
    /// A cron expression, in UTC.
    Cron(Cron),
}

impl Every {
    /// The first slot after `now` for a new schedule; a cron expression reads the
    /// wall clock of `zone`.
    fn first_after(&self, now: Timestamp, zone: &TimeZone) -> Timestamp {
        match self {
            Every::Interval(interval) => now.saturating_add(*interval),
            Every::Cron(cron) => cron
                .next_after_in(now, zone)
                .unwrap_or(Timestamp::from_millis(i64::MAX)),
        }
    }

    /// The first slot after `now` that follows `slot`: missed slots collapse.
    fn next_after(&self, slot: Timestamp, now: Timestamp, zone: &TimeZone) -> Timestamp {
        match self {
            Every::Interval(interval) => {
                let step = duration_millis(*interval).max(1);
                let behind = now.as_millis().saturating_sub(slot.as_millis()).max(0);
                let periods = behind / step + 1;
                Timestamp::from_millis(
                    slot.as_millis()
                        .saturating_add(periods.saturating_mul(step)),
                )
            }
            Every::Cron(cron) => cron
                .next_after_in(now, zone)
                .unwrap_or(Timestamp::from_millis(i64::MAX)),
        }
    }

    fn columns(&self) -> (Option<i64>, Option<String>) {
        match self {
            Every::Interval(interval) => (Some(duration_millis(*interval)), None),
            Every::Cron(cron) => (None, Some(cron.to_string())),
        }
    }

    fn from_columns(interval_ms: Option<i64>, cron: Option<&str>) -> Result<Every> {
        match (interval_ms, cron) {
            (Some(ms), None) if ms > 0 => Ok(Every::Interval(Duration::from_millis(ms as u64))),
            (None, Some(text)) => text
                .parse()
                .map(Every::Cron)
                .map_err(|error: CronError| Error::invalid_argument("cron", error.to_string())),
            _ => Err(Error::invalid_argument(
                "schedule",
                "stored timing is neither interval nor cron",
            )),
        }
    }
}

/// What to schedule. Build with [`ScheduleSpec::every`] or [`ScheduleSpec::cron`].
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::scheduler::ScheduleSpec;
/// use tauri_plugin_jobs::queue::Priority;
///
/// let poll = ScheduleSpec::every("poll-inbox", "sync", Duration::from_secs(300))
///     .payload(serde_json::json!({"target": "inbox"}))
///     .dedupe_key("sync:inbox");
/// let nightly = ScheduleSpec::cron("nightly-backfill", "backfill", "0 3 * * *")?
///     .priority(Priority::BACKFILL);
/// # Ok::<(), tauri_plugin_jobs::scheduler::CronError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
#[must_use]
pub struct ScheduleSpec {
    /// Unique name.
    pub name: String,
    /// The job kind to enqueue.
    pub kind: String,
    /// The job's payload; `null` by default.
    pub payload: Value,
    /// When.
    pub every: Every,
    /// The job's priority.
    pub priority: Priority,
    /// The job's dedupe key: a run is skipped while the previous one is still queued
    /// or running.
    pub dedupe_key: Option<String>,
    /// The job's actor; [`Actor::System`] by default.
    pub actor: Actor,
    /// The wall clock a cron expression reads: `None` for UTC, `"local"` for the
    /// machine's zone (followed when it changes), or an IANA name such as
    /// `"Europe/Berlin"`. Interval schedules have none.
    pub zone: Option<String>,
    pub(crate) origin: Origin,
}

impl ScheduleSpec {
    /// Enqueues `kind` every `interval`.
    pub fn every(name: impl Into<String>, kind: impl Into<String>, interval: Duration) -> Self {
        ScheduleSpec {
            name: name.into(),
            kind: kind.into(),
            payload: Value::Null,
            every: Every::Interval(interval),
            priority: Priority::default(),
            dedupe_key: None,
            actor: Actor::System,
            zone: None,
            origin: Origin::App,
        }
    }

    /// Enqueues `kind` at the slots of a five-field cron `expression`, in UTC unless
    /// [`zone`](ScheduleSpec::zone) names another wall clock.
    pub fn cron(
        name: impl Into<String>,
        kind: impl Into<String>,
        expression: &str,
    ) -> std::result::Result<Self, CronError> {
        let cron = expression.parse()?;
        Ok(ScheduleSpec {
            every: Every::Cron(cron),
            ..ScheduleSpec::every(name, kind, MIN_INTERVAL)
        })
    }

    /// Sets the payload.
    pub fn payload(mut self, payload: Value) -> Self {
        self.payload = payload;
        self
    }

    /// Sets the priority.
    pub fn priority(mut self, priority: Priority) -> Self {
        self.priority = priority;
        self
    }

    /// Sets the dedupe key.
    pub fn dedupe_key(mut self, key: impl Into<String>) -> Self {
        self.dedupe_key = Some(key.into());
        self
    }

    /// Sets the actor.
    pub fn actor(mut self, actor: Actor) -> Self {
        self.actor = actor;
        self
    }

    /// Reads the cron expression on another wall clock: `"local"` (the machine's,
    /// followed when it changes) or an IANA name (`"Europe/Berlin"`); `"UTC"` is the
    /// default. Checked at [`upsert`](Scheduler::upsert): an unknown name, or a zone
    /// on an interval schedule, is an error naming it.
    pub fn zone(mut self, zone: impl Into<String>) -> Self {
        let zone = zone.into();
        self.zone = (!zone.eq_ignore_ascii_case("utc")).then_some(zone);
        self
    }

    fn new_job(&self) -> NewJob {
        scheduled_job(
            &self.kind,
            self.payload.clone(),
            self.priority,
            self.dedupe_key.as_deref(),
            self.actor,
        )
    }
}

/// A stored schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Schedule {
    /// Unique name.
    pub name: String,
    /// The job kind it enqueues.
    pub kind: String,
    /// The job's payload.
    pub payload: Value,
    /// The job's priority.
    pub priority: Priority,
    /// The job's dedupe key.
    pub dedupe_key: Option<String>,
    /// The job's actor.
    pub actor: Actor,
    /// The interval in milliseconds, for interval schedules.
    pub interval_ms: Option<u64>,
    /// The cron expression, for cron schedules.
    pub cron: Option<String>,
    /// The wall clock the expression reads: `None` for UTC, `"local"`, or an IANA
    /// name.
    pub zone: Option<String>,
    /// When it runs next.
    pub next_run: Timestamp,
    /// Whether it is paused.
    pub paused: bool,
    /// When it last ran.
    pub last_run: Option<Timestamp>,
    /// The job its last run enqueued (or found holding the dedupe key).
    pub last_job: Option<JobId>,
    /// When it was added.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

impl Schedule {
    fn from_row(row: ScheduleRow) -> Result<Schedule> {
        let payload = serde_json::from_str(&row.payload).map_err(|error| {
            Error::invalid_argument(
                "payload",
                format!("stored payload of schedule {:?}: {error}", row.name),
            )
        })?;
        Ok(Schedule {
            name: row.name,
            kind: row.kind,
            payload,
            priority: row.priority,
            dedupe_key: row.dedupe_key,
            actor: row.actor,
            interval_ms: row.interval_ms.map(|ms| ms.max(0) as u64),
            cron: row.cron,
            zone: row.zone,
            next_run: row.next_run,
            paused: row.paused,
            last_run: row.last_run,
            last_job: row.last_job,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// A run a tick enqueued.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ticked {
    /// The schedule.
    pub schedule: String,
    /// The slot it was due at.
    pub slot: Timestamp,
    /// The job, or the existing one holding its dedupe key.
    pub job: JobId,
    /// `false` when the dedupe key was taken and nothing was added.
    pub created: bool,
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
                let local = self.inner.db.clock().local_zone();
                let seen = zone_identity(&local);
                Ok((local, Some(seen)))
            }
            Some(name) => named_zone(name).map(|zone| (zone, None)),
        }
    }

    /// Adds a schedule, or changes the one with the same name (see the module docs for
    /// what happens to its `next_run`). The payload is checked as an enqueue would.
    pub fn upsert(&self, spec: ScheduleSpec) -> Result<Schedule> {
        check_spec(&spec)?;
        let db = &self.inner.db;
        let now = db.now();
        queue::check_new(db, spec.new_job(), now)?;
        let (zone, zone_seen) = self.wall_clock(spec.zone.as_deref())?;
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
            };
            schedules::upsert(tx, &row)?;
            Ok(row)
        })?;
        self.changed(&row.name, &row.kind, now);
        Schedule::from_row(row)
    }

    /// Enqueues the schedule's job now, as a run at a slot would (its dedupe key
    /// holds), without moving its next run; records it as its last run. An unknown
    /// name is an error naming it.
    pub fn run_now(&self, name: &str) -> Result<Ticked> {
        self.run_now_within(name, None)
    }

    /// [`run_now`](Scheduler::run_now) for a caller that may only touch the job kinds
    /// `reach` allows (a scoped window): the schedule's kind is read in the
    /// transaction that enqueues, and a schedule of another kind is not found, exactly
    /// like a missing one.
    pub(crate) fn run_now_within(&self, name: &str, reach: Option<&Patterns>) -> Result<Ticked> {
        let db = &self.inner.db;
        let now = db.now();
        let ticked = db.write(now, |tx, changes| {
            let row = schedules::get(tx, name)?
                .filter(|row| reach.is_none_or(|reach| reach.allows(&row.kind)))
                .ok_or_else(|| not_found(name))?;
            let payload = serde_json::from_str::<Value>(&row.payload)
                .map_err(|error| Error::invalid_argument("payload", error.to_string()))?;
            let job = scheduled_job(
                &row.kind,
                payload,
                row.priority,
                row.dedupe_key.as_deref(),
                row.actor,
            );
            let enqueued = queue::enqueue_in(db, tx, job, now, changes)?;
            schedules::advance(tx, &row.name, row.next_run, now, Some(enqueued.id))?;
            Ok((
                Ticked {
                    schedule: row.name,
                    slot: now,
                    job: enqueued.id,
                    created: enqueued.created,
                },
                row.kind,
            ))
        })?;
        let (ticked, kind) = ticked;
        self.changed(name, &kind, now);
        Ok(ticked)
    }

    /// Wakes the loop and tells listeners a schedule (of job kind `kind`) changed.
    fn changed(&self, name: &str, kind: &str, at: Timestamp) {
        self.inner.background.wake();
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

    /// Enqueues every job due at `now` and advances each `next_run` past `now`, all in
    /// one transaction.
    pub fn tick(&self, now: Timestamp) -> Result<Vec<Ticked>> {
        let db = &self.inner.db;
        let local = db.clock().local_zone();
        let local_seen = zone_identity(&local);
        db.write(now, |tx, changes| {
            // The machine's zone changed (travel, a setting): local-time schedules
            // move to their next slot on the new wall clock, before anything runs.
            for (name, expression, seen) in schedules::local(tx)? {
                if seen.as_deref() != Some(local_seen.as_str()) {
                    let every = Every::from_columns(None, Some(&expression))?;
                    let next_run = every.first_after(now, &local);
                    schedules::rezone(tx, &name, next_run, &local_seen, now)?;
                }
            }
            let mut ticked = Vec::new();
            for row in schedules::due(tx, now)? {
                let every = Every::from_columns(row.interval_ms, row.cron.as_deref())?;
                let zone = match row.zone.as_deref() {
                    Some("local") => local.clone(),
                    other => self.wall_clock(other).map(|(zone, _)| zone)?,
                };
                let next_run = every.next_after(row.next_run, now, &zone);
                let enqueued = serde_json::from_str::<Value>(&row.payload)
                    .map_err(|error| Error::invalid_argument("payload", error.to_string()))
                    .and_then(|payload| {
                        let job = scheduled_job(
                            &row.kind,
                            payload,
                            row.priority,
                            row.dedupe_key.as_deref(),
                            row.actor,
                        );
                        queue::enqueue_in(db, tx, job, now, changes)
                    });
                let enqueued = match enqueued {
                    Ok(enqueued) => Some(enqueued),
                    // What the checks refuse skips this run; a database error ends the
                    // tick, and the transaction with it.
                    Err(error) if !is_refusal(&error) => return Err(error),
                    Err(error) => {
                        let error = sanitize_error(&error.to_string());
                        tracing::warn!(schedule = %row.name, %error, "scheduled run skipped");
                        None
                    }
                };
                schedules::advance(tx, &row.name, next_run, now, enqueued.map(|e| e.id))?;
                if let Some(enqueued) = enqueued {
                    ticked.push(Ticked {
                        schedule: row.name,
                        slot: row.next_run,
                        job: enqueued.id,
                        created: enqueued.created,
                    });
                }
            }
            Ok(ticked)
        })
    }

    /// The earliest `next_run` among active schedules.
    pub fn next_due(&self) -> Result<Option<Timestamp>> {
        self.inner.db.read(schedules::next_due)
    }

    /// Starts the background loop on the current tokio runtime: tick, sleep until the
    /// next due time (at most [`MAX_SLEEP`]) or a change, repeat.
    pub fn start(&self) {
        let scheduler = self.clone();
        self.inner.background.start(move || {
            let this = scheduler.clone();
            async move {
                let waited = tokio::task::spawn_blocking(move || {
                    let now = this.now();
                    if let Err(error) = this.tick(now) {
                        tracing::warn!(%error, "scheduler tick failed; trying again after a backoff");
                        return None;
                    }
                    match this.next_due() {
                        Ok(Some(at)) => Some(at.duration_since(this.now())),
                        Ok(None) => Some(MAX_SLEEP),
                        Err(error) => {
                            tracing::warn!(%error, "could not read the next schedule");
                            None
                        }
                    }
                })
                .await;
                waited
                    .ok()
                    .flatten()
                    .map(|wait| wait.max(Duration::from_millis(1)))
            }
        });
    }

    /// Stops the background loop.
    pub async fn stop(&self) {
        self.inner.background.stop().await;
    }
}

/// Whether `error` is a check refusing a scheduled job (its payload, kind or
/// options), rather than the database failing.
fn is_refusal(error: &Error) -> bool {
    matches!(
        error,
        Error::InvalidPayload { .. } | Error::InvalidArgument { .. }
    )
}

/// The job a schedule enqueues: its kind and payload with its priority, dedupe key
/// and actor.
fn scheduled_job(
    kind: &str,
    payload: Value,
    priority: Priority,
    dedupe_key: Option<&str>,
    actor: Actor,
) -> NewJob {
    let mut options = EnqueueOptions::new().priority(priority).actor(actor);
    options.dedupe_key = dedupe_key.map(str::to_owned);
    NewJob::new(kind, payload).options(options)
}

/// A time zone by IANA name (or `UTC`), or an error naming the name.
pub(crate) fn named_zone(name: &str) -> Result<TimeZone> {
    if name.eq_ignore_ascii_case("utc") {
        return Ok(TimeZone::UTC);
    }
    TimeZone::get(name).map_err(|_| {
        Error::invalid_argument(
            "zone",
            format!(
                "unknown time zone {name:?} (an IANA name such as \"Europe/Berlin\", or \"local\")"
            ),
        )
    })
}

/// What tells one zone from another: its IANA name, else its rules as written.
fn zone_identity(zone: &TimeZone) -> String {
    zone.iana_name()
        .map_or_else(|| format!("{zone:?}"), str::to_owned)
}

fn not_found(name: &str) -> Error {
    Error::ScheduleNotFound(name.to_owned())
}

fn check_spec(spec: &ScheduleSpec) -> Result<()> {
    if spec.name.is_empty() || spec.name.len() > MAX_KIND_BYTES {
        return Err(Error::invalid_argument(
            "name",
            format!("must be 1 to {MAX_KIND_BYTES} bytes"),
        ));
    }
    if spec.zone.is_some() && matches!(spec.every, Every::Interval(_)) {
        return Err(Error::invalid_argument(
            "zone",
            "a zone applies to cron schedules; an interval runs in absolute time",
        ));
    }
    if let Some(name) = spec.zone.as_deref().filter(|name| *name != "local") {
        named_zone(name)?;
    }
    if let Every::Interval(interval) = spec.every {
        if interval < MIN_INTERVAL {
            return Err(Error::invalid_argument(
                "interval",
                format!("{interval:?} is shorter than the minimum of {MIN_INTERVAL:?}"),
            ));
        }
    }
    Ok(())
}
