//! App updates: jobs written by one build are run by the next. Payloads carry a
//! version and are upgraded before a newer handler sees them; an older build never
//! claims a newer job; a kind no build runs any more shows as waiting for a handler
//! and can be retired; and `prepare_for_update` gives running jobs back so that they
//! run after the restart.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::config::Config;
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus, Queue, QueueOptions, Retire};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};

#[derive(Debug, Serialize, Deserialize)]
struct ThumbnailV1 {
    path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Thumbnail {
    path: String,
    width: u32,
}

/// Build 1: its handler takes a path.
fn build_1() -> Handler {
    Handler::new("thumb", |job: ThumbnailV1, _ctx: JobContext| async move {
        Ok(format!("v1 {}", job.path))
    })
}

/// Build 2: its handler takes a path and a width, and knows how to read build 1's.
fn build_2(seen: Arc<Mutex<Vec<Thumbnail>>>) -> Handler {
    Handler::new("thumb", move |job: Thumbnail, _ctx: JobContext| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(job.clone());
            Ok(format!("v2 {}@{}", job.path, job.width))
        }
    })
    .payload_version(2)
    .upgrade(1, |old: ThumbnailV1| {
        if old.path.is_empty() {
            return Err("an empty path has no thumbnail");
        }
        Ok(Thumbnail {
            path: old.path,
            width: 256,
        })
    })
}

fn runner(queue: &Queue, handler: Handler, id: &str) -> Runner {
    Runner::new(
        queue.clone(),
        vec![handler],
        RunnerSettings::for_tests().worker_id(id),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_build_upgrades_older_payloads_and_an_older_build_leaves_newer_jobs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");

    // Build 1 enqueues, and is replaced before it runs anything.
    let old = Queue::open(&path, QueueOptions::new()).unwrap();
    let old_runner = runner(&old, build_1(), "build-1");
    let written = old
        .enqueue(
            "thumb",
            &ThumbnailV1 {
                path: "a.png".into(),
            },
            EnqueueOptions::new(),
        )
        .unwrap()
        .id;
    let broken = old
        .enqueue(
            "thumb",
            &ThumbnailV1 {
                path: String::new(),
            },
            EnqueueOptions::new(),
        )
        .unwrap()
        .id;
    assert_eq!(old.get(written).unwrap().unwrap().payload_version, 1);
    drop(old_runner);
    drop(old);

    // Build 2 starts on the same file.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let new = Queue::open(&path, QueueOptions::new()).unwrap();
    let new_runner = runner(&new, build_2(seen.clone()), "build-2");
    new_runner.drain().await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![Thumbnail {
            path: "a.png".into(),
            width: 256
        }],
        "the handler saw the upgraded payload"
    );
    let job = new.get(written).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    assert_eq!(job.result, Some(json!("v2 a.png@256")));
    assert_eq!(job.payload_version, 2, "stored upgraded");
    assert_eq!(job.payload, json!({"path": "a.png", "width": 256}));
    let failed = new.get(broken).unwrap().unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    let error = failed.last_error.unwrap();
    assert!(
        error.contains("version 1") && error.contains("version 2") && error.contains("empty path"),
        "{error}"
    );

    // A process still running build 1 (a second instance, an agent) never claims a
    // job written by build 2; build 2 does.
    let newer = new
        .enqueue(
            "thumb",
            &Thumbnail {
                path: "b.png".into(),
                width: 64,
            },
            EnqueueOptions::new(),
        )
        .unwrap()
        .id;
    assert_eq!(new.get(newer).unwrap().unwrap().payload_version, 2);
    let lagging = Queue::open(&path, QueueOptions::new()).unwrap();
    let lagging_runner = runner(&lagging, build_1(), "still-build-1");
    assert_eq!(
        lagging_runner.dispatch().unwrap(),
        0,
        "build 1 leaves it alone"
    );
    assert_eq!(
        lagging
            .next_claimable_at(&tauri_plugin_jobs::queue::ClaimRequest::new("x", ["thumb"]))
            .unwrap(),
        None,
        "nor does it wake for it"
    );
    assert_eq!(new.get(newer).unwrap().unwrap().status, JobStatus::Queued);
    new_runner.drain().await.unwrap();
    assert_eq!(
        new.get(newer).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}

#[test]
fn schedules_remember_the_version_of_their_payload() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let _runner = runner(&queue, build_2(Arc::default()), "build-2");
    let scheduler = Scheduler::new(queue.clone());
    scheduler
        .upsert(
            ScheduleSpec::every("nightly", "thumb", Duration::from_secs(60))
                .payload(json!({"path": "n.png", "width": 8})),
        )
        .unwrap();
    let ran = scheduler.run_now("nightly").unwrap();
    assert_eq!(queue.get(ran.job).unwrap().unwrap().payload_version, 2);
    // A schedule written for build 1 keeps its version, and its jobs are upgraded.
    scheduler
        .upsert(
            ScheduleSpec::every("legacy", "thumb", Duration::from_secs(60))
                .payload(json!({"path": "l.png"}))
                .payload_version(1),
        )
        .unwrap();
    let ran = scheduler.run_now("legacy").unwrap();
    assert_eq!(queue.get(ran.job).unwrap().unwrap().payload_version, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_payload_keeps_the_version_it_was_written_for_across_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let file = |text: &str| Config::parse(text, "/etc/app/config.toml").unwrap();
    let written = file(
        "[schedules.nightly]\nkind = \"thumb\"\nevery = \"1h\"\npayload = { path = \"n.png\" }\n",
    );
    // Build 1 applies the file: its payload is taken as build 1's version.
    {
        let queue = Queue::open(&path, QueueOptions::new()).unwrap();
        let _runner = runner(&queue, build_1(), "build-1");
        Scheduler::new(queue.clone())
            .declare(Vec::new(), &written)
            .unwrap();
    }
    // Build 2 starts with the same file: the payload is still version 1, and the job
    // the schedule enqueues reaches build 2's handler upgraded.
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let build_2_runner = runner(&queue, build_2(seen.clone()), "build-2");
    let scheduler = Scheduler::new(queue.clone());
    scheduler.declare(Vec::new(), &written).unwrap();
    let ran = scheduler.run_now("nightly").unwrap();
    assert_eq!(queue.get(ran.job).unwrap().unwrap().payload_version, 1);
    build_2_runner.drain().await.unwrap();
    assert_eq!(
        queue.get(ran.job).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [Thumbnail {
            path: "n.png".into(),
            width: 256
        }]
    );
    // A payload edited after the update is build 2's; a version in the file wins.
    let edited = file(
        "[schedules.nightly]\nkind = \"thumb\"\nevery = \"1h\"\npayload = { path = \"e.png\", width = 8 }\n",
    );
    scheduler.declare(Vec::new(), &edited).unwrap();
    let ran = scheduler.run_now("nightly").unwrap();
    assert_eq!(queue.get(ran.job).unwrap().unwrap().payload_version, 2);
    let stated = file(
        "[schedules.nightly]\nkind = \"thumb\"\nevery = \"1h\"\npayload = { path = \"e.png\", width = 8 }\npayload_version = 1\n",
    );
    scheduler.declare(Vec::new(), &stated).unwrap();
    let ran = scheduler.run_now("nightly").unwrap();
    assert_eq!(queue.get(ran.job).unwrap().unwrap().payload_version, 1);
}

fn recorder(bus: &EventBus) -> Arc<Mutex<Vec<Event>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    bus.add_handler("test", move |event| {
        sink.lock().unwrap().push(event.clone());
        Ok(())
    });
    seen
}

#[test]
fn a_kind_nobody_runs_shows_as_waiting_for_a_handler_and_can_be_retired() {
    let dir = tempfile::tempdir().unwrap();
    let bus = EventBus::new();
    let queue = Queue::open(
        dir.path().join("raw.db"),
        QueueOptions::new().bus(bus.clone()),
    )
    .unwrap();
    let _runner = runner(&queue, build_1(), "build");
    let gone = queue
        .enqueue("resize", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    queue.enqueue("resize", &2, EnqueueOptions::new()).unwrap();
    let handled = queue
        .enqueue(
            "thumb",
            &ThumbnailV1 { path: "x".into() },
            EnqueueOptions::new(),
        )
        .unwrap()
        .id;
    assert!(queue.get(gone).unwrap().unwrap().handler_missing);
    assert!(!queue.get(handled).unwrap().unwrap().handler_missing);
    let counts = queue.counts().unwrap();
    assert!(counts
        .iter()
        .any(|c| c.kind == "resize" && c.status == JobStatus::Queued && c.handler_missing));
    assert!(counts
        .iter()
        .any(|c| c.kind == "thumb" && !c.handler_missing));
    // A kind agents run is declared, and not shown as missing.
    queue.register_kind("remote", tauri_plugin_jobs::queue::KindSpec::new());
    let remote = queue
        .enqueue("remote", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    assert!(!queue.get(remote).unwrap().unwrap().handler_missing);

    let events = recorder(&bus);
    let retired = queue.retire_kind("resize", Retire::Cancel).unwrap();
    assert_eq!(retired.cancelled, 2);
    assert_eq!(
        queue.get(gone).unwrap().unwrap().status,
        JobStatus::Cancelled
    );
    let cancelled = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, Event::JobStateChanged(c) if c.kind == "resize" && c.to == JobStatus::Cancelled))
        .count();
    assert_eq!(cancelled, 2);

    let retired = queue.retire_kind("resize", Retire::Delete).unwrap();
    assert_eq!(retired.deleted, 2);
    assert!(queue.get(gone).unwrap().is_none());
    assert!(events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, Event::JobDeleted(d) if d.id == gone)));
    assert!(queue.counts().unwrap().iter().all(|c| c.kind != "resize"));
}

#[test]
fn prepare_for_update_gives_running_jobs_back_and_they_run_after_the_restart() {
    use tauri_plugin_jobs::testing::MockApp;
    let gate = Arc::new(tokio::sync::Notify::new());
    let held = gate.clone();
    let app = MockApp::new(
        tauri_plugin_jobs::Builder::new()
            .handler(Handler::new("long", move |_: Value, ctx: JobContext| {
                let held = held.clone();
                async move {
                    ctx.progress(3, Some(10));
                    held.notified().await;
                    Ok(())
                }
            }))
            .without_network_watch(),
        json!([{ "identifier": "jobs:default", "allow": [{ "kind": "*" }] }]),
    );
    let jobs = app.jobs();
    let id = jobs
        .queue()
        .enqueue("long", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while jobs.queue().get(id).unwrap().unwrap().status != JobStatus::Running {
        assert!(
            std::time::Instant::now() < deadline,
            "the job never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let ready =
        tauri::async_runtime::block_on(jobs.prepare_for_update(Duration::from_millis(50))).unwrap();
    assert_eq!(ready.released, vec![id]);
    let job = jobs.queue().get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Queued, "given back");
    assert_eq!(job.attempts, 0, "the attempt is not counted");
    let path = jobs.queue().path().to_owned();
    let wal = {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        std::path::PathBuf::from(wal)
    };
    assert_eq!(
        std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0),
        0,
        "the log was checkpointed into the file"
    );

    // The updated build starts on the same file and runs it.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let queue = Queue::open(&path, QueueOptions::new()).unwrap();
        let handler = Handler::new("long", |_: Value, _ctx: JobContext| async move { Ok(()) });
        runner(&queue, handler, "after-update")
            .drain()
            .await
            .unwrap();
        assert_eq!(queue.get(id).unwrap().unwrap().status, JobStatus::Succeeded);
    });
}

#[test]
fn a_kind_declared_as_run_by_agents_is_not_shown_as_missing_a_handler() {
    use tauri_plugin_jobs::testing::MockApp;
    let app = MockApp::new(
        tauri_plugin_jobs::Builder::new()
            .agent_kind("remote")
            .retire_kind("resize", Retire::Delete)
            .without_network_watch(),
        json!([{ "identifier": "jobs:default", "allow": [{ "kind": "*" }] }]),
    );
    let enqueue = |kind: &str| {
        app.invoke("enqueue", json!({"kind": kind, "payload": 1}))
            .unwrap()["id"]
            .clone()
    };
    let remote = enqueue("remote");
    // The webview may not enqueue a kind nobody runs; Rust (an older build, another
    // process) may, and such a job is shown as waiting for a handler.
    let refused = app
        .invoke("enqueue", json!({"kind": "unknown", "payload": 1}))
        .unwrap_err();
    assert_eq!(refused["code"], json!("unknownKind"), "{refused}");
    let unknown = json!(app
        .jobs()
        .queue()
        .enqueue("unknown", &1, EnqueueOptions::new())
        .unwrap()
        .id
        .raw());
    let missing =
        |id: &Value| app.invoke("get_job", json!({ "id": id })).unwrap()["handlerMissing"].clone();
    assert_eq!(missing(&remote), json!(false));
    assert_eq!(missing(&unknown), json!(true));
    let counts = app.invoke("job_counts", json!({})).unwrap();
    assert!(counts
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == json!("unknown") && c["handlerMissing"] == json!(true)));
}
