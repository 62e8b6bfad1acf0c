//! # tauri-plugin-jobs
//!
//! Background work for Tauri 2 apps, inside the app process, on SQLite:
//!
//! - [`queue`]: a durable job queue in `raw.db` with dedupe keys, leases and
//!   heartbeats, priorities, retries with capped jittered backoff, per-kind caps that
//!   hold across processes, cancellation, results checked against a schema, parent jobs
//!   and actors;
//! - [`bus`]: typed events, with handlers that never miss one and bounded streams that
//!   drop the oldest;
//! - [`clock`] and [`random`]: time and randomness, injected, so tests move a fake
//!   clock instead of sleeping.
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

pub mod bus;
pub mod clock;
pub mod config;
mod error;
pub mod health;
pub mod local;
mod locks;
mod panics;
pub mod plugin;
pub mod queue;
pub mod random;
pub mod runner;
pub mod scheduler;
mod store;
pub mod sync;

pub use error::{Error, Result};
pub use plugin::{init, Builder, CommandError, Jobs, JobsEvent, JobsExt};
pub use store::Synchronous;
