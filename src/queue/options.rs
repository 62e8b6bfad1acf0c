//! How a [`Queue`](super::Queue) is opened: the file's durability, the clock and
//! randomness it reads, the bus it publishes on, and the defaults for jobs.

use std::sync::Arc;
use std::time::Duration;

use crate::backoff::RetryPolicy;
use crate::bus::EventBus;
use crate::clock::{Clock, SystemClock};
use crate::conditions::{ConditionSource, UnknownConditions};
use crate::config::JobsConfig;
use crate::kinds::Kinds;
use crate::random::{RandomSource, ThreadRandom};
use crate::store::{StoreOptions, Synchronous};

/// The default cap on a payload's or result's JSON size: 1 MiB.
pub const DEFAULT_MAX_PAYLOAD_BYTES: usize = 1 << 20;

/// How a [`Queue`](super::Queue) is opened.
///
/// ```
/// use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
/// use tauri_plugin_jobs::queue::{Queue, QueueOptions};
/// use tauri_plugin_jobs::random::FixedRandom;
///
/// let dir = tempfile::tempdir()?;
/// let clock = FakeClock::new(Timestamp::from_millis(0));
/// let queue = Queue::open(
///     dir.path().join("raw.db"),
///     QueueOptions::new().clock(clock.clone()).random(FixedRandom(0.5)),
/// )?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct QueueOptions {
    pub(crate) store: StoreOptions,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) random: Arc<dyn RandomSource>,
    pub(crate) bus: EventBus,
    pub(crate) conditions: Arc<dyn ConditionSource>,
    max_attempts: u32,
    retry: RetryPolicy,
    max_payload_bytes: usize,
}

impl Default for QueueOptions {
    fn default() -> Self {
        QueueOptions {
            store: StoreOptions::default(),
            clock: Arc::new(SystemClock),
            random: Arc::new(ThreadRandom),
            bus: EventBus::new(),
            conditions: Arc::new(UnknownConditions),
            max_attempts: 5,
            retry: RetryPolicy::default(),
            max_payload_bytes: DEFAULT_MAX_PAYLOAD_BYTES,
        }
    }
}

impl QueueOptions {
    /// System clock, thread randomness, a new bus, `synchronous = NORMAL`, 5 attempts,
    /// [`RetryPolicy::default`], payloads up to 1 MiB, no conditions known (every
    /// constraint counts as met: the plugin gives the queue
    /// [`SystemConditions`](crate::conditions::SystemConditions)).
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock every time decision reads.
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// How long after open a file too large to check at open (over about 1 MiB) is
    /// checked in the background (10 s by default: the app's start first); see
    /// [`Queue::integrity`](crate::queue::Queue::integrity).
    pub fn integrity_check_after(mut self, delay: Duration) -> Self {
        self.store.integrity_delay = delay;
        self
    }

    /// Where the machine's power, network and idle time come from, for jobs with
    /// [`Constraints`](crate::queue::Constraints).
    pub fn conditions(mut self, source: impl ConditionSource) -> Self {
        self.conditions = Arc::new(source);
        self
    }

    /// Where the machine's conditions come from, shared with other handles.
    pub fn conditions_from(mut self, source: Arc<dyn ConditionSource>) -> Self {
        self.conditions = source;
        self
    }

    /// Where jitter comes from.
    pub fn random(mut self, random: impl RandomSource) -> Self {
        self.random = Arc::new(random);
        self
    }

    /// The bus state changes are published on.
    pub fn bus(mut self, bus: EventBus) -> Self {
        self.bus = bus;
        self
    }

    /// Durability of each commit; see [`Synchronous`].
    pub fn synchronous(mut self, synchronous: Synchronous) -> Self {
        self.store.synchronous = synchronous;
        self
    }

    /// How long one statement waits for another connection's write lock.
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.store.busy_timeout = timeout;
        self
    }

    /// How long a write keeps retrying a locked database before it fails with
    /// [`Error::Busy`](crate::Error::Busy); one minute by default.
    pub fn busy_deadline(mut self, deadline: Duration) -> Self {
        self.store.busy_deadline = deadline;
        self
    }

    /// Caps `raw.db` at this many pages (4 KiB each): writes past it fail with
    /// [`Error::Full`](crate::Error::Full) and change nothing, like a full disk.
    pub fn max_page_count(mut self, pages: u64) -> Self {
        self.store.max_page_count = Some(pages);
        self
    }

    /// Attempts for jobs whose kind and options name none.
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// Backoff for kinds that name none.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The largest payload or result, as JSON bytes.
    pub fn max_payload_bytes(mut self, bytes: usize) -> Self {
        self.max_payload_bytes = bytes;
        self
    }

    /// Applies what `config.toml`'s `[jobs]` section sets: `synchronous`,
    /// `max_attempts` and the `backoff_*` keys. Unset keys leave these options alone.
    pub fn config(mut self, config: &JobsConfig) -> Self {
        if let Some(synchronous) = config.synchronous {
            self.store.synchronous = synchronous;
        }
        if let Some(attempts) = config.max_attempts {
            self = self.max_attempts(attempts);
        }
        if let Some(policy) = config.retry {
            self.retry = policy;
        }
        self
    }

    /// The registry of kinds a handle opened with these options starts with.
    pub(crate) fn kinds(&self) -> Kinds {
        Kinds::new(self.max_attempts, self.retry, self.max_payload_bytes)
    }
}
