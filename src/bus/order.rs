//! One order of publication for the whole bus, and the writers' place in it.
//!
//! Every publication takes a place in line ([`Order::line_up`]), and events are
//! delivered strictly in the order of their places, one batch at a time, by one thread
//! at a time: whoever finds nobody delivering delivers everything in line, its own
//! batch and those that lined up meanwhile, and the others wait until theirs has been
//! delivered. A write to `raw.db` lines its changes up while it still holds the lock
//! that ordered its commit, so the bus delivers changes in the order they were
//! committed, whatever threads wrote them. Compared with delivering on each writer's
//! thread after its commit (what the bus did before), two writers can no longer cross
//! between a commit and its events: a runner that claims a job the moment it is
//! enqueued cannot be heard running before the job is heard queued.
//!
//! A handler that publishes (or writes) while it runs is not waited for: its batch
//! goes in line after the one being delivered, and the delivering thread delivers it
//! next. A thread inside a handler never waits here, so handlers can publish without
//! deadlocking, on this bus or another.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::event::Event;
use crate::locks::lock;

/// What one publication delivers: one event, or a commit's changes.
pub(super) enum Batch {
    One(Event),
    Many(Vec<Event>),
}

impl Batch {
    fn into_events(self) -> impl Iterator<Item = Event> {
        let (one, many) = match self {
            Batch::One(event) => (Some(event), Vec::new()),
            Batch::Many(events) => (None, events),
        };
        one.into_iter().chain(many)
    }
}

/// A place in line, for [`Order::deliver`].
#[must_use = "a place in line is delivered by Order::deliver"]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place(u64);

#[derive(Default)]
pub(super) struct Order {
    // Mutex: held only to line up, to take the next batch and to count one delivered;
    // never while a handler runs.
    state: Mutex<State>,
    // Signalled when a batch was delivered or the deliverer stopped, for the writers
    // waiting for theirs.
    delivered: Condvar,
}

#[derive(Default)]
struct State {
    /// Batches in line, oldest first.
    line: VecDeque<Batch>,
    /// Places given so far.
    given: u64,
    /// Batches delivered so far: place `n` is delivered once `delivered > n`.
    delivered: u64,
    /// Whether a thread is delivering.
    delivering: bool,
    /// Threads waiting for their place to be delivered.
    waiting: usize,
}

thread_local! {
    // Whether this thread is delivering a bus's events (so possibly inside a handler):
    // such a thread never waits for another deliverer.
    static DELIVERING: Cell<bool> = const { Cell::new(false) };
}

impl Order {
    /// Takes the next place in line for `batch`.
    pub(super) fn line_up(&self, batch: Batch) -> Place {
        lock(&self.state).line_up(batch)
    }

    /// Delivers `event` in its place in line: at once on this thread when nobody is
    /// delivering and nothing is in line (the common case: no line is kept), else as
    /// [`deliver`](Order::deliver) does.
    pub(super) fn publish(&self, event: Event, mut to: impl FnMut(Event)) {
        let mut state = lock(&self.state);
        if state.delivering || !state.line.is_empty() {
            let place = state.line_up(Batch::One(event));
            drop(state);
            return self.deliver(place, to);
        }
        state.given += 1;
        state.delivering = true;
        drop(state);
        let guard = Delivering::start(self);
        to(event);
        let mut state = lock(&self.state);
        state.delivered += 1;
        guard.finish();
        state.delivering = false;
        if !state.line.is_empty() {
            // Lined up meanwhile (by a handler, or by threads now waiting): theirs next.
            state = self.deliver_all(state, &mut to);
        }
        if state.waiting > 0 {
            self.delivered.notify_all();
        }
    }

    /// Returns once the batch at `place` was delivered (by this thread, with everything
    /// in line before and after it, if nobody else is delivering), or at once when this
    /// thread is itself delivering (a handler that published): then the thread
    /// delivering delivers it after the current batch.
    pub(super) fn deliver(&self, place: Place, mut to: impl FnMut(Event)) {
        let mut state = lock(&self.state);
        loop {
            if state.delivered > place.0 {
                return;
            }
            if !state.delivering {
                state = self.deliver_all(state, &mut to);
                continue;
            }
            if DELIVERING.with(Cell::get) {
                return;
            }
            state.waiting += 1;
            state = self
                .delivered
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state.waiting -= 1;
        }
    }

    /// Delivers every batch in line, those lined up meanwhile included.
    fn deliver_all<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        to: &mut impl FnMut(Event),
    ) -> MutexGuard<'a, State> {
        state.delivering = true;
        let guard = Delivering::start(self);
        while let Some(batch) = state.line.pop_front() {
            drop(state);
            for event in batch.into_events() {
                to(event);
            }
            state = lock(&self.state);
            state.delivered += 1;
            if state.waiting > 0 {
                self.delivered.notify_all();
            }
        }
        state.delivering = false;
        guard.finish();
        state
    }
}

impl State {
    /// Takes the next place in line for `batch`.
    fn line_up(&mut self, batch: Batch) -> Place {
        self.line.push_back(batch);
        let place = Place(self.given);
        self.given += 1;
        place
    }
}

/// This thread delivering: marks it so (a handler's publication then never waits)
/// and, if delivering unwinds, gives the line back. Handlers run inside
/// `catch_unwind` and a stream's send does not panic; should anything else, the line
/// must not stay taken for good.
struct Delivering<'a> {
    order: &'a Order,
    outer: bool,
    done: bool,
}

impl<'a> Delivering<'a> {
    fn start(order: &'a Order) -> Self {
        let outer = DELIVERING.with(|delivering| delivering.replace(true));
        Delivering {
            order,
            outer,
            done: false,
        }
    }

    /// Delivering ended as it should (the caller holds the line's lock and clears
    /// `delivering` itself).
    fn finish(mut self) {
        self.done = true;
        DELIVERING.with(|delivering| delivering.set(self.outer));
    }
}

impl Drop for Delivering<'_> {
    fn drop(&mut self) {
        if !self.done {
            DELIVERING.with(|delivering| delivering.set(self.outer));
            let mut state = lock(&self.order.state);
            // What was taken out of line is lost with the panic; count it delivered so
            // that nobody waits for it.
            state.delivered = state.given - state.line.len() as u64;
            state.delivering = false;
            self.order.delivered.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::tests::sample as event;
    use std::sync::Arc;

    fn id(event: &Event) -> i64 {
        match event {
            Event::JobStateChanged(change) => change.id.raw(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn batches_are_delivered_in_the_order_they_lined_up() {
        let order = Order::default();
        let first = order.line_up(Batch::One(event(1)));
        let second = order.line_up(Batch::Many(vec![event(2), event(3)]));
        let mut heard = Vec::new();
        // The second place's writer finds nobody delivering: it delivers both, in line.
        order.deliver(second, |event| heard.push(id(&event)));
        assert_eq!(heard, vec![1, 2, 3]);
        // The first place is already delivered.
        order.deliver(first, |event| heard.push(id(&event)));
        assert_eq!(heard, vec![1, 2, 3]);
    }

    #[test]
    fn a_publication_from_inside_delivery_goes_next_without_waiting() {
        let order = Arc::new(Order::default());
        let heard = Arc::new(Mutex::new(Vec::new()));
        let place = order.line_up(Batch::One(event(1)));
        let (inner, sink) = (order.clone(), heard.clone());
        order.deliver(place, move |event| {
            let n = id(&event);
            sink.lock().unwrap().push(n);
            if n < 3 {
                // As a handler that writes: it lines up and returns at once.
                let again = inner.line_up(Batch::One(self::event(n + 1)));
                let never = sink.clone();
                inner.deliver(again, move |event| never.lock().unwrap().push(-id(&event)));
                sink.lock().unwrap().push(100 + n);
            }
        });
        assert_eq!(*heard.lock().unwrap(), vec![1, 101, 2, 102, 3]);
    }

    #[test]
    fn writers_on_many_threads_are_heard_in_line_and_each_returns_after_its_own() {
        let order = Arc::new(Order::default());
        let heard = Arc::new(Mutex::new(Vec::new()));
        let lined = Arc::new(Mutex::new(()));
        std::thread::scope(|scope| {
            for thread in 0..4 {
                let (order, heard, lined) = (order.clone(), heard.clone(), lined.clone());
                scope.spawn(move || {
                    for n in 0..500 {
                        let value = thread * 1000 + n;
                        let to = |event: Event| heard.lock().unwrap().push(id(&event));
                        if n % 2 == 0 {
                            // As a commit: the place is taken under the writers' lock.
                            let place = {
                                let _commit = lined.lock().unwrap();
                                heard.lock().unwrap().push(-value - 1);
                                order.line_up(Batch::One(event(value)))
                            };
                            order.deliver(place, to);
                        } else {
                            // As a plain publication, at once when nobody delivers.
                            let _commit = lined.lock().unwrap();
                            heard.lock().unwrap().push(-value - 1);
                            order.publish(event(value), to);
                        }
                        let heard = heard.lock().unwrap();
                        assert!(heard.contains(&value), "returned before its own was heard");
                    }
                });
            }
        });
        let heard = heard.lock().unwrap();
        let committed: Vec<i64> = heard.iter().filter(|n| **n < 0).map(|n| -n - 1).collect();
        let delivered: Vec<i64> = heard.iter().copied().filter(|n| *n >= 0).collect();
        assert_eq!(
            delivered, committed,
            "delivered in the order of the commits"
        );
    }
}
