//! When the window closes, through the mock runtime (the real webview's run is in the
//! example app's end-to-end suite, `e2e/closing.mjs`): the quit held while the work
//! of the kinds that asked runs, a second quit, the deadline, a window back, a tray
//! app, the keep-awake request held with it, the work pending at a start, the
//! notices when work ends, and the tray's line.

use std::sync::mpsc;

use tauri_plugin_jobs::awake::KeepAwake;
use tauri_plugin_jobs::plugin::notices::{DoneNotice, Notice};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobId, JobStatus, PendingKind};
use tauri_plugin_jobs::testing::MockChannel;
use tokio::sync::Semaphore;

use super::*;

use super::counting::Counting;

const WAIT: Duration = Duration::from_secs(10);

/// A kind `upload` whose jobs wait for a permit of `go` (and say they are half
/// done), and `other`, which does the same for `other_go`; uploads finish before the
/// app quits.
fn uploads(go: &Arc<Semaphore>, other_go: &Arc<Semaphore>) -> Builder {
    let (go, other_go) = (go.clone(), other_go.clone());
    tauri_plugin_jobs::Builder::new()
        .handler(Handler::new("upload", move |n: u32, ctx: JobContext| {
            let go = go.clone();
            async move {
                ctx.progress(1, Some(2));
                let _permit = go.acquire().await;
                Ok(n)
            }
        }))
        .handler(Handler::new("other", move |n: u32, _ctx: JobContext| {
            let go = other_go.clone();
            async move {
                let _permit = go.acquire().await;
                Ok(n)
            }
        }))
        .finish_before_quit("upload")
}

fn mock(builder: Builder) -> MockApp {
    MockApp::new(
        builder,
        json!([{ "identifier": "jobs:default", "allow": everything() }]),
    )
}

fn enqueue(ui: &MockApp, kind: &str, n: u32) -> JobId {
    ui.jobs()
        .queue()
        .enqueue(kind, &n, EnqueueOptions::new())
        .unwrap()
        .id
}

/// Waits (bounded) until job `id` is in `status`.
fn wait_for(events: &MockChannel, id: JobId, status: &str) {
    events
        .next_matching(|e| e["event"]["id"] == json!(id.raw()) && e["event"]["to"] == status)
        .unwrap_or_else(|| panic!("job {id} never became {status}"));
}

fn status(ui: &MockApp, id: JobId) -> JobStatus {
    ui.jobs().queue().get(id).unwrap().unwrap().status
}

fn quit_health(ui: &MockApp) -> Value {
    ui.invoke("plugin_health", json!({}))
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["component"] == "quit")
        .cloned()
        .expect("a quit component")["health"]
        .clone()
}

#[test]
fn closing_the_last_window_holds_the_quit_until_the_uploads_are_done() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go));
    let events = ui.subscribe("main");
    let first = enqueue(&ui, "upload", 1);
    wait_for(&events, first, "running");
    let second = ui
        .jobs()
        .queue()
        .enqueue(
            "upload",
            &2,
            EnqueueOptions::new().delay(Duration::from_secs(30)),
        )
        .unwrap()
        .id;
    // Not due within a minute: not waited for.
    let later = ui
        .jobs()
        .queue()
        .enqueue(
            "upload",
            &3,
            EnqueueOptions::new().delay(Duration::from_secs(3600)),
        )
        .unwrap()
        .id;
    assert!(ui.request_exit(None), "the quit is held");
    let finishing = ui.jobs().finishing().expect("a held quit");
    assert_eq!(finishing.code, 0);
    assert_eq!(finishing.work.len(), 1);
    assert_eq!(
        (
            finishing.work[0].kind.as_str(),
            finishing.work[0].running,
            finishing.work[0].due
        ),
        ("upload", 1, 1)
    );
    assert_eq!(
        quit_health(&ui),
        json!({"status": "healthy", "reason": "finishing 2 jobs before quitting: upload 2"})
    );
    // Meanwhile only uploads start: a job of another kind waits for the next start.
    let other = enqueue(&ui, "other", 1);
    assert_eq!(ui.wait_for_exit(Duration::from_millis(300)), None);
    go.add_permits(1);
    wait_for(&events, first, "succeeded");
    assert_eq!(status(&ui, other), JobStatus::Queued);
    // The second is due in 30 s: still held for it (its delay is a retry's, say).
    assert_eq!(ui.wait_for_exit(Duration::from_millis(300)), None);
    ui.jobs().queue().retry_now(second).unwrap();
    go.add_permits(1);
    wait_for(&events, second, "succeeded");
    assert_eq!(
        ui.wait_for_exit(WAIT),
        Some(0),
        "the app ends once the uploads are done"
    );
    assert_eq!(status(&ui, later), JobStatus::Queued);
    assert_eq!(ui.jobs().finishing(), None);
    assert_eq!(
        quit_health(&ui),
        json!({"status": "healthy", "reason": null})
    );
}

#[test]
fn nothing_is_held_without_work_of_a_kind_that_asked() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go));
    let events = ui.subscribe("main");
    assert!(!ui.request_exit(None), "no work: nothing held");
    let other = enqueue(&ui, "other", 1);
    wait_for(&events, other, "running");
    assert!(!ui.request_exit(Some(0)), "other kinds' work holds nothing");
    // Tauri does not let a restart be held.
    enqueue(&ui, "upload", 1);
    assert!(!ui.request_exit(Some(tauri::RESTART_EXIT_CODE)));
    other_go.close();
    go.close();
}

#[test]
fn a_second_quit_ends_it_at_once_and_so_does_quit_now() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go));
    let events = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(ui.request_exit(Some(3)), "the app's quit is held");
    assert_eq!(ui.jobs().finishing().unwrap().code, 3);
    assert!(!ui.request_exit(Some(3)), "a second quit is not");
    assert_eq!(ui.jobs().finishing(), None);
    assert!(!ui.request_exit(None), "nor anything after it");

    let ui = mock(uploads(&go, &other_go));
    let events = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(ui.request_exit(Some(7)));
    ui.jobs().quit_now();
    assert_eq!(ui.wait_for_exit(WAIT), Some(7));
    // The exit that follows gives the upload back at once (no grace).
    tauri::async_runtime::block_on(ui.jobs().shutdown());
    assert_eq!(status(&ui, id), JobStatus::Queued);
    go.close();
}

#[test]
fn the_deadline_ends_a_held_quit() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go).quit_deadline(Duration::from_millis(200)));
    let events = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(ui.request_exit(None));
    let finishing = ui.jobs().finishing().unwrap();
    assert_eq!(
        finishing.deadline.as_millis() - finishing.since.as_millis(),
        200
    );
    assert_eq!(ui.wait_for_exit(WAIT), Some(0));
    assert_eq!(
        status(&ui, id),
        JobStatus::Running,
        "given back by the exit, not before"
    );
    go.close();
}

#[test]
fn a_window_back_calls_off_a_quit_from_closed_windows_but_not_the_apps_own() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go));
    let events = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(ui.request_exit(None));
    let other = enqueue(&ui, "other", 1);
    ui.focus("main");
    assert_eq!(ui.jobs().finishing(), None, "the user is back");
    // Every kind runs again.
    wait_for(&events, other, "running");
    assert!(ui.request_exit(Some(0)));
    ui.focus("main");
    assert!(ui.jobs().finishing().is_some(), "the app asked to quit");
    go.add_permits(1);
    assert_eq!(ui.wait_for_exit(WAIT), Some(0));
    other_go.close();
}

#[test]
fn a_tray_app_holds_only_its_own_quit() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go).keeps_running_without_windows(true));
    let events = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(
        !ui.request_exit(None),
        "its last window closing does not quit it"
    );
    assert!(ui.request_exit(Some(0)), "its Quit item is held");
    go.close();
    assert_eq!(ui.wait_for_exit(WAIT), Some(0));
}

#[test]
fn a_held_quit_keeps_the_machine_awake_until_the_work_is_done() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let counting = Counting::default();
    let awake = KeepAwake::new(counting.clone());
    let ui = mock(
        uploads(&go, &other_go)
            .keep_awake("upload", "Uploading")
            .keep_awake_with(awake.clone()),
    );
    let events = ui.subscribe("main");
    let health = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(ui.request_exit(None));
    // The hold is taken just after the job is marked running: wait for its event
    // rather than for the state change alone.
    health
        .next_matching(|e| {
            e["event"]["type"] == "pluginHealth"
                && e["event"]["component"] == "awake"
                && e["event"]["health"]["reason"] == "keeping the machine awake"
        })
        .expect("the keep-awake event");
    assert!(awake.settle(WAIT));
    assert_eq!(counting.open(), 1, "kept awake while the quit waits");
    events
        .next_matching(|e| {
            e["event"]["type"] == "jobProgress" && e["event"]["id"] == json!(id.raw())
        })
        .expect("the upload's progress");
    let summary = ui.jobs().running_work(&["upload"]);
    assert_eq!(summary.to_string(), "1 running, 50 %");
    go.add_permits(1);
    assert_eq!(ui.wait_for_exit(WAIT), Some(0));
    assert!(awake.settle(WAIT));
    assert_eq!(counting.open(), 0);
}

#[test]
fn the_work_pending_at_a_start_counts_what_a_crash_left() {
    let dir = tempfile_dir();
    let path = dir.join("raw.db");
    {
        // The run before: an upload running when the machine went down (its lease
        // never given back), one queued, one for tomorrow, and another kind's.
        let queue = tauri_plugin_jobs::queue::Queue::open(
            &path,
            tauri_plugin_jobs::queue::QueueOptions::new(),
        )
        .unwrap();
        for (kind, delay) in [
            ("upload", 0),
            ("upload", 0),
            ("upload", 86_400),
            ("other", 0),
        ] {
            queue
                .enqueue(
                    kind,
                    &1,
                    EnqueueOptions::new().delay(Duration::from_secs(delay)),
                )
                .unwrap();
        }
        let claimed = queue
            .claim(&tauri_plugin_jobs::queue::ClaimRequest::new(
                "gone",
                ["upload"],
            ))
            .unwrap();
        assert_eq!(claimed.len(), 1);
    }
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go).database(&path));
    let pending: Vec<PendingKind> = ui.jobs().pending_work().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].kind, "upload");
    assert_eq!(pending[0].total(), 2, "{pending:?}");
    go.close();
    other_go.close();
}

#[test]
fn quit_when_done_exits_once_the_uploads_are_done() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go));
    let events = ui.subscribe("main");
    let id = enqueue(&ui, "upload", 1);
    wait_for(&events, id, "running");
    assert!(ui.jobs().quit_when_done(), "work to finish first");
    assert!(ui.jobs().finishing().is_some());
    assert_eq!(ui.wait_for_exit(Duration::from_millis(300)), None);
    go.close();
    assert_eq!(ui.wait_for_exit(WAIT), Some(0));
    other_go.close();
}

#[test]
fn quit_when_done_with_nothing_pending_exits_at_once() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let ui = mock(uploads(&go, &other_go));
    assert!(ui.jobs().pending_work().unwrap().is_empty());
    assert!(!ui.jobs().quit_when_done());
    assert_eq!(ui.wait_for_exit(WAIT), Some(0));
}

/// A notifier that hands every notice to the test.
fn notices(builder: Builder) -> (Builder, mpsc::Receiver<Notice>) {
    let (sent, heard) = mpsc::channel();
    let sent = std::sync::Mutex::new(sent);
    (
        builder.notifier(move |notice: &Notice| {
            let _ = sent.lock().unwrap().send(notice.clone());
        }),
        heard,
    )
}

#[test]
fn ends_of_a_kind_that_come_together_make_one_notice_with_the_apps_text() {
    let (go, other_go) = (Arc::new(Semaphore::new(0)), Arc::new(Semaphore::new(0)));
    let (builder, heard) = notices(
        uploads(&go, &other_go)
            .handler(
                Handler::new("import", |n: u32, _ctx: JobContext| async move {
                    if n == 0 {
                        Err(tauri_plugin_jobs::runner::JobError::permanent(
                            "no such photo",
                        ))
                    } else {
                        Ok(json!({ "name": format!("photo-{n}") }))
                    }
                })
                .max_attempts(1),
            )
            .notify_when_done(
                "import",
                DoneNotice::new()
                    .title("Photos")
                    .success(|jobs| match jobs {
                        [one] => format!("Imported {}", one.result.as_ref().unwrap()["name"]),
                        many => format!("{} photos imported", many.len()),
                    })
                    .failure(|jobs| {
                        format!(
                            "{} failed: {}",
                            jobs.len(),
                            jobs[0].error.as_deref().unwrap_or("")
                        )
                    })
                    .group_within(Duration::from_secs(1)),
            ),
    );
    let ui = mock(builder);
    let queue = ui.jobs().queue();
    for n in 1..=3 {
        queue.enqueue("import", &n, EnqueueOptions::new()).unwrap();
    }
    queue.enqueue("import", &0, EnqueueOptions::new()).unwrap();
    let mut got = [
        heard.recv_timeout(WAIT).unwrap(),
        heard.recv_timeout(WAIT).unwrap(),
    ];
    got.sort_by_key(|notice| !notice.succeeded);
    assert_eq!(got[0].title, "Photos");
    assert_eq!(got[0].body, "3 photos imported");
    assert_eq!(got[0].jobs.len(), 3);
    assert!(!got[1].succeeded);
    assert_eq!(got[1].body, "1 failed: no such photo");
    // One alone says its result.
    queue.enqueue("import", &9, EnqueueOptions::new()).unwrap();
    assert_eq!(
        heard.recv_timeout(WAIT).unwrap().body,
        "Imported \"photo-9\""
    );
    // Not while a window has the focus.
    ui.focus("main");
    let ten = queue
        .enqueue("import", &10, EnqueueOptions::new())
        .unwrap()
        .id;
    let deadline = std::time::Instant::now() + WAIT;
    while status(&ui, ten) != JobStatus::Succeeded {
        assert!(std::time::Instant::now() < deadline, "job 10 never ended");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Its group closes a second after it ended, with the focus in a window: nothing.
    assert!(heard.recv_timeout(Duration::from_secs(3)).is_err());
    ui.blur("main");
    queue.enqueue("import", &11, EnqueueOptions::new()).unwrap();
    assert_eq!(
        heard.recv_timeout(WAIT).unwrap().body,
        "Imported \"photo-11\""
    );
    // Uploads have no notice.
    go.close();
    other_go.close();
}

#[test]
fn a_local_kind_can_notify_even_when_a_window_has_the_focus() {
    let (builder, heard) = notices(
        tauri_plugin_jobs::Builder::new()
            .local_kind("export", |rows: u32, _ctx| async move { Ok(rows) })
            .notify_when_done(
                "export",
                DoneNotice::new()
                    .success(|jobs| format!("exported {} rows", jobs[0].result.as_ref().unwrap()))
                    .even_when_focused()
                    .group_within(Duration::ZERO),
            ),
    );
    let ui = MockApp::new(
        builder,
        json!([{ "identifier": "jobs:allow-spawn-local", "allow": everything() }]),
    );
    ui.focus("main");
    ui.invoke("spawn_local", json!({ "kind": "export", "args": 12 }))
        .unwrap();
    let notice = heard.recv_timeout(WAIT).unwrap();
    assert_eq!(notice.body, "exported 12 rows");
    assert!(notice.jobs[0].local);
    assert_eq!(notice.title, ui.app().package_info().name);
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "jobs-closing-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
