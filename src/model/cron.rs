//! Five-field cron expressions, evaluated on a wall clock: UTC, or a time zone's.
//! Our own parser; only the mapping between wall time and instants is delegated (to
//! `jiff` and the time zone rules it ships).
//!
//! Fields: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or `jan`-`dec`)
//! and day of week (0-7, Sunday is 0 and 7, or `sun`-`sat`); names are
//! case-insensitive. Each field is a comma list of `*`, `n`, `a-b`, `*/s` or `a-b/s`.
//! Ranges run upwards; a step needs `*` or a range (`1-30/7` starts at 1).
//!
//! Days follow classic Vixie cron (cronie): when neither day field starts with `*`, a
//! day matches if either field matches; when one of them starts with `*` (`*` or
//! `*/2`), both must match. An expression that can never fire (`0 0 30 2 *`) is refused
//! when parsed. Compared with a full cron library there are no seconds, no years and no
//! `L`/`W`/`#`.
//!
//! In a time zone ([`Cron::next_after_in`]), daylight saving follows cronie: a slot in
//! a skipped hour runs once, right after the jump; a slot in a repeated hour runs once,
//! the first time that hour comes round.

use std::fmt;
use std::str::FromStr;

use jiff::tz::{AmbiguousOffset, TimeZone};

use super::time::{civil_from_days, days_from_civil, days_in_month};
use super::{truncate_chars, Timestamp};

/// A parse error, naming the field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cron expression {expression:?}: {field}: {reason}")]
pub struct CronError {
    /// The whole expression.
    pub expression: String,
    /// `minute`, `hour`, `day of month`, `month`, `day of week`, or `expression`.
    pub field: &'static str,
    /// What is wrong.
    pub reason: String,
}

/// A parsed cron expression.
///
/// ```
/// use tauri_plugin_jobs::scheduler::Cron;
/// use tauri_plugin_jobs::clock::Timestamp;
///
/// let every_five = "*/5 * * * *".parse::<Cron>()?;
/// let noon = Timestamp::from_millis(1_767_268_800_000); // 2026-01-01 12:00 UTC
/// assert_eq!(every_five.next_after(noon), Some(noon.saturating_add(std::time::Duration::from_secs(300))));
/// assert!("0 0 30 2 *".parse::<Cron>().is_err()); // never fires
/// # Ok::<(), tauri_plugin_jobs::scheduler::CronError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    text: String,
    minutes: u64,
    hours: u64,
    days: u64,
    months: u64,
    weekdays: u64,
    // Either day field starts with `*`: both must match (else either may).
    days_and: bool,
}

struct Field {
    name: &'static str,
    min: u32,
    max: u32,
    /// Names, for the values from `names_from` up.
    names: &'static [&'static str],
    names_from: u32,
}

const FIELDS: [Field; 5] = [
    Field {
        name: "minute",
        min: 0,
        max: 59,
        names: &[],
        names_from: 0,
    },
    Field {
        name: "hour",
        min: 0,
        max: 23,
        names: &[],
        names_from: 0,
    },
    Field {
        name: "day of month",
        min: 1,
        max: 31,
        names: &[],
        names_from: 0,
    },
    Field {
        name: "month",
        min: 1,
        max: 12,
        names: &[
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ],
        names_from: 1,
    },
    Field {
        name: "day of week",
        min: 0,
        max: 7,
        names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
        names_from: 0,
    },
];

impl Field {
    fn value(&self, text: &str) -> Result<u32, String> {
        let lower = text.to_ascii_lowercase();
        if let Some(index) = self.names.iter().position(|name| *name == lower) {
            return Ok(index as u32 + self.names_from);
        }
        // Plain digits only: `u32::from_str` would also take a sign (`+5`).
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        let value: u32 = digits.then(|| text.parse().ok()).flatten().ok_or_else(|| {
            format!(
                "{text:?} is not a number{}",
                if self.names.is_empty() {
                    ""
                } else {
                    " or a name"
                }
            )
        })?;
        if value < self.min || value > self.max {
            return Err(format!("{value} is outside {}-{}", self.min, self.max));
        }
        Ok(value)
    }

    fn parse(&self, text: &str) -> Result<u64, String> {
        let mut bits = 0u64;
        for item in text.split(',') {
            let (range, step) = match item.split_once('/') {
                Some((range, step)) => {
                    let digits = !step.is_empty() && step.bytes().all(|b| b.is_ascii_digit());
                    let span = self.max - self.min;
                    let step: u32 = digits
                        .then(|| step.parse().ok())
                        .flatten()
                        .ok_or_else(|| format!("step {step:?} is not a number"))?;
                    if step == 0 {
                        return Err("a step must be at least 1".into());
                    }
                    if step > span {
                        return Err(format!(
                            "step {step} is larger than the field's range of {span}"
                        ));
                    }
                    (range, Some(step))
                }
                None => (item, None),
            };
            let (low, high) = if range == "*" {
                (self.min, self.max)
            } else if let Some((a, b)) = range.split_once('-') {
                let (a, b) = (self.value(a)?, self.value(b)?);
                if a > b {
                    return Err(format!("range {range} runs downwards"));
                }
                (a, b)
            } else if step.is_some() {
                return Err(format!("step on {range:?} needs * or a range"));
            } else if range.is_empty() {
                return Err("empty item".into());
            } else {
                let value = self.value(range)?;
                (value, value)
            };
            let mut value = Some(low);
            while let Some(at) = value.filter(|at| *at <= high) {
                bits |= 1 << at;
                value = at.checked_add(step.unwrap_or(1));
            }
        }
        Ok(bits)
    }
}

impl FromStr for Cron {
    type Err = CronError;

    fn from_str(expression: &str) -> Result<Self, CronError> {
        let error = |field: &'static str, reason: String| CronError {
            // Cut: the expression may be anything a caller or a config file sent.
            expression: truncate_chars(expression, 200),
            field,
            reason: truncate_chars(&reason, 200),
        };
        let parts: Vec<&str> = expression.split_whitespace().collect();
        if parts.len() != 5 {
            return Err(error(
                "expression",
                format!("expected 5 fields, found {}", parts.len()),
            ));
        }
        let mut bits = [0u64; 5];
        for ((field, text), slot) in FIELDS.iter().zip(&parts).zip(&mut bits) {
            *slot = field
                .parse(text)
                .map_err(|reason| error(field.name, reason))?;
        }
        let [minutes, hours, days, months, mut weekdays] = bits;
        if weekdays & (1 << 7) != 0 {
            weekdays = (weekdays | 1) & !(1 << 7);
        }
        let cron = Cron {
            text: parts.join(" "),
            minutes,
            hours,
            days,
            months,
            weekdays,
            days_and: parts[2].starts_with('*') || parts[4].starts_with('*'),
        };
        // With AND days, some month must hold one of the days (Feb counts 29).
        let possible = !cron.days_and
            || (1..=12).any(|m| {
                cron.months & (1 << m) != 0
                    && cron.days & ((2u64 << days_in_month(2000, m)) - 2) != 0
            });
        if !possible {
            return Err(error(
                "day of month",
                "no month in the expression has any of these days, so it never fires".into(),
            ));
        }
        Ok(cron)
    }
}

impl fmt::Display for Cron {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

const MINUTE_MS: i64 = 60_000;
const DAY_MINUTES: i64 = 1_440;
/// One Gregorian cycle (400 years) of days: weekdays and dates repeat after it, so an
/// expression that fires at all fires within it. Months outside the expression are
/// skipped whole, so even `0 0 29 2 1` (a Monday the 29th of February, 28 years and
/// more apart) costs a few thousand steps.
const SEARCH_DAYS: i64 = 146_097 + 366;

impl Cron {
    /// The first matching minute strictly after `t`, or `None` past the bounded search
    /// (which a parsed expression never reaches).
    #[must_use]
    pub fn next_after(&self, t: Timestamp) -> Option<Timestamp> {
        let start = t.as_millis().div_euclid(MINUTE_MS) + 1;
        let first_day = start.div_euclid(DAY_MINUTES);
        let mut day = first_day;
        let mut from_minute = start.rem_euclid(DAY_MINUTES);
        while day - first_day < SEARCH_DAYS {
            let (year, month, _) = civil_from_days(day);
            if self.months & (1 << month) == 0 {
                day = days_from_civil(year + i64::from(month / 12), month % 12 + 1, 1);
                from_minute = 0;
                continue;
            }
            if self.day_matches(day) {
                for minute_of_day in from_minute..DAY_MINUTES {
                    let (hour, minute) = (minute_of_day / 60, minute_of_day % 60);
                    if self.hours & (1 << hour) != 0 && self.minutes & (1 << minute) != 0 {
                        // Past the end of time there is no next slot.
                        return day
                            .checked_mul(DAY_MINUTES)
                            .and_then(|minutes| minutes.checked_add(minute_of_day))
                            .and_then(|minutes| minutes.checked_mul(MINUTE_MS))
                            .map(Timestamp::from_millis);
                    }
                }
            }
            day += 1;
            from_minute = 0;
        }
        None
    }

    /// The first slot strictly after `t` on the wall clock of `zone`. A slot in a
    /// skipped hour (spring forward) maps to the instant of the jump, so the slots of
    /// that hour run once, together; a slot in a repeated hour (fall back) maps to its
    /// first occurrence, so it runs once. With UTC this is [`next_after`](Cron::next_after).
    #[must_use]
    pub fn next_after_in(&self, t: Timestamp, zone: &TimeZone) -> Option<Timestamp> {
        let instant = jiff::Timestamp::from_millisecond(t.as_millis()).ok()?;
        // The wall clock at `t`, written as if it were UTC: the search runs on it.
        let wall = zone.to_datetime(instant);
        let mut cursor = Timestamp::from_millis(wall_millis(wall)?);
        // Slots whose instant is not after `t` (the rest of a repeated hour, or of a
        // skipped one already run) are passed over; a day holds at most 1,440.
        for _ in 0..2 * DAY_MINUTES {
            let slot = self.next_after(cursor)?;
            let at = instant_of(slot, zone)?;
            if at > t {
                return Some(at);
            }
            cursor = slot;
        }
        None
    }

    /// Whether the minute containing `t` matches.
    #[must_use]
    pub fn matches(&self, t: Timestamp) -> bool {
        let minutes = t.as_millis().div_euclid(MINUTE_MS);
        let (day, minute_of_day) = (
            minutes.div_euclid(DAY_MINUTES),
            minutes.rem_euclid(DAY_MINUTES),
        );
        self.day_matches(day)
            && self.hours & (1 << (minute_of_day / 60)) != 0
            && self.minutes & (1 << (minute_of_day % 60)) != 0
    }

    fn day_matches(&self, day: i64) -> bool {
        let (_, month, dom) = civil_from_days(day);
        if self.months & (1 << month) == 0 {
            return false;
        }
        // 1970-01-01 was a Thursday (4).
        let weekday = (day + 4).rem_euclid(7);
        let by_dom = self.days & (1 << dom) != 0;
        let by_dow = self.weekdays & (1 << weekday) != 0;
        if self.days_and {
            by_dom && by_dow
        } else {
            by_dom || by_dow
        }
    }
}

/// A civil date and time as milliseconds, as if it were UTC.
fn wall_millis(wall: jiff::civil::DateTime) -> Option<i64> {
    let day = days_from_civil(
        i64::from(wall.year()),
        u32::try_from(wall.month()).ok()?,
        u32::try_from(wall.day()).ok()?,
    );
    let millis_of_day = ((i64::from(wall.hour()) * 60 + i64::from(wall.minute())) * 60
        + i64::from(wall.second()))
        * 1000
        + i64::from(wall.millisecond());
    day.checked_mul(DAY_MINUTES * MINUTE_MS)?
        .checked_add(millis_of_day)
}

/// The instant a wall-clock slot (written as if UTC) stands for in `zone`.
fn instant_of(slot: Timestamp, zone: &TimeZone) -> Option<Timestamp> {
    let minutes = slot.as_millis().div_euclid(MINUTE_MS);
    let (year, month, day) = civil_from_days(minutes.div_euclid(DAY_MINUTES));
    let minute_of_day = minutes.rem_euclid(DAY_MINUTES);
    let wall = jiff::civil::DateTime::new(
        i16::try_from(year).ok()?,
        i8::try_from(month).ok()?,
        i8::try_from(day).ok()?,
        i8::try_from(minute_of_day / 60).ok()?,
        i8::try_from(minute_of_day % 60).ok()?,
        0,
        0,
    )
    .ok()?;
    let ambiguous = zone.to_ambiguous_timestamp(wall);
    let at = match ambiguous.offset() {
        AmbiguousOffset::Unambiguous { offset } => offset.to_timestamp(wall).ok()?,
        // A repeated hour: its first occurrence, under the offset before the change.
        AmbiguousOffset::Fold { before, .. } => before.to_timestamp(wall).ok()?,
        // A skipped hour: the jump itself, the first instant after the slot's time
        // read with the offset after the change (which lands before the jump).
        AmbiguousOffset::Gap { after, .. } => {
            let early = after.to_timestamp(wall).ok()?;
            zone.following(early).next()?.timestamp()
        }
    };
    Some(Timestamp::from_millis(at.as_millisecond()))
}
