//! The bounded, coalescing queue between the bus and one webview subscription.
//!
//! A frozen webview never blocks the backend, and what matters is never evicted by
//! what does not:
//!
//! - state changes (jobs, local jobs, health, everything but progress) are kept, in
//!   order, up to a capacity ([`WEBVIEW_STREAM_CAPACITY`](super::WEBVIEW_STREAM_CAPACITY)
//!   for the webview); past that the oldest is dropped and counted, and the page
//!   should reload what it shows;
//! - progress is coalesced: only the latest report of each job, local job and sync
//!   target waits, however many came, so a flood of progress costs no memory and
//!   evicts nothing. Coalesced reports are not counted as dropped.
//!
//! Events leave in the order they were published, a coalesced progress report at the
//! place of its latest version. Compared with tokio's `broadcast` (which also drops
//! the oldest and counts), it coalesces progress instead of letting it evict changes.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::bus::Event;
use crate::locks::lock;
use crate::model::{JobId, LocalJobId};

/// Whose progress a report is: only the latest per key waits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum ProgressOf {
    Job(JobId),
    Local(LocalJobId),
    Sync(String),
}

fn progress_of(event: &Event) -> Option<ProgressOf> {
    match event {
        Event::JobProgress(progress) => Some(ProgressOf::Job(progress.id)),
        Event::LocalJobProgress(progress) => Some(ProgressOf::Local(progress.id)),
        Event::SyncProgress(progress) => Some(ProgressOf::Sync(progress.target.clone())),
        _ => None,
    }
}

/// What waits for the webview. Each event carries the sequence number of its
/// publication, so the two kinds merge back into publication order.
#[derive(Default)]
struct Pending {
    next: u64,
    changes: VecDeque<(u64, Event)>,
    progress: HashMap<ProgressOf, (u64, Event)>,
    dropped: u64,
}

/// The bounded, coalescing queue between the bus and the webview.
#[derive(Default)]
pub(crate) struct Outbox {
    // Mutex: pushed on the publishing thread, drained by the forwarding task; held
    // only to move events in or out.
    pending: Mutex<Pending>,
    ready: Notify,
    capacity: usize,
}

impl Outbox {
    pub(crate) fn new(capacity: usize) -> Self {
        Outbox {
            capacity: capacity.max(1),
            ..Outbox::default()
        }
    }

    pub(crate) fn push(&self, event: Event) {
        {
            let mut pending = lock(&self.pending);
            let seq = pending.next;
            pending.next += 1;
            match progress_of(&event) {
                Some(key) => {
                    pending.progress.insert(key, (seq, event));
                }
                None => {
                    if pending.changes.len() >= self.capacity {
                        pending.changes.pop_front();
                        pending.dropped += 1;
                    }
                    pending.changes.push_back((seq, event));
                }
            }
        }
        self.ready.notify_one();
    }

    /// Everything waiting, in publication order, and the dropped count so far.
    pub(crate) fn take(&self) -> (Vec<Event>, u64) {
        let (changes, progress, dropped) = {
            let mut pending = lock(&self.pending);
            (
                std::mem::take(&mut pending.changes),
                std::mem::take(&mut pending.progress),
                pending.dropped,
            )
        };
        let mut events: Vec<(u64, Event)> = changes.into_iter().collect();
        events.extend(progress.into_values());
        events.sort_unstable_by_key(|(seq, _)| *seq);
        (
            events.into_iter().map(|(_, event)| event).collect(),
            dropped,
        )
    }

    /// Waits until something was pushed since the last wait.
    pub(crate) async fn ready(&self) {
        self.ready.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::{JobProgress, JobStateChanged, LocalJobProgress};
    use crate::model::{JobId, JobStatus, Timestamp};

    fn change(id: i64) -> Event {
        Event::JobStateChanged(JobStateChanged {
            id: JobId::from_raw(id),
            kind: "k".into(),
            from: None,
            to: JobStatus::Queued,
            attempt: 0,
            at: Timestamp::EPOCH,
        })
    }

    fn progress(done: u64) -> Event {
        Event::LocalJobProgress(LocalJobProgress {
            id: LocalJobId(1),
            kind: "export".into(),
            done,
            total: Some(100),
            percent: Some(done as u8),
            at: Timestamp::EPOCH,
        })
    }

    #[test]
    fn progress_is_coalesced_in_place_and_changes_keep_their_order() {
        let outbox = Outbox::new(16);
        outbox.push(change(1));
        for done in 0..50 {
            outbox.push(progress(done));
        }
        outbox.push(change(2));
        outbox.push(progress(99));
        let (events, dropped) = outbox.take();
        assert_eq!(events, vec![change(1), change(2), progress(99)]);
        assert_eq!(dropped, 0);
    }

    fn durable_progress(id: i64, done: u64) -> Event {
        Event::JobProgress(JobProgress {
            id: JobId::from_raw(id),
            kind: "ingest".into(),
            attempt: 1,
            done,
            total: Some(100),
            percent: Some(done as u8),
            at: Timestamp::EPOCH,
        })
    }

    #[test]
    fn durable_progress_is_coalesced_per_job() {
        let outbox = Outbox::new(16);
        for done in 0..50 {
            outbox.push(durable_progress(1, done));
            outbox.push(durable_progress(2, done));
        }
        outbox.push(durable_progress(1, 80));
        let (events, dropped) = outbox.take();
        // The latest report of each job, in the order they were published.
        assert_eq!(
            events,
            vec![durable_progress(2, 49), durable_progress(1, 80)]
        );
        assert_eq!(dropped, 0);
    }

    #[test]
    fn a_flood_of_changes_drops_the_oldest_and_counts() {
        let outbox = Outbox::new(4);
        for id in 0..10 {
            outbox.push(change(id));
        }
        let (events, dropped) = outbox.take();
        assert_eq!(events, (6..10).map(change).collect::<Vec<_>>());
        assert_eq!(dropped, 6);
    }
}
