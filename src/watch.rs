//! A wake-up when another process writes `raw.db`: a watch on the write-ahead log.
//!
//! Every commit to a WAL database appends to `<file>-wal`, whichever process makes it,
//! so a change notification on that file (inotify on Linux, FSEvents on macOS,
//! `ReadDirectoryChangesW` on Windows, all through the `notify` crate) tells a runner
//! that a job may have been enqueued, released or freed a cap slot elsewhere, without
//! polling. The directory is watched rather than the file, so a log that is created
//! (or recreated after the last connection closed it) is still seen. This process's own
//! commits are seen too; a wake-up for them costs one claim query.
//!
//! The watch can be turned off and on: a busy runner needs none (it looks at the
//! queue after every batch anyway) and would pay for a wake-up of the watch's thread on
//! each of its own commits. Watching can fail (no inotify instances left, a file system
//! without notifications); the caller then keeps its poll, a safety net anyway.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use notify::event::ModifyKind;
use notify::{EventKind, RecursiveMode, Watcher};

/// A watch on one database's log, on or off; dropping it stops its thread.
pub(crate) struct WalWatch {
    watcher: notify::RecommendedWatcher,
    dir: PathBuf,
    active: bool,
}

impl std::fmt::Debug for WalWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalWatch")
            .field("dir", &self.dir)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

/// The write-ahead log's name beside `database`.
fn wal_name(database: &Path) -> Option<OsString> {
    let mut name = database.file_name()?.to_owned();
    name.push("-wal");
    Some(name)
}

/// Whether an event on the log may be a commit. A commit writes the log's content, and
/// a log created anew is written next; a change of the log's metadata alone is none:
/// SQLite running as root changes the owner of a log every time a connection opens
/// it (`fchown`, an attribute change to inotify), so a process that only reads the
/// file now and then would otherwise wake every runner watching it.
fn counts_as_written(kind: EventKind) -> bool {
    match kind {
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) | EventKind::Create(_) | EventKind::Any => true,
        _ => false,
    }
}

impl WalWatch {
    /// A watch, off, that calls `on_write` (on the watcher's thread; it must be quick)
    /// whenever the log of `database` is written or created while it is on.
    pub(crate) fn new(
        database: &Path,
        on_write: impl Fn() + Send + 'static,
    ) -> notify::Result<Self> {
        let wal = wal_name(database)
            .ok_or_else(|| notify::Error::generic("the database path names no file"))?;
        let dir = database
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else {
                // An overflowed queue loses events: wake, so nothing waits for the poll.
                on_write();
                return;
            };
            let written = counts_as_written(event.kind);
            if written
                && event
                    .paths
                    .iter()
                    .any(|path| path.file_name() == Some(wal.as_os_str()))
            {
                on_write();
            }
        })?;
        Ok(WalWatch {
            watcher,
            dir,
            active: false,
        })
    }

    /// Turns it on or off (a system call on the watcher's thread; not for hot paths).
    pub(crate) fn set_active(&mut self, active: bool) -> notify::Result<()> {
        if active == self.active {
            return Ok(());
        }
        if active {
            self.watcher.watch(&self.dir, RecursiveMode::NonRecursive)?;
        } else {
            self.watcher.unwatch(&self.dir)?;
        }
        self.active = active;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_of_the_logs_metadata_alone_is_no_write() {
        use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind};
        assert!(counts_as_written(EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(counts_as_written(EventKind::Modify(ModifyKind::Any)));
        assert!(counts_as_written(EventKind::Create(CreateKind::File)));
        assert!(counts_as_written(EventKind::Any));
        assert!(!counts_as_written(EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Ownership
        ))));
        assert!(!counts_as_written(EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
        assert!(!counts_as_written(EventKind::Remove(RemoveKind::File)));
    }

    #[test]
    fn the_wal_sits_beside_the_database() {
        assert_eq!(
            wal_name(Path::new("/data/app/raw.db")),
            Some(OsString::from("raw.db-wal"))
        );
        assert_eq!(wal_name(Path::new("/")), None);
    }
}
