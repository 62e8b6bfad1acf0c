//! Reading throttle headers: `Retry-After` (seconds or an HTTP-date in any of the three
//! forms RFC 9110 lists) and `X-Poll-Interval` (seconds).

use std::time::Duration;

use crate::clock::Timestamp;

/// `Retry-After`: delta-seconds, or an HTTP-date taken relative to `now` (a date in the
/// past means no wait): an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`), the obsolete
/// RFC 850 form (`Wednesday, 21-Oct-15 07:28:00 GMT`) or asctime
/// (`Wed Oct 21 07:28:00 2015`). `None` when it is none of these.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::clock::Timestamp;
/// use tauri_plugin_jobs::runner::retry_after;
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

/// Parses an HTTP-date in any of the three forms RFC 9110 has recipients accept:
/// IMF-fixdate, the obsolete RFC 850 form and asctime (through `httpdate`).
fn http_date(value: &str) -> Option<Timestamp> {
    let at = httpdate::parse_http_date(value).ok()?;
    let since_epoch = at.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(Timestamp::from_millis(
        i64::try_from(since_epoch.as_millis()).ok()?,
    ))
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
        assert_eq!(
            retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", now),
            Some(Duration::from_secs(60)),
            "RFC 850"
        );
        assert_eq!(
            retry_after("Wed Oct 21 07:28:00 2015", now),
            Some(Duration::from_secs(60)),
            "asctime"
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
