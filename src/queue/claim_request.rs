//! What a worker asks for when it claims ([`ClaimRequest`]), checked before any
//! transaction starts, and what it gets back ([`ClaimedJob`]).

use std::collections::HashMap;
use std::time::Duration;

use serde::Serialize;

use super::lease::{check_lease_length, Lease};
use super::prepare::check_key;
use crate::error::{Error, Result};
use crate::model::Job;

/// What a worker asks for when it claims.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::ClaimRequest;
///
/// let request = ClaimRequest::new("worker-1", ["embed", "ingest"])
///     .limit("embed", 1)
///     .lease(Duration::from_secs(30))
///     .max_jobs(8);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaimRequest {
    /// The worker's id; the lease is fenced by it.
    pub worker: String,
    /// The kinds this worker can run. Jobs of other kinds are left alone.
    pub kinds: Vec<String>,
    /// Caps on running jobs per kind, across every worker and process. A claimer may
    /// ask for a lower cap than the one stored in the file
    /// ([`Queue::set_kind_limit`](super::Queue::set_kind_limit)), never a higher one.
    pub limits: HashMap<String, u32>,
    /// How long the lease lasts unless renewed.
    pub lease: Duration,
    /// Lease lengths for particular kinds, overriding `lease`.
    pub kind_leases: HashMap<String, Duration>,
    /// How many jobs to claim at most in this one transaction.
    pub max_jobs: u32,
    /// The newest payload version the worker takes, per kind: a job of a newer one
    /// (written by a newer build) is left for a worker that knows it. A kind named
    /// here is taken up to that version; one not named, up to the version its spec
    /// registered in this process says, else version 1.
    pub versions: HashMap<String, u32>,
}

impl ClaimRequest {
    /// A request for one job of any of `kinds`, with a 30 second lease and no caps.
    #[must_use]
    pub fn new<I, S>(worker: impl Into<String>, kinds: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ClaimRequest {
            worker: worker.into(),
            kinds: kinds.into_iter().map(Into::into).collect(),
            limits: HashMap::new(),
            lease: Duration::from_secs(30),
            kind_leases: HashMap::new(),
            max_jobs: 1,
            versions: HashMap::new(),
        }
    }

    /// Takes jobs of `kind` with payloads up to `version`.
    #[must_use]
    pub fn payload_version(mut self, kind: impl Into<String>, version: u32) -> Self {
        self.versions.insert(kind.into(), version.max(1));
        self
    }

    /// Caps the running jobs of `kind` at `limit`.
    #[must_use]
    pub fn limit(mut self, kind: impl Into<String>, limit: u32) -> Self {
        self.limits.insert(kind.into(), limit);
        self
    }

    /// Sets the lease length.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Sets the lease length for jobs of `kind`.
    #[must_use]
    pub fn kind_lease(mut self, kind: impl Into<String>, lease: Duration) -> Self {
        self.kind_leases.insert(kind.into(), lease);
        self
    }

    /// The lease length for jobs of `kind`.
    #[must_use]
    pub fn lease_for(&self, kind: &str) -> Duration {
        self.kind_leases.get(kind).copied().unwrap_or(self.lease)
    }

    /// Sets how many jobs one claim may take.
    #[must_use]
    pub fn max_jobs(mut self, max_jobs: u32) -> Self {
        self.max_jobs = max_jobs;
        self
    }
}

/// A job a worker now holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClaimedJob {
    /// The job, as it is after the claim.
    pub job: Job,
    /// The lease to fence every later write with.
    pub lease: Lease,
}

/// Checks a claim request before any transaction starts.
pub(super) fn check_claim(request: &ClaimRequest) -> Result<()> {
    check_key("worker", &request.worker)?;
    if request.kinds.is_empty() {
        return Err(Error::invalid_argument("kinds", "name at least one kind"));
    }
    check_lease_length("lease", request.lease)?;
    for length in request.kind_leases.values() {
        check_lease_length("lease", *length)?;
    }
    Ok(())
}
