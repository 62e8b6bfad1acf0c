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
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::{Table, Value};

use crate::backoff::RetryPolicy;
use crate::error::{Error, Result};
use crate::model::{truncate_chars, MAX_ERROR_CHARS};
use crate::store::Synchronous;

/// Everything `config.toml` can say. Unset values are `None`: the code's defaults
/// apply.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Config {
    /// The `[jobs]` section.
    pub jobs: JobsConfig,
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
            Ok(text) => Config::parse(&text, path),
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
                other => return Err(reader.error(other, "unknown section")),
            }
        }
        Ok(config)
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
    fn syntax_errors_name_the_file_and_line() {
        let error = parse("[jobs\nworkers = 1").unwrap_err().to_string();
        assert!(error.starts_with("/etc/app/config.toml"), "{error}");
        assert!(error.contains("line 1"), "{error}");
    }
}
