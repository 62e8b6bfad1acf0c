//! Durations as histograms with buckets half an octave wide: small, exact to add
//! (minutes fold into hours without loss), and read as percentiles at most √2 over.
//!
//! A histogram is stored as a BLOB of little-endian `u32` counts, one per [`bucket`],
//! cut after the last non-zero one.

/// Buckets in a histogram: bucket 0 holds 0 ms, bucket `b > 0` the durations from
/// [`bucket_floor`]`(b)` up to `bucket_floor(b + 1)`, half an octave each; the last one
/// holds everything longer (past 2^31 ms, 24 days).
pub(crate) const BUCKETS: usize = 64;

/// The bucket of a duration in ms: `1 + 2·floor(log2 ms)`, plus one when it is at least
/// √2 times that power of two.
pub(crate) fn bucket(ms: u64) -> usize {
    if ms == 0 {
        return 0;
    }
    let octave = 63 - ms.leading_zeros() as u64;
    let square = u128::from(ms) * u128::from(ms);
    let upper_half = square >= 1u128 << (2 * octave + 1);
    (1 + 2 * octave as usize + usize::from(upper_half)).min(BUCKETS - 1)
}

/// The shortest duration bucket `b` holds (0 for bucket 0).
pub(crate) fn bucket_floor(b: usize) -> u64 {
    if b == 0 {
        return 0;
    }
    let octave = (b - 1) / 2;
    let power = 1u64 << octave.min(62);
    if (b - 1) % 2 == 0 {
        power
    } else {
        // The smallest whole number at or past power·√2.
        let mut n = ((power as f64) * std::f64::consts::SQRT_2) as u64;
        while u128::from(n) * u128::from(n) < 1u128 << (2 * octave + 1) {
            n += 1;
        }
        n
    }
}

/// Counts per bucket, kept whole (no allocation: a job's end adds to one on the
/// writer's stack).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Histogram {
    counts: [u32; BUCKETS],
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: [0; BUCKETS],
        }
    }
}

/// The most bytes a histogram's blob takes.
pub(crate) const MAX_BLOB: usize = 4 * BUCKETS;

impl Histogram {
    pub(crate) fn add(&mut self, ms: u64) {
        let b = bucket(ms);
        self.counts[b] = self.counts[b].saturating_add(1);
    }

    pub(crate) fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine = mine.saturating_add(*theirs);
        }
    }

    pub(crate) fn total(&self) -> u64 {
        self.counts.iter().map(|&n| u64::from(n)).sum()
    }

    /// The duration at or under which a share `q` of the samples fall, read as the top
    /// of the bucket that sample is in (so at most √2 times the true figure, and never
    /// under it); `None` without samples.
    pub(crate) fn quantile(&self, q: f64) -> Option<u64> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (b, &n) in self.counts.iter().enumerate() {
            seen += u64::from(n);
            if seen >= rank {
                return Some(match b {
                    0 => 0,
                    b if b == BUCKETS - 1 => bucket_floor(b),
                    b => bucket_floor(b + 1) - 1,
                });
            }
        }
        None
    }

    /// The counts up to the last non-zero one.
    fn used(&self) -> &[u32] {
        let used = self
            .counts
            .iter()
            .rposition(|&n| n != 0)
            .map_or(0, |i| i + 1);
        &self.counts[..used]
    }

    /// The length of [`to_blob`](Histogram::to_blob)'s bytes.
    pub(crate) fn blob_len(&self) -> usize {
        4 * self.used().len()
    }

    /// Writes the blob into the start of `out` (at least [`blob_len`] bytes) and
    /// returns its length.
    ///
    /// [`blob_len`]: Histogram::blob_len
    pub(crate) fn write_blob(&self, out: &mut [u8]) -> usize {
        let used = self.used();
        for (slot, n) in out.chunks_exact_mut(4).zip(used) {
            slot.copy_from_slice(&n.to_le_bytes());
        }
        4 * used.len()
    }

    pub(crate) fn to_blob(&self) -> Vec<u8> {
        let mut blob = vec![0; self.blob_len()];
        self.write_blob(&mut blob);
        blob
    }

    /// Reads a stored histogram; bytes past the last whole count, or past
    /// [`BUCKETS`] counts, are ignored (the file is read, never trusted).
    pub(crate) fn from_blob(bytes: &[u8]) -> Histogram {
        let mut histogram = Histogram::default();
        histogram.add_blob(bytes);
        histogram
    }

    /// Adds a stored histogram to this one, read as [`from_blob`](Histogram::from_blob) reads it.
    pub(crate) fn add_blob(&mut self, bytes: &[u8]) {
        for (mine, c) in self.counts.iter_mut().zip(bytes.chunks_exact(4)) {
            *mine = mine.saturating_add(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_half_octaves_and_cover_every_duration_once() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(1), 1);
        assert_eq!(bucket(2), 3);
        assert_eq!(bucket(3), 4); // 3 >= 2·√2
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
        for b in 1..BUCKETS - 1 {
            let floor = bucket_floor(b);
            if bucket_floor(b + 1) > floor {
                assert_eq!(bucket(floor), b, "floor of bucket {b} is {floor}");
                assert_eq!(bucket(bucket_floor(b + 1) - 1), b);
            }
        }
        for ms in [5u64, 99, 1000, 12_345, 3_600_000] {
            let b = bucket(ms);
            assert!(
                bucket_floor(b) <= ms && ms < bucket_floor(b + 1),
                "{ms} in {b}"
            );
        }
    }

    #[test]
    fn a_quantile_is_the_top_of_its_bucket_never_under_and_under_root_two_over() {
        let mut h = Histogram::default();
        for ms in 1..=1000 {
            h.add(ms);
        }
        for (q, truth) in [(0.5, 500.0), (0.95, 950.0)] {
            let got = h.quantile(q).unwrap() as f64;
            assert!(
                got >= truth && got <= truth * std::f64::consts::SQRT_2,
                "{q}: {got}"
            );
        }
        assert_eq!(Histogram::default().quantile(0.5), None);
    }

    #[test]
    fn a_histogram_survives_its_blob_and_a_foreign_blob_is_read_safely() {
        let mut h = Histogram::default();
        h.add(7);
        h.add(7);
        h.add(70_000);
        assert_eq!(Histogram::from_blob(&h.to_blob()), h);
        assert_eq!(Histogram::from_blob(&[1, 2, 3]).total(), 0);
        assert_eq!(
            Histogram::from_blob(&[0xff; 4 * 100]).blob_len(),
            MAX_BLOB,
            "counts past the last bucket are ignored"
        );
    }
}
