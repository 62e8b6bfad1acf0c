//! SQL for the `kv` table: JSON values under dotted keys.

use rusqlite::{params, Connection, OptionalExtension};

use crate::clock::Timestamp;
use crate::error::Result;

/// The value under `key`.
pub(crate) fn get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM kv WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

/// The value under `key` in the file at `path`, read on a read-only connection of
/// its own, before the queue opens the file with settings that may depend on it:
/// `None` when the file, the table or the key is not there, or the file cannot be read.
pub(crate) fn peek(path: &std::path::Path, key: &str) -> Option<String> {
    if !path.is_file() {
        return None;
    }
    let conn = Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    conn.busy_timeout(std::time::Duration::from_secs(2)).ok()?;
    get(&conn, key).ok().flatten()
}

/// Sets `key` to `value`.
pub(crate) fn put(conn: &Connection, key: &str, value: &str, now: Timestamp) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO kv (key, value, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )?
    .execute(params![key, value, now.as_millis()])?;
    Ok(())
}

/// Deletes `key`; whether it was there.
pub(crate) fn delete(conn: &Connection, key: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM kv WHERE key = ?1")?
        .execute([key])?
        > 0)
}

/// Deletes every key that starts with `prefix`; returns how many. A range on the
/// primary key, not `LIKE`, so `%` and `_` in names mean nothing special.
pub(crate) fn delete_prefix(conn: &Connection, prefix: &str) -> Result<u64> {
    let end = prefix_end(prefix);
    let deleted = match &end {
        Some(end) => conn
            .prepare_cached("DELETE FROM kv WHERE key >= ?1 AND key < ?2")?
            .execute(params![prefix, end])?,
        None => conn
            .prepare_cached("DELETE FROM kv WHERE key >= ?1")?
            .execute([prefix])?,
    };
    Ok(deleted as u64)
}

/// Every key that starts with `prefix`, sorted.
pub(crate) fn keys(conn: &Connection, prefix: &str) -> Result<Vec<String>> {
    let end = prefix_end(prefix);
    let mut statement = conn.prepare_cached(
        "SELECT key FROM kv WHERE key >= ?1 AND (?2 IS NULL OR key < ?2) ORDER BY key",
    )?;
    let rows = statement.query_map(params![prefix, end], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The smallest string greater than every string starting with `prefix`.
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = char::from_u32(last as u32 + 1) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_end_is_the_next_string() {
        assert_eq!(prefix_end("acct.a.b.").as_deref(), Some("acct.a.b/"));
        assert_eq!(prefix_end(""), None);
    }
}
