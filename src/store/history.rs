//! SQL for what happened: per kind and period, the jobs that ended (succeeded, failed,
//! cancelled), the attempts retried, and how long attempts waited and ran, as
//! histograms (`job_history`, migration 16).
//!
//! Rows are written by [`record`] inside the transactions that end the jobs, from the
//! state changes those transactions collect, so history never costs a commit of its
//! own and a transaction that rolls back leaves none. A transaction adds one upsert per
//! kind it ended jobs of, however many jobs. [`compact`] folds minutes into hours and
//! drops what is past keeping.
//!
//! A histogram is a BLOB of little-endian `u32` counts, one per [`bucket`], cut after
//! the last non-zero one; `jobs_histogram_add` (registered on the writer's connection,
//! [`register`]) adds two of them inside an upsert.

use rusqlite::functions::FunctionFlags;
use rusqlite::{params, Connection, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::JobStatus;

use super::jobs::Change;

/// The length of a minute row, in ms.
pub(crate) const MINUTE_MS: i64 = 60_000;
/// The length of an hour row, in ms.
pub(crate) const HOUR_MS: i64 = 3_600_000;

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

/// Counts per bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Histogram {
    counts: Vec<u32>,
}

impl Histogram {
    pub(crate) fn add(&mut self, ms: u64) {
        let b = bucket(ms);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] = self.counts[b].saturating_add(1);
    }

    pub(crate) fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
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

    pub(crate) fn to_blob(&self) -> Vec<u8> {
        let used = self
            .counts
            .iter()
            .rposition(|&n| n != 0)
            .map_or(0, |i| i + 1);
        self.counts[..used]
            .iter()
            .flat_map(|n| n.to_le_bytes())
            .collect()
    }

    /// Reads a stored histogram; bytes past the last whole count, or past
    /// [`BUCKETS`] counts, are ignored (the file is read, never trusted).
    pub(crate) fn from_blob(bytes: &[u8]) -> Histogram {
        Histogram {
            counts: bytes
                .chunks_exact(4)
                .take(BUCKETS)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        }
    }
}

/// What one period of a kind holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub succeeded: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub retries: u64,
    pub waits: Histogram,
    pub runs: Histogram,
}

impl Tally {
    pub(crate) fn merge(&mut self, other: &Tally) {
        self.succeeded += other.succeeded;
        self.failed += other.failed;
        self.cancelled += other.cancelled;
        self.retries += other.retries;
        self.waits.merge(&other.waits);
        self.runs.merge(&other.runs);
    }

    fn is_empty(&self) -> bool {
        self.succeeded + self.failed + self.cancelled + self.retries == 0
    }
}

/// Registers `jobs_histogram_add(a, b)` on the connection that writes.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function(
        "jobs_histogram_add",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let blob = |i: usize| match ctx.get_raw(i) {
                rusqlite::types::ValueRef::Blob(bytes) => Histogram::from_blob(bytes),
                _ => Histogram::default(),
            };
            let mut sum = blob(0);
            sum.merge(&blob(1));
            Ok(sum.to_blob())
        },
    )
}

/// Adds what the changes of one transaction ended to the minute of `now`: one upsert
/// per kind among them. Changes that end nothing (an enqueue, a claim, a release)
/// cost a comparison each.
pub(crate) fn record(tx: &Transaction<'_>, changes: &[Change], now: Timestamp) -> Result<()> {
    let mut kinds: Vec<(&str, Tally)> = Vec::new();
    for change in changes {
        let retried = change.to == JobStatus::Queued
            && change.from == Some(JobStatus::Running)
            && change.ran.is_some();
        if !change.to.is_finished() && !retried {
            continue;
        }
        let tally = match kinds.iter_mut().position(|(kind, _)| *kind == change.kind) {
            Some(i) => &mut kinds[i].1,
            None => {
                kinds.push((&change.kind, Tally::default()));
                &mut kinds.last_mut().expect("just pushed").1
            }
        };
        match change.to {
            JobStatus::Succeeded => tally.succeeded += 1,
            JobStatus::Failed => tally.failed += 1,
            JobStatus::Cancelled => tally.cancelled += 1,
            _ => tally.retries += 1,
        }
        if let Some(ran) = change.ran {
            tally.waits.add(ran.waited_ms);
            tally.runs.add(ran.ran_ms);
        }
    }
    let minute = now.as_millis().div_euclid(MINUTE_MS) * MINUTE_MS;
    for (kind, tally) in &kinds {
        add(tx, kind, minute, MINUTE_MS, tally)?;
    }
    Ok(())
}

fn add(tx: &Transaction<'_>, kind: &str, at: i64, span: i64, tally: &Tally) -> Result<()> {
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    tx.prepare_cached(
        "INSERT INTO job_history (kind, span, at, succeeded, failed, cancelled, retries, \
         waits, runs) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
         ON CONFLICT (kind, span, at) DO UPDATE SET \
         succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed, \
         cancelled = cancelled + excluded.cancelled, retries = retries + excluded.retries, \
         waits = jobs_histogram_add(waits, excluded.waits), \
         runs = jobs_histogram_add(runs, excluded.runs)",
    )?
    .execute(params![
        kind,
        span,
        at,
        count(tally.succeeded),
        count(tally.failed),
        count(tally.cancelled),
        count(tally.retries),
        tally.waits.to_blob(),
        tally.runs.to_blob(),
    ])?;
    Ok(())
}

/// One stored period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Period {
    pub at: i64,
    pub span: i64,
    pub tally: Tally,
}

/// The periods of `kind` that start in `[from, to)`, oldest first: minute rows and
/// hour rows alike (they never overlap: an hour row holds only minutes that were
/// folded into it and deleted).
pub(crate) fn read(conn: &Connection, kind: &str, from: i64, to: i64) -> Result<Vec<Period>> {
    let mut statement = conn.prepare_cached(
        "SELECT span, at, succeeded, failed, cancelled, retries, waits, runs \
         FROM job_history WHERE kind = ?1 AND span IN (60000, 3600000) AND at >= ?2 AND at < ?3",
    )?;
    let mut periods = statement
        .query_map(params![kind, from, to], period_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    periods.sort_by_key(|period| (period.at, period.span));
    Ok(periods)
}

/// The kinds with any history in `[from, to)`, by name.
pub(crate) fn kinds(conn: &Connection, from: i64, to: i64) -> Result<Vec<String>> {
    let mut statement = conn.prepare_cached(
        "SELECT DISTINCT kind FROM job_history WHERE at >= ?1 AND at < ?2 ORDER BY kind",
    )?;
    let kinds = statement
        .query_map(params![from, to], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(kinds)
}

fn period_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Period> {
    let count = |i: usize| -> rusqlite::Result<u64> { Ok(r.get::<_, i64>(i)?.max(0) as u64) };
    let histogram = |i: usize| -> rusqlite::Result<Histogram> {
        Ok(r.get::<_, Option<Vec<u8>>>(i)?
            .map(|bytes| Histogram::from_blob(&bytes))
            .unwrap_or_default())
    };
    Ok(Period {
        span: r.get(0)?,
        at: r.get(1)?,
        tally: Tally {
            succeeded: count(2)?,
            failed: count(3)?,
            cancelled: count(4)?,
            retries: count(5)?,
            waits: histogram(6)?,
            runs: histogram(7)?,
        },
    })
}

/// Folds minute rows that start before `minutes_before` into their hours, and deletes
/// hour rows that start before `hours_before`; at most `limit` minute rows per call.
/// Returns how many rows went, and whether any minute rows are left to fold.
pub(crate) fn compact(
    tx: &Transaction<'_>,
    minutes_before: i64,
    hours_before: i64,
    limit: usize,
) -> Result<(usize, bool)> {
    let old: Vec<(String, Period)> = {
        let mut statement = tx.prepare_cached(
            "SELECT span, at, succeeded, failed, cancelled, retries, waits, runs, kind \
             FROM job_history WHERE span = 60000 AND at < ?1 ORDER BY at LIMIT ?2",
        )?;
        let rows = statement
            .query_map(params![minutes_before, limit as i64 + 1], |r| {
                Ok((r.get::<_, String>(8)?, period_from_row(r)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    let more = old.len() > limit;
    let mut hours: Vec<(&str, i64, Tally)> = Vec::new();
    for (kind, period) in old.iter().take(limit) {
        let hour = period.at.div_euclid(HOUR_MS) * HOUR_MS;
        match hours
            .iter_mut()
            .find(|(k, at, _)| *k == kind.as_str() && *at == hour)
        {
            Some((_, _, tally)) => tally.merge(&period.tally),
            None => hours.push((kind, hour, period.tally.clone())),
        }
    }
    let mut gone = 0;
    for (kind, hour, tally) in &hours {
        if *hour >= hours_before && !tally.is_empty() {
            add(tx, kind, *hour, HOUR_MS, tally)?;
        }
    }
    for (kind, period) in old.iter().take(limit) {
        gone += tx
            .prepare_cached("DELETE FROM job_history WHERE kind = ?1 AND span = 60000 AND at = ?2")?
            .execute(params![kind, period.at])?;
    }
    gone += tx
        .prepare_cached("DELETE FROM job_history WHERE span = 3600000 AND at < ?1")?
        .execute([hours_before])?;
    Ok((gone, more))
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
        assert_eq!(Histogram::from_blob(&[0xff; 4 * 100]).counts.len(), BUCKETS);
    }
}
