//! Running schedules: a tick enqueues every due job and advances each `next_run` in
//! one transaction; `run_now` enqueues one schedule's job at once; the background
//! loop ticks and sleeps until the next due time.

use std::time::Duration;

use serde_json::Value;

use super::spec::scheduled_job;
use super::{not_found, zone_identity, Every, Scheduler, Ticked, MAX_SLEEP};
use crate::clock::{TimeZone, Timestamp};
use crate::error::{Error, Result};
use crate::model::{sanitize_error, Patterns};
use crate::queue::{self};
use crate::store::schedules;

impl Scheduler {
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
                Some(row.payload_version),
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

    /// Enqueues every job due at `now` and advances each `next_run` past `now`, all in
    /// one transaction.
    ///
    /// Every schedule the tick moved (its next and last run, or its next run on a new
    /// zone) is published as [`ScheduleChanged`](crate::bus::ScheduleChanged) once the
    /// transaction has committed, so a page showing it follows without polling.
    pub fn tick(&self, now: Timestamp) -> Result<Vec<Ticked>> {
        let db = &self.inner.db;
        // A build without the `schedules` feature reads no zones: a schedule in a zone
        // (written by a build with it) runs on UTC's wall clock there.
        let local = super::local_zone(&**db.clock()).ok();
        let local_seen = local.as_ref().map(zone_identity);
        let mut moved: Vec<(String, String)> = Vec::new();
        let ticked = db.write(now, |tx, changes| {
            moved.clear();
            // The machine's zone changed (travel, a setting): local-time schedules
            // move to their next slot on the new wall clock, before anything runs.
            if let (Some(local), Some(local_seen)) = (&local, &local_seen) {
                for (name, expression, seen, kind) in schedules::local(tx)? {
                    if seen.as_deref() != Some(local_seen.as_str()) {
                        let every = Every::from_columns(None, Some(&expression))?;
                        let next_run = every.first_after(now, local);
                        schedules::rezone(tx, &name, next_run, local_seen, now)?;
                        moved.push((name, kind));
                    }
                }
            }
            let mut ticked = Vec::new();
            for row in schedules::due(tx, now)? {
                moved.push((row.name.clone(), row.kind.clone()));
                let every = Every::from_columns(row.interval_ms, row.cron.as_deref())?;
                let zone = match row.zone.as_deref() {
                    Some("local") => local.clone().unwrap_or(TimeZone::UTC),
                    #[cfg(not(feature = "schedules"))]
                    Some(_) => TimeZone::UTC,
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
                            Some(row.payload_version),
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
        })?;
        moved.dedup();
        for (name, kind) in &moved {
            self.published(name, kind, now);
        }
        Ok(ticked)
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
