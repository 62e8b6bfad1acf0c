//! `config.toml`: settings a user or packager can change without rebuilding the app.
//!
//! A missing file means defaults. Anything else that is off (an unknown key, a value
//! of the wrong type, an impossible number, a syntax error) is an [`Error::Config`]
//! naming the file and the key, and nothing starts half-configured: the plugin refuses
//! the file whole and starts on the last file it took (kept in `raw.db`), or on the
//! built-in settings when it never took one, saying why (or fails, if the app asked
//! for that: [`OnConfigError`]).
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
//! log_lines = 200             # lines of each job's log kept (JobContext::log)
//!
//! [jobs.kind_limits]          # caps on running jobs per kind, across processes;
//! embed = 1                   # these win over the handlers' own defaults
//!
//! [jobs.rate_limits]          # starts per window per kind, across processes;
//! send-mail = "60/1m"         # these win over the handlers' own
//!
//! [jobs.keep_awake]           # whether a kind's running jobs keep the machine
//! import-mail = false         # awake (durable or local kinds); wins over the app
//!
//! [schedules.morning-digest]  # a schedule, or changes to one the app declares
//! kind = "digest"
//! cron = "0 8 * * 1-5"        # or every = "15m"
//! zone = "local"              # the machine's wall clock; or "Europe/Berlin"; UTC if unset
//! payload = { to = "me" }
//! payload_version = 1         # the version of that payload (see the README's updates)
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

use toml::Table;

use crate::backoff::RetryPolicy;
use crate::error::{Error, Result};
use crate::model::{Cron, Priority, RateLimit};
use crate::store::Synchronous;

mod reader;

use reader::Reader;

/// What the plugin does when `config.toml` is refused (it cannot be read, or
/// anything in it is off): the file is one a user or a packager edits, so by default
/// the app still starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnConfigError {
    /// Start on the settings of the last file taken (kept in `raw.db`; the built-in
    /// settings when none was ever taken, as if there were no file); log the error at
    /// ERROR and keep it as the health of the `config` component (the webview's
    /// `pluginHealth()`, `Jobs::config_health`).
    #[default]
    UseDefaults,
    /// Fail the plugin's setup with the error, so that the app does not start.
    Fail,
}

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
    /// `payload_version`: the version of `payload` (see
    /// [`KindSpec::payload_version`](crate::queue::KindSpec::payload_version)). Unset,
    /// a payload the file gives is taken as the version the kind's handler took when
    /// the file's payload was first applied, and keeps it while the payload stays the
    /// same: an app update whose handler takes a newer version upgrades it.
    pub payload_version: Option<u32>,
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
    /// `rate_limits`: starts per window per kind (`"60/1m"`); they win over the
    /// handlers' own.
    pub rate_limits: HashMap<String, RateLimit>,
    /// `keep_awake`: per kind (durable or local), whether its running jobs keep the
    /// machine awake; it wins over what the app's code asks.
    pub keep_awake: HashMap<String, bool>,
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
    /// `log_lines`: how many lines of each job's log are kept.
    pub log_lines: Option<u32>,
}

impl Config {
    /// Reads `path`; a missing file gives the defaults.
    pub fn load(path: impl AsRef<Path>) -> Result<Config> {
        Config::load_text(path.as_ref()).map(|(config, _)| config)
    }

    /// The same, with the text it was read from (empty for a missing file).
    pub(crate) fn load_text(path: &Path) -> Result<(Config, String)> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse_from(&text, path).map(|config| (config, text)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Ok((Config::default(), String::new()))
            }
            Err(source) => Err(Error::Io {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Parses `text` read from `path`, which errors then name and [`Config::path`]
    /// keeps.
    pub(crate) fn parse_from(text: &str, path: &Path) -> Result<Config> {
        Config::parse(text, path).map(|mut config| {
            config.path = Some(path.to_owned());
            config
        })
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
                other => {
                    return Err(reader.unknown(other, other, reader::SECTIONS, "unknown section"))
                }
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

#[cfg(test)]
mod tests;
