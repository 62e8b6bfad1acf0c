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

// ===== no text a window reads names a job it may not read =====

#[test]
fn a_parent_kept_by_its_dedupe_key_makes_no_later_job_the_workflows_own() {
    let app = app(&[]);
    let mut first = workflow("export", &["export"], "export");
    first["workflow"]["parent"]["options"]["dedupeKey"] = json!("nightly");
    let first = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", first)
        .unwrap();
    // A job of a kind the window may not read, newer than that parent.
    let hidden = enqueue(&app, "main", "ingest").unwrap();
    let before = jobs_in_db(&app);

    // The parent step is kept by its key: the hidden job is still not the workflow's.
    let mut again = workflow("export", &["export"], "export");
    again["workflow"]["parent"]["options"]["dedupeKey"] = json!("nightly");
    again["workflow"]["pieces"][0]["options"]["after"] = json!([hidden]);
    let refused = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", again.clone())
        .unwrap_err();
    assert_code(&refused, "notFound");
    assert_eq!(jobs_in_db(&app), before, "nothing was written");
    // Answered exactly like an id that is not there at all.
    again["workflow"]["pieces"][0]["options"]["after"] = json!([999_999]);
    let missing = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", again.clone())
        .unwrap_err();
    assert_code(&missing, "notFound");

    // Its own steps are still its own, kept parent included.
    again["workflow"]["pieces"][0]["options"]["after"] = json!([]);
    let ids = app
        .ui
        .invoke_in("scoped", "enqueue_workflow", again)
        .unwrap();
    assert_eq!(ids["parent"], first["parent"], "kept by its key");
}

/// The ids of the `jobStateChanged` events `channel` heard.
fn job_ids_heard(channel: &MockChannel) -> Vec<Value> {
    channel
        .drain()
        .into_iter()
        .filter(|message| message["event"]["type"] == json!("jobStateChanged"))
        .map(|message| message["event"]["id"].clone())
        .collect()
}

#[test]
fn a_job_ended_by_a_hidden_job_reads_without_it_in_every_route() {
    use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, JobFailure, NewJob, Workflow};
    let app = app(&[]);
    let queue = app.ui.jobs().queue().clone();
    let scoped_events = app.ui.subscribe("scoped");

    // An export workflow with an ingest piece (the app's own Rust code may mix kinds);
    // the piece fails, and the export job waiting for it is cancelled, naming it.
    let mixed = queue
        .enqueue_workflow(
            Workflow::new(NewJob::new("export", json!(1)))
                .pieces([NewJob::new("ingest", json!(2))])
                .then(NewJob::new("export", json!(3))),
        )
        .unwrap();
    let claimed = queue
        .claim(&ClaimRequest::new("worker", ["ingest"]))
        .unwrap();
    assert_eq!(claimed[0].job.id, mixed.pieces[0]);
    queue
        .fail(&claimed[0].lease, JobFailure::permanent("no such mailbox"))
        .unwrap();
    let last = json!(mixed.then[0]);
    let full = queue
        .get(mixed.then[0])
        .unwrap()
        .unwrap()
        .last_error
        .unwrap();
    assert!(
        full.contains(&format!("#{} (ingest)", mixed.pieces[0])),
        "{full}"
    );

    // What the scoped window reads: one, a page, the watch's read.
    let seen = "a job it waited for, one this window cannot see, failed";
    let one = app
        .ui
        .invoke_in("scoped", "get_job", json!({"id": last}))
        .unwrap();
    assert_eq!(one["lastError"], json!(seen), "{one}");
    let page = app
        .ui
        .invoke_in("scoped", "list_jobs", json!({"filter": {"kind": "export"}}))
        .unwrap();
    let listed = page
        .as_array()
        .unwrap()
        .iter()
        .find(|job| job["id"] == last)
        .expect("listed");
    assert_eq!(listed["lastError"], json!(seen));
    // A window that may read the piece reads the whole reason.
    let main = app
        .ui
        .invoke_in("main", "get_job", json!({"id": last}))
        .unwrap();
    assert_eq!(main["lastError"], json!(full));
    // The workflow's state counts what the window may read, and names nothing.
    let state = app
        .ui
        .invoke_in("scoped", "get_workflow", json!({"parent": mixed.parent}))
        .unwrap();
    assert_eq!(state["progress"], json!({"done": 1, "total": 1}), "{state}");
    // The events it heard name only jobs it may read.
    let mine = [json!(mixed.parent), last.clone()];
    for id in job_ids_heard(&scoped_events) {
        assert!(mine.contains(&id), "heard of job {id}");
    }

    // A workflow of a hidden kind with a piece the window may read: cancelled, the
    // piece reads "its workflow was cancelled", no parent, and the parent's pieces
    // are not listed for it.
    let later = EnqueueOptions::new().delay(Duration::from_secs(3600));
    let theirs = queue
        .enqueue_workflow(Workflow::new(NewJob::new("ingest", json!(1))).pieces([
            NewJob::new("export", json!(2)).options(later),
            NewJob::new("export", json!(3)),
        ]))
        .unwrap();
    let piece = json!(theirs.pieces[0]);
    // An agent of the window claims the other piece: its job names no parent either.
    let agent_claimed = app
        .ui
        .invoke_in(
            "scoped",
            "agent_claim",
            json!({"request": {"agent": "a", "kinds": ["export"], "maxJobs": 10}}),
        )
        .unwrap();
    let claimed_piece = agent_claimed
        .as_array()
        .unwrap()
        .iter()
        .find(|claimed| claimed["job"]["id"] == json!(theirs.pieces[1]))
        .expect("claimed");
    assert_eq!(
        claimed_piece["job"]["parent"],
        Value::Null,
        "{claimed_piece}"
    );
    queue.cancel_workflow(theirs.parent).unwrap();
    let one = app
        .ui
        .invoke_in("scoped", "get_job", json!({"id": piece}))
        .unwrap();
    assert_eq!(
        one["lastError"],
        json!("its workflow was cancelled"),
        "{one}"
    );
    assert_eq!(one["parent"], Value::Null, "{one}");
    let main = app
        .ui
        .invoke_in("main", "get_job", json!({"id": piece}))
        .unwrap();
    assert_eq!(main["parent"], json!(theirs.parent));
    assert!(
        main["lastError"]
            .as_str()
            .unwrap()
            .contains(&format!("#{} (ingest)", theirs.parent)),
        "{main}"
    );
    let pieces = app
        .ui
        .invoke_in(
            "scoped",
            "list_jobs",
            json!({"filter": {"parent": theirs.parent}}),
        )
        .unwrap();
    assert_eq!(pieces, json!([]));
    let pieces = app
        .ui
        .invoke_in(
            "main",
            "list_jobs",
            json!({"filter": {"parent": theirs.parent}}),
        )
        .unwrap();
    assert_eq!(pieces.as_array().unwrap().len(), 2);
}

/// Results by piece (what `workflowResults` pages through) and steps, from a scoped
/// window: its kinds' pieces with their results and steps; a hidden piece is not
/// listed, reads as missing, and its steps are not heard.
#[test]
fn a_scoped_window_reads_only_its_kinds_results_and_steps() {
    use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions};
    let app = app(&[]);
    let events = app.ui.subscribe("scoped");
    let queue = app.ui.jobs().queue();
    let parent = queue
        .enqueue("export", &0, EnqueueOptions::new())
        .unwrap()
        .id;
    let piece = |kind: &str, n: u32| {
        queue
            .enqueue(kind, &n, EnqueueOptions::new().parent(parent))
            .unwrap()
            .id
    };
    let (mine, hidden) = (piece("export", 1), piece("ingest", 2));
    // Run both as an agent would: a step each, then a result.
    let request = ClaimRequest::new("agent:test", ["export", "ingest"]).max_jobs(3);
    for job in queue.claim(&request).unwrap() {
        let at = app
            .ui
            .jobs()
            .queue()
            .get(job.job.id)
            .unwrap()
            .unwrap()
            .created_at;
        queue
            .record_step(&job.lease, "fetch", &json!("fetched"), at)
            .unwrap();
        queue
            .complete(&job.lease, Some(json!(format!("result of {}", job.job.id))))
            .unwrap();
    }
    let listed = app
        .ui
        .invoke_in("scoped", "list_jobs", json!({"filter": {"parent": parent}}))
        .unwrap();
    let listed: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|job| (job["id"].clone(), job["result"].clone()))
        .collect();
    assert_eq!(listed, [(json!(mine), json!(format!("result of {mine}")))]);
    let read = app
        .ui
        .invoke_in("scoped", "get_job", json!({"id": hidden}))
        .unwrap();
    assert_eq!(read, Value::Null, "a hidden piece reads as missing");
    let read = app
        .ui
        .invoke_in("scoped", "get_job", json!({"id": mine}))
        .unwrap();
    assert_eq!(read["steps"][0]["name"], json!("fetch"));
    // The last thing published: everything before it has reached the window by then.
    queue.pause_kind("export").unwrap();
    let steps: Vec<_> = until_heard(&events, "kindPaused", "export")
        .into_iter()
        .filter(|(kind, _)| kind == "jobStep")
        .collect();
    // The parent's step and its own piece's (both `export`), not the hidden piece's.
    let export = ("jobStep".to_owned(), "export".to_owned());
    assert_eq!(steps, [export.clone(), export]);
}
