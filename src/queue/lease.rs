//! The lease: what a claim hands its worker, and what fences every write of the
//! attempt (the job, the worker, the attempt and a secret token); its length's bounds.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::JobId;
use crate::store::jobs::Fence;

/// Proof that a worker holds a job: every later write is fenced by it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    /// The job held; with `worker` and `attempt`, what fences every write.
    pub job_id: JobId,
    /// The job's kind as it was claimed, for the holder's convenience.
    pub kind: String,
    /// The worker's id: `runner-<pid>-<n>` for the app's runner, `agent:<name>` for
    /// agents.
    pub worker: String,
    /// The attempt this lease is for.
    pub attempt: u32,
    /// When it runs out unless renewed.
    pub expires_at: Timestamp,
    /// How long each renewal extends it, in milliseconds.
    pub length_ms: u64,
    /// A secret drawn at the claim and handed only to the claimer: every write of
    /// the attempt must present it. The other fields can be read by anyone who may
    /// read the job; this one never is.
    pub token: String,
}

impl Lease {
    /// How long each renewal extends it.
    #[must_use]
    pub fn length(&self) -> Duration {
        Duration::from_millis(self.length_ms)
    }
}

/// What a heartbeat learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[must_use]
pub struct Heartbeat {
    /// When the renewed lease runs out unless renewed again.
    pub expires_at: Timestamp,
    /// Whether someone asked to cancel the job: stop and report it cancelled.
    pub cancel_requested: bool,
}

pub(crate) fn fence_of(lease: &Lease) -> Fence<'_> {
    Fence {
        id: lease.job_id,
        worker: &lease.worker,
        attempt: lease.attempt,
        // A token that does not parse is 0, which no claim hands out: it fences nothing.
        token: token_from_text(&lease.token),
    }
}

/// A new lease secret: 63 random bits, never 0, from `rand`'s generator seeded by the
/// operating system. Not from the injected [`RandomSource`](crate::random::RandomSource),
/// which only jitters delays and which a test may pin: a secret must not be pinnable.
pub(crate) fn new_token() -> i64 {
    (rand::random::<u64>() >> 1) as i64 | 1
}

/// The token as a lease carries it: 16 hexadecimal digits.
pub(crate) fn token_text(token: i64) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let bits = token as u64;
    // Written digit by digit: `format!` costs a job's claim about a percent.
    (0..16)
        .rev()
        .map(|digit| char::from(DIGITS[(bits >> (digit * 4)) as usize & 0xf]))
        .collect()
}

pub(crate) fn token_from_text(text: &str) -> i64 {
    match u64::from_str_radix(text, 16) {
        Ok(token) if text.len() == 16 => token as i64,
        _ => 0,
    }
}

pub(crate) fn lost(lease: &Lease) -> Error {
    Error::LostLease {
        id: lease.job_id,
        worker: lease.worker.clone(),
        attempt: lease.attempt,
    }
}

/// The longest lease a claim or a heartbeat may ask for: one day. A worker that needs
/// longer renews it.
pub const MAX_LEASE: Duration = Duration::from_secs(24 * 3600);

/// Refuses a lease length of zero or past [`MAX_LEASE`].
pub(crate) fn check_lease_length(name: &'static str, length: Duration) -> Result<()> {
    if length.is_zero() {
        return Err(Error::invalid_argument(name, "must be longer than zero"));
    }
    if length > MAX_LEASE {
        return Err(Error::invalid_argument(
            name,
            format!("{length:?} is longer than the maximum of {MAX_LEASE:?}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{token_from_text, token_text};

    #[test]
    fn a_token_is_16_lowercase_hex_digits_and_reads_back() {
        for token in [1, 0x0123_4567_89ab_cdef, i64::MAX, 0x00ff] {
            let text = token_text(token);
            assert_eq!(text, format!("{:016x}", token as u64));
            assert_eq!(token_from_text(&text), token);
        }
    }
}
