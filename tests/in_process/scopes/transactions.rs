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

#[test]
fn an_enqueue_naming_a_parent_about_to_appear_of_another_kind_adds_nothing() {
    let app = app(&[]);
    let count = |app: &App| -> i64 {
        let conn = rusqlite::Connection::open(app.ui.jobs().queue().path()).unwrap();
        conn.query_row("SELECT count(*) FROM jobs WHERE kind = 'export'", [], |r| {
            r.get(0)
        })
        .unwrap()
    };
    let enqueue_under = |id: i64| json!({"kind": "export", "payload": 1, "options": {"parent": id, "delayMs": 3_600_000}});
    // `race` enqueues one export job of its own to find the next id.
    let before = count(&app) + 1;
    race(&app, "enqueue", enqueue_under, "queued");
    assert_eq!(
        count(&app),
        before,
        "no job was added under the other kind's job"
    );
}

/// The same for a schedule: another connection holds the write lock with a schedule
/// of another kind inserted under `name`, the scoped window acts on that name, and the
/// other commits once the command has had time to read.
fn race_schedule(app: &App, command: &str) {
    let name = format!("sneaky-{command}");
    let path = app.ui.jobs().queue().path().to_owned();
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let far = 4_000_000_000_000_i64;
    other
        .execute(
            "INSERT INTO schedules (name, kind, payload, priority, actor, interval_ms, \
             next_run, created_at, updated_at) \
             VALUES (?1, 'ingest', 'null', 50, 'system', 3600000, ?2, 0, 0)",
            rusqlite::params![name, far],
        )
        .unwrap();
    let committer = std::thread::spawn(move || {
        // Bounded: the command reads at once and then waits for the write lock.
        std::thread::sleep(Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
        other
    });
    let answer = app.ui.invoke_in("scoped", command, json!({ "name": name }));
    let other = committer.join().unwrap();
    let refused = answer.expect_err("the other kind's schedule was touched");
    assert_code(&refused, "notFound");
    let (paused, next_run, last_run): (bool, i64, Option<i64>) = other
        .query_row(
            "SELECT paused, next_run, last_run FROM schedules WHERE name = ?1",
            [&name],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (paused, next_run, last_run),
        (false, far, None),
        "{command}"
    );
}

#[test]
fn schedule_actions_check_the_schedules_kind_in_their_write() {
    let app = app(&[]);
    for command in ["run_schedule_now", "pause_schedule", "resume_schedule"] {
        race_schedule(&app, command);
    }
}

#[test]
fn an_agents_valid_lease_on_a_job_outside_its_scope_is_refused_as_lost() {
    let app = app(&[]);
    let id = enqueue(&app, "main", "ingest").unwrap();
    app.ui
        .invoke_in("main", "retry_job", json!({"id": id}))
        .unwrap();
    let claimed = app
        .ui
        .invoke_in(
            "main",
            "agent_claim",
            json!({"request": {"agent": "gpu", "kinds": ["ingest"]}}),
        )
        .unwrap();
    let lease = claimed[0]["lease"].clone();
    // The scoped window holds the real lease (secret included), valid for 30 s: its
    // scope (export) still keeps it out of an ingest job, checked in the write.
    for (command, args) in [
        (
            "agent_heartbeat",
            json!({"lease": lease, "progress": {"done": 1, "total": 2}}),
        ),
        ("agent_complete", json!({"lease": lease, "result": null})),
        (
            "agent_fail",
            json!({"lease": lease, "error": "x", "permanent": true}),
        ),
        (
            "agent_defer",
            json!({"lease": lease, "deferral": {"type": "offline", "message": "x"}}),
        ),
    ] {
        let refused = app.ui.invoke_in("scoped", command, args).unwrap_err();
        assert_code(&refused, "lostLease");
        assert!(
            !refused["message"].as_str().unwrap().contains("ingest"),
            "names no kind: {refused}"
        );
    }
    let job = app
        .ui
        .invoke_in("main", "get_job", json!({"id": id}))
        .unwrap();
    assert_eq!(job["status"], json!("running"));
    assert_eq!(job["progress"], Value::Null, "no progress stored");
    assert_eq!(
        job["leaseExpiresAt"], claimed[0]["job"]["leaseExpiresAt"],
        "not renewed"
    );
    // The holder's window may.
    let done = app
        .ui
        .invoke_in(
            "main",
            "agent_complete",
            json!({"lease": lease, "result": null}),
        )
        .unwrap();
    assert_eq!(done, json!("succeeded"));
}
