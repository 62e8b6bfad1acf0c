//! # tauri-plugin-jobs
//!
//! Background work for Tauri 2 apps, inside the app process, on SQLite (`raw.db`): a
//! durable job queue, a scheduler, a sync engine, process-local jobs, a typed event
//! bus, and the Tauri plugin that ties them to an app and its webview.
//!
//! ## Where to start
//!
//! - An app registers its work on the plugin's [`Builder`]: durable job kinds with a
//!   [`Handler`](runner::Handler) each (what it returns: [`JobError`](runner::JobError)),
//!   sync targets with a [`SyncSource`](sync::SyncSource) and a
//!   [`SyncPolicy`](sync::SyncPolicy), schedules ([`ScheduleSpec`](scheduler::ScheduleSpec)),
//!   local kinds the webview may start, and where `raw.db` and `config.toml` live.
//! - From its own Rust code it reaches everything through [`JobsExt::jobs`]: the
//!   [`Queue`](queue::Queue) (enqueue with [`EnqueueOptions`](queue::EnqueueOptions),
//!   read, cancel, workflows), the scheduler, the [`SyncEngine`](sync::SyncEngine),
//!   [`LocalJobs`](local::LocalJobs) and the [`EventBus`](bus::EventBus).
//! - Jobs that wait for the machine take [`Constraints`](queue::Constraints), read
//!   from a [`ConditionSource`](conditions::ConditionSource)
//!   ([`Overridden`](conditions::Overridden) to pretend, in a demo or a debug build).
//! - Its tests run the whole backend on a fake clock with
//!   [`testing::Backend`], and the plugin's commands in a mock app with
//!   `testing::MockApp` (the `testing` feature).
//!
//! The guide (`docs/` in the repository: a page per task, such as a source that fails
//! or a rate limit in `config.toml`) and the webview's TypeScript reference (`npm run
//! docs`) say the rest.
//!
//! ## Cargo features
//!
//! On by default, as the README's usage needs them: `sync` (the sync engine in the
//! plugin, its commands and triggers), `schedules` (schedules, their commands, and the
//! time-zone rules for cron), `local` (local jobs the webview starts) and
//! `system-conditions` (power, metered networks and idle time read from the system).
//! Off by default: `testing` (`testing::MockApp`), `metrics`, and `specta` (this
//! repository's own: the typed bindings' export). An app that runs only
//! durable jobs writes `default-features = false`; the modules stay, and what a
//! feature adds is the plugin running them and their commands (`docs/install.md`: what
//! each costs in a release app).
//!
//! ## The map
//!
//! Data flows one way. Layers, bottom first: each module imports only from the lines
//! above its own, and modules on one line do not import each other (`tests/in_process/layers.rs`
//! reads this block and keeps it true):
//!
//! ```text
//! model
//! locks panics random json tempdir watch holder tasks
//! clock error backoff typescript
//! kinds bus health progress conditions app http awake
//! store
//! config background metrics
//! db
//! queue
//! local scheduler sync
//! runner
//! plugin
//! testing
//! ```
//!
//! - [`model`]: the plain types every other module speaks (ids, statuses, priorities,
//!   actors, job and local job records, health, [`Timestamp`](model::Timestamp)) and
//!   the redaction of error text.
//! - Small pieces: `locks` (poison-tolerant locking), `panics` (panics caught in
//!   futures), `tasks` (the crate's tasks on the async runtime as one type),
//!   [`random`] and [`clock`] (randomness and time, injected, so tests move a fake
//!   clock instead of sleeping), `json` (typed functions behind JSON), the crate's
//!   [`Error`], `backoff` (one exponential backoff in the two jitter modes; its
//!   [`RetryPolicy`](queue::RetryPolicy) is re-exported by [`queue`]), `kinds` (what the
//!   queue knows about a kind: [`Schema`](queue::Schema), [`KindSpec`](queue::KindSpec)),
//!   `watch` (a wake-up when any process writes `raw.db`'s write-ahead log), `holder`
//!   (which process holds a lease, and whether it is gone), [`typescript`] (the app's
//!   kinds, targets and schedules as declarations for the webview's `tsc`).
//! - [`bus`]: typed events, with handlers that never miss one and bounded streams that
//!   drop the oldest; [`health`] re-exports the health model it carries; `progress`
//!   throttles progress reports to about one event a percent; [`conditions`]: where
//!   the machine's power, network and idle time come from, for jobs with constraints;
//!   `app`: the Tauri app's handle, kept for handlers, local jobs and sync sources
//!   (`ctx.app()`); `http`: reading a server's `Retry-After` and `X-Poll-Interval`,
//!   for sync sources and job handlers alike.
//! - `store`: `raw.db` itself: opening it safely, migrations, and every line of SQL.
//! - [`config`]: `config.toml`, strict; `background`: the loop the scheduler and the
//!   sync engine run; `metrics` (the `metrics` feature): what the history counts,
//!   through the `metrics` facade.
//! - `db`: one handle on one `raw.db` (the connection, clock, randomness, bus,
//!   registered kinds and wake-up notices) that the services above it share.
//! - [`queue`]: the durable job queue: dedupe keys, leases and heartbeats, priorities,
//!   capped jittered retries, per-kind caps across processes, cancellation,
//!   schema-checked results, parent jobs, actors.
//! - The services beside each other, which meet in the database and on the bus:
//!   [`local`] (process-local jobs for UI work), [`scheduler`] (intervals and
//!   five-field cron, enqueueing through the queue's one transactional entry point)
//!   and [`sync`] (sources decide how, the engine decides when).
//! - [`runner`]: claims durable jobs and runs their handlers.
//! - [`plugin`]: the Tauri layer: the [`Builder`], commands and their models, error
//!   mapping, events for the webview, and the automatic sync triggers. No business
//!   logic.
//! - [`testing`]: a test kit for apps: the whole backend on a fake clock, and (with
//!   the `testing` feature) the plugin in a mock Tauri app.
//!
//! ## A first look
//!
//! ```
//! use std::time::Duration;
//! use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, Priority, Queue, QueueOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new())?;
//! queue.enqueue("thumbnail", &serde_json::json!({"path": "a.png"}),
//!     EnqueueOptions::new().priority(Priority::USER))?;
//!
//! let claimed = queue.claim(&ClaimRequest::new("worker-1", ["thumbnail"]))?;
//! for job in claimed {
//!     // ... do the work, calling queue.heartbeat(&job.lease) now and then ...
//!     queue.complete(&job.lease, Some(serde_json::json!({"bytes": 1234})))?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
// A build without some of the default features (Cargo.toml) leaves the code only
// they reach unused: it is compiled, and the linker drops it.
#![cfg_attr(
    not(all(
        feature = "sync",
        feature = "schedules",
        feature = "local",
        feature = "system-conditions"
    )),
    allow(dead_code, unused_imports)
)]
// docs.rs builds with `--cfg docsrs` (see Cargo.toml): items behind a feature say which.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod model;

mod app;
mod holder;
mod http;
mod json;
mod locks;
mod panics;
pub mod random;
mod tempdir;
pub mod typescript;
mod watch;

mod backoff;
pub mod clock;
mod error;

pub mod awake;
pub mod bus;
pub mod conditions;
pub mod health;
mod kinds;
mod progress;

mod store;

mod background;
pub mod config;
mod tasks;

mod db;

pub mod queue;

pub mod local;
pub mod scheduler;
pub mod sync;

pub mod runner;

#[cfg(feature = "metrics")]
pub mod metrics;

pub mod plugin;

pub mod testing;

pub use error::{Error, Result};
pub use plugin::{init, Builder, CommandError, Jobs, JobsEvent, JobsExt};
pub use store::Synchronous;
