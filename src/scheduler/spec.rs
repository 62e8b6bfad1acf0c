//! What a schedule is: when it runs ([`Every`]), what an app declares
//! ([`ScheduleSpec`]), what is stored and read back ([`Schedule`]), and a run a tick
//! enqueued ([`Ticked`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::named_zone;
use crate::clock::{duration_millis, TimeZone, Timestamp};
use crate::error::{Error, Result};
use crate::model::{Actor, Cron, CronError, JobId, Priority};
use crate::queue::{EnqueueOptions, NewJob, MAX_KIND_BYTES};
use crate::store::schedules::{Origin, ScheduleRow};

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
    pub(super) fn first_after(&self, now: Timestamp, zone: &TimeZone) -> Timestamp {
        match self {
            Every::Interval(interval) => now.saturating_add(*interval),
            Every::Cron(cron) => cron
                .next_after_in(now, zone)
                .unwrap_or(Timestamp::from_millis(i64::MAX)),
        }
    }

    /// The first slot after `now` that follows `slot`: missed slots collapse.
    pub(super) fn next_after(&self, slot: Timestamp, now: Timestamp, zone: &TimeZone) -> Timestamp {
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

    pub(super) fn columns(&self) -> (Option<i64>, Option<String>) {
        match self {
            Every::Interval(interval) => (Some(duration_millis(*interval)), None),
            Every::Cron(cron) => (None, Some(cron.to_string())),
        }
    }

    pub(super) fn from_columns(interval_ms: Option<i64>, cron: Option<&str>) -> Result<Every> {
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
    /// The version of `payload` (see [`KindSpec::payload_version`](crate::queue::KindSpec::payload_version));
    /// by default the version the kind's handler in this process takes, else 1. Each
    /// job the schedule enqueues carries it.
    pub payload_version: Option<u32>,
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
            payload_version: None,
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

    /// Sets the version of the payload (see [`ScheduleSpec::payload_version`]).
    pub fn payload_version(mut self, version: u32) -> Self {
        self.payload_version = Some(version.max(1));
        self
    }

    /// Reads the cron expression on another wall clock: `"local"` (the machine's,
    /// followed when it changes) or an IANA name (`"Europe/Berlin"`); `"UTC"` is the
    /// default. Checked at [`upsert`](super::Scheduler::upsert): an unknown name, or a zone
    /// on an interval schedule, is an error naming it.
    pub fn zone(mut self, zone: impl Into<String>) -> Self {
        let zone = zone.into();
        self.zone = (!zone.eq_ignore_ascii_case("utc")).then_some(zone);
        self
    }

    pub(super) fn new_job(&self) -> NewJob {
        scheduled_job(
            &self.kind,
            self.payload.clone(),
            self.priority,
            self.dedupe_key.as_deref(),
            self.actor,
            self.payload_version,
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
    pub(super) fn from_row(row: ScheduleRow) -> Result<Schedule> {
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

/// Refuses a spec with a name, zone or interval that cannot be.
pub(super) fn check_spec(spec: &ScheduleSpec) -> Result<()> {
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

/// The job a schedule enqueues: its kind and payload with its priority, dedupe key
/// and actor.
pub(super) fn scheduled_job(
    kind: &str,
    payload: Value,
    priority: Priority,
    dedupe_key: Option<&str>,
    actor: Actor,
    payload_version: Option<u32>,
) -> NewJob {
    let mut options = EnqueueOptions::new().priority(priority).actor(actor);
    options.dedupe_key = dedupe_key.map(str::to_owned);
    options.payload_version = payload_version;
    NewJob::new(kind, payload).options(options)
}
