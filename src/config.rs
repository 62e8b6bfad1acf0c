//! `config.toml`: settings a user or packager can change without rebuilding the app.
//!
//! A missing file means defaults. Anything else that is off (an unknown key, a value
//! of the wrong type, an impossible number, a syntax error) is an [`Error::Config`]
//! naming the file and the key, and nothing starts half-configured.
//!
//! ```toml
//! [jobs]
//! workers = 4                 # jobs run at once by this process's runner
//! lease_seconds = 30          # lease length; renewed every third of it
//! poll_interval_ms = 1000     # how soon jobs written by other processes are noticed
//! backoff_base_seconds = 5    # retry delay after the first failure, doubling...
//! backoff_max_seconds = 3600  # ...up to this
//! backoff_jitter = 0.25       # shortened by up to this fraction at random
//! max_attempts = 5
//! retention_days = 7          # finished jobs are deleted after this
//! synchronous = "normal"      # or "full": see the README on durability
//!
//! [jobs.kind_limits]          # caps on running jobs per kind, across processes;
//! embed = 1                   # these win over the handlers' own defaults
//!
//! [schedules.morning-digest]  # a schedule, or changes to one the app declares
//! kind = "digest"
//! cron = "0 8 * * 1-5"        # or every = "15m"
//! zone = "local"              # the machine's wall clock; or "Europe/Berlin"; UTC if unset
//! payload = { to = "me" }
//! priority = 50
//!
//! [sync."github/me/notifications"]  # a registered sync target's policy
//! every = "10m"
//! min_interval = "1m"
//! max_backoff = "2h"
//! max_throttle = "1d"
//! ```
//!
//! Durations are a number of seconds or a string of numbers with units, `ms`, `s`,
//! `m`, `h` and `d` (`"1h30m"`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::{Table, Value};

use crate::backoff::RetryPolicy;
use crate::error::{Error, Result};
use crate::model::{truncate_chars, Cron, Priority, MAX_ERROR_CHARS};
use crate::store::Synchronous;

/// Everything `config.toml` can say. Unset values are `None`: the code's defaults
/// apply.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Config {
    /// The `[jobs]` section.
    pub jobs: JobsConfig,
    /// The `[schedules.<name>]` sections, by name.
    pub schedules: BTreeMap<String, ScheduleConfig>,
    /// The `[sync."<connector>/<account>/<name>"]` sections, by target.
    pub sync: BTreeMap<String, SyncConfig>,
    /// The file it was read from, to name it in errors found once the app applies it
    /// (a sync section for a target the app never registered); `None` when none was
    /// read.
    pub path: Option<PathBuf>,
}

/// A `[schedules.<name>]` section: a schedule of its own (`kind` and `every` or
/// `cron` given), or changes to one the app's code declares under that name.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ScheduleConfig {
    /// `kind`.
    pub kind: Option<String>,
    /// `every`: a fixed interval.
    pub every: Option<Duration>,
    /// `cron`: five fields.
    pub cron: Option<Cron>,
    /// `zone`: `"local"` or an IANA name, for `cron`.
    pub zone: Option<String>,
    /// `payload`: any value, as JSON.
    pub payload: Option<serde_json::Value>,
    /// `priority`.
    pub priority: Option<Priority>,
}

/// A `[sync."<target>"]` section: what it changes in the target's policy.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SyncConfig {
    /// `every`: the cadence.
    pub every: Option<Duration>,
    /// `min_interval`: the least time between automatic runs.
    pub min_interval: Option<Duration>,
    /// `max_backoff`: the cap of the backoff after failures.
    pub max_backoff: Option<Duration>,
    /// `max_throttle`: the longest a server throttle may defer a run.
    pub max_throttle: Option<Duration>,
}

/// The `[jobs]` section.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct JobsConfig {
    /// `kind_limits`: caps per kind; they win over the handlers' defaults.
    pub kind_limits: HashMap<String, u32>,
    /// `workers`: jobs run at once.
    pub workers: Option<u32>,
    /// `lease_seconds`.
    pub lease: Option<Duration>,
    /// `poll_interval_ms`.
    pub poll_interval: Option<Duration>,
    /// `backoff_base_seconds`, `backoff_max_seconds`, `backoff_jitter`, checked
    /// together.
    pub retry: Option<RetryPolicy>,
    /// `max_attempts`.
    pub max_attempts: Option<u32>,
    /// `retention_days`.
    pub retention: Option<Duration>,
    /// `synchronous`.
    pub synchronous: Option<Synchronous>,
}

impl Config {
    /// Reads `path`; a missing file gives the defaults.
    pub fn load(path: impl AsRef<Path>) -> Result<Config> {
        let path = path.as_ref();
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, path).map(|mut config| {
                config.path = Some(path.to_owned());
                config
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(source) => Err(Error::Io {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Parses `text`; `path` only names the file in errors.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Config> {
        let reader = Reader {
            path: path.as_ref().to_owned(),
        };
        let table: Table = text.parse().map_err(|error: toml::de::Error| {
            reader.error("", error.to_string().trim_end().replace('\n', " "))
        })?;
        let mut config = Config::default();
        for (key, value) in &table {
            match key.as_str() {
                "jobs" => config.jobs = reader.jobs(value)?,
                "schedules" => {
                    for (name, section) in reader.table("schedules", value)? {
                        let schedule = reader.schedule(&format!("schedules.{name}"), section)?;
                        config.schedules.insert(name.clone(), schedule);
                    }
                }
                "sync" => {
                    for (target, section) in reader.table("sync", value)? {
                        let key = format!("sync.\"{target}\"");
                        if target.split('/').filter(|part| !part.is_empty()).count() != 3
                            || target.matches('/').count() != 2
                        {
                            return Err(reader.error(&key, "a target is connector/account/name"));
                        }
                        config
                            .sync
                            .insert(target.clone(), reader.sync(&key, section)?);
                    }
                }
                other => return Err(reader.error(other, "unknown section")),
            }
        }
        Ok(config)
    }

    /// An error about the key `key` of this file, found while applying it.
    pub(crate) fn error(&self, key: &str, reason: impl Into<String>) -> Error {
        Reader {
            path: self
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from("config.toml")),
        }
        .error(key, reason)
    }
}

struct Reader {
    path: PathBuf,
}

impl Reader {
    /// An error naming the file and the key; both the key and the reason are cut,
    /// since they may quote a pathological line of the file.
    fn error(&self, key: &str, reason: impl Into<String>) -> Error {
        Error::Config {
            path: self.path.clone(),
            key: truncate_chars(key, 200),
            reason: truncate_chars(&reason.into(), MAX_ERROR_CHARS),
        }
    }

    fn jobs(&self, value: &Value) -> Result<JobsConfig> {
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
                _ => return Err(self.error(&name, "unknown key")),
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

    fn table<'v>(&self, name: &str, value: &'v Value) -> Result<&'v Table> {
        value.as_table().ok_or_else(|| {
            self.error(
                name,
                format!("expected a table, found {}", value.type_str()),
            )
        })
    }

    fn schedule(&self, name: &str, value: &Value) -> Result<ScheduleConfig> {
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
                    let known = zone == "local"
                        || zone.eq_ignore_ascii_case("utc")
                        || jiff::tz::TimeZone::get(zone).is_ok();
                    if !known {
                        return Err(self.error(
                            &key_name,
                            format!("unknown time zone {zone:?} (an IANA name such as \"Europe/Berlin\", or \"local\")"),
                        ));
                    }
                    schedule.zone = (!zone.eq_ignore_ascii_case("utc")).then(|| zone.to_owned());
                }
                "payload" => schedule.payload = Some(toml_to_json(value)),
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
                _ => return Err(self.error(&key_name, "unknown key")),
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

    fn sync(&self, name: &str, value: &Value) -> Result<SyncConfig> {
        let mut sync = SyncConfig::default();
        for (key, value) in self.table(name, value)? {
            let key_name = format!("{name}.{key}");
            let duration = self.duration(&key_name, value)?;
            match key.as_str() {
                "every" => sync.every = Some(duration),
                "min_interval" => sync.min_interval = Some(duration),
                "max_backoff" => sync.max_backoff = Some(duration),
                "max_throttle" => sync.max_throttle = Some(duration),
                _ => return Err(self.error(&key_name, "unknown key")),
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

    fn limits(&self, name: &str, value: &Value) -> Result<HashMap<String, u32>> {
        let table = value.as_table().ok_or_else(|| {
            self.error(
                name,
                format!("expected a table, found {}", value.type_str()),
            )
        })?;
        table
            .iter()
            .map(|(kind, cap)| {
                Ok((
                    kind.clone(),
                    self.integer(&format!("{name}.{kind}"), cap, 0, 1_000_000)?,
                ))
            })
            .collect()
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
fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, "/etc/app/config.toml")
    }

    fn key_of(text: &str) -> (String, String) {
        match parse(text) {
            Err(Error::Config { path, key, reason }) => {
                assert_eq!(path, Path::new("/etc/app/config.toml"));
                (key, reason)
            }
            other => panic!("expected a config error for {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn a_full_file_parses() {
        let config = parse(
            r#"
            [jobs]
            workers = 4
            lease_seconds = 60
            poll_interval_ms = 250
            backoff_base_seconds = 2
            backoff_max_seconds = 120.5
            backoff_jitter = 0.1
            max_attempts = 7
            retention_days = 1.5
            synchronous = "FULL"
            [jobs.kind_limits]
            embed = 1
            "weird kind" = 0
            "#,
        )
        .unwrap();
        let jobs = config.jobs;
        assert_eq!(jobs.workers, Some(4));
        assert_eq!(jobs.lease, Some(Duration::from_secs(60)));
        assert_eq!(jobs.poll_interval, Some(Duration::from_millis(250)));
        let retry = jobs.retry.unwrap();
        assert_eq!(retry.base(), Duration::from_secs(2));
        assert_eq!(retry.max(), Duration::from_millis(120_500));
        assert_eq!(jobs.max_attempts, Some(7));
        assert_eq!(jobs.retention, Some(Duration::from_secs(129_600)));
        assert_eq!(jobs.synchronous, Some(Synchronous::Full));
        assert_eq!(jobs.kind_limits.get("embed"), Some(&1));
        assert_eq!(jobs.kind_limits.get("weird kind"), Some(&0));
    }

    #[test]
    fn empty_and_missing_files_are_defaults() {
        assert_eq!(parse("").unwrap(), Config::default());
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            Config::load(dir.path().join("none.toml")).unwrap(),
            Config::default()
        );
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("[jobs]\nworkers = 0", "jobs.workers", "from 1"),
            ("[jobs]\nworkers = -3", "jobs.workers", "found -3"),
            (
                "[jobs]\nworkers = \"four\"",
                "jobs.workers",
                "expected an integer, found string",
            ),
            ("[jobs]\nworker = 4", "jobs.worker", "unknown key"),
            (
                "[jobs]\nlease_seconds = 1.5",
                "jobs.lease_seconds",
                "expected an integer",
            ),
            (
                "[jobs]\nbackoff_jitter = 2",
                "jobs.backoff_jitter",
                "from 0 to 1",
            ),
            (
                "[jobs]\nbackoff_base_seconds = 10\nbackoff_max_seconds = 1",
                "jobs.backoff_*",
                "at least",
            ),
            (
                "[jobs]\nsynchronous = \"fast\"",
                "jobs.synchronous",
                "\"fast\"",
            ),
            (
                "[jobs]\nsynchronous = 1",
                "jobs.synchronous",
                "expected a string",
            ),
            (
                "[jobs.kind_limits]\nembed = -1",
                "jobs.kind_limits.embed",
                "found -1",
            ),
            (
                "[jobs]\nkind_limits = 3",
                "jobs.kind_limits",
                "expected a table",
            ),
            ("jobs = 1", "jobs", "expected a table"),
            ("[job]\nworkers = 1", "job", "unknown section"),
            ("[jobs]\nretention_days = 0", "jobs.retention_days", "from"),
        ];
        for (text, key, fragment) in cases {
            let (found, reason) = key_of(text);
            assert_eq!(found, key, "{text}");
            assert!(reason.contains(fragment), "{text}: {reason}");
        }
    }

    #[test]
    fn schedules_and_sync_sections_parse() {
        let config = parse(
            r#"
            [schedules.morning-digest]
            kind = "digest"
            cron = "0 8 * * 1-5"
            zone = "local"
            payload = { to = "me", tags = ["a", 1, true] }
            priority = 60

            [schedules.poll]
            every = "1h30m"

            [sync."github/me/notifications"]
            every = "10m"
            min_interval = 60
            max_backoff = "2h"
            max_throttle = "1d"
            "#,
        )
        .unwrap();
        let digest = &config.schedules["morning-digest"];
        assert_eq!(digest.kind.as_deref(), Some("digest"));
        assert_eq!(
            digest.cron.as_ref().map(ToString::to_string).as_deref(),
            Some("0 8 * * 1-5")
        );
        assert_eq!(digest.zone.as_deref(), Some("local"));
        assert_eq!(
            digest.payload,
            Some(serde_json::json!({"to": "me", "tags": ["a", 1, true]}))
        );
        assert_eq!(digest.priority, Some(Priority(60)));
        assert_eq!(
            config.schedules["poll"].every,
            Some(Duration::from_secs(5400))
        );
        let sync = &config.sync["github/me/notifications"];
        assert_eq!(sync.every, Some(Duration::from_secs(600)));
        assert_eq!(sync.min_interval, Some(Duration::from_secs(60)));
        assert_eq!(sync.max_backoff, Some(Duration::from_secs(7200)));
        assert_eq!(sync.max_throttle, Some(Duration::from_secs(86_400)));
    }

    #[test]
    fn bad_schedule_and_sync_sections_name_the_key() {
        let cases = [
            (
                "[schedules.a]\nzone = \"Mars/Olympus_Mons\"\ncron = \"0 8 * * *\"",
                "schedules.a.zone",
                "Mars/Olympus_Mons",
            ),
            (
                "[schedules.a]\ncron = \"0 25 * * *\"",
                "schedules.a.cron",
                "hour",
            ),
            (
                "[schedules.a]\nevery = \"5 minutes\"",
                "schedules.a.every",
                "not a duration",
            ),
            (
                "[schedules.a]\nevery = \"0s\"",
                "schedules.a.every",
                "more than zero",
            ),
            (
                "[schedules.a]\nevery = 0.5",
                "schedules.a.every",
                "at least 1s",
            ),
            (
                "[schedules.a]\nevery = \"1m\"\ncron = \"* * * * *\"",
                "schedules.a",
                "not both",
            ),
            (
                "[schedules.a]\nevery = \"1m\"\nzone = \"local\"",
                "schedules.a.zone",
                "absolute",
            ),
            (
                "[schedules.a]\nwhen = \"now\"",
                "schedules.a.when",
                "unknown key",
            ),
            (
                "[schedules.a]\npriority = 1.5",
                "schedules.a.priority",
                "integer",
            ),
            ("schedules = 1", "schedules", "expected a table"),
            (
                "[sync.\"a/b\"]\nevery = \"1m\"",
                "sync.\"a/b\"",
                "connector/account/name",
            ),
            (
                "[sync.\"a/b/c\"]\nevery = true",
                "sync.\"a/b/c\".every",
                "duration",
            ),
            (
                "[sync.\"a/b/c\"]\nburst = \"1m\"",
                "sync.\"a/b/c\".burst",
                "unknown key",
            ),
        ];
        for (text, key, fragment) in cases {
            let (found, reason) = key_of(text);
            assert_eq!(found, key, "{text}");
            assert!(reason.contains(fragment), "{text}: {reason}");
        }
    }

    #[test]
    fn durations_read_units_and_refuse_the_rest() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        for bad in ["", "m", "5", "5 m", "1w", "-1s", "99999999999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn syntax_errors_name_the_file_and_line() {
        let error = parse("[jobs\nworkers = 1").unwrap_err().to_string();
        assert!(error.starts_with("/etc/app/config.toml"), "{error}");
        assert!(error.contains("line 1"), "{error}");
    }
}
