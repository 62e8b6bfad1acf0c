//! Automatic sync triggers: window focus and waking from sleep. (The network is
//! watched by [`SyncEngine::watch_network`], with the webview's hint as a fallback
//! through a command.)

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::clock::{Clock, SystemClock};
use crate::sync::{SyncEngine, Trigger};

/// How often the wake detector compares the wall clock with the monotonic clock: as
/// often as the other background loops look at the wall clock at most, so that a
/// sleeping app wakes no more often for it.
const WAKE_CHECK: Duration = crate::background::MAX_SLEEP;
/// How far the wall clock must run ahead of the monotonic clock to count as a wake.
const WAKE_JUMP: Duration = Duration::from_secs(30);

/// A window gained focus: sync what may be synced. `min_interval` absorbs bursts and
/// flapping focus events.
pub(crate) fn on_focus(sync: &SyncEngine) -> tauri::async_runtime::JoinHandle<()> {
    let sync = sync.clone();
    crate::tasks::spawn_in_app(async move {
        sync.trigger_all(Trigger::Focus).await;
    })
}

/// Watches for the machine waking: the monotonic clock stops during suspend while
/// the wall clock does not, so a wall-clock jump larger than the monotonic time that
/// passed means the machine slept.
pub(crate) fn watch_wake(sync: SyncEngine, stop: CancellationToken) {
    crate::tasks::spawn_in_app(async move {
        let mut wall = SystemClock.now();
        let mut mono = Instant::now();
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(WAKE_CHECK) => {}
            }
            let (wall_now, mono_now) = (SystemClock.now(), Instant::now());
            let wall_passed = wall_now.duration_since(wall);
            let mono_passed = mono_now.duration_since(mono);
            if wall_passed > mono_passed + WAKE_JUMP {
                tracing::debug!(slept = ?(wall_passed - mono_passed), "woke from sleep");
                sync.trigger_all(Trigger::Wake).await;
            }
            (wall, mono) = (wall_now, mono_now);
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sync::testing::{FakeSource, SyncHarness};
    use crate::sync::{SyncPolicy, SyncTarget};

    #[test]
    fn a_burst_of_focus_events_inside_min_interval_runs_one_sync() {
        let harness = SyncHarness::new();
        let source = Arc::new(FakeSource::new());
        let policy =
            SyncPolicy::every(Duration::from_secs(300)).min_interval(Duration::from_secs(30));
        harness
            .engine
            .register(
                SyncTarget::new("demo", "me", "feed"),
                policy,
                source.clone(),
            )
            .unwrap();
        tauri::async_runtime::block_on(async {
            // Focus flaps while a window is dragged: twenty events within ten seconds.
            for _ in 0..20 {
                on_focus(&harness.engine).await.unwrap();
                harness.advance(Duration::from_millis(500));
            }
            assert_eq!(source.calls(), 1);
            harness.advance(Duration::from_secs(30));
            on_focus(&harness.engine).await.unwrap();
            assert_eq!(source.calls(), 2, "past min_interval, focus syncs again");
        });
    }
}
