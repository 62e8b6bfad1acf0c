//! SQL for the `schedules` table.

use rusqlite::{named_params, Connection, OptionalExtension, Row};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{Actor, JobId, Priority};

/// A schedule row as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScheduleRow {
    pub name: String,
    pub kind: String,
    pub payload: String,
    pub priority: Priority,
    pub dedupe_key: Option<String>,
    pub actor: Actor,
    pub interval_ms: Option<i64>,
    pub cron: Option<String>,
    pub next_run: Timestamp,
    pub paused: bool,
    pub last_run: Option<Timestamp>,
    pub last_job: Option<JobId>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub zone: Option<String>,
    pub zone_seen: Option<String>,
    pub origin: Origin,
    pub payload_version: u32,
}

/// Where a schedule was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The app's code (or a call to `upsert`).
    App,
    /// `config.toml`.
    Config,
}

impl Origin {
    fn as_str(self) -> &'static str {
        match self {
            Origin::App => "app",
            Origin::Config => "config",
        }
    }
}

const COLUMNS: &str = "name, kind, payload, priority, dedupe_key, actor, interval_ms, cron, \
     next_run, paused, last_run, last_job_id, created_at, updated_at, zone, zone_seen, origin, \
     payload_version";

fn from_row(r: &Row<'_>) -> rusqlite::Result<ScheduleRow> {
    let actor: String = r.get(5)?;
    Ok(ScheduleRow {
        name: r.get(0)?,
        kind: r.get(1)?,
        payload: r.get(2)?,
        priority: Priority(r.get(3)?),
        dedupe_key: r.get(4)?,
        actor: actor.parse().map_err(|reason: String| {
            rusqlite::Error::FromSqlConversionFailure(5, rusqlite::types::Type::Text, reason.into())
        })?,
        interval_ms: r.get(6)?,
        cron: r.get(7)?,
        next_run: Timestamp::from_millis(r.get(8)?),
        paused: r.get(9)?,
        last_run: r.get::<_, Option<i64>>(10)?.map(Timestamp::from_millis),
        last_job: r.get::<_, Option<i64>>(11)?.map(JobId::from_raw),
        created_at: Timestamp::from_millis(r.get(12)?),
        updated_at: Timestamp::from_millis(r.get(13)?),
        zone: r.get(14)?,
        zone_seen: r.get(15)?,
        origin: if r.get::<_, String>(16)? == "config" {
            Origin::Config
        } else {
            Origin::App
        },
        payload_version: r.get::<_, i64>(17)?.clamp(1, i64::from(u32::MAX)) as u32,
    })
}

/// Inserts or replaces a schedule.
pub(crate) fn upsert(conn: &Connection, row: &ScheduleRow) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO schedules (name, kind, payload, priority, dedupe_key, actor, interval_ms, cron, \
           next_run, paused, last_run, last_job_id, created_at, updated_at, zone, zone_seen, origin, \
           payload_version) \
         VALUES (:name, :kind, :payload, :priority, :dedupe_key, :actor, :interval_ms, :cron, \
           :next_run, :paused, :last_run, :last_job, :created_at, :updated_at, :zone, :zone_seen, \
           :origin, :payload_version) \
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, payload = excluded.payload, \
           priority = excluded.priority, dedupe_key = excluded.dedupe_key, actor = excluded.actor, \
           interval_ms = excluded.interval_ms, cron = excluded.cron, next_run = excluded.next_run, \
           paused = excluded.paused, updated_at = excluded.updated_at, zone = excluded.zone, \
           zone_seen = excluded.zone_seen, origin = excluded.origin, \
           payload_version = excluded.payload_version",
    )?
    .execute(named_params! {
        ":name": row.name,
        ":kind": row.kind,
        ":payload": row.payload,
        ":priority": row.priority.0,
        ":dedupe_key": row.dedupe_key,
        ":actor": row.actor.as_str(),
        ":interval_ms": row.interval_ms,
        ":cron": row.cron,
        ":next_run": row.next_run.as_millis(),
        ":paused": row.paused,
        ":last_run": row.last_run.map(Timestamp::as_millis),
        ":last_job": row.last_job.map(JobId::raw),
        ":created_at": row.created_at.as_millis(),
        ":updated_at": row.updated_at.as_millis(),
        ":zone": row.zone,
        ":zone_seen": row.zone_seen,
        ":origin": row.origin.as_str(),
        ":payload_version": row.payload_version,
    })?;
    Ok(())
}

/// One schedule.
pub(crate) fn get(conn: &Connection, name: &str) -> Result<Option<ScheduleRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM schedules WHERE name = ?1"))?
        .query_row([name], from_row)
        .optional()?)
}

/// Every schedule, by name.
pub(crate) fn list(conn: &Connection) -> Result<Vec<ScheduleRow>> {
    let mut statement =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM schedules ORDER BY name"))?;
    let rows = statement.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Active schedules due at `now`, earliest first.
pub(crate) fn due(conn: &Connection, now: Timestamp) -> Result<Vec<ScheduleRow>> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM schedules WHERE paused = 0 AND next_run <= ?1 ORDER BY next_run, name"
    ))?;
    let rows = statement.query_map([now.as_millis()], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The earliest next run among active schedules.
pub(crate) fn next_due(conn: &Connection) -> Result<Option<Timestamp>> {
    let at: Option<i64> = conn
        .prepare_cached("SELECT min(next_run) FROM schedules WHERE paused = 0")?
        .query_row([], |r| r.get(0))?;
    Ok(at.map(Timestamp::from_millis))
}

/// Records a run: the next slot, when it ran and the job it enqueued.
pub(crate) fn advance(
    conn: &Connection,
    name: &str,
    next_run: Timestamp,
    ran_at: Timestamp,
    job: Option<JobId>,
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE schedules SET next_run = :next_run, last_run = :ran_at, \
         last_job_id = coalesce(:job, last_job_id), updated_at = :ran_at WHERE name = :name",
    )?
    .execute(named_params! {
        ":name": name,
        ":next_run": next_run.as_millis(),
        ":ran_at": ran_at.as_millis(),
        ":job": job.map(JobId::raw),
    })?;
    Ok(())
}

/// Deletes a schedule; returns the job kind it enqueued, if it existed.
pub(crate) fn remove(conn: &Connection, name: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("DELETE FROM schedules WHERE name = ?1 RETURNING kind")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

/// A local-zone schedule: name, expression, the zone seen, the job kind.
pub(crate) type LocalSchedule = (String, String, Option<String>, String);

/// Active schedules on the machine's local zone: their name, expression, the zone
/// their `next_run` was computed in, and their job kind.
pub(crate) fn local(conn: &Connection) -> Result<Vec<LocalSchedule>> {
    let mut statement = conn.prepare_cached(
        "SELECT name, cron, zone_seen, kind FROM schedules WHERE zone = 'local' AND paused = 0",
    )?;
    let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Moves a local-zone schedule's next run, computed in `zone_seen`.
pub(crate) fn rezone(
    conn: &Connection,
    name: &str,
    next_run: Timestamp,
    zone_seen: &str,
    now: Timestamp,
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE schedules SET next_run = ?2, zone_seen = ?3, updated_at = ?4 WHERE name = ?1",
    )?
    .execute(rusqlite::params![
        name,
        next_run.as_millis(),
        zone_seen,
        now.as_millis()
    ])?;
    Ok(())
}

/// The names of the schedules `config.toml` declared.
pub(crate) fn from_config(conn: &Connection) -> Result<Vec<String>> {
    let mut statement =
        conn.prepare_cached("SELECT name FROM schedules WHERE origin = 'config' ORDER BY name")?;
    let rows = statement.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
