//! Opening `raw.db`: foreign, damaged and newer files are refused and left untouched.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::health::HealthStatus;
use tauri_plugin_jobs::queue::{EnqueueOptions, Integrity, Queue, QueueOptions};
use tauri_plugin_jobs::Error;

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read file")
}

/// A closed database with one job in it, checkpointed into the main file.
fn made_db(path: &Path) {
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    queue
        .enqueue("k", &"keep me", EnqueueOptions::new())
        .unwrap();
    drop(queue);
    assert!(
        !path.with_extension("db-wal").exists(),
        "closing checkpoints the WAL"
    );
}

#[test]
fn a_file_that_is_not_a_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let text = "these are my notes, not a database\n".repeat(200);
    std::fs::write(&path, &text).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::NotADatabase { path: p } if p == &path),
        "{err}"
    );
    assert!(err.to_string().contains("raw.db"));
    assert_eq!(bytes(&path), text.as_bytes());
}

#[test]
fn a_newer_schema_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    made_db(&path);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
    }
    let before = bytes(&path);
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(err, Error::NewerSchema { found: 999, supported, .. } if supported < 999),
        "{err}"
    );
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_corrupt_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    made_db(&path);
    let mut damaged = bytes(&path);
    // Keep the 100-byte header, scribble over the schema page behind it.
    for byte in &mut damaged[100..4096] {
        *byte = 0xA5;
    }
    std::fs::write(&path, &damaged).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(err, Error::Corrupt { .. } | Error::NotADatabase { .. }),
        "{err:?}"
    );
    assert_eq!(bytes(&path), damaged);
}

#[test]
fn a_truncated_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    std::fs::write(&path, b"SQLite format 3\0 but then it stops").unwrap();
    let before = bytes(&path);
    assert!(Queue::open(&path, QueueOptions::new()).is_err());
    assert_eq!(bytes(&path), before);
}

#[test]
fn a_file_of_ours_cut_short_by_one_byte_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    made_db(&path);
    let mut cut = bytes(&path);
    cut.pop();
    std::fs::write(&path, &cut).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { path: p, .. } if p == &path),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("raw.db") && text.contains("cut short"),
        "{text}"
    );
    assert_eq!(bytes(&path), cut);
    assert!(!path.with_extension("db-wal").exists());
}

#[test]
fn a_directory_where_the_file_should_be_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    std::fs::create_dir(&path).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Io { path: p, .. } if p == &path),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("raw.db") && text.contains("directory"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_dir(&path).unwrap().count(),
        0,
        "nothing made in it"
    );
}

#[test]
fn reopening_keeps_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/raw.db");
    made_db(&path);
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let jobs = queue.list(&Default::default()).unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].payload, serde_json::json!("keep me"));
}

/// The bytes of the file and of its `-wal` and `-shm`, where they exist.
fn all_bytes(path: &Path) -> Vec<Option<Vec<u8>>> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            std::fs::read(name).ok()
        })
        .collect()
}

fn foreign(setup: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(setup)
        .unwrap();
    (dir, path)
}

fn assert_refused_untouched(path: &Path, why: &str) {
    let before = all_bytes(path);
    let err = Queue::open(path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Foreign { path: p, .. } if p == path),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("raw.db") && text.contains(why), "{text}");
    assert_eq!(all_bytes(path), before, "the refused file changed");
}

#[test]
fn another_programs_database_is_refused_and_not_changed() {
    let (_dir, path) = foreign("CREATE TABLE notes(b); INSERT INTO notes VALUES ('mine');");
    assert_refused_untouched(&path, "notes");
    let (_dir, path) = foreign("CREATE TABLE jobs(id INTEGER PRIMARY KEY, title TEXT);");
    assert_refused_untouched(&path, "jobs");
    let (_dir, path) = foreign("CREATE TABLE t(x); PRAGMA user_version = 42;");
    assert_refused_untouched(&path, "42");
    let (_dir, path) = foreign("PRAGMA application_id = 1234; CREATE TABLE t(x);");
    assert_refused_untouched(&path, "application id");
}

#[test]
fn our_version_without_our_tables_is_refused() {
    let (_dir, path) = foreign(
        "CREATE TABLE schedules(name); CREATE TABLE kv(key); CREATE TABLE kinds(kind);
         PRAGMA user_version = 5;",
    );
    assert_refused_untouched(&path, "jobs");
}

#[test]
fn a_database_another_program_has_open_in_wal_mode_keeps_its_wal_and_shm() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let owner = rusqlite::Connection::open(&path).unwrap();
    owner
        .execute_batch(
            "PRAGMA journal_mode = WAL; CREATE TABLE notes(b);
             PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO notes VALUES ('in the log');",
        )
        .unwrap();
    let files = all_bytes(&path);
    assert!(
        files[1].as_ref().is_some_and(|wal| !wal.is_empty()),
        "a -wal"
    );
    assert!(files[2].is_some(), "a -shm");
    assert_refused_untouched(&path, "notes");
    drop(owner);
}

#[test]
fn a_one_byte_file_is_refused_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    std::fs::write(&path, b"x").unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(matches!(err, Error::NotADatabase { .. }), "{err:?}");
    assert_eq!(bytes(&path), b"x");
    // Shorter than a page, about a page, and a header alone: all refused as they are.
    let mut header_only = b"SQLite format 3\0".to_vec();
    header_only.resize(100, 0);
    for junk in [
        vec![b'x'; 511],
        vec![b'x'; 512],
        vec![b'x'; 600],
        header_only,
    ] {
        std::fs::write(&path, &junk).unwrap();
        let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
        assert!(
            matches!(err, Error::NotADatabase { .. }),
            "{} bytes: {err:?}",
            junk.len()
        );
        assert_eq!(bytes(&path), junk);
    }
}

#[test]
fn an_empty_file_becomes_a_queue_and_is_marked_ours() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    std::fs::write(&path, b"").unwrap();
    drop(Queue::open(&path, QueueOptions::new()).unwrap());
    let id: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(id, 0x4A4F_4253, "JOBS");
    // And opens again.
    drop(Queue::open(&path, QueueOptions::new()).unwrap());
}

/// A file of `jobs` jobs with padded payloads (about 250 bytes of file each).
fn filled(path: &Path, jobs: usize) {
    let queue = Queue::open(path, QueueOptions::new()).unwrap();
    queue
        .enqueue_batch((0..jobs).map(|i| {
            tauri_plugin_jobs::queue::NewJob::new(
                "k",
                serde_json::json!({"n": i, "pad": "x".repeat(200)}),
            )
        }))
        .unwrap();
    drop(queue);
}

#[test]
fn a_large_file_opens_at_once_and_is_checked_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    filled(&path, 8_000);
    let page = 4096;
    assert!(
        bytes(&path).len() > 400 * page,
        "past what is checked at open"
    );
    // Healthy: the check in the background (at once here, 10 s after open by
    // default) passes.
    let at_once = || QueueOptions::new().integrity_check_after(Duration::ZERO);
    let queue = Queue::open(&path, at_once()).unwrap();
    assert_eq!(
        queue.wait_for_integrity(Duration::from_secs(30)),
        Integrity::Ok
    );
    drop(queue);
    // Damaged in the middle of the jobs table: the open goes through (the app starts),
    // and the check finds it, publishes the health of `raw.db` and keeps the verdict.
    let mut damaged = bytes(&path);
    for byte in &mut damaged[300 * page..301 * page] {
        *byte = 0x5A;
    }
    std::fs::write(&path, &damaged).unwrap();
    let bus = EventBus::new();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let sink = heard.clone();
    bus.add_handler("health", move |event| {
        if let Event::PluginHealth(health) = event {
            sink.lock().unwrap().push(health.clone());
        }
        Ok(())
    });
    let queue = Queue::open(&path, at_once().bus(bus)).unwrap();
    let found = queue.wait_for_integrity(Duration::from_secs(30));
    assert!(matches!(&found, Integrity::Damaged(_)), "{found:?}");
    assert_eq!(queue.integrity(), found);
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].component, "raw.db");
    assert_eq!(heard[0].health.status, HealthStatus::Error);
    let reason = heard[0].health.reason.clone().unwrap();
    assert!(reason.contains("raw.db is damaged"), "{reason}");
    // The check only reads.
    drop(queue);
    assert_eq!(bytes(&path), damaged);
    // By default the check waits for the app's start; a handle closed first leaves
    // it undone.
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    assert_eq!(queue.integrity(), Integrity::Checking);
}

#[test]
fn damage_past_the_first_page_is_found_at_open_and_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    {
        let queue = Queue::open(&path, QueueOptions::new()).unwrap();
        let jobs = (0..2_000).map(|i| {
            tauri_plugin_jobs::queue::NewJob::new(
                "k",
                serde_json::json!({"n": i, "pad": "x".repeat(200)}),
            )
        });
        queue.enqueue_batch(jobs).unwrap();
    }
    let mut damaged = bytes(&path);
    let page = 4096;
    assert!(damaged.len() > 40 * page);
    for byte in &mut damaged[30 * page..31 * page] {
        *byte = 0x5A;
    }
    std::fs::write(&path, &damaged).unwrap();
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { path: p, .. } if p == &path),
        "{err:?}"
    );
    assert!(err.to_string().contains("raw.db"), "{err}");
    assert_eq!(bytes(&path), damaged);
}

/// An app data directory as users have them, with spaces and characters outside ASCII
/// (on Windows, names WebView2 apps get under `%APPDATA%`): the file, its log and the
/// watch on it work there, and a reopened file has the job.
#[test]
fn raw_db_in_a_directory_with_spaces_and_non_ascii_characters() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir
        .path()
        .join("Application Data")
        .join("Éloïse's Podcasts – 日本語 ünï");
    std::fs::create_dir_all(&app).unwrap();
    let path = app.join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let id = queue
        .enqueue("k", &"kept", EnqueueOptions::new())
        .unwrap()
        .id;
    assert!(
        path.with_extension("db-wal").exists(),
        "the log sits beside it"
    );
    let watched = queue.watch_other_processes();
    assert!(
        watched || std::env::var("CI").as_deref() != Ok("true"),
        "the watch on {} was refused",
        app.display()
    );
    drop(queue);
    let again = Queue::open(&path, QueueOptions::new()).unwrap();
    assert_eq!(
        again.get(id).unwrap().unwrap().payload,
        serde_json::json!("kept")
    );
    let err = Queue::open(app.join("missing dir").join("raw.db"), QueueOptions::new());
    if let Err(err) = err {
        assert!(err.to_string().contains("missing dir"), "{err}");
    }
}

/// What another connection's checkpoint leaves in the main file for a moment: it
/// writes the log's pages into the file in page order, so page 1 (whose header gives
/// the database's size) is new while the pages past the file's old end are not yet
/// written. A look at the main file alone then finds a header promising more pages
/// than the file has, which SQLite calls malformed; through the log it is whole.
/// Returns the path of such a file (beside its log) and the pages the log holds.
fn caught_mid_checkpoint(dir: &Path) -> (std::path::PathBuf, HashSet<u32>) {
    let original = dir.join("raw.db");
    made_db(&original);
    let writer = rusqlite::Connection::open(&original).unwrap();
    writer
        .execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        .unwrap();
    for key in 0..200 {
        writer
            .execute(
                "INSERT INTO kv (key, value, updated_at) VALUES (?1, ?2, 0)",
                rusqlite::params![format!("filler.{key}"), "x".repeat(6000)],
            )
            .unwrap();
    }
    // A copy of the file and its log as they are while the writer is open (the
    // writer's own file is left alone: a copy cannot drop its locks).
    let path = dir.join("copy").join("raw.db");
    std::fs::create_dir(path.parent().unwrap()).unwrap();
    let mut main = bytes(&original);
    let wal = bytes(&original.with_extension("db-wal"));
    drop(writer);
    // The newest page 1 in the log, written over the main file's: the first write a
    // checkpoint makes.
    let page_size = u32::from_be_bytes(wal[8..12].try_into().unwrap()) as usize;
    let page_of = |frame: &[u8]| u32::from_be_bytes(frame[0..4].try_into().unwrap());
    let mut frames = wal[32..].chunks_exact(24 + page_size);
    let in_log = frames.clone().map(page_of).collect();
    let page_one = frames
        .rfind(|frame| page_of(frame) == 1)
        .expect("the inserts changed page 1");
    main[..page_size].copy_from_slice(&page_one[24..]);
    let promised = u32::from_be_bytes(main[28..32].try_into().unwrap()) as usize;
    assert!(
        promised * page_size > main.len(),
        "the header runs past the file"
    );
    std::fs::write(&path, &main).unwrap();
    std::fs::write(path.with_extension("db-wal"), &wal).unwrap();
    (path, in_log)
}

#[test]
fn an_open_in_the_middle_of_another_connections_checkpoint_is_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = caught_mid_checkpoint(dir.path());
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    assert_eq!(
        queue.counts().unwrap().len(),
        1,
        "the job made before is there"
    );
}

/// The look through the log is a second look, not a pass: damage on a page the log
/// does not hold is refused as before, and the file and its log are left as they are.
#[test]
fn a_damaged_file_caught_mid_checkpoint_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (path, in_log) = caught_mid_checkpoint(dir.path());
    let mut damaged = bytes(&path);
    let page_size = u16::from_be_bytes(damaged[16..18].try_into().unwrap()) as usize;
    for (index, page) in damaged.chunks_exact_mut(page_size).enumerate().skip(1) {
        if !in_log.contains(&(index as u32 + 1)) {
            page.fill(0xA5);
        }
    }
    std::fs::write(&path, &damaged).unwrap();
    let wal = bytes(&path.with_extension("db-wal"));
    let err = Queue::open(&path, QueueOptions::new()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { path: p, .. } if p == &path),
        "{err:?}"
    );
    assert_eq!(bytes(&path), damaged);
    assert_eq!(bytes(&path.with_extension("db-wal")), wal);
}
