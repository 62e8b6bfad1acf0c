//! Keeping the write-ahead log small enough for the disk it is on.
//!
//! SQLite checkpoints the WAL into the main file once it holds `wal_autocheckpoint`
//! pages (1000 by default, about 4 MiB). On a volume with less room than that, the WAL
//! fills the disk before the first checkpoint, and the checkpoint then needs room
//! itself: the queue is wedged for good. So the threshold follows the free space: an
//! eighth of it (at least 16 pages, at most SQLite's 1000), measured at open and again
//! whenever a write meets a full disk; `journal_size_limit` truncates a WAL that grew
//! past it during a burst once it is checkpointed. On a roomy disk nothing changes.

use std::path::Path;

/// The most pages the WAL may hold before a checkpoint: SQLite's own default.
const MOST_PAGES: u64 = 1000;
/// The fewest: below this, checkpoints would come every few commits.
const FEWEST_PAGES: u64 = 16;

/// The WAL size, in pages of `page_size` bytes, after which to checkpoint, for a file
/// in `dir`.
pub(crate) fn checkpoint_pages(dir: &Path, page_size: u64) -> u64 {
    match free_bytes(dir) {
        Some(free) => (free / 8 / page_size.max(512)).clamp(FEWEST_PAGES, MOST_PAGES),
        None => MOST_PAGES,
    }
}

/// Bytes free for an unprivileged writer on the volume holding `dir`.
#[cfg(unix)]
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct we own from a NUL-terminated path.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stats) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    Some(stats.f_bavail as u64 * stats.f_frsize as u64)
}

/// Not measured here: SQLite's defaults apply.
#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roomy_disk_keeps_sqlites_default_and_a_missing_dir_too() {
        let dir = tempfile::tempdir().unwrap();
        let pages = checkpoint_pages(dir.path(), 4096);
        assert!((FEWEST_PAGES..=MOST_PAGES).contains(&pages));
        assert_eq!(
            checkpoint_pages(Path::new("/no/such/dir/anywhere"), 4096),
            MOST_PAGES
        );
    }
}
