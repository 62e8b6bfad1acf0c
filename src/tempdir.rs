//! A directory of its own under the system's temporary directory, removed on drop: for
//! the test helpers this crate ships (`sync::testing`, `testing`), which cannot lean on
//! a dev-dependency.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh directory, removed with everything in it when dropped.
#[derive(Debug)]
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    /// Creates `<tmp>/tauri-plugin-jobs-<what>-<pid>-<n>`.
    ///
    /// # Panics
    ///
    /// When the directory cannot be created: a test cannot go on without it.
    pub(crate) fn new(what: &str) -> TempDir {
        // Relaxed: the counter only has to hand out distinct numbers.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tauri-plugin-jobs-{what}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
