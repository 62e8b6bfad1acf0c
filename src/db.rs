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
//! collected are published on the bus (in the order of the commits: they take their
//! place in the bus's order before the connection's lock is released) and a runner is
//! woken if a job became runnable.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, Transaction};

use crate::bus::{Event, EventBus, JobStateChanged, PluginHealth};
use crate::clock::{Clock, SleepWatch, Timestamp};
use crate::conditions::ConditionSource;
use crate::error::Result;
use crate::kinds::Kinds;
use crate::locks::lock;
use crate::model::{truncate_chars, Conditions, Health, JobId, JobStatus};
use crate::random::RandomSource;
use crate::store::history;
use crate::store::integrity::{Check, Integrity};
use crate::store::jobs::Change;
use crate::store::{Store, StoreOptions};
use crate::watch::WalWatch;

/// The component whose health says what the integrity check of `raw.db` found.
pub(crate) const INTEGRITY_COMPONENT: &str = "raw.db";

/// What a write transaction changed, to publish once it is committed.
pub(crate) type Changes = Vec<Change>;

/// Something a runner may want to act on at once rather than at its next poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    /// Jobs may have become runnable (enqueued, retried, released, requeued).
    Runnable,
    /// Cancellation of a running job was asked for through this handle.
    CancelRequested(JobId),
    /// The file's write-ahead log was written, by this process or another one (while
    /// someone [wants](Db::want_writes) to hear of it).
    Written,
}

type Hook = Box<dyn Fn(Notice) -> bool + Send + Sync>;
// Mutex: hooks are added rarely and called from the committing thread (or the file
// watch's); each stays while it returns `true`. Shared with the watch, which holds no
// reference to the handle itself.
type Hooks = Arc<Mutex<Vec<Hook>>>;

/// The watch on the file's log, and who wants it on.
#[derive(Default)]
struct Watching {
    watch: Option<WalWatch>,
    // Set when the platform refused a watch: polling only, and no more tries.
    refused: bool,
    wants: usize,
    // Whether `Queue::watch_other_processes` holds a want for good.
    forever: bool,
}

/// A handle on one `raw.db`. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub(crate) struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    // Mutex: one connection, one transaction at a time; SQLite serialises writers anyway.
    store: Mutex<Store>,
    // Mutex: the connection reads go through, beside the writer's (see
    // `Store::open_reader`); one read at a time, each short.
    reader: Mutex<Connection>,
    path: PathBuf,
    clock: Arc<dyn Clock>,
    random: Arc<dyn RandomSource>,
    bus: EventBus,
    kinds: Kinds,
    conditions: Arc<dyn ConditionSource>,
    hooks: Hooks,
    // Mutex: changed when a runner goes idle or busy, never on a hot path.
    watching: Mutex<Watching>,
    sleep: SleepWatch,
    integrity: Arc<Check>,
    // The file's own id, read once at open (`Store::file_id`).
    file_id: Arc<str>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // A background check of a handle nobody holds any more has no reader.
        self.integrity.stop();
    }
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
        conditions: Arc<dyn ConditionSource>,
    ) -> Result<Db> {
        let integrity_delay = store.integrity_delay;
        let store = Store::open(path, store)?;
        let reader = store.open_reader()?;
        let file_id = Arc::from(store.file_id()?);
        let integrity = if store.checked_at_open() {
            Check::done(Integrity::Ok)
        } else {
            let (bus, clock) = (bus.clone(), clock.clone());
            let file = store.path().to_owned();
            Check::in_background(store.path(), integrity_delay, move |found| {
                report_integrity(&file, found, &bus, &*clock);
            })
        };
        let hooks: Hooks = Arc::new(Mutex::new(Vec::new()));
        // A change of power or network may make constrained jobs claimable.
        let weak = Arc::downgrade(&hooks);
        conditions.on_change(Box::new(move || {
            if let Some(hooks) = weak.upgrade() {
                tell(&hooks, Notice::Runnable);
            }
        }));
        Ok(Db {
            inner: Arc::new(Inner {
                path: store.path().to_owned(),
                store: Mutex::new(store),
                reader: Mutex::new(reader),
                clock,
                random,
                bus,
                kinds,
                conditions,
                hooks,
                watching: Mutex::new(Watching::default()),
                sleep: SleepWatch::default(),
                integrity,
                file_id,
            }),
        })
    }

    /// Looks at the clock for a wake from sleep: the wall time of the last one this
    /// handle saw, if any.
    pub(crate) fn woke_at(&self) -> Option<Timestamp> {
        self.inner.sleep.look(&*self.inner.clock)
    }

    /// What the integrity check of the file found so far.
    pub(crate) fn integrity(&self) -> &Check {
        &self.inner.integrity
    }

    /// The database file.
    pub(crate) fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The file's own id: 32 hex digits, the same in every process on the file.
    pub(crate) fn file_id(&self) -> &Arc<str> {
        &self.inner.file_id
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

    /// The machine's conditions at `now`, for jobs with constraints.
    pub(crate) fn conditions(&self, now: Timestamp) -> Conditions {
        self.inner.conditions.conditions(now)
    }

    /// Where the conditions come from.
    pub(crate) fn condition_source(&self) -> &Arc<dyn ConditionSource> {
        &self.inner.conditions
    }

    /// The kinds registered on this handle, and the defaults for the others.
    pub(crate) fn kinds(&self) -> &Kinds {
        &self.inner.kinds
    }

    /// The connection, for reads. Holds the handle's lock while the guard lives.
    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.inner.store)
    }

    /// Runs `read` on the reading connection: it never waits for a write of this
    /// handle, and sees every commit made before it began.
    pub(crate) fn read<T>(&self, read: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = lock(&self.inner.reader);
        read(&conn).map_err(|error| error.in_file(&self.inner.path))
    }

    /// Runs `work` in one write transaction (retried as a whole on `SQLITE_BUSY`, so it
    /// must have no effect outside the database) and, once it has committed, publishes
    /// the job state changes it collected as of `at`.
    pub(crate) fn write<T>(
        &self,
        at: Timestamp,
        mut work: impl FnMut(&Transaction<'_>, &mut Changes) -> Result<T>,
    ) -> Result<T> {
        let mut store = self.store();
        let (value, changes) = store.write(|tx| {
            let mut changes = Changes::new();
            let value = work(tx, &mut changes)?;
            history::record(tx, &changes, at)?;
            Ok((value, changes))
        })?;
        self.publish(store, changes, at);
        Ok(value)
    }

    /// Publishes job state changes that were committed through `store` (whose lock is
    /// released here), and wakes runners when a job became runnable.
    ///
    /// The changes take their place in the bus's order before the lock is released,
    /// so listeners hear every commit of this handle in the order it was made: a
    /// runner that claims a job the moment it is enqueued is heard after the enqueue.
    pub(crate) fn publish(&self, store: MutexGuard<'_, Store>, changes: Changes, at: Timestamp) {
        if changes.is_empty() {
            return;
        }
        #[cfg(feature = "metrics")]
        crate::metrics::jobs(&changes);
        let runnable = changes.iter().any(|change| change.to == JobStatus::Queued);
        let events = changes
            .into_iter()
            .map(|change| {
                Event::JobStateChanged(JobStateChanged {
                    id: change.id,
                    kind: change.kind,
                    from: change.from,
                    to: change.to,
                    attempt: change.attempt,
                    at,
                })
            })
            .collect();
        let place = self.inner.bus.line_up(events);
        drop(store);
        if runnable {
            self.notify(Notice::Runnable);
        }
        self.inner.bus.deliver(place);
    }

    /// Runs `hook` on the notifying thread for every later notice; it stays
    /// registered while it returns `true`. It must be quick and must not call back
    /// into this handle.
    pub(crate) fn subscribe(&self, hook: impl Fn(Notice) -> bool + Send + Sync + 'static) {
        lock(&self.inner.hooks).push(Box::new(hook));
    }

    /// Tells every subscriber.
    pub(crate) fn notify(&self, notice: Notice) {
        tell(&self.inner.hooks, notice);
    }

    /// Takes (`true`) or gives back (`false`) a want for [`Notice::Written`]: the log
    /// is watched while anyone wants it. A runner wants it while idle only, since a
    /// busy one sees other processes' jobs at its next round anyway, and each write
    /// it makes itself would wake the watch's thread. Returns whether the watch is on;
    /// where the platform refuses one it logs why once, and callers keep polling.
    pub(crate) fn want_writes(&self, want: bool) -> bool {
        let mut watching = lock(&self.inner.watching);
        if want {
            watching.wants += 1;
        } else {
            watching.wants = watching.wants.saturating_sub(1);
        }
        self.apply(&mut watching)
    }

    /// A want that is never given back (once per handle). Returns whether the watch is on.
    pub(crate) fn want_writes_forever(&self) -> bool {
        let mut watching = lock(&self.inner.watching);
        if !watching.forever {
            watching.forever = true;
            watching.wants += 1;
        }
        self.apply(&mut watching)
    }

    /// Turns the watch on or off to match the wants.
    fn apply(&self, watching: &mut Watching) -> bool {
        let on = watching.wants > 0;
        if watching.refused {
            return false;
        }
        if on && watching.watch.is_none() {
            let hooks = self.inner.hooks.clone();
            match WalWatch::new(&self.inner.path, move || tell(&hooks, Notice::Written)) {
                Ok(watch) => watching.watch = Some(watch),
                Err(error) => return self.refused(watching, &error),
            }
        }
        if let Some(watch) = watching.watch.as_mut() {
            if let Err(error) = watch.set_active(on) {
                return self.refused(watching, &error);
            }
        }
        on
    }

    fn refused(&self, watching: &mut Watching, error: &notify::Error) -> bool {
        tracing::warn!(%error, path = %self.inner.path.display(),
            "cannot watch the database for other processes' writes; polling instead");
        watching.refused = true;
        watching.watch = None;
        false
    }

    /// SQLite's `data_version` on this handle's connection: it changes when another
    /// connection (another process, or another handle on the file) commits, never for
    /// this handle's own writes. Cheap: no transaction, no lock on the file.
    pub(crate) fn data_version(&self) -> Result<i64> {
        // On the writing connection: the reader's moves for this handle's own commits.
        self.store()
            .read(|conn| Ok(conn.query_row("PRAGMA data_version", [], |row| row.get(0))?))
    }
}

/// The health of the component `raw.db` as the check of `path` found it: healthy
/// until it finds something (a file too large to check whole is not a fault).
pub(crate) fn integrity_health(path: &Path, found: &Integrity) -> Health {
    match found {
        Integrity::Ok | Integrity::Checking | Integrity::Unfinished => Health::healthy(),
        Integrity::Damaged(problem) => Health::error(format!(
            "{} is damaged ({}): restore it from a backup, or move it away to start afresh",
            path.display(),
            truncate_chars(problem, 200)
        )),
        Integrity::Failed(reason) => Health::warning(format!(
            "{} could not be checked: {}",
            path.display(),
            truncate_chars(reason, 200)
        )),
    }
}

fn tell(hooks: &Mutex<Vec<Hook>>, notice: Notice) {
    lock(hooks).retain(|hook| hook(notice));
}

/// Tells the app what the background check of `path` found: the log always, and the
/// health of the component `raw.db` when the file is damaged or could not be checked.
fn report_integrity(path: &Path, found: &Integrity, bus: &EventBus, clock: &dyn Clock) {
    match found {
        Integrity::Ok => {
            tracing::debug!(path = %path.display(), "raw.db passed its integrity check");
            return;
        }
        Integrity::Checking | Integrity::Unfinished => {
            tracing::info!(path = %path.display(), "raw.db is too large to check whole in the time given");
            return;
        }
        Integrity::Damaged(problem) => {
            tracing::error!(path = %path.display(), %problem, "raw.db is damaged");
        }
        Integrity::Failed(reason) => {
            tracing::warn!(path = %path.display(), %reason, "raw.db could not be checked");
        }
    }
    let health = integrity_health(path, found);
    bus.publish(PluginHealth {
        component: INTEGRITY_COMPONENT.to_owned(),
        health,
        at: clock.now(),
    });
}
