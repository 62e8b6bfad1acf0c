//! What a source is and does: written as the spec shows it (one `async fn`), or as
//! earlier releases did (a boxed future); the progress it reports and the messages it
//! says it stored, on the bus; and where the engine keeps a target's state.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

use tauri_plugin_jobs::bus::{MessageStage, ReadStateChanged};
use tauri_plugin_jobs::sync::{health_of, BoxFuture, Result, SyncContext, SyncSource, SyncState};

use super::*;

// ===== a source as the spec writes it =====

/// What the notifications API of the spec's example answers.
struct Response {
    not_modified: bool,
    items: Vec<String>,
    etag: String,
}

/// The service: a version that moves, and a switch to make it unreachable.
#[derive(Default)]
struct Api {
    version: AtomicU32,
    down: AtomicBool,
}

impl Api {
    async fn notifications(&self, etag: Option<&str>) -> Result<Response> {
        if self.down.load(Ordering::SeqCst) {
            return Err(SyncError::offline("connection refused"));
        }
        let version = self.version.load(Ordering::SeqCst);
        let now = format!("\"v{version}\"");
        Ok(Response {
            not_modified: etag == Some(now.as_str()),
            items: vec![format!("n{version}-1"), format!("n{version}-2")],
            etag: now,
        })
    }
}

#[derive(Default)]
struct NotificationsSource {
    api: Api,
    stored: Mutex<Vec<String>>,
}

impl NotificationsSource {
    async fn store(&self, items: &[String]) -> Result<()> {
        self.stored.lock().unwrap().extend(items.iter().cloned());
        Ok(())
    }
}

// The spec's shape exactly: one `async fn`, `?` on the service's errors, and
// `Result<SyncResult>` (only the attribute is gone: none is needed).
impl SyncSource for NotificationsSource {
    async fn sync(&self, context: &SyncContext) -> Result<SyncResult> {
        let response = self.api.notifications(context.etag()).await?;
        if response.not_modified {
            return Ok(SyncResult::NotModified);
        }
        self.store(&response.items).await?;
        Ok(SyncResult::Updated(
            SyncReport::changed(response.items.len() as u64).with_etag(response.etag),
        ))
    }
}

#[tokio::test]
async fn a_source_written_as_the_spec_shows_it_syncs() {
    let h = SyncHarness::new();
    let source = Arc::new(NotificationsSource::default());
    h.engine
        .register(inbox(), policy(), source.clone())
        .unwrap();
    let first = h.engine.sync_now(&inbox()).await.unwrap();
    assert_eq!(first, SyncOutcome::Updated { changed: 2 });
    assert_eq!(
        h.engine.state(&inbox()).unwrap().unwrap().etag.as_deref(),
        Some("\"v0\"")
    );
    // The stored ETag goes back to the service: nothing new.
    assert_eq!(
        h.engine.sync_now(&inbox()).await.unwrap(),
        SyncOutcome::NotModified
    );
    // The service's own error, through `?`: offline, retried on the flat timer.
    source.api.down.store(true, Ordering::SeqCst);
    match h.engine.sync_now(&inbox()).await.unwrap() {
        SyncOutcome::Failed { offline, error, .. } => {
            assert!(offline);
            assert!(error.contains("connection refused"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(source.stored.lock().unwrap().len(), 2);
}

/// A source as earlier releases wrote it: a boxed future.
struct Boxed;

impl SyncSource for Boxed {
    #[allow(refining_impl_trait)]
    fn sync<'a>(&'a self, ctx: &'a SyncContext) -> BoxFuture<'a, Result<SyncResult, SyncError>> {
        Box::pin(async move {
            Ok(match ctx.etag() {
                Some(_) => SyncResult::NotModified,
                None => SyncResult::Updated(SyncReport::changed(1).with_etag("\"b\"")),
            })
        })
    }
}

#[tokio::test]
async fn a_source_written_for_earlier_releases_still_syncs() {
    let h = SyncHarness::new();
    h.engine
        .register(inbox(), policy(), Arc::new(Boxed))
        .unwrap();
    assert_eq!(
        h.engine.sync_now(&inbox()).await.unwrap(),
        SyncOutcome::Updated { changed: 1 }
    );
    assert_eq!(
        h.engine.sync_now(&inbox()).await.unwrap(),
        SyncOutcome::NotModified
    );
}

// ===== what a source publishes =====

/// Reports progress over `items` items, says each one stored, and marks the first
/// one read.
struct Reporting {
    items: u32,
}

impl SyncSource for Reporting {
    async fn sync(&self, ctx: &SyncContext) -> Result<SyncResult> {
        for item in 1..=self.items {
            ctx.message(MessageStage::Stored, format!("m{item}"));
            ctx.progress(item, Some(self.items));
        }
        ctx.read_state("m1", true);
        Ok(SyncResult::Updated(SyncReport::changed(u64::from(
            self.items,
        ))))
    }
}

#[tokio::test]
async fn a_sources_progress_and_messages_reach_the_bus_for_its_account() {
    let h = SyncHarness::new();
    h.engine
        .register(inbox(), policy(), Arc::new(Reporting { items: 400 }))
        .unwrap();
    let mut stream = h.queue.bus().subscribe(10_000);
    h.engine.sync_now(&inbox()).await.unwrap();
    let (mut progress, mut stored, mut read) = (Vec::new(), 0, Vec::new());
    while let Some(event) = stream.try_next() {
        match &*event {
            Event::SyncProgress(report) => {
                assert_eq!(report.target, "mail/alice/inbox");
                assert_eq!(report.total, Some(400));
                progress.push(report.done);
            }
            Event::MessageStored(message) => {
                assert_eq!(message.account, "mail/alice");
                assert_eq!(message.at, h.now());
                stored += 1;
            }
            Event::ReadStateChanged(ReadStateChanged {
                account,
                message_id,
                read: was_read,
                ..
            }) => read.push((account.clone(), message_id.clone(), *was_read)),
            _ => {}
        }
    }
    // Throttled to about one a percent, and the last report always arrives.
    assert!(
        (90..=101).contains(&progress.len()),
        "{} progress events",
        progress.len()
    );
    assert!(progress.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(progress.last(), Some(&400));
    assert_eq!(stored, 400);
    assert_eq!(read, vec![("mail/alice".to_owned(), "m1".to_owned(), true)]);
}

// ===== where the state lives =====

#[tokio::test]
async fn a_targets_state_lives_under_its_whole_key() {
    let (h, _source) = setup();
    h.engine.sync_now(&inbox()).await.unwrap();
    // Another account's target of the same name keeps a key of its own.
    h.engine
        .register(
            SyncTarget::new("mail", "bob", "inbox"),
            policy(),
            Arc::new(FakeSource::new()),
        )
        .unwrap();
    let conn = rusqlite::Connection::open(h.queue.path()).unwrap();
    let mut keys: Vec<String> = conn
        .prepare("SELECT key FROM kv ORDER BY key")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|key| key.unwrap())
        .collect();
    keys.retain(|key| key.starts_with("acct."));
    assert_eq!(
        keys,
        ["acct.mail.alice.sync.inbox", "acct.mail.bob.sync.inbox"]
    );
    assert_eq!(
        h.engine.stored_keys("mail", "alice").unwrap(),
        ["acct.mail.alice.sync.inbox"]
    );
}

#[test]
fn a_target_that_never_ran_is_healthy_until_it_goes_quiet() {
    let at = tauri_plugin_jobs::clock::Timestamp::from_millis(1_800_000_000_000);
    let state = SyncState::registered(at);
    assert_eq!(state.registered_at, Some(at));
    assert_eq!(state.runs, 0);
    let policy = policy();
    assert_eq!(health_of(&state, &policy, at).status, HealthStatus::Healthy);
    // Quiet for twice its interval plus a minute: a warning, never healthy.
    let quiet = 2 * MIN + MIN;
    assert_eq!(
        health_of(&state, &policy, at.saturating_add(quiet)).status,
        HealthStatus::Healthy
    );
    let silent = health_of(&state, &policy, at.saturating_add(quiet + SEC));
    assert_eq!(silent.status, HealthStatus::Warning);
    assert!(silent.reason.unwrap().contains("no sync since"));
}
