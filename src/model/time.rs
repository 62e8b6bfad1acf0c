//! Instants: [`Timestamp`], milliseconds since the Unix epoch in UTC, and the civil
//! calendar arithmetic the cron parser and `Timestamp::from_utc` share.
//!
//! Where the current time comes from is [`crate::clock`]'s business; this file only
//! says what an instant is.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A point in time: milliseconds since the Unix epoch, UTC.
///
/// Stored as an integer in `raw.db`. Milliseconds fit a JavaScript number exactly until
/// the year 287,396, so timestamps cross IPC as plain numbers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Timestamp(i64);

impl Timestamp {
    /// The Unix epoch.
    pub const EPOCH: Timestamp = Timestamp(0);

    /// A timestamp from milliseconds since the Unix epoch.
    #[must_use]
    pub const fn from_millis(millis: i64) -> Self {
        Timestamp(millis)
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// A UTC date and time, or `None` when a part is out of range (month 1-12, day
    /// 1 to the month's length, hour 0-23, minute 0-59, second 0-60).
    ///
    /// ```
    /// use tauri_plugin_jobs::clock::Timestamp;
    /// let t = Timestamp::from_utc(2015, 10, 21, 7, 28, 0).unwrap();
    /// assert_eq!(t.as_millis(), 1_445_412_480_000);
    /// assert_eq!(Timestamp::from_utc(2026, 2, 29, 0, 0, 0), None);
    /// ```
    #[must_use]
    pub fn from_utc(
        year: i64,
        month: u32,
        day: u32,
        hour: u32,
        minute: u32,
        second: u32,
    ) -> Option<Self> {
        let valid = (1..=12).contains(&month)
            && (1..=days_in_month(year, month)).contains(&day)
            && hour < 24
            && minute < 60
            && second <= 60;
        valid.then(|| {
            let days = days_from_civil(year, month, day);
            let seconds =
                ((days * 24 + i64::from(hour)) * 60 + i64::from(minute)) * 60 + i64::from(second);
            Timestamp(seconds.saturating_mul(1000))
        })
    }

    /// This instant moved forward by `duration`, saturating at the end of time.
    #[must_use]
    pub fn saturating_add(self, duration: Duration) -> Self {
        Timestamp(self.0.saturating_add(duration_millis(duration)))
    }

    /// This instant moved back by `duration`, saturating at the start of time.
    #[must_use]
    pub fn saturating_sub(self, duration: Duration) -> Self {
        Timestamp(self.0.saturating_sub(duration_millis(duration)))
    }

    /// How long after `earlier` this instant is; zero when it is not later.
    #[must_use]
    pub fn duration_since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0).max(0) as u64)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

/// `at` as an RFC 3339 time to the second, UTC (`2026-12-06T14:05:00Z`), or `None`
/// outside the years 0000 to 9999. Where a time is written into a message for people
/// (health, logs); the plugin needs no time-zone code for it.
pub(crate) fn rfc3339_seconds(at: Timestamp) -> Option<String> {
    let seconds = at.0.div_euclid(1000);
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    (0..=9999).contains(&year).then(|| {
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            of_day / 3600,
            of_day / 60 % 60,
            of_day % 60
        )
    })
}

/// Days in a month of the Gregorian calendar.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The day counted from 1970-01-01 of a date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whole milliseconds of a duration, saturating at `i64::MAX`.
pub(crate) fn duration_millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_seconds_counts_days_and_keeps_to_four_digit_years() {
        let at = Timestamp::from_utc(2026, 12, 6, 14, 5, 0).unwrap();
        assert_eq!(rfc3339_seconds(at).as_deref(), Some("2026-12-06T14:05:00Z"));
        let leap = Timestamp::from_utc(2024, 2, 29, 23, 59, 59).unwrap();
        assert_eq!(
            rfc3339_seconds(leap.saturating_add(Duration::from_millis(999))).as_deref(),
            Some("2024-02-29T23:59:59Z"),
            "milliseconds are cut, not rounded"
        );
        assert_eq!(
            rfc3339_seconds(Timestamp::from_millis(-1)).as_deref(),
            Some("1969-12-31T23:59:59Z")
        );
        assert_eq!(rfc3339_seconds(Timestamp::from_millis(i64::MAX)), None);
        assert_eq!(
            rfc3339_seconds(Timestamp::from_utc(-1, 1, 1, 0, 0, 0).unwrap()),
            None
        );
    }
}
