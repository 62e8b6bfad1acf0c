//! What the queue knows about a kind of job: the schemas of its payload and result,
//! its retry policy and its default number of attempts; and the registry of those
//! specs that every service on one `raw.db` handle reads (the queue when it enqueues,
//! claims and finishes, the scheduler when it checks a schedule's payload).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::backoff::RetryPolicy;
use crate::json::without_values;
use crate::locks::{read, write};
use crate::model::sanitize_error;

type Check = dyn Fn(&Value) -> Result<(), String> + Send + Sync;

/// A check that a JSON value has the expected shape.
///
/// Most schemas are a Rust type: [`Schema::of`] accepts exactly the values that
/// deserialize into it, so the type the handler uses is the schema, and the two can
/// never drift apart. [`Schema::custom`] takes any check.
///
/// ```
/// use serde::Deserialize;
/// use tauri_plugin_jobs::queue::Schema;
///
/// #[derive(Deserialize)]
/// struct Thumbnail { width: u32, height: u32 }
///
/// let schema = Schema::of::<Thumbnail>();
/// assert!(schema.check(&serde_json::json!({"width": 4, "height": 3})).is_ok());
/// assert!(schema.check(&serde_json::json!({"width": "wide"})).is_err());
/// ```
#[derive(Clone)]
pub struct Schema {
    name: String,
    check: Arc<Check>,
}

impl Schema {
    /// Values that deserialize into `T`.
    #[must_use]
    pub fn of<T: DeserializeOwned + 'static>() -> Self {
        let check: Arc<Check> = if std::any::TypeId::of::<T>() == std::any::TypeId::of::<Value>() {
            // Every JSON value is a `Value`: nothing to build and drop to know it.
            Arc::new(|_| Ok(()))
        } else {
            Arc::new(|value| {
                T::deserialize(value)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
        };
        Schema {
            name: std::any::type_name::<T>().to_owned(),
            check,
        }
    }

    /// Values that pass `check`, which explains a refusal in its error.
    #[must_use]
    pub fn custom<F>(name: impl Into<String>, check: F) -> Self
    where
        F: Fn(&Value) -> Result<(), String> + Send + Sync + 'static,
    {
        Schema {
            name: name.into(),
            check: Arc::new(check),
        }
    }

    /// The schema's name, for messages.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Checks `value`; the error says what does not fit, never the value itself
    /// (parsers quote what they refuse, and a value may hold a secret no redaction
    /// rule knows), and names the type without its module path. Redacted and cut like
    /// a stored error.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        (self.check)(value).map_err(|reason| {
            sanitize_error(&without_values(&format!(
                "does not match {}: {reason}",
                self.name
            )))
        })
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Schema").field(&self.name).finish()
    }
}

/// What the queue knows about one kind of job. Everything is optional.
///
/// ```
/// use tauri_plugin_jobs::queue::{KindSpec, Schema};
///
/// let spec = KindSpec::new()
///     .payload(Schema::of::<String>())
///     .result(Schema::of::<u64>())
///     .max_attempts(3);
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct KindSpec {
    /// Checked when a job is enqueued in this process and again when it is claimed.
    pub payload: Option<Schema>,
    /// Checked before a result is saved.
    pub result: Option<Schema>,
    /// Backoff between attempts; the queue's default when `None`.
    pub retry: Option<RetryPolicy>,
    /// Attempts for jobs enqueued without their own number.
    pub max_attempts: Option<u32>,
    /// The version of the payload this build's handler takes (1 when `None`). Jobs
    /// remember the version they were enqueued with; an older payload is upgraded
    /// through [`upgrades`](KindSpec::upgrade) before the handler sees it, and a
    /// process that knows only older versions never claims a newer one.
    pub payload_version: Option<u32>,
    /// How often a kind whose jobs found the service unreachable tries one of them
    /// ([`Deferral::Offline`](crate::queue::Deferral::Offline));
    /// [`DEFAULT_OFFLINE_RETRY`](crate::queue::DEFAULT_OFFLINE_RETRY) when `None`.
    pub offline_retry: Option<Duration>,
    /// How long a job may wait offline, from its first attempt that found the
    /// network gone: the first attempt that finds it gone again when this much or
    /// more has passed fails it for good; no limit when `None`.
    pub max_offline: Option<Duration>,
    /// How to bring a payload from each older version to the next.
    pub(crate) upgrades: Upgrades,
    /// The signals its handler waits for
    /// ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)):
    /// one of these sent before the job waits is kept for it; another name is refused
    /// unless the job waits for it at the time.
    pub signals: Vec<String>,
}

type UpgradeFn = dyn Fn(Value) -> Result<Value, String> + Send + Sync;

/// The steps that bring an old payload to the current version, each from one
/// version to the next.
#[derive(Clone, Default)]
pub(crate) struct Upgrades(Vec<(u32, Arc<UpgradeFn>)>);

impl fmt::Debug for Upgrades {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(from, _)| from))
            .finish()
    }
}

impl KindSpec {
    /// Nothing known yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the payload schema.
    #[must_use]
    pub fn payload(mut self, schema: Schema) -> Self {
        self.payload = Some(schema);
        self
    }

    /// Sets the result schema.
    #[must_use]
    pub fn result(mut self, schema: Schema) -> Self {
        self.result = Some(schema);
        self
    }

    /// Sets the retry policy.
    #[must_use]
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Sets the default number of attempts.
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = Some(attempts);
        self
    }

    /// Sets how often the kind tries one job while its service cannot be reached.
    #[must_use]
    pub fn offline_retry(mut self, every: Duration) -> Self {
        self.offline_retry = Some(every.max(Duration::from_millis(1)));
        self
    }

    /// Declares a signal the kind's handler waits for (see
    /// [`signals`](KindSpec::signals)).
    #[must_use]
    pub fn signal(mut self, name: impl Into<String>) -> Self {
        self.signals.push(name.into());
        self
    }

    /// Sets how long a job may wait offline before it fails for good.
    #[must_use]
    pub fn max_offline(mut self, limit: Duration) -> Self {
        self.max_offline = Some(limit);
        self
    }

    /// Sets the version of the payload this build takes (1 by default).
    #[must_use]
    pub fn payload_version(mut self, version: u32) -> Self {
        self.payload_version = Some(version.max(1));
        self
    }

    /// How a payload of version `from` becomes one of version `from + 1`: the old
    /// payload deserialised into `Old`, `step` returning the new one (or why it
    /// cannot), serialised. Steps chain: a job enqueued at version 1 meets the steps
    /// from 1, 2, ... up to this build's version.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use tauri_plugin_jobs::queue::KindSpec;
    ///
    /// #[derive(Deserialize)]
    /// struct V1 { path: String }
    /// #[derive(Serialize)]
    /// struct V2 { path: String, width: u32 }
    ///
    /// let spec = KindSpec::new()
    ///     .payload_version(2)
    ///     .upgrade(1, |old: V1| Ok::<_, String>(V2 { path: old.path, width: 256 }));
    /// ```
    #[must_use]
    pub fn upgrade<Old, New, F, E>(mut self, from: u32, step: F) -> Self
    where
        Old: DeserializeOwned,
        New: serde::Serialize,
        F: Fn(Old) -> Result<New, E> + Send + Sync + 'static,
        E: fmt::Display,
    {
        let step = move |value: Value| -> Result<Value, String> {
            let old = Old::deserialize(value).map_err(|error| {
                without_values(&format!("not a version {from} payload: {error}"))
            })?;
            let new = step(old).map_err(|error| sanitize_error(&error.to_string()))?;
            crate::json::to_value_bounded(&new).map_err(|error| error.to_string())
        };
        self.upgrades.0.retain(|(at, _)| *at != from);
        self.upgrades.0.push((from, Arc::new(step)));
        self
    }

    /// The payload version this build takes.
    #[must_use]
    pub fn version(&self) -> u32 {
        self.payload_version.unwrap_or(1).max(1)
    }

    /// Brings a payload of version `from` up to [`version`](KindSpec::version), step
    /// by step; the error names the step that failed or is missing.
    pub(crate) fn upgraded(&self, from: u32, mut payload: Value) -> Result<Value, String> {
        let to = self.version();
        for at in from.max(1)..to {
            let Some((_, step)) = self.upgrades.0.iter().find(|(from, _)| *from == at) else {
                return Err(format!("no upgrade from version {at} is registered"));
            };
            payload = step(payload).map_err(|reason| format!("from version {at}: {reason}"))?;
        }
        Ok(payload)
    }
}

/// What one database handle knows about jobs: the specs registered by kind, and the
/// defaults for kinds and jobs that name none.
#[derive(Debug)]
pub(crate) struct Kinds {
    // RwLock over an Arc: kinds are registered at start-up (copy on write) and read on
    // every enqueue, claim and finish, which only clone the Arc.
    specs: RwLock<Arc<HashMap<String, KindSpec>>>,
    /// Attempts for jobs whose kind and options name none; at least 1.
    pub(crate) max_attempts: u32,
    /// Backoff for kinds that name none.
    pub(crate) retry: RetryPolicy,
    /// The largest payload or result, as JSON bytes.
    pub(crate) max_payload_bytes: usize,
}

impl Kinds {
    /// No kind registered yet, with these defaults.
    pub(crate) fn new(max_attempts: u32, retry: RetryPolicy, max_payload_bytes: usize) -> Self {
        Kinds {
            specs: RwLock::default(),
            max_attempts,
            retry,
            max_payload_bytes,
        }
    }

    /// Registers `spec` for `kind`, replacing an earlier one.
    pub(crate) fn register(&self, kind: String, spec: KindSpec) {
        let mut specs = write(&self.specs);
        let mut updated = HashMap::clone(&specs);
        updated.insert(kind, spec);
        *specs = Arc::new(updated);
    }

    /// Every spec as registered now.
    pub(crate) fn specs(&self) -> Arc<HashMap<String, KindSpec>> {
        read(&self.specs).clone()
    }
}
