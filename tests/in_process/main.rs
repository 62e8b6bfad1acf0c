//! The integration tests that need no process of their own, as one test binary.
//!
//! Each file here was its own binary once. Every test binary links the crate, Tauri
//! and WebKit, and instantiates the same generic code again: about five seconds of
//! one core a binary, in each of the three builds the test command makes (Linux,
//! Windows, the lowest rusqlite). A test stays a binary of its own (a file directly
//! under `tests/`) when it starts processes, sets something process-wide (a logger,
//! a panic hook, the environment), measures the process (the soak's memory), or
//! needs a feature (`metrics`).

#[path = "../common/mod.rs"]
mod common;

mod cron;
mod declared;
mod durable;
mod edges;
mod event_order;
mod faults;
mod history;
mod hostile;
mod inspector_reads;
mod layers;
mod leases;
mod local_jobs;
mod queue;
mod queue_files;
mod readme;
mod retention;
mod runner;
mod scheduler;
mod scopes;
mod sleep;
mod state_events;
mod sync;
mod testing_kit;
mod updates;
mod zones;
