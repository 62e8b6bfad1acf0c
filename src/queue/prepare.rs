//! Checks and serialisation of new jobs, done before any transaction starts: kind,
//! key, payload schema, depth and size, options in bounds.

use std::time::Duration;

use super::enqueue::{MAX_KEY_BYTES, MAX_KIND_BYTES};
use super::NewJob;
use crate::clock::{duration_millis, Timestamp};
use crate::db::Db;
use crate::error::{Error, Result};
use crate::json::{drop_deep, too_deep};
use crate::kinds::KindSpec;
use crate::model::{Actor, DependencyFailure, JobId, OnDuplicate, Priority};
use crate::store::jobs::NewRow;

/// Checks `job` as [`Queue::enqueue`](super::Queue::enqueue) would, without writing anything.
pub(crate) fn check_new(db: &Db, job: NewJob, now: Timestamp) -> Result<()> {
    prepare(db, [job], now).map(drop)
}

/// Checks and serialises new jobs before any transaction starts.
pub(crate) fn prepare(
    db: &Db,
    jobs: impl IntoIterator<Item = NewJob>,
    now: Timestamp,
) -> Result<Vec<PreparedJob>> {
    let options = db.kinds();
    let kinds = options.specs();
    // Depth first, before anything recursive (a schema check, a serialisation) runs;
    // a batch with a payload too deep is dropped without recursion as a whole.
    let jobs: Vec<NewJob> = jobs.into_iter().collect();
    if let Some((kind, reason)) = jobs
        .iter()
        .find_map(|job| Some((job.kind.clone(), too_deep(&job.payload)?)))
    {
        jobs.into_iter().for_each(|job| drop_deep(job.payload));
        return Err(Error::InvalidPayload { kind, reason });
    }
    jobs.into_iter()
        .map(|job| {
            check_kind(&job.kind)?;
            let spec = kinds.get(&job.kind);
            let current = spec.map_or(1, KindSpec::version);
            let payload_version = job.options.payload_version.unwrap_or(current).max(1);
            // The schema is this build's: an older payload is upgraded at its claim.
            if let Some(schema) = spec
                .and_then(|spec| spec.payload.as_ref())
                .filter(|_| payload_version >= current)
            {
                schema
                    .check(&job.payload)
                    .map_err(|reason| Error::InvalidPayload {
                        kind: job.kind.clone(),
                        reason,
                    })?;
            }
            let payload = job.payload.to_string();
            if payload.len() > options.max_payload_bytes {
                return Err(Error::InvalidPayload {
                    kind: job.kind,
                    reason: format!(
                        "{} bytes of JSON, more than the limit of {}",
                        payload.len(),
                        options.max_payload_bytes
                    ),
                });
            }
            if let Some(key) = &job.options.dedupe_key {
                check_key("dedupe_key", key)?;
            }
            let max_attempts = job
                .options
                .max_attempts
                .or_else(|| spec.and_then(|spec| spec.max_attempts))
                .unwrap_or(options.max_attempts);
            if max_attempts == 0 {
                return Err(Error::invalid_argument(
                    "max_attempts",
                    "must be at least 1",
                ));
            }
            if job.options.on_duplicate != OnDuplicate::Keep && job.options.dedupe_key.is_none() {
                return Err(Error::invalid_argument(
                    "on_duplicate",
                    "replace and debounce need a dedupe key",
                ));
            }
            let run_at = match (
                job.options.on_duplicate,
                job.options.run_at,
                job.options.delay,
            ) {
                (OnDuplicate::Debounce(_), Some(_), _) | (OnDuplicate::Debounce(_), _, Some(_)) => {
                    return Err(Error::invalid_argument(
                        "on_duplicate",
                        "a debounce sets the start itself: leave run_at and delay unset",
                    ));
                }
                (OnDuplicate::Debounce(wait), None, None) => now.saturating_add(wait),
                (_, Some(at), _) => at,
                (_, None, Some(delay)) => now.saturating_add(delay),
                (_, None, None) => now,
            };
            let timeout_ms = match job.options.timeout {
                Some(limit) if limit < Duration::from_millis(1) => {
                    return Err(Error::invalid_argument(
                        "timeout",
                        "must be at least one millisecond",
                    ));
                }
                Some(limit) => Some(duration_millis(limit)),
                None => None,
            };
            let max_offline_ms = match job.options.max_offline {
                Some(limit) if limit < Duration::from_millis(1) => {
                    return Err(Error::invalid_argument(
                        "max_offline",
                        "must be at least one millisecond",
                    ));
                }
                Some(limit) => Some(duration_millis(limit)),
                None => None,
            };
            Ok(PreparedJob {
                payload_version,
                kind: job.kind,
                payload,
                priority: job.options.priority,
                run_at,
                max_attempts,
                dedupe_key: job.options.dedupe_key,
                parent: job.options.parent,
                actor: job.options.actor,
                timeout_ms,
                max_offline_ms,
                on_duplicate: job.options.on_duplicate,
                needs: job.options.constraints.to_needs(),
                after: job.options.after,
                after_pieces_of: job.options.after_pieces_of,
                run_on_failed_deps: job.options.on_dependency_failure == DependencyFailure::Run,
            })
        })
        .collect()
}

impl PreparedJob {
    /// The same job as a piece of `parent`.
    pub(crate) fn with_parent(mut self, parent: JobId) -> Self {
        self.parent = Some(parent);
        self
    }

    /// The same job, waiting for `jobs` as well.
    pub(crate) fn waiting_for(mut self, jobs: &[JobId]) -> Self {
        self.after.extend_from_slice(jobs);
        self
    }
}

/// A new job, checked and serialised.
#[derive(Clone)]
pub(crate) struct PreparedJob {
    pub(super) kind: String,
    pub(super) payload: String,
    pub(super) priority: Priority,
    pub(super) run_at: Timestamp,
    pub(super) max_attempts: u32,
    pub(super) dedupe_key: Option<String>,
    pub(super) parent: Option<JobId>,
    pub(super) actor: Actor,
    pub(super) timeout_ms: Option<i64>,
    pub(super) max_offline_ms: Option<i64>,
    pub(super) payload_version: u32,
    pub(super) on_duplicate: OnDuplicate,
    pub(super) needs: i64,
    pub(super) after: Vec<JobId>,
    pub(super) after_pieces_of: Option<JobId>,
    pub(super) run_on_failed_deps: bool,
}

impl PreparedJob {
    /// The row to insert for it at `now`.
    pub(super) fn row(&self, now: Timestamp) -> NewRow<'_> {
        NewRow {
            kind: &self.kind,
            payload: &self.payload,
            priority: self.priority,
            run_at: self.run_at,
            max_attempts: self.max_attempts,
            dedupe_key: self.dedupe_key.as_deref(),
            parent: self.parent,
            actor: self.actor,
            timeout_ms: self.timeout_ms,
            max_offline_ms: self.max_offline_ms,
            payload_version: self.payload_version,
            on_duplicate: self.on_duplicate,
            needs: self.needs,
            now,
        }
    }

    /// No dedupe key, parent, constraints, offline limit or jobs to wait for: an
    /// insert and nothing else, whoever asks.
    pub(super) fn is_plain(&self) -> bool {
        self.dedupe_key.is_none()
            && self.max_offline_ms.is_none()
            && self.parent.is_none()
            && self.needs == 0
            && self.after.is_empty()
            && self.after_pieces_of.is_none()
    }
}

pub(crate) fn check_kind(kind: &str) -> Result<()> {
    if kind.is_empty() {
        return Err(Error::invalid_argument("kind", "must not be empty"));
    }
    if kind.len() > MAX_KIND_BYTES {
        return Err(Error::invalid_argument(
            "kind",
            format!(
                "{} bytes, more than the limit of {MAX_KIND_BYTES}",
                kind.len()
            ),
        ));
    }
    Ok(())
}

pub(crate) fn check_key(name: &'static str, key: &str) -> Result<()> {
    if key.is_empty() {
        return Err(Error::invalid_argument(name, "must not be empty"));
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(Error::invalid_argument(
            name,
            format!(
                "{} bytes, more than the limit of {MAX_KEY_BYTES}",
                key.len()
            ),
        ));
    }
    Ok(())
}
