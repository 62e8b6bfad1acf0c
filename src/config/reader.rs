//! Reading each section of `config.toml` into its typed form, every value checked
//! and every error naming its key.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use toml::{Table, Value};

use super::{JobsConfig, ScheduleConfig, SyncConfig};

use crate::backoff::RetryPolicy;
use crate::error::{Error, Result};
use crate::model::{truncate_chars, Cron, Priority, RateLimit, MAX_ERROR_CHARS};

/// The highest `payload_version` a section may give.
const MAX_PAYLOAD_VERSION: u32 = 1_000_000;

pub(super) struct Reader {
    pub(super) path: PathBuf,
}

/// The keys of `[jobs]`, of a `[schedules.<name>]` and of a `[sync."<target>"]`
/// section, and the sections: what a typo is compared with.
const JOBS_KEYS: &[&str] = &[
    "workers",
    "lease_seconds",
    "poll_interval_ms",
    "backoff_base_seconds",
    "backoff_max_seconds",
    "backoff_jitter",
    "max_attempts",
    "retention_days",
    "synchronous",
    "log_lines",
    "kind_limits",
    "rate_limits",
    "keep_awake",
];
const SCHEDULE_KEYS: &[&str] = &[
    "kind",
    "every",
    "cron",
    "zone",
    "payload",
    "payload_version",
    "priority",
];
const SYNC_KEYS: &[&str] = &["every", "min_interval", "max_backoff", "max_throttle"];
pub(super) const SECTIONS: &[&str] = &["jobs", "schedules", "sync"];

/// The known key nearest to `key`, when `key` looks like a typo of it: a few edits
/// apart (one per three characters, at least one), case and `-` for `_` aside.
fn nearest<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let key: Vec<char> = key.to_lowercase().replace('-', "_").chars().collect();
    known
        .iter()
        .map(|candidate| {
            (
                edits(&key, &candidate.chars().collect::<Vec<_>>()),
                *candidate,
            )
        })
        .filter(|(distance, candidate)| *distance <= (candidate.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, with a swap of two neighbours counted as one edit.
fn edits(a: &[char], b: &[char]) -> usize {
    let mut rows = vec![(0..=b.len()).collect::<Vec<_>>(); a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

impl Reader {
    /// An unknown key or section `name` (its last part `key`): names the nearest of
    /// `known` when it looks like a typo of it, else lists them.
    pub(super) fn unknown(&self, name: &str, key: &str, known: &[&str], what: &str) -> Error {
        let reason = match nearest(key, known) {
            Some(near) => format!("{what}: did you mean `{near}`?"),
            None => format!("{what} (known: {})", known.join(", ")),
        };
        self.error(name, reason)
    }

    /// An error naming the file and the key; both the key and the reason are cut,
    /// since they may quote a pathological line of the file.
    pub(super) fn error(&self, key: &str, reason: impl Into<String>) -> Error {
        Error::Config {
            path: self.path.clone(),
            key: truncate_chars(key, 200),
            reason: truncate_chars(&reason.into(), MAX_ERROR_CHARS),
        }
    }

    pub(super) fn jobs(&self, value: &Value) -> Result<JobsConfig> {
        let table = value.as_table().ok_or_else(|| {
            self.error(
                "jobs",
                format!("expected a table, found {}", value.type_str()),
            )
        })?;
        let mut jobs = JobsConfig::default();
        let mut base = None;
        let mut max = None;
        let mut jitter = None;
        for (key, value) in table {
            let name = format!("jobs.{key}");
            match key.as_str() {
                "kind_limits" => jobs.kind_limits = self.limits(&name, value)?,
                "rate_limits" => jobs.rate_limits = self.rate_limits(&name, value)?,
                "keep_awake" => {
                    jobs.keep_awake = self.per_kind(&name, value, |key, on| {
                        on.as_bool().ok_or_else(|| {
                            self.error(
                                key,
                                format!("expected true or false, found {}", on.type_str()),
                            )
                        })
                    })?;
                }
                "workers" => jobs.workers = Some(self.integer(&name, value, 1, 1024)?),
                "lease_seconds" => {
                    jobs.lease = Some(Duration::from_secs(
                        self.integer(&name, value, 1, 86_400)?.into(),
                    ));
                }
                "poll_interval_ms" => {
                    let ms = self.integer(&name, value, 10, 3_600_000)?;
                    jobs.poll_interval = Some(Duration::from_millis(ms.into()));
                }
                "backoff_base_seconds" => base = Some(self.seconds(&name, value)?),
                "backoff_max_seconds" => max = Some(self.seconds(&name, value)?),
                "backoff_jitter" => jitter = Some(self.number(&name, value, 0.0, 1.0)?),
                "max_attempts" => jobs.max_attempts = Some(self.integer(&name, value, 1, 1000)?),
                "log_lines" => jobs.log_lines = Some(self.integer(&name, value, 0, 100_000)?),
                "retention_days" => {
                    let days = self.number(&name, value, 0.001, 36_500.0)?;
                    jobs.retention = Some(Duration::from_secs_f64(days * 86_400.0));
                }
                "synchronous" => {
                    let text = value.as_str().ok_or_else(|| {
                        self.error(
                            &name,
                            format!("expected a string, found {}", value.type_str()),
                        )
                    })?;
                    jobs.synchronous = Some(
                        text.parse()
                            .map_err(|reason: String| self.error(&name, reason))?,
                    );
                }
                _ => return Err(self.unknown(&name, key, JOBS_KEYS, "unknown key")),
            }
        }
        if base.is_some() || max.is_some() || jitter.is_some() {
            let defaults = RetryPolicy::default();
            let policy = RetryPolicy::new(
                base.unwrap_or(defaults.base()),
                max.unwrap_or(defaults.max()),
                jitter.unwrap_or(defaults.jitter()),
            )
            .map_err(|error| self.error("jobs.backoff_*", error.to_string()))?;
            jobs.retry = Some(policy);
        }
        Ok(jobs)
    }

    pub(super) fn table<'v>(&self, name: &str, value: &'v Value) -> Result<&'v Table> {
        value.as_table().ok_or_else(|| {
            self.error(
                name,
                format!("expected a table, found {}", value.type_str()),
            )
        })
    }

    pub(super) fn schedule(&self, name: &str, value: &Value) -> Result<ScheduleConfig> {
        let mut schedule = ScheduleConfig::default();
        for (key, value) in self.table(name, value)? {
            let key_name = format!("{name}.{key}");
            match key.as_str() {
                "kind" => {
                    let kind = self.string(&key_name, value)?;
                    if kind.is_empty() || kind.len() > 128 {
                        return Err(self.error(&key_name, "must be 1 to 128 bytes"));
                    }
                    schedule.kind = Some(kind.to_owned());
                }
                "every" => {
                    let every = self.duration(&key_name, value)?;
                    if every < Duration::from_secs(1) {
                        return Err(self.error(&key_name, "must be at least 1s"));
                    }
                    schedule.every = Some(every);
                }
                "cron" => {
                    let text = self.string(&key_name, value)?;
                    schedule.cron = Some(
                        text.parse::<Cron>()
                            .map_err(|error| self.error(&key_name, error.to_string()))?,
                    );
                }
                "zone" => {
                    let zone = self.string(&key_name, value)?;
                    // Without the `schedules` feature the section is refused whole,
                    // naming the feature, before any zone is used (and the build has
                    // no time-zone rules to check a name against).
                    let known = zone == "local"
                        || zone.eq_ignore_ascii_case("utc")
                        || cfg!(not(feature = "schedules"))
                        || known_zone(zone);
                    if !known {
                        return Err(self.error(
                            &key_name,
                            format!("unknown time zone {zone:?} (an IANA name such as \"Europe/Berlin\", or \"local\")"),
                        ));
                    }
                    schedule.zone = (!zone.eq_ignore_ascii_case("utc")).then(|| zone.to_owned());
                }
                "payload" => schedule.payload = Some(toml_to_json(value)),
                "payload_version" => {
                    schedule.payload_version =
                        Some(self.integer(&key_name, value, 1, MAX_PAYLOAD_VERSION)?);
                }
                "priority" => {
                    let number = value.as_integer().ok_or_else(|| {
                        self.error(
                            &key_name,
                            format!("expected an integer, found {}", value.type_str()),
                        )
                    })?;
                    let priority = i32::try_from(number)
                        .ok()
                        .filter(|p| p.unsigned_abs() <= 1_000_000)
                        .ok_or_else(|| {
                            self.error(
                                &key_name,
                                format!("must be from -1000000 to 1000000, found {number}"),
                            )
                        })?;
                    schedule.priority = Some(Priority(priority));
                }
                _ => return Err(self.unknown(&key_name, key, SCHEDULE_KEYS, "unknown key")),
            }
        }
        if schedule.every.is_some() && schedule.cron.is_some() {
            return Err(self.error(name, "give `every` or `cron`, not both"));
        }
        if schedule.every.is_some() && schedule.zone.is_some() {
            return Err(self.error(
                &format!("{name}.zone"),
                "a zone applies to `cron`; `every` runs in absolute time",
            ));
        }
        Ok(schedule)
    }

    pub(super) fn sync(&self, name: &str, value: &Value) -> Result<SyncConfig> {
        let mut sync = SyncConfig::default();
        for (key, value) in self.table(name, value)? {
            let key_name = format!("{name}.{key}");
            if !SYNC_KEYS.contains(&key.as_str()) {
                return Err(self.unknown(&key_name, key, SYNC_KEYS, "unknown key"));
            }
            let duration = self.duration(&key_name, value)?;
            match key.as_str() {
                "every" => sync.every = Some(duration),
                "min_interval" => sync.min_interval = Some(duration),
                "max_backoff" => sync.max_backoff = Some(duration),
                _ => sync.max_throttle = Some(duration),
            }
        }
        Ok(sync)
    }

    fn string<'v>(&self, name: &str, value: &'v Value) -> Result<&'v str> {
        value.as_str().ok_or_else(|| {
            self.error(
                name,
                format!("expected a string, found {}", value.type_str()),
            )
        })
    }

    /// A duration: a number of seconds, or numbers with units (`"1h30m"`), more than
    /// zero and at most a year.
    fn duration(&self, name: &str, value: &Value) -> Result<Duration> {
        let duration = match value {
            Value::Integer(_) | Value::Float(_) => self.seconds(name, value)?,
            Value::String(text) => {
                parse_duration(text).map_err(|reason| self.error(name, reason))?
            }
            other => {
                return Err(self.error(
                    name,
                    format!(
                        "expected a duration (\"15m\", or seconds), found {}",
                        other.type_str()
                    ),
                ))
            }
        };
        if duration.is_zero() || duration > Duration::from_secs(365 * 86_400) {
            return Err(self.error(name, "must be more than zero and at most a year"));
        }
        Ok(duration)
    }

    /// A table of kinds, each value read by `read` with its key (`jobs.<table>.<kind>`).
    fn per_kind<T>(
        &self,
        name: &str,
        value: &Value,
        read: impl Fn(&str, &Value) -> Result<T>,
    ) -> Result<HashMap<String, T>> {
        let table = value.as_table().ok_or_else(|| {
            self.error(
                name,
                format!("expected a table, found {}", value.type_str()),
            )
        })?;
        table
            .iter()
            .map(|(kind, value)| Ok((kind.clone(), read(&format!("{name}.{kind}"), value)?)))
            .collect()
    }

    fn limits(&self, name: &str, value: &Value) -> Result<HashMap<String, u32>> {
        self.per_kind(name, value, |key, cap| self.integer(key, cap, 0, 1_000_000))
    }

    /// `kind = "N/window"`: N starts (1 to a million) per window (a duration string),
    /// evenly spread; `"N/window burst"` lets all N start at once, `"N/window burst
    /// B"` up to B (from 1 to N), the budget coming back one start per window / N.
    fn rate_limits(&self, name: &str, value: &Value) -> Result<HashMap<String, RateLimit>> {
        self.per_kind(name, value, |key, limit| {
            let shape = || {
                self.error(
                    key,
                    "expected \"starts/window\", such as \"60/1m\", or with a burst, \
                     \"5/1m burst\" or \"5/1m burst 3\"",
                )
            };
            let text = limit.as_str().ok_or_else(shape)?;
            let (rate, burst) = match text.split_once("burst") {
                Some((rate, burst)) => (rate, Some(burst.trim())),
                None => (text, None),
            };
            let (starts, window) = rate.split_once('/').ok_or_else(shape)?;
            let starts: u32 = starts.trim().parse().map_err(|_| shape())?;
            if !(1..=1_000_000).contains(&starts) {
                return Err(self.error(key, format!("{starts} starts is not from 1 to 1000000")));
            }
            let window = self.duration(key, &Value::String(window.trim().to_owned()))?;
            if u128::from(starts) > window.as_millis() {
                return Err(self.error(key, "more starts than milliseconds in the window"));
            }
            let burst = match burst {
                None => 1,
                Some("") => starts,
                Some(burst) => match burst.parse::<u32>() {
                    Ok(burst) if (1..=starts).contains(&burst) => burst,
                    _ => {
                        return Err(self.error(
                            key,
                            format!("burst {burst:?} is not a number from 1 to {starts}"),
                        ))
                    }
                },
            };
            Ok(RateLimit::new(starts, window).burst(burst))
        })
    }

    fn integer(&self, name: &str, value: &Value, min: u32, max: u32) -> Result<u32> {
        let number = value.as_integer().ok_or_else(|| {
            self.error(
                name,
                format!("expected an integer, found {}", value.type_str()),
            )
        })?;
        u32::try_from(number)
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| self.error(name, format!("must be from {min} to {max}, found {number}")))
    }

    fn number(&self, name: &str, value: &Value, min: f64, max: f64) -> Result<f64> {
        let number = match value {
            Value::Integer(n) => *n as f64,
            Value::Float(f) => *f,
            other => {
                return Err(self.error(
                    name,
                    format!("expected a number, found {}", other.type_str()),
                ))
            }
        };
        if (min..=max).contains(&number) {
            Ok(number)
        } else {
            Err(self.error(name, format!("must be from {min} to {max}, found {number}")))
        }
    }

    fn seconds(&self, name: &str, value: &Value) -> Result<Duration> {
        Ok(Duration::from_secs_f64(self.number(
            name,
            value,
            0.001,
            31_536_000.0,
        )?))
    }
}

/// `"1h30m"`, `"90s"`, `"500ms"`, `"2d"`: numbers each followed by a unit.
pub(super) fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let bad = || format!("{text:?} is not a duration such as \"90s\", \"15m\" or \"1h30m\"");
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let number: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let millis = match &rest[..unit] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return Err(bad()),
        };
        rest = &rest[unit..];
        total = number
            .checked_mul(millis)
            .and_then(|ms| total.checked_add(Duration::from_millis(ms)))
            .ok_or_else(bad)?;
    }
    Ok(total)
}

/// A TOML value as JSON (a date or time becomes its text).
fn toml_to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::String(text) => serde_json::Value::String(text.clone()),
        Value::Integer(n) => serde_json::Value::from(*n),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::Boolean(b) => serde_json::Value::Bool(*b),
        Value::Datetime(at) => serde_json::Value::String(at.to_string()),
        Value::Array(items) => items.iter().map(toml_to_json).collect(),
        Value::Table(table) => table
            .iter()
            .map(|(key, value)| (key.clone(), toml_to_json(value)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    }
}

/// Whether jiff knows the zone `name` (the `schedules` feature's time-zone rules).
#[cfg(feature = "schedules")]
fn known_zone(name: &str) -> bool {
    jiff::tz::TimeZone::get(name).is_ok()
}

#[cfg(not(feature = "schedules"))]
fn known_zone(_name: &str) -> bool {
    true
}
