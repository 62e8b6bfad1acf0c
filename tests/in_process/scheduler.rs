//! Schedules on a fake clock: tests advance the clock and call `tick`.

use crate::common;

use std::time::Duration;

use common::{Harness, START};
use serde_json::json;
use tauri_plugin_jobs::clock::{Clock, Timestamp};
use tauri_plugin_jobs::queue::{JobFilter, JobStatus, Priority, Queue, QueueOptions};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};
use tauri_plugin_jobs::Error;

const MIN: Duration = Duration::from_secs(60);

fn jobs_of(queue: &Queue, kind: &str) -> usize {
    queue
        .list(&JobFilter::new().kind(kind).limit(1000))
        .unwrap()
        .len()
}

fn every_five(name: &str) -> ScheduleSpec {
    ScheduleSpec::every(name, "poll", 5 * MIN).payload(json!({"target": name}))
}

#[test]
fn due_runs_enqueue_once_and_advance_next_run() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    let schedule = scheduler
        .upsert(every_five("inbox").priority(Priority::USER))
        .unwrap();
    assert_eq!(schedule.next_run, START.saturating_add(5 * MIN));

    assert!(scheduler.tick(h.clock.now()).unwrap().is_empty());
    h.advance(5 * MIN);
    let ticked = scheduler.tick(h.clock.now()).unwrap();
    assert_eq!(ticked.len(), 1);
    assert!(ticked[0].created);
    assert_eq!(ticked[0].slot, START.saturating_add(5 * MIN));
    assert!(
        scheduler.tick(h.clock.now()).unwrap().is_empty(),
        "no repeat at the same time"
    );

    let job = h.queue.get(ticked[0].job).unwrap().unwrap();
    assert_eq!(job.kind, "poll");
    assert_eq!(job.payload, json!({"target": "inbox"}));
    assert_eq!(job.priority, Priority::USER);
    let stored = scheduler.get("inbox").unwrap().unwrap();
    assert_eq!(stored.next_run, START.saturating_add(10 * MIN));
    assert_eq!(stored.last_run, Some(h.clock.now()));
    assert_eq!(stored.last_job, Some(ticked[0].job));
}

#[test]
fn a_restart_neither_repeats_nor_skips() {
    let h = Harness::new();
    let path = h.dir.path().join("raw.db");
    Scheduler::new(h.queue.clone())
        .upsert(every_five("inbox"))
        .unwrap();
    h.advance(5 * MIN);
    assert_eq!(
        Scheduler::new(h.queue.clone())
            .tick(h.clock.now())
            .unwrap()
            .len(),
        1
    );

    // A new process on the same file, same instant: nothing to do.
    let reopened = Queue::open(&path, QueueOptions::new().clock(h.clock.clone())).unwrap();
    let scheduler = Scheduler::new(reopened.clone());
    assert!(scheduler.tick(h.clock.now()).unwrap().is_empty());
    h.advance(4 * MIN);
    assert!(scheduler.tick(h.clock.now()).unwrap().is_empty());
    h.advance(MIN);
    assert_eq!(
        scheduler.tick(h.clock.now()).unwrap().len(),
        1,
        "the next slot is not skipped"
    );
    assert_eq!(jobs_of(&reopened, "poll"), 2);
}

#[test]
fn downtime_of_many_periods_collapses_into_one_run() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler.upsert(every_five("inbox")).unwrap();
    h.advance(62 * MIN);
    assert_eq!(scheduler.tick(h.clock.now()).unwrap().len(), 1);
    assert_eq!(jobs_of(&h.queue, "poll"), 1);
    // The phase is kept: slots at 5, 10, ... so the next after 62 is 65.
    assert_eq!(
        scheduler.get("inbox").unwrap().unwrap().next_run,
        START.saturating_add(65 * MIN)
    );
}

#[test]
fn two_schedulers_on_one_file_never_enqueue_a_slot_twice() {
    let h = Harness::new();
    let first = Scheduler::new(h.queue.clone());
    let second = Scheduler::new(h.second_queue());
    first.upsert(every_five("inbox")).unwrap();
    first
        .upsert(ScheduleSpec::cron("nightly", "backfill", "0 3 * * *").unwrap())
        .unwrap();
    for _ in 0..50 {
        h.advance(MIN);
        let now = h.clock.now();
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| first.tick(now).unwrap().len());
            let b = scope.spawn(|| second.tick(now).unwrap().len());
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(a + b <= 2);
    }
    assert_eq!(jobs_of(&h.queue, "poll"), 10, "50 minutes, every 5");
}

#[test]
fn cron_schedules_run_at_their_slots() {
    let h = Harness::new();
    // START is 2027-01-15 08:00 UTC.
    let scheduler = Scheduler::new(h.queue.clone());
    let schedule = scheduler
        .upsert(ScheduleSpec::cron("quarter", "report", "*/15 * * * *").unwrap())
        .unwrap();
    assert_eq!(schedule.next_run, START.saturating_add(15 * MIN));
    assert_eq!(schedule.cron.as_deref(), Some("*/15 * * * *"));
    h.advance(14 * MIN);
    assert!(scheduler.tick(h.clock.now()).unwrap().is_empty());
    h.advance(MIN);
    assert_eq!(scheduler.tick(h.clock.now()).unwrap().len(), 1);
    h.advance(50 * MIN);
    assert_eq!(
        scheduler.tick(h.clock.now()).unwrap().len(),
        1,
        "three missed slots, one run"
    );
    assert_eq!(
        scheduler.get("quarter").unwrap().unwrap().next_run,
        START.saturating_add(75 * MIN)
    );
}

#[test]
fn upsert_keeps_next_run_unless_the_timing_changes() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler.upsert(every_five("inbox")).unwrap();
    h.advance(3 * MIN);
    let changed = scheduler
        .upsert(every_five("inbox").payload(json!({"target": "all"})))
        .unwrap();
    assert_eq!(
        changed.next_run,
        START.saturating_add(5 * MIN),
        "payload change keeps the cadence"
    );
    assert_eq!(changed.payload, json!({"target": "all"}));
    assert_eq!(changed.created_at, START);

    let retimed = scheduler
        .upsert(ScheduleSpec::every("inbox", "poll", 10 * MIN))
        .unwrap();
    assert_eq!(retimed.next_run, h.clock.now().saturating_add(10 * MIN));
    h.advance(MIN);
    let reset = scheduler.reset("inbox").unwrap();
    assert_eq!(reset.next_run, h.clock.now().saturating_add(10 * MIN));
}

#[test]
fn paused_schedules_do_not_run_and_resume_from_now() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler.upsert(every_five("inbox")).unwrap();
    assert!(scheduler.pause("inbox").unwrap().paused);
    h.advance(60 * MIN);
    assert!(scheduler.tick(h.clock.now()).unwrap().is_empty());
    // Upserting a paused schedule keeps it paused.
    assert!(scheduler.upsert(every_five("inbox")).unwrap().paused);
    let resumed = scheduler.resume("inbox").unwrap();
    assert!(!resumed.paused);
    assert_eq!(resumed.next_run, h.clock.now().saturating_add(5 * MIN));
    assert!(
        scheduler.tick(h.clock.now()).unwrap().is_empty(),
        "no burst after a pause"
    );
    assert_eq!(jobs_of(&h.queue, "poll"), 0);
}

#[test]
fn remove_and_list() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler.upsert(every_five("b")).unwrap();
    scheduler.upsert(every_five("a")).unwrap();
    let names: Vec<String> = scheduler
        .list()
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, vec!["a", "b"]);
    assert!(scheduler.remove("a").unwrap());
    assert!(!scheduler.remove("a").unwrap());
    assert_eq!(scheduler.list().unwrap().len(), 1);
    assert!(matches!(
        scheduler.pause("a"),
        Err(Error::ScheduleNotFound(name)) if name == "a"
    ));
}

#[test]
fn a_dedupe_key_skips_runs_while_the_last_job_is_waiting() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler
        .upsert(every_five("inbox").dedupe_key("poll:inbox"))
        .unwrap();
    h.advance(5 * MIN);
    let first = scheduler.tick(h.clock.now()).unwrap();
    h.advance(5 * MIN);
    let second = scheduler.tick(h.clock.now()).unwrap();
    assert!(first[0].created);
    assert!(!second[0].created);
    assert_eq!(first[0].job, second[0].job);
    assert_eq!(jobs_of(&h.queue, "poll"), 1);
}

#[test]
fn bad_schedules_are_refused() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    assert!(matches!(
        scheduler.upsert(ScheduleSpec::every(
            "fast",
            "poll",
            Duration::from_millis(10)
        )),
        Err(Error::InvalidArgument {
            name: "interval",
            ..
        })
    ));
    assert!(matches!(
        scheduler.upsert(ScheduleSpec::every("", "poll", MIN)),
        Err(Error::InvalidArgument { name: "name", .. })
    ));
    let error = ScheduleSpec::cron("x", "poll", "0 0 30 2 *").unwrap_err();
    assert_eq!(error.field, "day of month");
    assert!(scheduler.list().unwrap().is_empty());
}

#[test]
fn scheduled_jobs_publish_events() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler.upsert(every_five("inbox")).unwrap();
    h.take_events();
    h.advance(5 * MIN);
    let ticked = scheduler.tick(h.clock.now()).unwrap();
    let events = h.take_events();
    assert_eq!(events.len(), 1);
    assert_eq!(
        (events[0].id, events[0].to),
        (ticked[0].job, JobStatus::Queued)
    );
}

#[tokio::test]
async fn the_background_loop_ticks_due_schedules() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler.upsert(every_five("inbox")).unwrap();
    h.advance(6 * MIN);
    let mut wake = h.queue.wake_ups();
    scheduler.start();
    tokio::time::timeout(Duration::from_secs(10), wake.changed())
        .await
        .expect("the loop enqueued the due job")
        .unwrap();
    scheduler.stop().await;
    assert_eq!(jobs_of(&h.queue, "poll"), 1);
    let next = scheduler.get("inbox").unwrap().unwrap().next_run;
    assert_eq!(
        next,
        Timestamp::from_millis(START.as_millis() + 10 * 60_000)
    );
}
