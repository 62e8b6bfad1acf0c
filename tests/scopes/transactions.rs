//! A row's scope is checked in the transaction that acts on it (2).

use super::*;

// ===== 2. checked in the transaction that acts =====

/// Holds the write lock from another connection with a job of another kind inserted
/// (not yet visible), starts `command` for that job's id from the scoped window, and
/// commits once the command has had time to read. Without the check inside its write,
/// the command read nothing (so nothing to refuse) and then acted on the row the
/// commit made visible; with it, the row is outside the scope whatever the order.
fn race(app: &App, command: &str, args: impl Fn(i64) -> Value, status: &str) -> Value {
    let next = enqueue(app, "main", "export").unwrap().as_i64().unwrap() + 1;
    let path = app.ui.jobs().queue().path().to_owned();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    other
        .execute(
            "INSERT INTO jobs (id, kind, payload, status, priority, run_at, max_attempts, \
             actor, created_at, updated_at, attempts) \
             VALUES (?1, 'ingest', '1', ?2, 50, 0, 5, 'system', 0, 0, 1)",
            rusqlite::params![next, status],
        )
        .unwrap();
    let committer = std::thread::spawn(move || {
        // Bounded: the command reads at once and then waits for the write lock.
        std::thread::sleep(Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
        other
    });
    let answer = app.ui.invoke_in("scoped", command, args(next));
    let other = committer.join().unwrap();
    let refused = answer.expect_err("the other kind's job was touched");
    assert_code(&refused, "notFound");
    let row: String = other
        .query_row("SELECT status FROM jobs WHERE id = ?1", [next], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(row, status, "{command} changed the other kind's job");
    refused
}

#[test]
fn a_cancel_for_an_id_about_to_appear_never_touches_another_kinds_job() {
    let app = app(&[]);
    race(
        &app,
        "cancel",
        |id| json!({"job": {"durable": id}}),
        "queued",
    );
}

#[test]
fn retry_and_delete_check_the_kind_in_their_write_too() {
    let app = app(&[]);
    race(&app, "retry_job", |id| json!({"id": id}), "failed");
    race(&app, "delete_job", |id| json!({"id": id}), "failed");
}
