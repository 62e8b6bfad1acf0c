//! A kind's settings stored in `kinds`: its cap, whether it is paused, its rate limit
//! and the limit's state, what its jobs need of the machine, and how many lease
//! expiries in a row end a job of it.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{Constraints, RateState};

/// What a claim needs to know of a kind: its stored cap, whether it is paused, and
/// its rate limit with the limit's state.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KindSettings {
    pub cap: Option<u32>,
    pub paused: bool,
    pub rate: Option<RateState>,
    pub needs: Constraints,
    /// A queued job of the kind may have constraints of its own (set by the insert
    /// that stores one, cleared by a claim that finds none).
    pub has_needs: bool,
}

/// The settings of `kind` stored in the file (none: no cap, not paused, no limit).
pub(crate) fn kind_settings(conn: &Connection, kind: &str) -> Result<KindSettings> {
    Ok(conn
        .prepare_cached(
            "SELECT max_running, paused, rate_starts, rate_window_ms, rate_next, needs, \
             has_needs FROM kinds WHERE kind = ?1",
        )?
        .query_row([kind], |r| {
            let starts: Option<u32> = r.get(2)?;
            let window_ms: Option<i64> = r.get(3)?;
            let next: Option<i64> = r.get(4)?;
            Ok(KindSettings {
                cap: r.get(0)?,
                paused: r.get(1)?,
                rate: starts.zip(window_ms).map(|(starts, window_ms)| RateState {
                    starts,
                    window_ms,
                    next,
                }),
                needs: Constraints::from_needs(r.get::<_, Option<i64>>(5)?.unwrap_or(0)),
                has_needs: r.get(6)?,
            })
        })
        .optional()?
        .unwrap_or_default())
}

/// Stores the rate limit of `kind` (`None`: no limit): `starts` per `window_ms`. A
/// start booked under the old limit is kept, but no later than one interval of the new
/// one from now: a looser limit frees the kind soon, a stricter one counts the start
/// already made.
pub(crate) fn set_kind_rate_limit(
    tx: &Transaction<'_>,
    kind: &str,
    limit: Option<(u32, i64)>,
    now: Timestamp,
) -> Result<()> {
    let (starts, window_ms) = limit.unzip();
    let latest = limit.map(|(starts, window_ms)| {
        let interval = RateState {
            starts,
            window_ms,
            next: None,
        }
        .interval();
        now.as_millis().saturating_add(interval)
    });
    tx.prepare_cached(
        "INSERT INTO kinds (kind, rate_starts, rate_window_ms, updated_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (kind) DO UPDATE SET rate_starts = excluded.rate_starts, \
         rate_window_ms = excluded.rate_window_ms, \
         rate_next = CASE WHEN excluded.rate_starts IS NULL THEN NULL \
                          ELSE min(rate_next, ?5) END, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, starts, window_ms, now.as_millis(), latest])?;
    Ok(())
}

/// Books `next` as the next start of a rate-limited `kind` (in the claim's transaction).
pub(crate) fn set_rate_next(tx: &Transaction<'_>, kind: &str, next: i64) -> Result<()> {
    tx.prepare_cached("UPDATE kinds SET rate_next = ?2 WHERE kind = ?1")?
        .execute(params![kind, next])?;
    Ok(())
}

/// Every rate-limited kind with its state, for reads that say why a job waits.
pub(crate) fn rate_limits(conn: &Connection) -> Result<Vec<(String, RateState)>> {
    let mut statement = conn.prepare_cached(
        "SELECT kind, rate_starts, rate_window_ms, rate_next FROM kinds \
         WHERE rate_starts IS NOT NULL AND rate_window_ms IS NOT NULL",
    )?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get(0)?,
            RateState {
                starts: r.get(1)?,
                window_ms: r.get(2)?,
                next: r.get(3)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Stores the cap on running jobs of `kind` (`None`: no cap).
pub(crate) fn set_kind_limit(
    tx: &Transaction<'_>,
    kind: &str,
    limit: Option<u32>,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, max_running, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (kind) DO UPDATE SET max_running = excluded.max_running, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, limit, now.as_millis()])?;
    Ok(())
}

/// Stores how many lease expiries in a row end a job of `kind` as failed (`None`:
/// the default).
pub(crate) fn set_kind_max_lease_expiries(
    tx: &Transaction<'_>,
    kind: &str,
    expiries: Option<u32>,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, max_lease_expiries, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (kind) DO UPDATE SET max_lease_expiries = excluded.max_lease_expiries, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, expiries, now.as_millis()])?;
    Ok(())
}

/// How many lease expiries in a row end a job of `kind` stored in the file, if any.
pub(crate) fn kind_max_lease_expiries(conn: &Connection, kind: &str) -> Result<Option<u32>> {
    Ok(conn
        .prepare_cached("SELECT max_lease_expiries FROM kinds WHERE kind = ?1")?
        .query_row([kind], |r| r.get(0))
        .optional()?
        .flatten())
}

/// Pauses or resumes `kind`: claims skip a paused kind.
pub(crate) fn set_kind_paused(
    tx: &Transaction<'_>,
    kind: &str,
    paused: bool,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, paused, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (kind) DO UPDATE SET paused = excluded.paused, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, paused, now.as_millis()])?;
    Ok(())
}

/// Stores what every job of `kind` needs of the machine (`None`: nothing).
pub(crate) fn set_kind_needs(
    tx: &Transaction<'_>,
    kind: &str,
    needs: Option<Constraints>,
    now: Timestamp,
) -> Result<()> {
    let needs = needs.map(Constraints::to_needs).filter(|needs| *needs != 0);
    tx.prepare_cached(
        "INSERT INTO kinds (kind, needs, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (kind) DO UPDATE SET needs = excluded.needs, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![kind, needs, now.as_millis()])?;
    Ok(())
}

/// Notes that a queued job of `kind` may have constraints of its own, in the
/// transaction that stored them or queued the job again: claims then read the kind's
/// lanes of constrained jobs. (A job that leaves `running` for the queue needs no
/// call: the flag is never cleared while a running job of the kind has needs.)
pub(crate) fn flag_kind_needs(tx: &Transaction<'_>, kind: &str, now: Timestamp) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, has_needs, updated_at) VALUES (?1, 1, ?2) \
         ON CONFLICT (kind) DO UPDATE SET has_needs = 1 WHERE has_needs = 0",
    )?
    .execute(params![kind, now.as_millis()])?;
    Ok(())
}

/// The kinds whose jobs need something of the machine, with what they need.
pub(crate) fn kind_needs(conn: &Connection) -> Result<Vec<(String, Constraints)>> {
    let mut statement = conn.prepare_cached(
        "SELECT kind, needs FROM kinds WHERE needs IS NOT NULL AND needs <> 0 ORDER BY kind",
    )?;
    let rows = statement.query_map([], |r| Ok((r.get(0)?, Constraints::from_needs(r.get(1)?))))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A running job of a kind whose cap is full, as [`full_caps`] reads it.
#[derive(Debug, Clone)]
pub(crate) struct HeldSlot {
    pub kind: String,
    pub cap: u32,
    pub lease_expires_at: Option<Timestamp>,
    /// The mark of the process holding it, when it has one (`crate::holder`).
    pub holder: Option<String>,
}

/// The running jobs of every kind whose stored cap they fill (the running rows are
/// few): what a queued job of such a kind waits for.
pub(crate) fn full_caps(conn: &Connection) -> Result<Vec<HeldSlot>> {
    let mut statement = conn.prepare_cached(
        "SELECT j.kind, k.max_running, j.lease_expires_at, p.mark \
         FROM kinds k JOIN jobs j INDEXED BY jobs_active ON j.status = 'running' AND j.kind = k.kind \
         LEFT JOIN processes p ON p.id = j.lease_process \
         WHERE k.max_running IS NOT NULL AND k.max_running <= \
           (SELECT count(*) FROM jobs INDEXED BY jobs_active WHERE status = 'running' AND kind = k.kind)",
    )?;
    let rows = statement.query_map([], |r| {
        Ok(HeldSlot {
            kind: r.get(0)?,
            cap: r.get(1)?,
            lease_expires_at: r.get::<_, Option<i64>>(2)?.map(Timestamp::from_millis),
            holder: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The paused kinds, by name.
pub(crate) fn paused_kinds(conn: &Connection) -> Result<Vec<String>> {
    let mut statement =
        conn.prepare_cached("SELECT kind FROM kinds WHERE paused = 1 ORDER BY kind")?;
    let rows = statement.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
