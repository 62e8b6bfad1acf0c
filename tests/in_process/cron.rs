//! The cron parser: every rule, leap days, month ends, names, steps, the
//! day-of-month/day-of-week rule, and properties over random input.

use proptest::prelude::*;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::scheduler::Cron;

/// A UTC date and time.
fn at(year: i64, month: u32, day: u32, hour: u32, minute: u32) -> Timestamp {
    Timestamp::from_utc(year, month, day, hour, minute, 0).expect("a valid date")
}

fn cron(text: &str) -> Cron {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The next `n` runs after `from`.
fn runs(text: &str, from: Timestamp, n: usize) -> Vec<Timestamp> {
    let cron = cron(text);
    let mut out = Vec::new();
    let mut t = from;
    for _ in 0..n {
        t = cron.next_after(t).expect("fires");
        out.push(t);
    }
    out
}

fn error(text: &str) -> (String, String) {
    let error = text.parse::<Cron>().expect_err(text);
    (error.field.to_owned(), error.reason)
}

#[test]
fn basics() {
    let t = at(2026, 3, 10, 12, 7);
    assert_eq!(
        runs("*/5 * * * *", t, 2),
        vec![at(2026, 3, 10, 12, 10), at(2026, 3, 10, 12, 15)]
    );
    assert_eq!(runs("0 * * * *", t, 1), vec![at(2026, 3, 10, 13, 0)]);
    assert_eq!(
        runs("30 2 * * *", t, 2),
        vec![at(2026, 3, 11, 2, 30), at(2026, 3, 12, 2, 30)]
    );
    assert_eq!(
        runs("0 0 1 * *", t, 2),
        vec![at(2026, 4, 1, 0, 0), at(2026, 5, 1, 0, 0)]
    );
    assert_eq!(
        runs("15,45 9-10 * * *", t, 4),
        vec![
            at(2026, 3, 11, 9, 15),
            at(2026, 3, 11, 9, 45),
            at(2026, 3, 11, 10, 15),
            at(2026, 3, 11, 10, 45),
        ]
    );
}

#[test]
fn next_after_is_strictly_after() {
    let t = at(2026, 3, 10, 12, 10);
    assert_eq!(
        cron("*/5 * * * *").next_after(t),
        Some(at(2026, 3, 10, 12, 15))
    );
    let mid_minute = Timestamp::from_millis(t.as_millis() + 30_000);
    assert_eq!(
        cron("* * * * *").next_after(mid_minute),
        Some(at(2026, 3, 10, 12, 11))
    );
}

#[test]
fn steps_on_ranges_start_at_the_range() {
    let t = at(2026, 1, 1, 0, 0);
    let days: Vec<u32> = runs("0 0 1-30/7 * *", t, 5)
        .into_iter()
        .map(|r| ((r.as_millis() - at(2026, 1, 1, 0, 0).as_millis()) / 86_400_000 + 1) as u32)
        .collect();
    assert_eq!(
        days,
        vec![8, 15, 22, 29, 32],
        "1st excluded (not strictly after), then 8, 15, 22, 29, Feb 1"
    );
    assert_eq!(
        runs("10-20/5 * * * *", at(2026, 1, 1, 0, 0), 3),
        vec![
            at(2026, 1, 1, 0, 10),
            at(2026, 1, 1, 0, 15),
            at(2026, 1, 1, 0, 20),
        ]
    );
}

#[test]
fn names_are_case_insensitive_and_sunday_is_0_or_7() {
    let t = at(2026, 11, 30, 0, 0); // a Monday
    let sunday = vec![at(2026, 12, 6, 9, 0)];
    assert_eq!(runs("0 9 * * 0", t, 1), sunday);
    assert_eq!(runs("0 9 * * 7", t, 1), sunday);
    assert_eq!(runs("0 9 * * SUN", t, 1), sunday);
    assert_eq!(runs("0 9 * * sun", t, 1), sunday);
    assert_eq!(
        runs("0 9 * * Fri-sat", t, 2),
        vec![at(2026, 12, 4, 9, 0), at(2026, 12, 5, 9, 0)]
    );
    assert_eq!(
        runs("0 0 1 jan,JUL *", t, 2),
        vec![at(2027, 1, 1, 0, 0), at(2027, 7, 1, 0, 0)]
    );
    assert_eq!(runs("0 0 * * 5-7", t, 9), runs("0 0 * * FRI,SAT,SUN", t, 9));
}

#[test]
fn day_of_month_or_day_of_week_when_neither_is_star() {
    // 2026-06: the 1st is a Monday; Mondays are 1, 8, 15, 22, 29.
    let t = at(2026, 5, 31, 12, 0);
    let got = runs("0 0 1,15 * WED", t, 6);
    assert_eq!(
        got,
        vec![
            at(2026, 6, 1, 0, 0),
            at(2026, 6, 3, 0, 0),
            at(2026, 6, 10, 0, 0),
            at(2026, 6, 15, 0, 0),
            at(2026, 6, 17, 0, 0),
            at(2026, 6, 24, 0, 0),
        ]
    );
}

#[test]
fn both_must_match_when_either_starts_with_star() {
    let t = at(2026, 5, 31, 12, 0);
    // Mondays on odd days: June 1, 15, 29.
    assert_eq!(
        runs("0 0 */2 * 1", t, 3),
        vec![
            at(2026, 6, 1, 0, 0),
            at(2026, 6, 15, 0, 0),
            at(2026, 6, 29, 0, 0)
        ]
    );
    // Every Monday.
    assert_eq!(
        runs("0 0 * * 1", t, 2),
        vec![at(2026, 6, 1, 0, 0), at(2026, 6, 8, 0, 0)]
    );
    // Day 13 on Fridays only (dow starts with */...): Friday the 13th.
    assert_eq!(
        runs("0 0 13 * */5", at(2026, 1, 1, 0, 0), 1),
        vec![at(2026, 2, 13, 0, 0)]
    );
}

#[test]
fn leap_days_and_month_ends() {
    assert_eq!(
        runs("0 0 29 2 *", at(2026, 1, 1, 0, 0), 2),
        vec![at(2028, 2, 29, 0, 0), at(2032, 2, 29, 0, 0)]
    );
    // 2100 is not a leap year: the gap is eight years.
    assert_eq!(
        runs("0 0 29 2 *", at(2097, 1, 1, 0, 0), 1),
        vec![at(2104, 2, 29, 0, 0)]
    );
    // The 31st skips short months.
    assert_eq!(
        runs("0 0 31 * *", at(2026, 1, 31, 1, 0), 3),
        vec![
            at(2026, 3, 31, 0, 0),
            at(2026, 5, 31, 0, 0),
            at(2026, 7, 31, 0, 0),
        ]
    );
    // A Sunday the 29th of February (`*/7` is Sunday and starts with `*`: both must
    // match): 2032, then 2060, 28 years on.
    assert_eq!(
        runs("0 0 29 2 */7", at(2026, 1, 1, 0, 0), 2),
        vec![at(2032, 2, 29, 0, 0), at(2060, 2, 29, 0, 0)]
    );
    // Mondays on the 1st/8th/.../29th of August can be 11 years apart.
    assert_eq!(
        runs("0 0 */7 8 1", at(2022, 8, 29, 23, 59), 1),
        vec![at(2033, 8, 1, 0, 0)]
    );
    // Across the year's end.
    assert_eq!(
        runs("59 23 31 12 *", at(2026, 12, 31, 23, 59), 1),
        vec![at(2027, 12, 31, 23, 59)]
    );
}

#[test]
fn every_error_names_its_field() {
    let cases = [
        ("* * * *", "expression", "5 fields"),
        ("* * * * * *", "expression", "5 fields"),
        ("60 * * * *", "minute", "outside 0-59"),
        ("* 24 * * *", "hour", "outside 0-23"),
        ("* * 0 * *", "day of month", "outside 1-31"),
        ("* * * 13 *", "month", "outside 1-12"),
        ("* * * * 8", "day of week", "outside 0-7"),
        ("5-1 * * * *", "minute", "downwards"),
        ("5/10 * * * *", "minute", "needs * or a range"),
        ("*/0 * * * *", "minute", "at least 1"),
        ("* * * foo *", "month", "not a number or a name"),
        ("* * * * funday", "day of week", "not a number or a name"),
        ("1,,2 * * * *", "minute", "empty"),
        ("0 0 30 2 *", "day of month", "never fires"),
        ("0 0 31 4,6,9,11 *", "day of month", "never fires"),
        ("x * * * *", "minute", "not a number"),
    ];
    for (text, field, fragment) in cases {
        let (got_field, reason) = error(text);
        assert_eq!(got_field, field, "{text}: {reason}");
        assert!(reason.contains(fragment), "{text}: {reason}");
    }
    assert!(
        "5-5 * * * *".parse::<Cron>().is_ok(),
        "a one-value range is fine"
    );
    assert!(
        "0 0 31 4 MON".parse::<Cron>().is_ok(),
        "with OR days, Mondays in April fire"
    );
}

proptest! {
    #[test]
    fn the_parser_never_panics(text in "\\PC{0,40}") {
        let _ = text.parse::<Cron>();
    }

    #[test]
    fn the_parser_never_panics_on_cron_like_input(
        fields in proptest::collection::vec("[0-9*/,a-zA-Z-]{1,8}", 0..7)
    ) {
        let _ = fields.join(" ").parse::<Cron>();
    }

    #[test]
    fn next_after_is_later_and_matches(
        minute in prop_oneof![Just("*".to_owned()), (0u32..60).prop_map(|m| m.to_string()), (1u32..30).prop_map(|s| format!("*/{s}"))],
        hour in prop_oneof![Just("*".to_owned()), (0u32..24).prop_map(|h| h.to_string()), (0u32..12).prop_map(|h| format!("{h}-{}", h + 6))],
        dom in prop_oneof![Just("*".to_owned()), (1u32..32).prop_map(|d| d.to_string()), (1u32..10).prop_map(|s| format!("*/{s}"))],
        month in prop_oneof![Just("*".to_owned()), (1u32..13).prop_map(|m| m.to_string())],
        dow in prop_oneof![Just("*".to_owned()), (0u32..8).prop_map(|d| d.to_string()), Just("MON-FRI".to_owned())],
        start in 0i64..4_102_444_800_000,
    ) {
        let text = format!("{minute} {hour} {dom} {month} {dow}");
        if let Ok(cron) = text.parse::<Cron>() {
            let t = Timestamp::from_millis(start);
            let next = cron.next_after(t).expect("a parsed expression fires");
            prop_assert!(next > t);
            prop_assert!(cron.matches(next), "{text}: {next:?}");
            prop_assert_eq!(next.as_millis() % 60_000, 0);
            // Nothing matches in between, checked over the first day after t.
            let mut probe = (start / 60_000 + 1) * 60_000;
            while probe < next.as_millis() && probe < start + 86_400_000 {
                prop_assert!(!cron.matches(Timestamp::from_millis(probe)), "{text}: skipped {probe}");
                probe += 60_000;
            }
        }
    }
}
