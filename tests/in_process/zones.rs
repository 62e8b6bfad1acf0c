//! Cron schedules on a wall clock, on real daylight-saving transitions of 2026: Europe/
//! Berlin and America/New_York (an hour, spring and autumn) and Australia/Lord_Howe (30
//! minutes). A slot in a skipped hour runs once, right after the jump; a slot in a
//! repeated hour runs once; intervals stay in absolute time; a schedule on the
//! machine's zone follows it when it changes.

use crate::common;

use std::time::Duration;

use common::Harness;
use tauri_plugin_jobs::clock::{Clock, TimeZone, Timestamp};
use tauri_plugin_jobs::queue::{JobFilter, JobStatus};
use tauri_plugin_jobs::scheduler::{Cron, ScheduleSpec, Scheduler};
use tauri_plugin_jobs::Error;

const HOUR: Duration = Duration::from_secs(3600);

/// An instant written in UTC, `"2026-03-29 01:00"`.
fn utc(text: &str) -> Timestamp {
    let at: jiff::Timestamp = format!("{text}:00Z").replace(' ', "T").parse().unwrap();
    Timestamp::from_millis(at.as_millisecond())
}

fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap()
}

/// The slots of `expression` in `zone` after `from`, `count` of them, in UTC.
fn slots(expression: &str, zone_name: &str, from: &str, count: usize) -> Vec<Timestamp> {
    let cron: Cron = expression.parse().unwrap();
    let zone = zone(zone_name);
    let mut at = utc(from);
    (0..count)
        .map(|_| {
            at = cron.next_after_in(at, &zone).unwrap();
            at
        })
        .collect()
}

#[test]
fn berlin_spring_forward_runs_a_skipped_slot_once_at_the_jump() {
    // 2026-03-29: 02:00 CET becomes 03:00 CEST at 01:00 UTC.
    assert_eq!(
        slots("30 2 * * *", "Europe/Berlin", "2026-03-28 12:00", 2),
        [utc("2026-03-29 01:00"), utc("2026-03-30 00:30")]
    );
    // Four slots in the skipped hour: one run.
    assert_eq!(
        slots("*/15 2 * * *", "Europe/Berlin", "2026-03-28 12:00", 2),
        [utc("2026-03-29 01:00"), utc("2026-03-30 00:00")]
    );
}

#[test]
fn berlin_fall_back_runs_a_repeated_slot_once() {
    // 2026-10-25: 03:00 CEST becomes 02:00 CET at 01:00 UTC; 02:00-03:00 comes twice.
    assert_eq!(
        slots("30 2 * * *", "Europe/Berlin", "2026-10-24 12:00", 2),
        [utc("2026-10-25 00:30"), utc("2026-10-26 01:30")]
    );
    // Hourly: 02:00 runs the first time round only, then 03:00 (CET).
    assert_eq!(
        slots("0 * * * *", "Europe/Berlin", "2026-10-24 23:30", 2),
        [utc("2026-10-25 00:00"), utc("2026-10-25 02:00")]
    );
}

#[test]
fn new_york_both_ways() {
    // 2026-03-08: 02:00 EST becomes 03:00 EDT at 07:00 UTC.
    assert_eq!(
        slots("30 2 * * *", "America/New_York", "2026-03-07 12:00", 2),
        [utc("2026-03-08 07:00"), utc("2026-03-09 06:30")]
    );
    // 2026-11-01: 02:00 EDT becomes 01:00 EST at 06:00 UTC; 01:00-02:00 comes twice.
    assert_eq!(
        slots("30 1 * * *", "America/New_York", "2026-10-31 12:00", 2),
        [utc("2026-11-01 05:30"), utc("2026-11-02 06:30")]
    );
}

#[test]
fn lord_howe_shifts_by_half_an_hour() {
    // 2026-10-04: 02:00 (+10:30) becomes 02:30 (+11:00) at 15:30 UTC the day before.
    assert_eq!(
        slots("15 2 * * *", "Australia/Lord_Howe", "2026-10-03 00:00", 2),
        [utc("2026-10-03 15:30"), utc("2026-10-04 15:15")]
    );
    // 2026-04-05: 02:00 (+11:00) becomes 01:30 (+10:30) at 15:00 UTC the day before;
    // 01:30-02:00 comes twice.
    assert_eq!(
        slots("45 1 * * *", "Australia/Lord_Howe", "2026-04-04 00:00", 2),
        [utc("2026-04-04 14:45"), utc("2026-04-05 15:15")]
    );
}

#[test]
fn utc_and_a_named_zone_agree_away_from_transitions() {
    let cron: Cron = "0 8 * * 1-5".parse().unwrap();
    let from = utc("2026-07-01 12:00");
    assert_eq!(
        cron.next_after_in(from, &TimeZone::UTC),
        cron.next_after(from)
    );
    // 08:00 in Berlin in summer is 06:00 UTC.
    assert_eq!(
        cron.next_after_in(from, &zone("Europe/Berlin")),
        Some(utc("2026-07-02 06:00"))
    );
}

#[test]
fn an_interval_stays_in_absolute_time_across_a_transition() {
    let h = Harness::new();
    h.clock.set(utc("2026-03-28 23:30"));
    h.clock.set_local_zone(zone("Europe/Berlin"));
    let scheduler = Scheduler::new(h.queue.clone());
    let hourly = scheduler
        .upsert(ScheduleSpec::every("hourly", "tick", HOUR))
        .unwrap();
    assert_eq!(hourly.next_run, utc("2026-03-29 00:30"));
    for expected in ["2026-03-29 00:30", "2026-03-29 01:30", "2026-03-29 02:30"] {
        h.clock.set(utc(expected));
        assert_eq!(scheduler.tick(h.clock.now()).unwrap().len(), 1);
    }
    assert_eq!(
        scheduler.get("hourly").unwrap().unwrap().next_run,
        utc("2026-03-29 03:30")
    );
}

#[test]
fn a_local_schedule_follows_the_machine_to_another_zone() {
    let h = Harness::new();
    h.clock.set(utc("2026-06-01 12:00"));
    h.clock.set_local_zone(zone("Europe/Berlin"));
    let scheduler = Scheduler::new(h.queue.clone());
    let digest = scheduler
        .upsert(
            ScheduleSpec::cron("digest", "digest", "0 8 * * *")
                .unwrap()
                .zone("local"),
        )
        .unwrap();
    assert_eq!(digest.zone.as_deref(), Some("local"));
    assert_eq!(digest.next_run, utc("2026-06-02 06:00"), "08:00 in Berlin");

    // The user flies to New York; the next tick moves the run to 08:00 there, and
    // runs nothing on the way.
    h.clock.set_local_zone(zone("America/New_York"));
    h.clock.set(utc("2026-06-02 07:00"));
    assert!(scheduler.tick(h.clock.now()).unwrap().is_empty());
    assert_eq!(
        scheduler.get("digest").unwrap().unwrap().next_run,
        utc("2026-06-02 12:00"),
        "08:00 in New York"
    );
    h.clock.set(utc("2026-06-02 12:00"));
    assert_eq!(scheduler.tick(h.clock.now()).unwrap().len(), 1);
    assert_eq!(
        h.queue
            .list(&JobFilter::new().kind("digest").status(JobStatus::Queued))
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_named_zone_stays_put_when_the_machine_moves() {
    let h = Harness::new();
    h.clock.set(utc("2026-06-01 12:00"));
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler
        .upsert(
            ScheduleSpec::cron("berlin", "report", "0 8 * * *")
                .unwrap()
                .zone("Europe/Berlin"),
        )
        .unwrap();
    h.clock.set_local_zone(zone("Asia/Tokyo"));
    scheduler.tick(h.clock.now()).unwrap();
    assert_eq!(
        scheduler.get("berlin").unwrap().unwrap().next_run,
        utc("2026-06-02 06:00")
    );
}

#[test]
fn bad_zones_are_refused_naming_them() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    let unknown = scheduler
        .upsert(
            ScheduleSpec::cron("x", "k", "0 8 * * *")
                .unwrap()
                .zone("Mars/Olympus_Mons"),
        )
        .unwrap_err();
    assert!(matches!(
        unknown,
        Error::InvalidArgument { name: "zone", .. }
    ));
    assert!(
        unknown.to_string().contains("Mars/Olympus_Mons"),
        "{unknown}"
    );
    let on_interval = scheduler
        .upsert(ScheduleSpec::every("y", "k", HOUR).zone("Europe/Berlin"))
        .unwrap_err();
    assert!(
        on_interval.to_string().contains("interval"),
        "{on_interval}"
    );
    // UTC by name is the default.
    let plain = scheduler
        .upsert(
            ScheduleSpec::cron("z", "k", "0 8 * * *")
                .unwrap()
                .zone("UTC"),
        )
        .unwrap();
    assert_eq!(plain.zone, None);
}
