//! Test helpers for app developers: a scripted source and a harness with a fake
//! clock, so `SyncSource` implementations and policies can be tested without Tauri
//! and without sleeping.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use tauri_plugin_jobs::sync::testing::{FakeSource, SyncHarness};
//! use tauri_plugin_jobs::sync::{SyncError, SyncOutcome, SyncPolicy, SyncReport, SyncResult, SyncTarget};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let harness = SyncHarness::new();
//! let source = Arc::new(FakeSource::new());
//! source.push(Ok(SyncResult::Updated(SyncReport::changed(2))));
//! source.push(Err(SyncError::failed("HTTP 500")));
//! let target = SyncTarget::new("github", "me", "notifications");
//! harness.engine.register(target.clone(), SyncPolicy::every(Duration::from_secs(60)), source.clone()).unwrap();
//!
//! let outcomes = harness.engine.run_due(harness.now()).await;
//! assert_eq!(outcomes[0].1, SyncOutcome::Updated { changed: 2 });
//! harness.advance(Duration::from_secs(60));
//! let outcomes = harness.engine.run_due(harness.now()).await;
//! assert!(matches!(outcomes[0].1, SyncOutcome::Failed { offline: false, .. }));
//! assert_eq!(source.calls(), 2);
//! # });
//! ```

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::{SyncContext, SyncEngine, SyncError, SyncResult, SyncSource};
use crate::clock::{Clock, FakeClock, Timestamp};
use crate::locks::lock;
use crate::queue::{Queue, QueueOptions};
use crate::random::{FixedRandom, RandomSource};
use crate::tempdir::TempDir;

/// A source that answers from a script, records what it saw, and can be held at a
/// gate to test concurrent callers.
#[derive(Debug, Default)]
pub struct FakeSource {
    script: Mutex<VecDeque<Result<SyncResult, SyncError>>>,
    calls: AtomicU32,
    seen_etags: Mutex<Vec<Option<String>>>,
    gate: Mutex<Option<Arc<Notify>>>,
    entered: Notify,
}

impl FakeSource {
    /// A source with an empty script: it answers `NotModified` until told otherwise.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the answer for a later call.
    pub fn push(&self, answer: Result<SyncResult, SyncError>) {
        lock(&self.script).push_back(answer);
    }

    /// Holds every call until the returned gate is notified (once per call).
    pub fn hold(&self) -> Arc<Notify> {
        let gate = Arc::new(Notify::new());
        *lock(&self.gate) = Some(gate.clone());
        gate
    }

    /// Waits until a call has started.
    pub async fn entered(&self) {
        self.entered.notified().await;
    }

    /// How many times the engine called it.
    #[must_use]
    pub fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }

    /// The ETag the engine passed on each call.
    #[must_use]
    pub fn seen_etags(&self) -> Vec<Option<String>> {
        lock(&self.seen_etags).clone()
    }
}

impl SyncSource for FakeSource {
    async fn sync(&self, ctx: &SyncContext) -> Result<SyncResult, SyncError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        lock(&self.seen_etags).push(ctx.etag().map(str::to_owned));
        self.entered.notify_one();
        let gate = lock(&self.gate).clone();
        if let Some(gate) = gate {
            gate.notified().await;
        }
        lock(&self.script)
            .pop_front()
            .unwrap_or(Ok(SyncResult::NotModified))
    }
}

/// An engine on a fresh `raw.db` in a temporary directory, a fake clock and jitter
/// pinned to the middle (no jitter) unless [`with_random`](SyncHarness::with_random)
/// says otherwise. The directory is removed on drop.
#[derive(Debug)]
pub struct SyncHarness {
    /// The engine under test.
    pub engine: SyncEngine,
    /// The queue whose file and bus the engine uses.
    pub queue: Queue,
    /// The clock; move it with [`advance`](SyncHarness::advance).
    pub clock: FakeClock,
    dir: TempDir,
}

impl Default for SyncHarness {
    fn default() -> Self {
        Self::new()
    }
}

impl SyncHarness {
    /// A harness at 2027-01-15 08:00 UTC, with no jitter.
    ///
    /// # Panics
    ///
    /// When the temporary directory or database cannot be created.
    #[must_use]
    pub fn new() -> Self {
        Self::with_random(FixedRandom(0.5))
    }

    /// The same with the jitter's randomness of your choice: `FixedRandom(0.0)` for
    /// the shortest backoff, `FixedRandom(0.999)` for the longest.
    ///
    /// # Panics
    ///
    /// When the temporary directory or database cannot be created.
    #[must_use]
    pub fn with_random(random: impl RandomSource) -> Self {
        let dir = TempDir::new("sync");
        let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
        let queue = Queue::open(
            dir.path().join("raw.db"),
            QueueOptions::new().clock(clock.clone()),
        )
        .expect("a raw.db in the temporary directory");
        let engine = SyncEngine::with_random(queue.clone(), random);
        SyncHarness {
            engine,
            queue,
            clock,
            dir,
        }
    }

    /// The fake clock's time.
    #[must_use]
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Moves the clock.
    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    /// The database file, to reopen it.
    #[must_use]
    pub fn db_path(&self) -> PathBuf {
        self.dir.path().join("raw.db")
    }
}
