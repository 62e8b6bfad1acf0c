//! Bus events for the webview: each window hears, on a [`Channel`] of its own, only
//! what it may read.
//!
//! A page subscribes with the `subscribe` command and a channel; from then on the
//! events that window may see reach that channel, and nothing else does. Which events
//! a window hears follows the scopes of the commands that read the same state (a
//! window hears what it could have read):
//!
//! | events | heard when the window may read it through |
//! | --- | --- |
//! | `jobStateChanged`, `jobProgress`, `jobStep`, `jobLogged`, `jobDeleted`, `jobsPruned` | `get_job`, by the job's kind |
//! | `kindPaused` | `paused_kinds`, by the kind |
//! | `scheduleChanged` | `list_schedules`, by the schedule's job kind |
//! | `localJobChanged`, `localJobProgress` | `get_local_job`, by the local kind |
//! | `syncProgress`, `syncFinished`, `pluginHealth` | `sync_status`, by the target (the component) |
//! | message events, `readStateChanged`, `accountDisconnected` | `sync_status`, every target of the account |
//!
//! A window without the read command hears none of its events. Why a channel and not
//! a Tauri event: any script may `listen()` to any event name, and with the default
//! target (Any) it hears events sent to another window too, so `emit_to` alone keeps
//! nothing apart; and any window with `core:event:allow-emit` can emit a plugin's
//! event name, so what a page hears on an event could be forged. A channel belongs to
//! the webview that made it: no other window can listen to it or write into it.
//!
//! Each subscription has its own [`Outbox`]: bounded, coalescing progress, counting
//! what it dropped. A subscription ends when the page unsubscribes, when the webview
//! loads a new page or goes away, or when its channel can no longer be written.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};

use serde::Serialize;
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;

use super::error::{CommandError, ErrorCode};
use super::outbox::Outbox;
use super::scope::{ReadScopes, Scope};
use crate::bus::{Event, EventBus};
use crate::model::Patterns;

/// How many state changes may wait for one subscription before the oldest is dropped.
pub const WEBVIEW_STREAM_CAPACITY: usize = 8192;

/// How many subscriptions one webview may hold at once. The webview API shares one per
/// page, so a page needs one; the bound keeps a page that loops from growing the
/// backend.
pub const MAX_SUBSCRIPTIONS_PER_WEBVIEW: usize = 16;

/// One bus event for the webview, as a subscription's channel carries it.
///
/// Ids and times are JavaScript numbers: durable job ids count up from 1 and
/// timestamps are milliseconds since the epoch, both far below 2^53. Process-local
/// job ids are strings such as `"local-7"`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobsEvent {
    /// What happened.
    pub event: Event,
    /// State changes this subscription has dropped so far because the webview fell
    /// behind (progress reports replaced by newer ones are not counted). When it
    /// grows, reload what the page shows.
    pub dropped: u64,
}

/// What one window hears, from the scopes of the commands that read the same state;
/// a command the window may not call reaches nothing.
#[derive(Debug, Clone)]
pub(crate) struct Hearing {
    jobs: Patterns,
    local: Patterns,
    sync: Patterns,
    paused: Patterns,
    schedules: Patterns,
}

impl Hearing {
    pub(crate) fn of(reads: &ReadScopes) -> Self {
        let pick = |scope: &Option<Scope>, dimension: fn(&Scope) -> &Patterns| {
            scope
                .as_ref()
                .map_or_else(Patterns::closed, |scope| dimension(scope).clone())
        };
        Hearing {
            jobs: pick(&reads.jobs, Scope::kinds),
            local: pick(&reads.local_jobs, Scope::local_kinds),
            sync: pick(&reads.sync, Scope::targets),
            paused: pick(&reads.paused, Scope::kinds),
            schedules: pick(&reads.schedules, Scope::kinds),
        }
    }

    /// Whether the window may hear `event`. An event this build does not know of is
    /// not heard: what is not listed here is not sent.
    pub(crate) fn hears(&self, event: &Event) -> bool {
        match event {
            Event::JobStateChanged(e) => self.jobs.allows(&e.kind),
            Event::JobProgress(e) => self.jobs.allows(&e.kind),
            Event::JobStep(e) => self.jobs.allows(&e.kind),
            Event::JobLogged(e) => self.jobs.allows(&e.kind),
            Event::JobDeleted(e) => self.jobs.allows(&e.kind),
            Event::JobsPruned(e) => self.jobs.allows(&e.kind),
            Event::AccountDisconnected(e) => self.account(&e.account),
            Event::KindPaused(e) => self.paused.allows(&e.kind),
            Event::ScheduleChanged(e) => self.schedules.allows(&e.kind),
            Event::SyncProgress(e) => self.sync.allows(&e.target),
            Event::SyncFinished(e) => self.sync.allows(&e.target),
            // The keep-awake and instances components' events name no job (the
            // command names those the window may read): every window hears them.
            Event::PluginHealth(e) => {
                e.component == crate::awake::AWAKE_COMPONENT
                    || e.component == super::instances::INSTANCES_COMPONENT
                    || self.sync.allows(&e.component)
            }
            Event::MessageStored(e)
            | Event::MessageParsed(e)
            | Event::MessageIndexed(e)
            | Event::MessageEmbedded(e)
            | Event::MessageEnriched(e) => self.account(&e.account),
            Event::ReadStateChanged(e) => self.account(&e.account),
            Event::LocalJobChanged(e) => self.local.allows(&e.kind),
            Event::LocalJobProgress(e) => self.local.allows(&e.kind),
        }
    }

    /// An account (`connector/account`) is heard when every target of it is.
    fn account(&self, account: &str) -> bool {
        self.sync.allows_every_name_under(&format!("{account}/"))
    }
}

struct Subscription {
    webview: String,
    hearing: Hearing,
    outbox: Arc<Outbox>,
    stop: CancellationToken,
}

#[derive(Default)]
struct Inner {
    // RwLock: read on every published event (on the publishing thread), written only
    // when a page subscribes or leaves.
    subscriptions: RwLock<HashMap<u32, Subscription>>,
    // Relaxed: ids only have to be distinct.
    next: AtomicU32,
}

/// Every webview subscription, fed by one bus handler. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Subscriptions {
    inner: Arc<Inner>,
}

impl Subscriptions {
    /// Feeds every subscription from `bus`, each only what its window hears.
    pub(crate) fn attach(&self, bus: &EventBus) {
        let inner = self.inner.clone();
        bus.add_handler("webview", move |event| {
            let subscriptions = inner
                .subscriptions
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            for subscription in subscriptions.values() {
                if subscription.hearing.hears(event) {
                    subscription.outbox.push(event.clone());
                }
            }
            Ok(())
        });
    }

    /// Starts sending what `reads` may hear to `channel`; returns the subscription's
    /// id, for `unsubscribe`.
    pub(crate) fn subscribe(
        &self,
        reads: &ReadScopes,
        channel: Channel<JobsEvent>,
    ) -> Result<u32, CommandError> {
        let outbox = Arc::new(Outbox::new(WEBVIEW_STREAM_CAPACITY));
        let stop = CancellationToken::new();
        let id = self.inner.next.fetch_add(1, Ordering::Relaxed);
        {
            let mut subscriptions = self.write();
            let held = subscriptions
                .values()
                .filter(|s| s.webview == reads.webview)
                .count();
            if held >= MAX_SUBSCRIPTIONS_PER_WEBVIEW {
                return Err(CommandError::new(
                    ErrorCode::LimitReached,
                    format!(
                        "this webview holds {held} event subscriptions, the most it may \
                         (unsubscribe one first)"
                    ),
                ));
            }
            subscriptions.insert(
                id,
                Subscription {
                    webview: reads.webview.clone(),
                    hearing: Hearing::of(reads),
                    outbox: outbox.clone(),
                    stop: stop.clone(),
                },
            );
        }
        let this = self.clone();
        crate::tasks::spawn_in_app(async move {
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = outbox.ready() => {}
                }
                let (events, dropped) = outbox.take();
                for event in events {
                    if let Err(error) = channel.send(JobsEvent { event, dropped }) {
                        // The webview is gone: nothing will read this channel again.
                        tracing::debug!(%error, "a webview's event channel is closed");
                        this.remove(|key, _| *key == id);
                        return;
                    }
                }
            }
        });
        Ok(id)
    }

    /// Ends a subscription of `webview`; whether it had one with that id.
    pub(crate) fn unsubscribe(&self, webview: &str, id: u32) -> bool {
        self.remove(|key, subscription| *key == id && subscription.webview == webview) > 0
    }

    /// Ends every subscription of `webview` (it loads a new page, or it is gone).
    pub(crate) fn forget_webview(&self, webview: &str) {
        self.remove(|_, subscription| subscription.webview == webview);
    }

    fn remove(&self, which: impl Fn(&u32, &Subscription) -> bool) -> usize {
        let mut subscriptions = self.write();
        let before = subscriptions.len();
        subscriptions.retain(|key, subscription| {
            let gone = which(key, subscription);
            if gone {
                subscription.stop.cancel();
            }
            !gone
        });
        before - subscriptions.len()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<u32, Subscription>> {
        self.inner
            .subscriptions
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{JobStateChanged, MessageEvent, PluginHealth, ScheduleChanged};
    use crate::model::{Health, JobId, JobStatus, Timestamp};

    #[test]
    fn a_window_without_the_read_command_hears_nothing_of_it() {
        let reads = ReadScopes {
            webview: "w".into(),
            jobs: None,
            local_jobs: None,
            sync: Some(Scope::open()),
            paused: None,
            schedules: None,
        };
        let hearing = Hearing::of(&reads);
        let job = Event::JobStateChanged(JobStateChanged {
            id: JobId::from_raw(1),
            kind: "k".into(),
            from: None,
            to: JobStatus::Queued,
            attempt: 0,
            at: Timestamp::EPOCH,
        });
        assert!(!hearing.hears(&job));
        let schedule = Event::ScheduleChanged(ScheduleChanged {
            name: "s".into(),
            kind: "k".into(),
            at: Timestamp::EPOCH,
        });
        assert!(!hearing.hears(&schedule));
        let health = Event::PluginHealth(PluginHealth {
            component: "a/b/c".into(),
            health: Health::healthy(),
            at: Timestamp::EPOCH,
        });
        assert!(hearing.hears(&health), "sync_status reaches every target");
        let message = Event::MessageStored(MessageEvent {
            account: "a/b".into(),
            message_id: "m".into(),
            at: Timestamp::EPOCH,
        });
        assert!(hearing.hears(&message));
    }
}
