//! The schedules an app declares at start: its code gives them, `config.toml` changes
//! them or adds its own, and a schedule the file took away goes.

use std::collections::{BTreeMap, BTreeSet};

use super::{Every, Schedule, ScheduleSpec, Scheduler};
use crate::config::{Config, ScheduleConfig};
use crate::error::Result;
use crate::store::schedules::{self, Origin};

impl Scheduler {
    /// Upserts the schedules the app's `code` declares, changed by the
    /// `[schedules.<name>]` sections of `config` that name them, and the schedules
    /// those sections add (with `kind` and `every` or `cron`). Removes the schedules an
    /// earlier start took from the file that it no longer declares; the jobs they
    /// enqueued stay. A section that cannot become a schedule (an unknown kind's
    /// payload, a missing `kind`) is an error naming its key, and then nothing is
    /// written: every schedule is checked before the first is.
    pub fn declare(&self, code: Vec<ScheduleSpec>, config: &Config) -> Result<Vec<Schedule>> {
        let mut specs: BTreeMap<String, (ScheduleSpec, Option<String>)> = code
            .into_iter()
            .map(|spec| (spec.name.clone(), (spec, None)))
            .collect();
        for (name, section) in &config.schedules {
            let key = format!("schedules.{name}");
            let mut spec = match specs.remove(name) {
                Some((code, _)) => changed(code, section),
                None => added(name, section).map_err(|reason| config.error(&key, reason))?,
            };
            if section.payload.is_some() && section.payload_version.is_none() {
                spec.payload_version = self.remembered_version(&spec)?;
            }
            specs.insert(name.clone(), (spec, Some(key)));
        }
        let declared: BTreeSet<String> = specs.keys().cloned().collect();
        let checked = specs
            .into_values()
            .map(|(spec, key)| {
                self.check(spec).map_err(|error| match &key {
                    Some(key) => config.error(key, error.to_string()),
                    None => error,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut upserted = Vec::with_capacity(checked.len());
        for schedule in checked {
            upserted.push(self.write(schedule)?);
        }
        let stale: Vec<String> = self
            .inner
            .db
            .read(schedules::from_config)?
            .into_iter()
            .filter(|name| !declared.contains(name))
            .collect();
        for name in stale {
            tracing::info!(schedule = %name, "removed: config.toml no longer declares it");
            self.remove(&name)?;
        }
        Ok(upserted)
    }

    /// [`declare`](Scheduler::declare) when `config.toml` was refused: the schedules
    /// of the app's `code` as it declares them, but for those the file changed at an
    /// earlier start, and the file's own: those stay as they are stored, so that a
    /// typo costs the user no schedule, nor its next or last run. Nothing is removed.
    pub(crate) fn declare_without_file(&self, code: Vec<ScheduleSpec>) -> Result<Vec<Schedule>> {
        let mut checked = Vec::with_capacity(code.len());
        for spec in code {
            let stored = self
                .inner
                .db
                .read(|conn| schedules::get(conn, &spec.name))?;
            if stored.is_some_and(|row| row.origin == Origin::Config) {
                continue;
            }
            checked.push(self.check(spec)?);
        }
        checked
            .into_iter()
            .map(|schedule| self.write(schedule))
            .collect()
    }

    /// The version a payload of the file had when it was first applied: kept while
    /// the file's payload stays the same, so that an app update whose handler takes a
    /// newer version upgrades it. `None` (the kind's version now) for a new or an
    /// edited payload.
    fn remembered_version(&self, spec: &ScheduleSpec) -> Result<Option<u32>> {
        let stored = self
            .inner
            .db
            .read(|conn| schedules::get(conn, &spec.name))?;
        let payload = spec.payload.to_string();
        Ok(stored
            .filter(|old| old.origin == Origin::Config && old.payload == payload)
            .map(|old| old.payload_version))
    }
}

/// A schedule of the app's code with what a section changes.
fn changed(mut spec: ScheduleSpec, section: &ScheduleConfig) -> ScheduleSpec {
    if let Some(kind) = &section.kind {
        spec.kind.clone_from(kind);
    }
    if let Some(every) = section.every {
        spec.every = Every::Interval(every);
        spec.zone = None;
    }
    if let Some(cron) = &section.cron {
        spec.every = Every::Cron(cron.clone());
    }
    if section.zone.is_some() {
        spec.zone.clone_from(&section.zone);
    }
    if let Some(payload) = &section.payload {
        spec.payload = payload.clone();
        spec.payload_version = None;
    }
    if section.payload_version.is_some() {
        spec.payload_version = section.payload_version;
    }
    if let Some(priority) = section.priority {
        spec.priority = priority;
    }
    spec.origin = Origin::Config;
    spec
}

/// A schedule the file adds: it needs a kind and a timing.
fn added(name: &str, section: &ScheduleConfig) -> std::result::Result<ScheduleSpec, String> {
    let kind = section.kind.clone().ok_or_else(|| {
        "the app declares no schedule by this name: give `kind` and `every` or `cron`".to_owned()
    })?;
    let every = match (&section.every, &section.cron) {
        (Some(every), _) => Every::Interval(*every),
        (None, Some(cron)) => Every::Cron(cron.clone()),
        (None, None) => {
            return Err(
                "the app declares no schedule by this name: give `every` or `cron`".to_owned(),
            )
        }
    };
    let spec = ScheduleSpec {
        every,
        ..ScheduleSpec::every(name, kind, super::MIN_INTERVAL)
    };
    Ok(changed(spec, section))
}
