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
    use tauri_plugin_jobs::sync::testing::FakeSource;
    use tauri_plugin_jobs::sync::{SyncPolicy, SyncTarget};
    use tauri_plugin_jobs::testing::MockApp;
    let gate = Arc::new(tokio::sync::Notify::new());
    let held = gate.clone();
    let source = Arc::new(FakeSource::new());
    let second = Duration::from_secs(1);
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
            // Loops that would act every second if they still ran after the update.
            .schedule(ScheduleSpec::every("tick", "tick", second))
            .sync_target(
                SyncTarget::new("feed", "me", "items"),
                SyncPolicy::every(second).min_interval(second),
                source.clone(),
            )
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
    let progress = job.progress.expect("the last progress is kept");
    assert_eq!((progress.done, progress.total), (3, Some(10)));
    // The scheduler and the sync loop stopped: nothing new starts while the update
    // installs (bounded: past one interval of each, real time as the app's loops run).
    let ticks = || {
        jobs.queue()
            .list(&tauri_plugin_jobs::queue::JobFilter::new().kind("tick"))
            .unwrap()
            .len()
    };
    let (ticked, synced) = (ticks(), source.calls());
    std::thread::sleep(second + Duration::from_millis(500));
    assert_eq!(
        ticks(),
        ticked,
        "the scheduler enqueued after prepare_for_update"
    );
    assert_eq!(
        source.calls(),
        synced,
        "the sync loop ran after prepare_for_update"
    );
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ThumbnailV3 {
    path: String,
    width: u32,
    format: String,
}

/// Build 3: takes a format too, and reads build 1's and build 2's payloads, a step
/// each (`with_second_step`: the step from 2 to 3 is there).
fn build_3(seen: Arc<Mutex<Vec<ThumbnailV3>>>, with_second_step: bool) -> Handler {
    let handler = Handler::new("thumb", move |job: ThumbnailV3, _ctx: JobContext| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(job);
            Ok(())
        }
    })
    .payload_version(3)
    .upgrade(1, |old: ThumbnailV1| {
        Ok::<_, String>(Thumbnail {
            path: old.path,
            width: 256,
        })
    });
    if !with_second_step {
        return handler;
    }
    handler.upgrade(2, |old: Thumbnail| {
        Ok::<_, String>(ThumbnailV3 {
            path: old.path,
            width: old.width,
            format: "png".into(),
        })
    })
}

#[tokio::test]
async fn a_payload_two_versions_old_is_upgraded_a_step_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let v1 = queue
        .enqueue("thumb", &json!({"path": "a.png"}), EnqueueOptions::new())
        .unwrap()
        .id;
    let v2 = queue
        .enqueue(
            "thumb",
            &json!({"path": "b.png", "width": 64}),
            EnqueueOptions::new().payload_version(2),
        )
        .unwrap()
        .id;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let runner = runner(&queue, build_3(seen.clone(), true), "build-3");
    runner.drain().await.unwrap();
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by(|a, b| a.path.cmp(&b.path));
    let png = |path: &str, width| ThumbnailV3 {
        path: path.into(),
        width,
        format: "png".into(),
    };
    assert_eq!(seen, vec![png("a.png", 256), png("b.png", 64)]);
    for id in [v1, v2] {
        let job = queue.get(id).unwrap().unwrap();
        assert_eq!(job.status, JobStatus::Succeeded);
        assert_eq!(job.payload_version, 3, "stored upgraded");
    }
    assert_eq!(
        queue.get(v1).unwrap().unwrap().payload,
        json!({"path": "a.png", "width": 256, "format": "png"})
    );
}

#[tokio::test]
async fn a_missing_step_fails_the_job_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let v1 = queue
        .enqueue("thumb", &json!({"path": "a.png"}), EnqueueOptions::new())
        .unwrap()
        .id;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let runner = runner(&queue, build_3(seen.clone(), false), "build-3");
    runner.drain().await.unwrap();
    assert!(seen.lock().unwrap().is_empty());
    let job = queue.get(v1).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    let error = job.last_error.unwrap();
    assert!(
        error.contains("no upgrade from version 2 is registered"),
        "{error}"
    );
    assert_eq!(job.payload_version, 1, "nothing stored half-upgraded");
}

#[test]
fn a_claimer_names_the_newest_payload_version_it_takes() {
    use tauri_plugin_jobs::queue::ClaimRequest;
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    let newer = queue
        .enqueue(
            "thumb",
            &json!({"path": "b.png", "width": 64}),
            EnqueueOptions::new().payload_version(2),
        )
        .unwrap()
        .id;
    // No spec registered here: version 1 is all a claimer takes unless it says more.
    assert!(queue
        .claim(&ClaimRequest::new("old-agent", ["thumb"]))
        .unwrap()
        .is_empty());
    assert!(queue
        .claim(&ClaimRequest::new("old-agent", ["thumb"]).payload_version("thumb", 1))
        .unwrap()
        .is_empty());
    let claimed = queue
        .claim(&ClaimRequest::new("new-agent", ["thumb"]).payload_version("thumb", 2))
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].job.id, newer);
    assert_eq!(claimed[0].job.payload_version, 2);
    assert_eq!(
        claimed[0].job.payload,
        json!({"path": "b.png", "width": 64})
    );
}

#[tokio::test]
async fn a_retired_kinds_running_job_is_asked_to_stop_and_ends_cancelled() {
    use tauri_plugin_jobs::clock::{FakeClock, Timestamp};
    for how in [Retire::Cancel, Retire::Delete] {
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
        let queue = Queue::open(
            dir.path().join("raw.db"),
            QueueOptions::new().clock(clock.clone()),
        )
        .unwrap();
        let running = queue
            .enqueue("resize", &1, EnqueueOptions::new())
            .unwrap()
            .id;
        // An older build still runs the kind: its handler runs until stopped.
        let older = Handler::new("resize", |_: Value, _ctx: JobContext| async move {
            std::future::pending::<()>().await;
            Ok(())
        });
        let older = runner(&queue, older, "older-build");
        assert_eq!(older.dispatch().unwrap(), 1);
        let queued = queue
            .enqueue("resize", &2, EnqueueOptions::new())
            .unwrap()
            .id;

        let retired = queue.retire_kind("resize", how).unwrap();
        assert_eq!(retired.asked_to_stop, 1, "{how:?}");
        let job = queue.get(running).unwrap().expect("a running job stays");
        assert_eq!(job.status, JobStatus::Running, "{how:?}");
        assert!(job.cancel_requested, "{how:?}");
        match how {
            Retire::Cancel => assert_eq!(
                queue.get(queued).unwrap().unwrap().status,
                JobStatus::Cancelled
            ),
            _ => assert!(queue.get(queued).unwrap().is_none()),
        }
        // The older build learns at its next lease renewal and stops the handler: the
        // job ends cancelled.
        clock.advance(Duration::from_secs(10));
        older.maintain().unwrap();
        while older.running() > 0 {
            tokio::task::yield_now().await;
            older.finish_pending().unwrap();
        }
        assert_eq!(
            queue.get(running).unwrap().unwrap().status,
            JobStatus::Cancelled,
            "{how:?}"
        );
    }
}
