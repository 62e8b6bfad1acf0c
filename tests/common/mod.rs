//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tauri_plugin_jobs::bus::{Event, EventBus, JobStateChanged};
use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
use tauri_plugin_jobs::queue::{Queue, QueueOptions};
use tauri_plugin_jobs::random::FixedRandom;

/// A queue on a fresh file, a fake clock at a round time, jitter pinned to 0.
pub struct Harness {
    pub dir: tempfile::TempDir,
    pub clock: FakeClock,
    pub queue: Queue,
    pub events: Arc<Mutex<Vec<JobStateChanged>>>,
}

pub const START: Timestamp = Timestamp::from_millis(1_800_000_000_000);

impl Harness {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let clock = FakeClock::new(START);
        let bus = EventBus::new();
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        bus.add_handler("record", move |event: &Event| {
            if let Event::JobStateChanged(change) = event {
                sink.lock().unwrap().push(change.clone());
            }
            Ok(())
        });
        let queue = Queue::open(
            dir.path().join("raw.db"),
            QueueOptions::new()
                .clock(clock.clone())
                .random(FixedRandom(0.0))
                .bus(bus),
        )
        .expect("open queue");
        Harness {
            dir,
            clock,
            queue,
            events,
        }
    }

    /// Another connection to the same file, sharing the clock.
    pub fn second_queue(&self) -> Queue {
        Queue::open(
            self.dir.path().join("raw.db"),
            QueueOptions::new()
                .clock(self.clock.clone())
                .random(FixedRandom(0.0)),
        )
        .expect("open second queue")
    }

    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    pub fn take_events(&self) -> Vec<JobStateChanged> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

/// Jobs not yet finished (queued or running), of every kind.
pub fn unfinished(queue: &Queue) -> u32 {
    queue
        .counts()
        .expect("counts")
        .iter()
        .filter(|count| !count.status.is_finished())
        .map(|count| count.count)
        .sum()
}
