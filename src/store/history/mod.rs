//! SQL for what happened, kept for a bounded time (migration 16): per job kind
//! (`job_history`, [`jobs`]) and per sync target (`sync_history`, [`sync`]), a row per
//! minute, folded into a row per hour after a while.
//!
//! Rows are written inside the transactions that already write what they count (a
//! job's end, a sync target's state), so history never costs a commit of its own and
//! a transaction that rolls back leaves none. [`compact`] folds minutes into hours
//! and drops what is past keeping. Durations are [`Histogram`]s;
//! `jobs_histogram_add` (registered on the writer's connection, [`register`]) adds
//! two of them inside an upsert.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, Row, Transaction};

use crate::error::Result;

mod histogram;
mod jobs;
mod sync;

pub(crate) use histogram::Histogram;
pub(crate) use jobs::{minutes, record, record_deferral, Deferred, Tally};
pub(crate) use sync::{forget_account, record_sync, SyncRun, SyncTally};

/// The length of a minute row, in ms.
pub(crate) const MINUTE_MS: i64 = 60_000;
/// The length of an hour row, in ms.
pub(crate) const HOUR_MS: i64 = 3_600_000;

/// Registers `jobs_histogram_add(a, b)` and `jobs_tally_add(a, b)` (two kinds'
/// minutes as `job_counts` keeps them, added) on the connection that writes.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    conn.create_scalar_function("jobs_tally_add", 2, SUMS, |ctx| {
        Ok(sum_of_blobs(ctx, Tally::add_blob).to_blob())
    })?;
    conn.create_scalar_function("jobs_histogram_add", 2, SUMS, |ctx| {
        Ok(sum_of_blobs(ctx, Histogram::add_blob).to_blob())
    })
}

const SUMS: FunctionFlags = FunctionFlags::SQLITE_UTF8.union(FunctionFlags::SQLITE_DETERMINISTIC);

/// The sum of a function's two arguments as stored blobs, read by `add`; an
/// argument that is not a blob (`NULL` for a row's first period) adds nothing.
fn sum_of_blobs<T: Default>(ctx: &Context<'_>, add: fn(&mut T, &[u8])) -> T {
    let mut sum = T::default();
    for i in 0..2 {
        if let ValueRef::Blob(bytes) = ctx.get_raw(i) {
            add(&mut sum, bytes);
        }
    }
    sum
}

/// What a history table's row holds past its key, `span` and `at`, and the SQL that
/// reads and writes it. Each statement's columns are `span, at`, then the tally's
/// own (read by [`Counts::from_row`] from column 2), then, in [`Counts::OLD`], the key.
pub(crate) trait Counts: Clone + Default {
    /// The rows of key `?1` whose start is in `[?2, ?3)`.
    const READ: &'static str;
    /// The distinct keys with a row whose start is in `[?1, ?2)`.
    const KEYS: &'static str;
    /// Up to `?2` minute rows that start before `?1`, oldest first, the key last.
    const OLD: &'static str;
    /// Deletes the minute row of key `?1` that starts at `?2`.
    const DELETE_MINUTE: &'static str;
    /// Deletes the hour rows that start before `?1`.
    const DELETE_HOURS: &'static str;
    /// The column of the key in [`Counts::OLD`].
    const OLD_KEY: usize;

    /// Reads the tally from its columns, starting at column 2.
    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self>;
    /// Adds `other` to this one.
    fn merge(&mut self, other: &Self);
    /// Whether it counts nothing.
    fn is_empty(&self) -> bool;
    /// Adds it to the row of `key`, `span`, `at` (made when missing).
    fn add(&self, tx: &Transaction<'_>, key: &str, at: i64, span: i64) -> Result<()>;

    /// Periods of `key` kept outside the table (the current minute, where a table keeps
    /// it elsewhere) that start in `[from, to)`.
    fn pending(_conn: &Connection, _key: &str, _from: i64, _to: i64) -> Result<Vec<Period<Self>>> {
        Ok(Vec::new())
    }

    /// The keys with such a period in `[from, to)`.
    fn pending_keys(_conn: &Connection, _from: i64, _to: i64) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// Moves the periods kept outside the table that start before `before` into it.
    fn settle(_tx: &Transaction<'_>, _before: i64) -> Result<()> {
        Ok(())
    }
}

/// One stored period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Period<T> {
    pub at: i64,
    pub span: i64,
    pub tally: T,
}

fn period<T: Counts>(r: &Row<'_>) -> rusqlite::Result<Period<T>> {
    Ok(Period {
        span: r.get(0)?,
        at: r.get(1)?,
        tally: T::from_row(r)?,
    })
}

/// The periods of `key` that start in `[from, to)`, oldest first: minute rows and hour
/// rows alike (they never overlap: an hour row holds only minutes that were folded
/// into it and deleted).
pub(crate) fn read<T: Counts>(
    conn: &Connection,
    key: &str,
    from: i64,
    to: i64,
) -> Result<Vec<Period<T>>> {
    let mut statement = conn.prepare_cached(T::READ)?;
    let mut periods = statement
        .query_map(params![key, from, to], period::<T>)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    periods.extend(T::pending(conn, key, from, to)?);
    periods.sort_by_key(|period| (period.at, period.span));
    Ok(periods)
}

/// The keys with any history in `[from, to)`, by name.
pub(crate) fn keys<T: Counts>(conn: &Connection, from: i64, to: i64) -> Result<Vec<String>> {
    let mut statement = conn.prepare_cached(T::KEYS)?;
    let mut keys = statement
        .query_map(params![from, to], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    keys.extend(T::pending_keys(conn, from, to)?);
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// Folds minute rows that start before `minutes_before` into their hours, and deletes
/// hour rows that start before `hours_before`; at most `limit` minute rows per call.
/// Returns how many rows went, and whether any minute rows are left to fold.
pub(crate) fn compact<T: Counts>(
    tx: &Transaction<'_>,
    minutes_before: i64,
    hours_before: i64,
    limit: usize,
) -> Result<(usize, bool)> {
    T::settle(tx, minutes_before)?;
    let old: Vec<(String, Period<T>)> = {
        let mut statement = tx.prepare_cached(T::OLD)?;
        let rows = statement
            .query_map(params![minutes_before, limit as i64 + 1], |r| {
                Ok((r.get::<_, String>(T::OLD_KEY)?, period::<T>(r)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    let more = old.len() > limit;
    let mut hours: Vec<(&str, i64, T)> = Vec::new();
    for (key, period) in old.iter().take(limit) {
        let hour = period.at.div_euclid(HOUR_MS) * HOUR_MS;
        match hours
            .iter_mut()
            .find(|(k, at, _)| *k == key.as_str() && *at == hour)
        {
            Some((_, _, tally)) => tally.merge(&period.tally),
            None => hours.push((key, hour, period.tally.clone())),
        }
    }
    for (key, hour, tally) in &hours {
        if *hour >= hours_before && !tally.is_empty() {
            tally.add(tx, key, *hour, HOUR_MS)?;
        }
    }
    let mut gone = 0;
    for (key, period) in old.iter().take(limit) {
        gone += tx
            .prepare_cached(T::DELETE_MINUTE)?
            .execute(params![key, period.at])?;
    }
    gone += tx
        .prepare_cached(T::DELETE_HOURS)?
        .execute([hours_before])?;
    Ok((gone, more))
}

/// The start of the minute `at` (ms) is in.
pub(crate) fn minute_of(at: i64) -> i64 {
    at.div_euclid(MINUTE_MS) * MINUTE_MS
}

/// A count as SQLite stores it.
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A count as stored, never negative (the file is read, never trusted).
fn counted(r: &Row<'_>, i: usize) -> rusqlite::Result<u64> {
    Ok(r.get::<_, i64>(i)?.max(0) as u64)
}

/// A histogram as stored (`NULL` or a foreign blob reads as what it can).
fn histogram_at(r: &Row<'_>, i: usize) -> rusqlite::Result<Histogram> {
    Ok(r.get::<_, Option<Vec<u8>>>(i)?
        .map(|bytes| Histogram::from_blob(&bytes))
        .unwrap_or_default())
}
