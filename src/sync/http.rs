//! Reading throttle headers: `Retry-After` (seconds or an HTTP-date) and
//! `X-Poll-Interval` (seconds).

use std::time::Duration;

use crate::clock::Timestamp;

/// `Retry-After`: delta-seconds, or an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`)
/// taken relative to `now` (a date in the past means no wait). `None` when it is
/// neither.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::clock::Timestamp;
/// use tauri_plugin_jobs::sync::retry_after;
///
/// let now = Timestamp::from_millis(1_445_412_420_000); // 2015-10-21 07:27:00 UTC
/// assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
/// assert_eq!(retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(Duration::from_secs(60)));
/// assert_eq!(retry_after("soon", now), None);
/// ```
#[must_use]
pub fn retry_after(value: &str, now: Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = http_date(value)?;
    Some(at.duration_since(now))
}

/// `X-Poll-Interval`: whole seconds.
#[must_use]
pub fn poll_interval(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Parses an IMF-fixdate, the only HTTP-date form senders may generate.
fn http_date(value: &str) -> Option<Timestamp> {
    // "Wed, 21 Oct 2015 07:28:00 GMT"
    let (_, rest) = value.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = months.iter().position(|m| m == month)? as u32 + 1;
    let day: u32 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let mut clock = time.split(':').map(|p| p.parse::<u32>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() {
        return None;
    }
    Timestamp::from_utc(year, month, day, hour, minute, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_seconds() {
        let now = Timestamp::from_millis(1_445_412_420_000);
        assert_eq!(retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO),
            "past"
        );
        assert_eq!(
            retry_after("Thu, 22 Oct 2015 07:27:00 GMT", now),
            Some(Duration::from_secs(86_400))
        );
        for bad in [
            "-5",
            "1.5",
            "Wed, 21 Oct 2015 07:28:00 PST",
            "Wed, 32 Oct 2015 07:28:00 GMT",
            "Wed, 21 Foo 2015 07:28:00 GMT",
            "",
        ] {
            assert_eq!(retry_after(bad, now), None, "{bad}");
        }
        assert_eq!(poll_interval("60"), Some(Duration::from_secs(60)));
        assert_eq!(poll_interval("x"), None);
    }
}
