//! SQL for the `jobs` table, a file per family of statements: inserting (`insert`),
//! claiming (`claim`: leases, lanes and idle reads; `claimed`: the steps for each job it
//! takes), a running attempt's fenced writes (`attempt`), what an operator
//! does to one job (`admin`), the settings of a kind (`kinds`) and reading (`read`).
//! The queue decides; these modules only read and write rows.

/// The columns of a [`Job`](crate::model::Job), in the order `read::job_from_row` reads them. A macro, so
/// that the statements built from it are constants: hot statements are looked up in
/// the statement cache by their text, and formatting that text on every call was a
/// measurable share of a claim. The last column is how many jobs a waiting one still
/// waits for (its row in `job_counts`, migration 17; `4` is [`WAITING_FOR_JOBS`]);
/// `job_columns!("0")` reads a job known to wait for none (one just claimed).
///
/// [`WAITING_FOR_JOBS`]: crate::model::WAITING_FOR_JOBS
macro_rules! job_columns {
    () => {
        job_columns!(
            "CASE WHEN needs & 4 THEN coalesce((SELECT n FROM job_counts \
             WHERE kind = '' AND status = CAST(jobs.id AS TEXT)), 0) ELSE 0 END"
        )
    };
    ($waiting_on:literal) => {
        concat!(
            "id, kind, payload, status, priority, run_at, attempts, max_attempts, \
             lease_owner, lease_expires_at, cancel_requested, dedupe_key, last_error, result, \
             parent_id, actor, created_at, updated_at, finished_at, started_at, timeout_ms, \
             progress_done, progress_total, payload_version, errors, needs, max_offline_ms, \
             snoozed_until, sleep_until, awaits_signal, ",
            $waiting_on
        )
    };
}

/// How many failed attempts a job keeps the error of (`jobs.errors`), the oldest
/// dropped first.
pub(crate) const MAX_ATTEMPT_ERRORS: usize = 20;

/// The assignment that appends an attempt's error to `jobs.errors` (see migration 18):
/// `$at` and `$error` are the statement's parameters for the time and the text; the
/// attempt is the row's `attempts`.
macro_rules! append_error {
    ($at:literal, $error:expr) => {
        concat!("errors = ", errors_appended!($at, $error))
    };
}

/// The value of `jobs.errors` with an attempt's error appended, for [`append_error!`]
/// and for a statement that appends only in some cases. A value that is not a JSON
/// array (a file edited by hand, even text that is not JSON) starts over rather than
/// failing the statement: the nested `CASE`s guard `json_type` from invalid text, as
/// `AND` need not. The literal 20 is [`MAX_ATTEMPT_ERRORS`] (a unit test ties them).
macro_rules! errors_appended {
    ($at:literal, $error:expr) => {
        concat!(
            "json_remove(json_insert(",
            errors_array!(),
            ", '$[#]', json_object('attempt', attempts, 'at', ",
            $at,
            ", 'error', ",
            $error,
            ")), CASE WHEN json_array_length(",
            errors_array!(),
            ") >= 20 THEN '$[0]' ELSE '$[20]' END)"
        )
    };
}

/// The value of `jobs.errors` with a deferred attempt noted (its outcome `?10`:
/// `offline`, `snoozed`, `throttled`, `slept` or `signal`; when it ended `?4`, what it said `?9`, until
/// when nothing of it runs `?11`), in the timeline beside the failures. A run of offline
/// probes is one entry: a probe after an entry that is already offline updates it (its
/// `at`, `until`, `error`, and `probes` counted up), so a day offline keeps the
/// failures before it rather than 5,760 probes. Dropped oldest first past 20, as the
/// failures are.
macro_rules! deferral_noted {
    () => {
        concat!(
            "CASE WHEN ?10 = 'offline' AND json_extract(",
            errors_array!(),
            ", '$[#-1].outcome') = 'offline' THEN json_set(",
            errors_array!(),
            ", '$[#-1].at', ?4, '$[#-1].until', ?11, '$[#-1].error', ?9, \
             '$[#-1].probes', coalesce(json_extract(",
            errors_array!(),
            ", '$[#-1].probes'), 1) + 1) ELSE json_remove(json_insert(",
            errors_array!(),
            ", '$[#]', json_object('attempt', attempts, 'at', ?4, 'error', ?9, \
             'outcome', ?10, 'until', ?11)), CASE WHEN json_array_length(",
            errors_array!(),
            ") >= 20 THEN '$[0]' ELSE '$[20]' END) END"
        )
    };
}

/// `jobs.errors` when it is a JSON array, else an empty one.
macro_rules! errors_array {
    () => {
        "CASE WHEN json_valid(errors) THEN CASE json_type(errors) WHEN 'array' \
         THEN errors ELSE '[]' END ELSE '[]' END"
    };
}

mod admin;
mod attempt;
mod claim;
mod claimed;
pub(crate) mod deps;
mod insert;
mod kinds;
pub(crate) mod logs;
mod read;
pub(crate) mod signals;
pub(crate) mod steps;

pub(crate) use admin::*;
pub(crate) use attempt::*;
pub(crate) use claim::*;
pub(crate) use claimed::*;
pub(crate) use insert::*;
pub(crate) use kinds::*;
pub(crate) use read::*;

use rusqlite::{params, Row, Transaction};

use crate::clock::Timestamp;
use crate::error::Result;
use crate::model::{JobId, JobStatus, Patterns};

const JOB_COLUMNS: &str = job_columns!();
const _: () = assert!(
    crate::model::WAITING_FOR_JOBS == 4,
    "job_columns! names the bit"
);

/// A state change made by a statement, for the event it becomes.
#[derive(Debug, Clone)]
pub(crate) struct Change {
    pub id: JobId,
    pub kind: String,
    pub from: Option<JobStatus>,
    pub to: JobStatus,
    pub attempt: u32,
    /// Set when an attempt ended (finished or queued for a retry, never a release):
    /// how long it waited and ran, for the history (`store::history`).
    pub ran: Option<Ran>,
    /// Set when a handler deferred the attempt (offline, a snooze, a throttle): back
    /// to the queue, neither a retry nor a lease taken back.
    pub deferred: bool,
}

/// How long an attempt waited from runnable to its start, and ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ran {
    pub waited_ms: u64,
    pub ran_ms: u64,
}

impl Ran {
    /// An attempt of a job runnable from `run_at`, started at `started`, ended `now`
    /// (a clock that went back counts zero).
    pub(crate) fn between(run_at: Timestamp, started: Timestamp, now: Timestamp) -> Self {
        let span = |from: Timestamp, to: Timestamp| {
            u64::try_from(to.as_millis().saturating_sub(from.as_millis())).unwrap_or(0)
        };
        Ran {
            waited_ms: span(run_at, started),
            ran_ms: span(started, now),
        }
    }
}

/// Keeps `job_counts` in step, in the transaction that moved the jobs: `delta` jobs of
/// `kind` entered (positive) or left (negative) the finished `status`. Queued and
/// running jobs are not tallied (they are counted from their index). A job that
/// ends is not tallied here: its change goes to the kind's current minute
/// (`history::record`), whose ends join these rows when the minute is over, and
/// [`read::counts`] adds them meanwhile.
pub(crate) fn tally(tx: &Transaction<'_>, kind: &str, status: JobStatus, delta: i64) -> Result<()> {
    if status.is_finished() && delta != 0 {
        tx.prepare_cached(
            "INSERT INTO job_counts (kind, status, n) VALUES (?1, ?2, ?3) \
             ON CONFLICT (kind, status) DO UPDATE SET n = n + excluded.n",
        )?
        .execute(params![kind, status.as_str(), delta])?;
    }
    Ok(())
}

/// Whether a row of `kind` is within `reach`: the kinds a scoped caller may touch,
/// read in the same transaction as the write that follows. `None` reaches every kind.
/// A row outside it is treated exactly as a missing one.
pub(crate) fn within(reach: Option<&Patterns>, kind: &str) -> bool {
    reach.is_none_or(|patterns| patterns.allows(kind))
}

/// The text in column `index`, borrowed: what `row.get::<_, String>(index)` reads,
/// with the same error for a value that is not text, and no copy.
fn text_at<'r>(row: &'r Row<'_>, index: usize) -> rusqlite::Result<&'r str> {
    let value = row.get_ref(index)?;
    value.as_str().map_err(|_| {
        let name = row.as_ref().column_name(index).unwrap_or("?").to_owned();
        rusqlite::Error::InvalidColumnType(index, name, value.data_type())
    })
}

fn status_from(row: &Row<'_>, index: usize) -> rusqlite::Result<JobStatus> {
    let text = row.get_ref(index)?.as_str().map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, error.into())
    })?;
    text.parse().map_err(|reason: String| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, reason.into())
    })
}

#[cfg(test)]
mod tests {
    use rusqlite::{params, Connection};

    use super::MAX_ATTEMPT_ERRORS;

    /// As a claim counts the attempt and its end records the failure.
    fn append(conn: &Connection, at: i64, error: &str) {
        conn.execute("UPDATE jobs SET attempts = attempts + 1", [])
            .unwrap();
        conn.execute(
            concat!("UPDATE jobs SET ", append_error!("?1", "?2")),
            params![at, error],
        )
        .unwrap();
    }

    fn errors(conn: &Connection) -> Vec<serde_json::Value> {
        let text: String = conn
            .query_row("SELECT errors FROM jobs", [], |r| r.get(0))
            .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn the_errors_kept_are_the_last_max_attempt_errors() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE jobs (attempts INTEGER, errors TEXT); INSERT INTO jobs VALUES (0, NULL);",
        )
        .unwrap();
        for n in 1..=(MAX_ATTEMPT_ERRORS as i64 + 5) {
            append(&conn, n * 1000, &format!("failure {n}"));
        }
        let kept = errors(&conn);
        assert_eq!(kept.len(), MAX_ATTEMPT_ERRORS);
        assert_eq!(kept[0]["attempt"], 6);
        assert_eq!(kept[0]["error"], "failure 6");
        assert_eq!(
            kept[MAX_ATTEMPT_ERRORS - 1]["attempt"],
            MAX_ATTEMPT_ERRORS as i64 + 5
        );
        assert_eq!(
            kept[MAX_ATTEMPT_ERRORS - 1]["at"],
            (MAX_ATTEMPT_ERRORS as i64 + 5) * 1000
        );
    }

    #[test]
    fn a_value_that_is_not_an_array_starts_over() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE jobs (attempts INTEGER, errors TEXT);")
            .unwrap();
        for stored in ["not json {", "{\"a\": 1}", "42"] {
            conn.execute("DELETE FROM jobs", []).unwrap();
            conn.execute("INSERT INTO jobs VALUES (2, ?1)", [stored])
                .unwrap();
            append(&conn, 7, "boom");
            let kept = errors(&conn);
            assert_eq!(kept.len(), 1, "{stored}");
            assert_eq!(kept[0]["attempt"], 3);
            assert_eq!(kept[0]["error"], "boom");
        }
    }
}
