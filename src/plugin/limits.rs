//! What one window may hold or start at once, so that a page that loops (or a script
//! that got into one) cannot grow the backend or hammer a remote service:
//!
//! - local jobs: at most [`LOCAL_JOBS_PER_WINDOW`] running of each kind started by one
//!   webview (a kind registered as exclusive allows one in the whole app anyway); more
//!   is refused with `limitReached` until one ends;
//! - Refresh (`sync_now`): a press while the target's run is in flight joins it, and a
//!   press within [`REFRESH_FLOOR`] of the end of its last run gets that outcome;
//! - the network hint: every `online` hint while a pass is running joins that pass,
//!   so hints never start more than one pass at a time;
//! - event subscriptions: [`MAX_SUBSCRIPTIONS_PER_WEBVIEW`](super::events::MAX_SUBSCRIPTIONS_PER_WEBVIEW).
//!
//! Numbers a window sends are bounded where the commands read them (see
//! [`commands`](super::commands)).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::error::{CommandError, ErrorCode};
use crate::locks::lock;
use crate::sync::{SyncEngine, SyncTarget, Trigger};

/// Local jobs of one kind one webview may have running at once, by default
/// ([`Builder::local_jobs_per_window`](super::Builder::local_jobs_per_window)).
pub const LOCAL_JOBS_PER_WINDOW: usize = 4;

/// Refresh presses closer than this to the end of a target's last run share it.
pub const REFRESH_FLOOR: Duration = Duration::from_secs(2);

/// Running local jobs per webview and kind.
#[derive(Clone)]
pub(crate) struct LocalSlots {
    // Mutex: counted up when a command starts a job, down when it ends.
    held: Arc<Mutex<HashMap<(String, String), usize>>>,
    limit: usize,
}

impl LocalSlots {
    pub(crate) fn new(limit: usize) -> Self {
        LocalSlots {
            held: Arc::default(),
            limit: limit.max(1),
        }
    }

    /// A slot for one more job of `kind` started by `webview`, held until dropped.
    pub(crate) fn take(&self, webview: &str, kind: &str) -> Result<Slot, CommandError> {
        let key = (webview.to_owned(), kind.to_owned());
        let mut held = lock(&self.held);
        let count = held.entry(key.clone()).or_default();
        if *count >= self.limit {
            return Err(CommandError::new(
                ErrorCode::LimitReached,
                format!(
                    "this window already has {count} local jobs of kind {kind:?} running, the \
                     most it may start at once; wait for one to end"
                ),
            ));
        }
        *count += 1;
        Ok(Slot {
            slots: self.clone(),
            key,
        })
    }
}

/// One running local job's place in [`LocalSlots`]; gives it back when dropped.
pub(crate) struct Slot {
    slots: LocalSlots,
    key: (String, String),
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = lock(&self.slots.held);
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

/// Network hints coalesced into one pass at a time.
#[derive(Clone, Default)]
pub(crate) struct NetworkPass {
    // Mutex: the targets waiting for a pass, and whether a pass is running.
    state: Arc<Mutex<(HashSet<SyncTarget>, bool)>>,
}

impl NetworkPass {
    /// Retries `targets` that are offline (`sync_if_due` with `networkBack`): joins the
    /// pass that is running, if one is, or starts one.
    pub(crate) fn hint(&self, sync: &SyncEngine, targets: Vec<SyncTarget>) {
        {
            let mut state = lock(&self.state);
            state.0.extend(targets);
            if state.1 || state.0.is_empty() {
                return;
            }
            state.1 = true;
        }
        let this = self.clone();
        let sync = sync.clone();
        crate::tasks::spawn_in_app(async move {
            loop {
                let targets: Vec<SyncTarget> = {
                    let mut state = lock(&this.state);
                    if state.0.is_empty() {
                        state.1 = false;
                        return;
                    }
                    state.0.drain().collect()
                };
                sync.trigger_some(targets, Trigger::NetworkBack).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_per_webview_and_kind_and_given_back() {
        let slots = LocalSlots::new(2);
        let a = slots.take("main", "export").unwrap();
        let _b = slots.take("main", "export").unwrap();
        let refused = slots.take("main", "export").err().unwrap();
        assert_eq!(refused.code, ErrorCode::LimitReached);
        assert!(refused.message.contains("\"export\""), "{refused}");
        assert!(slots.take("other", "export").is_ok(), "another window");
        assert!(slots.take("main", "import").is_ok(), "another kind");
        drop(a);
        assert!(slots.take("main", "export").is_ok(), "one ended");
    }
}
