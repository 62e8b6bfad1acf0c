//! The bottom layer: the plain types every other module speaks, and the redaction of
//! error text. Nothing here imports anything else of this crate.
//!
//! - [`Timestamp`]: an instant, milliseconds since the Unix epoch in UTC;
//! - durable jobs as stored: [`JobId`], [`JobStatus`], [`Priority`], [`Actor`],
//!   [`Job`], and what a read asks for and counts ([`JobFilter`], [`KindCount`]);
//!   long work in steps ([`JobStep`], [`Input`]);
//! - process-local jobs as shown: [`LocalJobId`], [`LocalJobStatus`], [`LocalJob`];
//! - [`Health`] of a component, with a reason a person can read;
//! - how a sync run ended ([`SyncOutcome`], [`SkipReason`]);
//! - name [`Patterns`] (`*` for any run of characters), which scopes are made of;
//! - [`sanitize_error`] and [`redact`]: error text made safe to store and show;
//! - `reasons`: why the queue ended a job its handler did not, and how that reads for
//!   a window that may not see the job it names.
//!
//! The modules that act on these types re-export them where users first meet them
//! (`queue::JobId`, `local::LocalJob`, `health::Health`, `clock::Timestamp`).

mod constraints;
mod cron;
mod health;
mod job;
mod local;
mod patterns;
mod policies;
pub(crate) mod reasons;
mod redact;
mod steps;
mod sync;
pub(crate) mod time;

pub(crate) use constraints::WAITING_FOR_JOBS;
pub use constraints::{Conditions, Constraints, WaitingFor};
pub use cron::{Cron, CronError};
pub use health::{Health, HealthStatus};
pub(crate) use job::percent;
pub use job::{
    Actor, AttemptError, AttemptOutcome, Job, JobEnded, JobFilter, JobId, JobProgressValue,
    JobStatus, KindCount, Priority,
};
pub use local::{LocalJob, LocalJobId, LocalJobStatus, LocalRunEvent, MAX_LOCAL_RESULT_BYTES};
pub(crate) use patterns::to_sql_glob;
pub use patterns::Patterns;
pub(crate) use policies::RateState;
pub use policies::{DependencyFailure, EnqueueOutcome, OnDuplicate, RateLimit};
pub(crate) use redact::truncate_chars;
pub use redact::{redact, sanitize_error, MAX_ERROR_CHARS};
pub use steps::{Input, JobLogLine, JobStep, SignalRefusal};
pub use sync::{SkipReason, StartedBy, SyncOutcome};
pub use time::Timestamp;
