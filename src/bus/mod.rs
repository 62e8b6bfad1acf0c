//! The event bus: typed events, handlers that never miss one, streams that never block.
//!
//! Two kinds of listener, for two kinds of consumer:
//!
//! - **Handlers** are internal components. They run inline, one event at a time, on
//!   the publishing thread (or on another publisher's, which delivers what lined up
//!   behind its own); every matching event reaches every handler. A handler that
//!   returns an error or panics is logged and skipped, and the others still run. Keep
//!   handlers quick: hand slow work to a task, and never wait in one for a thread that
//!   may be publishing.
//! - **Streams** feed clients (the webview). Each has its own bounded buffer; when its
//!   consumer falls behind, the oldest events are dropped and counted
//!   ([`EventStream::dropped`]). A slow stream never blocks the publisher or the other
//!   streams. Compared with a plain `tokio::sync::broadcast` receiver, which this wraps,
//!   a stream keeps the lost count instead of returning it as an error.
//!
//! Every handler and every stream hears the events in one order: the order they were
//! published in, and for the changes of jobs, the order they were committed in
//! (`order`), whatever threads wrote them. A job is never heard in a later state before
//! an earlier one.

mod event;
mod order;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::broadcast;

use crate::locks::{lock, read, write};
use crate::model::sanitize_error;
use crate::panics::panic_message;
pub(crate) use order::Place;
use order::{Batch, Order};

pub use event::{
    AccountDisconnected, Event, JobDeleted, JobLogged, JobProgress, JobStateChanged,
    JobStepChanged, JobsPruned, KindPaused, LocalJobChanged, LocalJobProgress, MessageEvent,
    MessageStage, PluginHealth, ReadStateChanged, ScheduleChanged, SyncFinished, SyncProgress,
};

/// What a handler returns; an error is logged and otherwise ignored.
pub type HandlerResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

type HandlerFn = dyn Fn(&Event) -> HandlerResult + Send + Sync;

/// Identifies a handler, for [`EventBus::remove_handler`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandlerId(u64);

struct Handler {
    id: HandlerId,
    name: String,
    run: Arc<HandlerFn>,
}

/// The in-process event bus. Cheap to clone; clones share listeners.
///
/// ```
/// use tauri_plugin_jobs::bus::{Event, EventBus};
///
/// let bus = EventBus::new();
/// let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
/// let counter = seen.clone();
/// bus.add_handler("count", move |_event: &Event| {
///     counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///     Ok(())
/// });
/// ```
#[derive(Clone, Default)]
pub struct EventBus {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    // RwLock: publishing only reads the handler list; adding a handler is rare.
    handlers: RwLock<Vec<Handler>>,
    // Mutex: publish prunes closed streams while it walks the list.
    streams: Mutex<Vec<broadcast::Sender<Arc<Event>>>>,
    next_handler: AtomicU64,
    // The one order every listener hears events in (see `order`).
    order: Order,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus").finish_non_exhaustive()
    }
}

impl EventBus {
    /// An empty bus.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a handler that sees every event. Returns its id.
    pub fn add_handler<F>(&self, name: impl Into<String>, handler: F) -> HandlerId
    where
        F: Fn(&Event) -> HandlerResult + Send + Sync + 'static,
    {
        // Relaxed: the counter only has to hand out distinct numbers.
        let id = HandlerId(self.inner.next_handler.fetch_add(1, Ordering::Relaxed));
        let handler = Handler {
            id,
            name: name.into(),
            run: Arc::new(handler),
        };
        write(&self.inner.handlers).push(handler);
        id
    }

    /// Removes a handler; returns whether it was there.
    pub fn remove_handler(&self, id: HandlerId) -> bool {
        let mut handlers = write(&self.inner.handlers);
        let before = handlers.len();
        handlers.retain(|handler| handler.id != id);
        handlers.len() != before
    }

    /// Opens a stream that keeps the newest `capacity` events its consumer has not
    /// taken yet, rounded up to a power of two (at least 1): `subscribe(1000)` keeps
    /// 1024. Older ones are dropped and counted.
    #[must_use]
    pub fn subscribe(&self, capacity: usize) -> EventStream {
        let (sender, receiver) = broadcast::channel(capacity.max(1));
        lock(&self.inner.streams).push(sender);
        EventStream {
            receiver,
            dropped: 0,
        }
    }

    /// Publishes an event to every handler, then to every stream. Never blocks on a
    /// listener.
    ///
    /// Every listener hears the bus's events in one order, the order they were
    /// published in (a write's changes in the order they were committed), one event at
    /// a time: when another thread is delivering, this call waits until it has
    /// delivered this event too, unless it is made from inside a handler, which
    /// returns at once (the event is heard right after the current one).
    pub fn publish(&self, event: impl Into<Event>) {
        self.inner
            .order
            .publish(event.into(), |event| self.publish_event(event));
    }

    /// Takes the next place in the bus's order for `events`: call it while holding
    /// the lock that ordered the write they come from, then [`deliver`](Self::deliver)
    /// the place once that lock is released.
    pub(crate) fn line_up(&self, events: Vec<Event>) -> Place {
        self.inner.order.line_up(Batch::Many(events))
    }

    /// Returns once what was lined up at `place` has been heard (see
    /// [`publish`](Self::publish)).
    pub(crate) fn deliver(&self, place: Place) {
        self.inner
            .order
            .deliver(place, |event| self.publish_event(event));
    }

    // Not generic: one copy of it in the binary, not one per type of event.
    fn publish_event(&self, event: Event) {
        let event = Arc::new(event);
        // Clone the handler list out of the lock so a handler may add or remove
        // handlers without deadlocking.
        let handlers: Vec<(String, Arc<HandlerFn>)> = read(&self.inner.handlers)
            .iter()
            .map(|handler| (handler.name.clone(), handler.run.clone()))
            .collect();
        for (name, run) in handlers {
            match catch_unwind(AssertUnwindSafe(|| run(&event))) {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    let error = sanitize_error(&error.to_string());
                    tracing::warn!(handler = %name, event = event.name(), %error, "event handler failed");
                }
                Err(panic) => {
                    tracing::error!(
                        handler = %name,
                        event = event.name(),
                        panic = %sanitize_error(&panic_message(&*panic)),
                        "event handler panicked"
                    );
                }
            }
        }
        let mut streams = lock(&self.inner.streams);
        // A send error means every receiver of that stream is gone: forget it.
        streams.retain(|sender| sender.send(event.clone()).is_ok());
    }

    /// How many streams are open.
    #[must_use]
    pub fn stream_count(&self) -> usize {
        let mut streams = lock(&self.inner.streams);
        streams.retain(|sender| sender.receiver_count() > 0);
        streams.len()
    }
}

/// A bounded stream of events. When the consumer falls behind, the oldest events are
/// dropped and counted.
#[derive(Debug)]
pub struct EventStream {
    receiver: broadcast::Receiver<Arc<Event>>,
    dropped: u64,
}

impl EventStream {
    /// Waits for the next event. `None` once the bus is gone.
    pub async fn next(&mut self) -> Option<Arc<Event>> {
        loop {
            match self.receiver.recv().await {
                Ok(event) => return Some(event),
                Err(broadcast::error::RecvError::Lagged(lost)) => self.dropped += lost,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next event if one is buffered, without waiting.
    pub fn try_next(&mut self) -> Option<Arc<Event>> {
        loop {
            match self.receiver.try_recv() {
                Ok(event) => return Some(event),
                Err(broadcast::error::TryRecvError::Lagged(lost)) => self.dropped += lost,
                Err(_) => return None,
            }
        }
    }

    /// How many events this stream lost because its consumer fell behind.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{JobId, JobStatus, Timestamp};
    use std::sync::atomic::AtomicUsize;

    pub(super) fn sample(id: i64) -> Event {
        Event::JobStateChanged(JobStateChanged {
            id: JobId::from_raw(id),
            kind: "k".into(),
            from: None,
            to: JobStatus::Queued,
            attempt: 0,
            at: Timestamp::EPOCH,
        })
    }

    #[test]
    fn failing_and_panicking_handlers_do_not_stop_the_others() {
        let bus = EventBus::new();
        let seen = Arc::new(AtomicUsize::new(0));
        bus.add_handler("fails", |_| Err("nope".into()));
        bus.add_handler("panics", |_| panic!("boom"));
        let counter = seen.clone();
        bus.add_handler("counts", move |_| {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        for id in 0..3 {
            bus.publish(sample(id));
        }
        assert_eq!(seen.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn removed_handler_sees_nothing() {
        let bus = EventBus::new();
        let seen = Arc::new(AtomicUsize::new(0));
        let counter = seen.clone();
        let id = bus.add_handler("counts", move |_| {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        bus.publish(sample(1));
        assert!(bus.remove_handler(id));
        bus.publish(sample(2));
        assert_eq!(seen.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn stalled_stream_drops_oldest_and_counts_while_others_get_everything() {
        let bus = EventBus::new();
        let mut stalled = bus.subscribe(4);
        let mut live = bus.subscribe(64);
        let mut got = Vec::new();
        for id in 0..10 {
            bus.publish(sample(id));
            while let Some(event) = live.try_next() {
                got.push(event);
            }
        }
        assert_eq!(got.len(), 10);
        let mut kept = Vec::new();
        while let Some(event) = stalled.try_next() {
            if let Event::JobStateChanged(change) = &*event {
                kept.push(change.id.raw());
            }
        }
        assert_eq!(kept, vec![6, 7, 8, 9], "the newest four are kept");
        assert_eq!(stalled.dropped(), 6);
    }

    #[test]
    fn dropped_streams_are_forgotten() {
        let bus = EventBus::new();
        let stream = bus.subscribe(1);
        assert_eq!(bus.stream_count(), 1);
        drop(stream);
        bus.publish(sample(1));
        assert_eq!(bus.stream_count(), 0);
    }
}
