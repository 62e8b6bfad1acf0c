//! What the history counts, through the [`metrics`](https://docs.rs/metrics) facade
//! (the `metrics` feature): counters and histograms named under `jobs.`, recorded
//! once the transaction that moved the jobs (or stored a sync target's state) has
//! committed, in the process that wrote it. Nothing is recorded until the app
//! installs a recorder (an OpenTelemetry or Prometheus exporter, say).
//!
//! | name | type | labels | counts |
//! | --- | --- | --- | --- |
//! | [`ENQUEUED`] | counter | `kind` | jobs added |
//! | [`ENDED`] | counter | `kind`, `status`: `succeeded`, `failed`, `cancelled` | jobs that finished |
//! | [`RETRIED`] | counter | `kind` | attempts that failed and were queued again |
//! | [`RECLAIMED`] | counter | `kind` | leases taken back from a worker that stopped |
//! | [`DEFERRED`] | counter | `kind` | attempts a handler deferred (offline, a snooze, a throttle) |
//! | [`WAIT_SECONDS`] | histogram | `kind` | from runnable to start, per attempt that ended |
//! | [`RUN_SECONDS`] | histogram | `kind` | the run time of each attempt that ended |
//! | [`SYNC_RUNS`] | counter | `target`, `outcome`: `updated`, `not_modified`, `failed`, `offline`, `throttled` | sync runs that ended |
//! | [`SYNC_SECONDS`] | histogram | `target` | how long each sync run took |
//!
//! The jobs one transaction ends (a runner's batch) are counted once per kind, so
//! without a recorder the cost is a few atomic loads per transaction.
//!
//! ```
//! # #[cfg(any())] {
//! // In the app, before the plugin starts: any recorder, here a Prometheus exporter.
//! metrics_exporter_prometheus::PrometheusBuilder::new().install()?;
//! # }
//! ```

use metrics::{counter, histogram};

use crate::model::{JobStatus, SyncOutcome};
use crate::store::jobs::Change;

/// Jobs added, by `kind`.
pub const ENQUEUED: &str = "jobs.enqueued";
/// Jobs that finished, by `kind` and `status` (`succeeded`, `failed`, `cancelled`).
pub const ENDED: &str = "jobs.ended";
/// Attempts that failed and were queued again, by `kind`.
pub const RETRIED: &str = "jobs.retried";
/// Leases taken back from a worker that stopped heartbeating, by `kind`.
pub const RECLAIMED: &str = "jobs.reclaimed";
/// Attempts a handler deferred: offline, a snooze, a throttle, a durable sleep (not
/// retries).
pub const DEFERRED: &str = "jobs.deferred";
/// Seconds from runnable to start of each attempt that ended, by `kind`.
pub const WAIT_SECONDS: &str = "jobs.wait_seconds";
/// Seconds each attempt that ended ran, by `kind`.
pub const RUN_SECONDS: &str = "jobs.run_seconds";
/// Sync runs that ended, by `target` and `outcome` (`updated`, `not_modified`,
/// `failed`, `offline`, `throttled`).
pub const SYNC_RUNS: &str = "jobs.sync.runs";
/// Seconds each sync run took, by `target`.
pub const SYNC_SECONDS: &str = "jobs.sync.seconds";

/// Records a sync run of `target` that ended with `outcome` after `took_ms`; runs that
/// did not happen or were cancelled are not counted.
pub(crate) fn sync(target: &str, outcome: &SyncOutcome, took_ms: u64) {
    let outcome = match outcome {
        SyncOutcome::Updated { .. } => "updated",
        SyncOutcome::NotModified => "not_modified",
        SyncOutcome::Throttled { .. } => "throttled",
        SyncOutcome::Failed { offline: true, .. } => "offline",
        SyncOutcome::Failed { .. } => "failed",
        _ => return,
    };
    counter!(SYNC_RUNS, "target" => target.to_owned(), "outcome" => outcome).increment(1);
    histogram!(SYNC_SECONDS, "target" => target.to_owned()).record(took_ms as f64 / 1000.0);
}

/// Records what `changes` did (called after their transaction committed).
pub(crate) fn jobs(changes: &[Change]) {
    let mut kinds: Vec<&str> = Vec::new();
    for change in changes {
        if !kinds.contains(&change.kind.as_str()) {
            kinds.push(&change.kind);
        }
    }
    for kind in kinds {
        let of_kind = || changes.iter().filter(move |change| change.kind == kind);
        let mut enqueued = 0;
        let (mut succeeded, mut failed, mut cancelled) = (0, 0, 0);
        let (mut retried, mut reclaimed, mut deferred) = (0, 0, 0);
        for change in of_kind() {
            match (change.from, change.to) {
                (None, JobStatus::Queued) => enqueued += 1,
                (_, JobStatus::Succeeded) => succeeded += 1,
                (_, JobStatus::Failed) => failed += 1,
                (_, JobStatus::Cancelled) => cancelled += 1,
                (Some(JobStatus::Running), JobStatus::Queued) if change.ran.is_some() => {
                    retried += 1
                }
                (Some(JobStatus::Running), JobStatus::Queued) if change.deferred => deferred += 1,
                (Some(JobStatus::Running), JobStatus::Queued) => reclaimed += 1,
                _ => {}
            }
        }
        let label = kind.to_owned();
        for (name, n) in [
            (ENQUEUED, enqueued),
            (RETRIED, retried),
            (RECLAIMED, reclaimed),
            (DEFERRED, deferred),
        ] {
            if n > 0 {
                counter!(name, "kind" => label.clone()).increment(n);
            }
        }
        for (status, n) in [
            ("succeeded", succeeded),
            ("failed", failed),
            ("cancelled", cancelled),
        ] {
            if n > 0 {
                counter!(ENDED, "kind" => label.clone(), "status" => status).increment(n);
            }
        }
        if of_kind().any(|change| change.ran.is_some()) {
            let waits = histogram!(WAIT_SECONDS, "kind" => label.clone());
            let runs = histogram!(RUN_SECONDS, "kind" => label);
            for ran in of_kind().filter_map(|change| change.ran) {
                waits.record(ran.waited_ms as f64 / 1000.0);
                runs.record(ran.ran_ms as f64 / 1000.0);
            }
        }
    }
}
