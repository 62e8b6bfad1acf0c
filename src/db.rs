//! One handle on one `raw.db`, shared by the services that keep their rows in it.
//!
//! A [`Db`] is the connection (behind a mutex: one transaction at a time), the clock
//! and the randomness every decision reads, the bus state changes are published on,
//! the kinds registered so far, and the notices that wake runners. The queue, the
//! scheduler and the sync engine each hold a clone; compared with each of them opening
//! its own connection, writes from one process never wait on each other's locks, and a
//! job enqueued by the scheduler wakes the runner exactly as one enqueued by the app.
//!
//! [`write`](Db::write) is the only way to change the file: one `BEGIN IMMEDIATE`
//! transaction, retried on `SQLITE_BUSY`, after which the job state changes it
//! collected are published on the bus and a runner is woken if a job became runnable.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, Transaction};

use crate::bus::{EventBus, JobStateChanged};
use crate::clock::{Clock, Timestamp};
use crate::error::Result;
use crate::kinds::Kinds;
use crate::locks::lock;
use crate::model::{JobId, JobStatus};
use crate::random::RandomSource;
use crate::store::jobs::Change;
use crate::store::{Store, StoreOptions};

/// What a write transaction changed, to publish once it is committed.
pub(crate) type Changes = Vec<Change>;

/// Something a runner may want to act on at once rather than at its next poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    /// Jobs may have become runnable (enqueued, retried, released, requeued).
    Runnable,
    /// Cancellation of a running job was asked for through this handle.
    CancelRequested(JobId),
}

type Hook = Box<dyn Fn(Notice) -> bool + Send + Sync>;

/// A handle on one `raw.db`. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub(crate) struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    // Mutex: one connection, one transaction at a time; SQLite serialises writers anyway.
    store: Mutex<Store>,
    path: PathBuf,
    clock: Arc<dyn Clock>,
    random: Arc<dyn RandomSource>,
    bus: EventBus,
    kinds: Kinds,
    // Mutex: hooks are added rarely and called from the committing thread; each stays
    // while it returns `true`.
    hooks: Mutex<Vec<Hook>>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Opens (creating and migrating as needed) the database at `path`.
    pub(crate) fn open(
        path: &Path,
        store: &StoreOptions,
        clock: Arc<dyn Clock>,
        random: Arc<dyn RandomSource>,
        bus: EventBus,
        kinds: Kinds,
    ) -> Result<Db> {
        let store = Store::open(path, store)?;
        Ok(Db {
            inner: Arc::new(Inner {
                path: store.path().to_owned(),
                store: Mutex::new(store),
                clock,
                random,
                bus,
                kinds,
                hooks: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The database file.
    pub(crate) fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The clock every time decision reads.
    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// The clock's time now.
    pub(crate) fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    /// A uniform sample in `[0, 1)` for jitter.
    pub(crate) fn random(&self) -> f64 {
        self.inner.random.unit()
    }

    /// The bus state changes are published on.
    pub(crate) fn bus(&self) -> &EventBus {
        &self.inner.bus
    }

    /// The kinds registered on this handle, and the defaults for the others.
    pub(crate) fn kinds(&self) -> &Kinds {
        &self.inner.kinds
    }

    /// The connection, for reads. Holds the handle's lock while the guard lives.
    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.inner.store)
    }

    /// Runs `read` on the connection.
    pub(crate) fn read<T>(&self, read: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.store().read(read)
    }

    /// Runs `work` in one write transaction (retried as a whole on `SQLITE_BUSY`, so it
    /// must have no effect outside the database) and, once it has committed, publishes
    /// the job state changes it collected as of `at`.
    pub(crate) fn write<T>(
        &self,
        at: Timestamp,
        mut work: impl FnMut(&Transaction<'_>, &mut Changes) -> Result<T>,
    ) -> Result<T> {
        let (value, changes) = self.store().write(|tx| {
            let mut changes = Changes::new();
            let value = work(tx, &mut changes)?;
            Ok((value, changes))
        })?;
        self.publish(changes, at);
        Ok(value)
    }

    /// Publishes committed job state changes, and wakes runners when a job became
    /// runnable.
    pub(crate) fn publish(&self, changes: Changes, at: Timestamp) {
        if changes.iter().any(|change| change.to == JobStatus::Queued) {
            self.notify(Notice::Runnable);
        }
        for change in changes {
            self.inner.bus.publish(JobStateChanged {
                id: change.id,
                kind: change.kind,
                from: change.from,
                to: change.to,
                attempt: change.attempt,
                at,
            });
        }
    }

    /// Runs `hook` on the notifying thread for every later notice; it stays
    /// registered while it returns `true`. It must be quick and must not call back
    /// into this handle.
    pub(crate) fn subscribe(&self, hook: impl Fn(Notice) -> bool + Send + Sync + 'static) {
        lock(&self.inner.hooks).push(Box::new(hook));
    }

    /// Tells every subscriber.
    pub(crate) fn notify(&self, notice: Notice) {
        lock(&self.inner.hooks).retain(|hook| hook(notice));
    }
}
