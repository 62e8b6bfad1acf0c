//! Workflows from a scoped window: every step's kind in its scope, and a workflow
//! (or the pieces of one) of other kinds neither read, counted, cancelled nor retried.

use super::*;

fn step(kind: &str) -> Value {
    json!({"kind": kind, "payload": 1, "options": {"delayMs": 3_600_000}})
}

fn workflow(parent: &str, pieces: &[&str], then: &str) -> Value {
    json!({"workflow": {
        "parent": step(parent),
        "pieces": pieces.iter().map(|kind| step(kind)).collect::<Vec<_>>(),
        "then": [step(then)],
    }})
}

fn jobs_in_db(app: &App) -> i64 {
    let conn = rusqlite::Connection::open(app.ui.jobs().queue().path()).unwrap();
    conn.query_row("SELECT count(*) FROM jobs", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_scoped_window_enqueues_a_workflow_only_of_its_own_kinds() {
    let app = app(&[]);
    let before = jobs_in_db(&app);
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "enqueue_workflow",
            workflow("export", &["export", "ingest"], "export"),
        )
        .unwrap_err();
    assert_code(&refused, "forbidden");
    assert_eq!(jobs_in_db(&app), before, "nothing was written");

    // A step that waits for a job of another kind: not there, for this window.
    let other = enqueue(&app, "main", "ingest").unwrap();
    let mut asked = workflow("export", &["export"], "export");
    asked["workflow"]["then"][0]["options"]["after"] = json!([other]);
    let refused = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", asked)
        .unwrap_err();
    assert_code(&refused, "notFound");
    assert_eq!(jobs_in_db(&app), before + 1);

    // A step naming a parent of its own is refused, naming it.
    let mut asked = workflow("export", &["export"], "export");
    asked["workflow"]["pieces"][0]["options"]["parent"] = json!(other);
    let refused = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", asked)
        .unwrap_err();
    assert_code(&refused, "invalidArgument");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("workflow.pieces[0].options.parent"),
        "{refused}"
    );

    let ids = app
        .ui
        .invoke_in(
            "scoped",
            "enqueue_workflow",
            workflow("export", &["export", "export"], "export"),
        )
        .unwrap();
    assert_eq!(ids["pieces"].as_array().unwrap().len(), 2);
    let state = app
        .ui
        .invoke_in("scoped", "get_workflow", json!({"parent": ids["parent"]}))
        .unwrap();
    assert_eq!(state["progress"], json!({"done": 0, "total": 3}));
    assert_eq!(state["ended"], json!(false));
}

#[test]
fn another_kinds_workflow_and_pieces_are_not_there_for_a_scoped_window() {
    let app = app(&[]);
    // Enqueued by the window that reaches everything.
    let theirs = app
        .ui
        .invoke_in(
            "main",
            "enqueue_workflow",
            workflow("ingest", &["export"], "ingest"),
        )
        .unwrap();
    let parent = theirs["parent"].clone();
    for command in ["get_workflow", "job_dependencies"] {
        let key = if command == "get_workflow" {
            "parent"
        } else {
            "id"
        };
        let answer = app
            .ui
            .invoke_in("scoped", command, json!({ key: parent }))
            .unwrap();
        assert_eq!(answer, Value::Null, "{command}");
    }
    for command in ["cancel_workflow", "retry_workflow"] {
        let refused = app
            .ui
            .invoke_in("scoped", command, json!({ "parent": parent }))
            .unwrap_err();
        assert_code(&refused, "notFound");
    }

    // A workflow of its own kind with pieces of another: those are neither counted,
    // listed nor cancelled.
    let mixed = app
        .ui
        .invoke_in(
            "main",
            "enqueue_workflow",
            workflow("export", &["export", "ingest"], "ingest"),
        )
        .unwrap();
    let state = app
        .ui
        .invoke_in("scoped", "get_workflow", json!({"parent": mixed["parent"]}))
        .unwrap();
    assert_eq!(state["progress"]["total"], json!(1), "{state}");
    let deps = app
        .ui
        .invoke_in(
            "scoped",
            "job_dependencies",
            json!({"id": mixed["pieces"][0]}),
        )
        .unwrap();
    assert_eq!(deps["waitedBy"], json!([]), "the waiting job is an ingest");
    let cancelled = app
        .ui
        .invoke_in(
            "scoped",
            "cancel_workflow",
            json!({"parent": mixed["parent"]}),
        )
        .unwrap();
    // The parent and its export piece; the job waiting for that piece follows its own
    // policy (cancel, the default), as it would for any cancel of a job it waits for,
    // and is not counted: the window may not read its kind.
    assert_eq!(cancelled["cancelled"], json!(2), "{cancelled}");
    let jobs = app.ui.jobs();
    let ingest = tauri_plugin_jobs::queue::JobId::from_raw(mixed["pieces"][1].as_i64().unwrap());
    assert_eq!(
        jobs.queue().get(ingest).unwrap().unwrap().status,
        tauri_plugin_jobs::queue::JobStatus::Queued,
        "the other kind's piece was left as it was"
    );
}

#[test]
fn a_window_that_may_enqueue_a_workflow_but_read_none_of_it_still_enqueues_it() {
    // Granted the workflow enqueue for `export`, and no read at all: the workflow's
    // own jobs are its own, whatever it may read.
    let narrow =
        json!([{ "identifier": "jobs:allow-enqueue-workflow", "allow": [{ "kind": "export" }] }]);
    let app = app(&[("narrow", narrow)]);
    let ids = app
        .ui
        .invoke_in(
            "narrow",
            "enqueue_workflow",
            workflow("export", &["export", "export"], "export"),
        )
        .unwrap();
    let jobs = app.ui.jobs();
    let last = tauri_plugin_jobs::queue::JobId::from_raw(ids["then"][0].as_i64().unwrap());
    assert_eq!(jobs.queue().get(last).unwrap().unwrap().waiting_on_jobs, 2);
}

#[test]
fn waiting_for_the_pieces_of_a_parent_with_hidden_pieces_is_refused_as_missing() {
    let app = app(&[]);
    let mixed = app
        .ui
        .invoke_in(
            "main",
            "enqueue_workflow",
            workflow("export", &["export", "ingest"], "export"),
        )
        .unwrap();
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "enqueue",
            json!({"kind": "export", "payload": 1, "options": {"afterPiecesOf": mixed["parent"]}}),
        )
        .unwrap_err();
    assert_code(&refused, "notFound");
    let message = refused["message"].as_str().unwrap();
    let hidden = mixed["pieces"][1].to_string();
    assert!(
        !message.contains(&hidden),
        "names the hidden piece: {message}"
    );

    // Jobs after the pieces are bounded by the waits they make.
    let pieces: Vec<&str> = vec!["export"; 200];
    let mut asked = workflow("export", &pieces, "export");
    asked["workflow"]["then"] = json!(vec![step("export"); 51]);
    let refused = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", asked)
        .unwrap_err();
    assert_code(&refused, "invalidArgument");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("workflow.then"),
        "{refused}"
    );
}

#[test]
fn a_webview_workflow_and_a_webview_wait_are_bounded_in_jobs() {
    let app = app(&[]);
    let before = jobs_in_db(&app);
    let pieces: Vec<&str> = vec!["export"; 10_001];
    let mut asked = workflow("export", &pieces, "export");
    asked["workflow"]["then"] = json!([]);
    let refused = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", asked)
        .unwrap_err();
    assert_code(&refused, "invalidArgument");
    assert!(
        refused["message"].as_str().unwrap().contains("10000"),
        "{refused}"
    );

    let ids: Vec<i64> = (1..=10_001).collect();
    let refused = app
        .ui
        .invoke_in(
            "scoped",
            "enqueue",
            json!({"kind": "export", "payload": 1, "options": {"after": ids}}),
        )
        .unwrap_err();
    assert_code(&refused, "invalidArgument");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("options.after"),
        "{refused}"
    );
    assert_eq!(jobs_in_db(&app), before, "nothing was written");
}
