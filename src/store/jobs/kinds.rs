//! A kind's settings stored in `kinds`: its cap, whether it is paused, and how many
//! lease expiries in a row end a job of it.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;

/// The cap on running jobs of `kind` stored in the file, if any, and whether the kind
/// is paused.
pub(crate) fn kind_settings(conn: &Connection, kind: &str) -> Result<(Option<u32>, bool)> {
    Ok(conn
        .prepare_cached("SELECT max_running, paused FROM kinds WHERE kind = ?1")?
        .query_row([kind], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .unwrap_or((None, false)))
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

/// The paused kinds, by name.
pub(crate) fn paused_kinds(conn: &Connection) -> Result<Vec<String>> {
    let mut statement =
        conn.prepare_cached("SELECT kind FROM kinds WHERE paused = 1 ORDER BY kind")?;
    let rows = statement.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
