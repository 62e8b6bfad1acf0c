//! An inhibitor that counts the keep-awake requests open and taken, and keeps every
//! reason it was given: what the keep-awake tests see instead of the machine's own.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tauri_plugin_jobs::awake::Inhibitor;

#[derive(Clone, Default)]
pub struct Counting {
    open: Arc<AtomicU32>,
    taken: Arc<AtomicU32>,
    reasons: Arc<Mutex<Vec<String>>>,
}

struct Open(Arc<AtomicU32>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Inhibitor for Counting {
    fn inhibit(&self, why: &str) -> Result<Box<dyn Send>, String> {
        self.open.fetch_add(1, Ordering::SeqCst);
        self.taken.fetch_add(1, Ordering::SeqCst);
        self.reasons.lock().unwrap().push(why.to_owned());
        Ok(Box::new(Open(self.open.clone())))
    }
}

#[allow(dead_code)] // each test crate reads what it checks
impl Counting {
    /// The requests held now.
    pub fn open(&self) -> u32 {
        self.open.load(Ordering::SeqCst)
    }

    /// The requests taken so far.
    pub fn taken(&self) -> u32 {
        self.taken.load(Ordering::SeqCst)
    }

    /// Every reason given, in order.
    pub fn reasons(&self) -> Vec<String> {
        self.reasons.lock().unwrap().clone()
    }
}
