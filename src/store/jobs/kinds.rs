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
    /// The kind's hold, if it has one (migration 19).
    pub hold: Option<Hold>,
}

/// A kind's hold: no job of it starts before `until`; a hold for the network goes on
/// after `until` with one job at a time (the probe) until one gets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hold {
    pub until: Timestamp,
    pub network: bool,
}

impl Hold {
    /// Whether the hold keeps every job of the kind from starting at `now`.
    pub(crate) fn closed(&self, now: Timestamp) -> bool {
        self.until > now
    }
}

/// A kind's hold as reads show it ([`holds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldKind {
    pub kind: String,
    pub hold: Hold,
    pub note: Option<String>,
}

/// The settings of `kind` stored in the file (none: no cap, not paused, no limit).
pub(crate) fn kind_settings(conn: &Connection, kind: &str) -> Result<KindSettings> {
    Ok(conn
        .prepare_cached(
            "SELECT max_running, paused, rate_starts, rate_window_ms, rate_next, needs, \
             has_needs, hold_until, hold_reason, rate_burst FROM kinds WHERE kind = ?1",
        )?
        .query_row([kind], |r| {
            let starts: Option<u32> = r.get(2)?;
            let window_ms: Option<i64> = r.get(3)?;
            let next: Option<i64> = r.get(4)?;
            let burst: Option<u32> = r.get(9)?;
            Ok(KindSettings {
                cap: r.get(0)?,
                paused: r.get(1)?,
                rate: starts.zip(window_ms).map(|(starts, window_ms)| RateState {
                    starts,
                    window_ms,
                    burst: burst.unwrap_or(1),
                    next,
                }),
                needs: Constraints::from_needs(r.get::<_, Option<i64>>(5)?.unwrap_or(0)),
                has_needs: r.get(6)?,
                hold: hold_from(r.get(7)?, r.get::<_, Option<String>>(8)?.as_deref()),
            })
        })
        .optional()?
        .unwrap_or_default())
}

/// Stores the rate limit of `kind` (`None`: no limit): `starts` per `window_ms`,
/// `burst` at once. A start booked under the old limit is kept, but no later than one
/// interval of the new one from now: a looser limit frees the kind soon, a stricter
/// one counts the start already made.
pub(crate) fn set_kind_rate_limit(
    tx: &Transaction<'_>,
    kind: &str,
    limit: Option<(u32, i64, u32)>,
    now: Timestamp,
) -> Result<()> {
    let (starts, window_ms, burst) = match limit {
        Some((starts, window_ms, burst)) => (Some(starts), Some(window_ms), Some(burst)),
        None => (None, None, None),
    };
    let latest = limit.map(|(starts, window_ms, burst)| {
        let interval = RateState {
            starts,
            window_ms,
            burst,
            next: None,
        }
        .interval();
        now.as_millis().saturating_add(interval)
    });
    tx.prepare_cached(
        "INSERT INTO kinds (kind, rate_starts, rate_window_ms, rate_burst, updated_at) \
         VALUES (?1, ?2, ?3, ?6, ?4) \
         ON CONFLICT (kind) DO UPDATE SET rate_starts = excluded.rate_starts, \
         rate_window_ms = excluded.rate_window_ms, rate_burst = excluded.rate_burst, \
         rate_next = CASE WHEN excluded.rate_starts IS NULL THEN NULL \
                          ELSE min(rate_next, ?5) END, \
         updated_at = excluded.updated_at",
    )?
    .execute(params![
        kind,
        starts,
        window_ms,
        now.as_millis(),
        latest,
        burst.filter(|b| *b > 1)
    ])?;
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
        "SELECT kind, rate_starts, rate_window_ms, rate_next, rate_burst FROM kinds \
         WHERE rate_starts IS NOT NULL AND rate_window_ms IS NOT NULL",
    )?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get(0)?,
            RateState {
                starts: r.get(1)?,
                window_ms: r.get(2)?,
                burst: r.get::<_, Option<u32>>(4)?.unwrap_or(1),
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

/// A hold as stored: a time and a reason; anything else (a file edited by hand) is no
/// hold.
fn hold_from(until: Option<i64>, reason: Option<&str>) -> Option<Hold> {
    let network = match reason? {
        "network" => true,
        "service" => false,
        _ => return None,
    };
    Some(Hold {
        until: Timestamp::from_millis(until?),
        network,
    })
}

/// Holds `kind` for the network (a job found its service unreachable): nothing of it
/// starts before `until`, then one job at a time. A longer hold by the service stays.
pub(crate) fn hold_for_network(
    tx: &Transaction<'_>,
    kind: &str,
    until: Timestamp,
    note: &str,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, hold_until, hold_reason, hold_note, updated_at) \
         VALUES (?1, ?2, 'network', ?3, ?4) \
         ON CONFLICT (kind) DO UPDATE SET \
           hold_reason = CASE WHEN hold_reason = 'service' AND hold_until > ?2 \
                              THEN 'service' ELSE 'network' END, \
           hold_note = CASE WHEN hold_reason = 'service' AND hold_until > ?2 \
                            THEN hold_note ELSE ?3 END, \
           hold_until = max(coalesce(hold_until, ?2), ?2), \
           updated_at = ?4",
    )?
    .execute(params![kind, until.as_millis(), note, now.as_millis()])?;
    Ok(())
}

/// Holds `kind` for the service until `until` (a handler said it throttles the
/// kind): a later hold the service asked for stays.
pub(crate) fn hold_for_service(
    tx: &Transaction<'_>,
    kind: &str,
    until: Timestamp,
    note: &str,
    now: Timestamp,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO kinds (kind, hold_until, hold_reason, hold_note, updated_at) \
         VALUES (?1, ?2, 'service', ?3, ?4) \
         ON CONFLICT (kind) DO UPDATE SET \
           hold_note = CASE WHEN hold_reason = 'service' AND hold_until > ?2 \
                            THEN hold_note ELSE ?3 END, \
           hold_until = CASE WHEN hold_reason = 'service' AND hold_until > ?2 \
                             THEN hold_until ELSE ?2 END, \
           hold_reason = 'service', \
           updated_at = ?4",
    )?
    .execute(params![kind, until.as_millis(), note, now.as_millis()])?;
    Ok(())
}

/// Ends `kind`'s hold for the network, if it has one: an attempt got through.
pub(crate) fn end_network_hold(tx: &Transaction<'_>, kind: &str) -> Result<()> {
    tx.prepare_cached(
        "UPDATE kinds SET hold_until = NULL, hold_reason = NULL, hold_note = NULL \
         WHERE kind = ?1 AND hold_reason = 'network'",
    )?
    .execute([kind])?;
    Ok(())
}

/// Books the next probe of `kind`, held for the network, at `until`: a probe started.
pub(crate) fn book_probe(tx: &Transaction<'_>, kind: &str, until: Timestamp) -> Result<()> {
    tx.prepare_cached(
        "UPDATE kinds SET hold_until = ?2 WHERE kind = ?1 AND hold_reason = 'network'",
    )?
    .execute(params![kind, until.as_millis()])?;
    Ok(())
}

/// The network came back: every kind held for it may probe at once. Returns how many
/// kinds were held.
pub(crate) fn network_back(tx: &Transaction<'_>, now: Timestamp) -> Result<usize> {
    Ok(tx
        .prepare_cached(
            "UPDATE kinds SET hold_until = min(hold_until, ?1) WHERE hold_reason = 'network'",
        )?
        .execute([now.as_millis()])?)
}

/// Every kind with a hold that keeps jobs from starting at `now`: a hold for the
/// network (closed, or probing), or one for the service that has not run out.
pub(crate) fn holds(conn: &Connection, now: Timestamp) -> Result<Vec<HeldKind>> {
    let mut statement = conn.prepare_cached(
        "SELECT kind, hold_until, hold_reason, hold_note FROM kinds \
         WHERE hold_reason = 'network' OR hold_reason = 'service' AND hold_until > ?1 \
         ORDER BY kind",
    )?;
    let rows = statement.query_map([now.as_millis()], |r| {
        Ok((
            r.get::<_, String>(0)?,
            hold_from(r.get(1)?, r.get::<_, Option<String>>(2)?.as_deref()),
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    let mut held = Vec::new();
    for row in rows {
        let (kind, hold, note) = row?;
        if let Some(hold) = hold {
            held.push(HeldKind { kind, hold, note });
        }
    }
    Ok(held)
}
