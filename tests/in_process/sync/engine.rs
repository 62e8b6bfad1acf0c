//! When the engine runs a target: policy, triggers, backoff, throttles, health, state.

use super::*;

#[tokio::test]
async fn run_due_follows_the_policy_over_time() {
    let (h, source) = setup();
    assert_eq!(
        h.engine.run_due(h.now()).await.len(),
        1,
        "a new target is due at once"
    );
    h.advance(30 * SEC);
    assert!(h.engine.run_due(h.now()).await.is_empty());
    h.advance(30 * SEC);
    assert_eq!(h.engine.run_due(h.now()).await.len(), 1);
    h.advance(6 * MIN);
    assert_eq!(
        h.engine.run_due(h.now()).await.len(),
        1,
        "a long gap is one run"
    );
    assert_eq!(source.calls(), 3);
}

#[tokio::test]
async fn twenty_focus_triggers_inside_min_interval_make_one_sync() {
    let (h, source) = setup();
    let mut outcomes = Vec::new();
    for _ in 0..20 {
        outcomes.push(
            h.engine
                .sync_if_due(&inbox(), Trigger::Focus)
                .await
                .unwrap(),
        );
        h.advance(SEC / 2);
    }
    assert_eq!(source.calls(), 1);
    assert_eq!(outcomes[0], SyncOutcome::NotModified);
    assert!(outcomes[1..]
        .iter()
        .all(|o| matches!(o, SyncOutcome::Skipped(SkipReason::MinInterval { .. }))));
    h.advance(15 * SEC);
    h.engine
        .sync_if_due(&inbox(), Trigger::Focus)
        .await
        .unwrap();
    assert_eq!(
        source.calls(),
        2,
        "after min_interval a trigger syncs again"
    );
}

#[tokio::test]
async fn sync_now_ignores_min_interval() {
    let (h, source) = setup();
    for _ in 0..3 {
        assert_eq!(
            h.engine.sync_now(&inbox()).await.unwrap(),
            SyncOutcome::NotModified
        );
    }
    assert_eq!(source.calls(), 3);
    let _ = h;
}

#[tokio::test]
async fn failures_back_off_and_a_success_resets() {
    let (h, source) = setup();
    source.push(Err(SyncError::failed("HTTP 503")));
    source.push(Err(SyncError::failed("HTTP 503")));
    let first = h.engine.sync_now(&inbox()).await.unwrap();
    // FixedRandom(0.5) is the middle of the jitter band: exactly the base.
    assert_eq!(
        first,
        SyncOutcome::Failed {
            offline: false,
            error: "HTTP 503".into(),
            retry_at: h.now().saturating_add(10 * SEC)
        }
    );
    h.advance(9 * SEC);
    assert!(h.engine.run_due(h.now()).await.is_empty(), "backing off");
    assert!(matches!(
        h.engine
            .sync_if_due(&inbox(), Trigger::Focus)
            .await
            .unwrap(),
        SyncOutcome::Skipped(SkipReason::BackingOff { .. })
    ));
    h.advance(SEC);
    let second = h.engine.run_due(h.now()).await;
    assert!(
        matches!(&second[0].1, SyncOutcome::Failed { retry_at, .. } if *retry_at == h.now().saturating_add(20 * SEC))
    );
    h.advance(20 * SEC);
    assert_eq!(
        h.engine.run_due(h.now()).await[0].1,
        SyncOutcome::NotModified
    );
    let state = h.engine.state(&inbox()).unwrap().unwrap();
    assert_eq!(state.consecutive_failures, 0);
    assert_eq!(state.next_due, Some(h.now().saturating_add(MIN)));
}

#[tokio::test]
async fn offline_retries_flat_and_network_back_retries_at_once() {
    let (h, source) = setup();
    for _ in 0..4 {
        source.push(Err(SyncError::offline("connection refused")));
    }
    for _ in 0..3 {
        let outcome = h.engine.sync_now(&inbox()).await.unwrap();
        assert!(
            matches!(outcome, SyncOutcome::Failed { offline: true, retry_at, .. } if retry_at == h.now().saturating_add(5 * SEC)),
            "flat, not doubling"
        );
    }
    // Inside min_interval, a focus does nothing, but the network coming back retries.
    assert!(matches!(
        h.engine
            .sync_if_due(&inbox(), Trigger::Focus)
            .await
            .unwrap(),
        SyncOutcome::Skipped(_)
    ));
    let calls = source.calls();
    h.engine
        .sync_if_due(&inbox(), Trigger::NetworkBack)
        .await
        .unwrap();
    assert_eq!(source.calls(), calls + 1);
    let health = h.engine.health(&inbox()).unwrap();
    assert_eq!(
        health.status,
        HealthStatus::Warning,
        "offline is a warning, not an error"
    );
    assert_eq!(
        h.engine
            .sync_if_due(&inbox(), Trigger::NetworkBack)
            .await
            .unwrap(),
        SyncOutcome::NotModified
    );
    assert!(!h.engine.state(&inbox()).unwrap().unwrap().offline);
}

#[tokio::test]
async fn a_response_without_an_etag_keeps_the_stored_one() {
    let (h, source) = setup();
    source.push(Ok(SyncResult::Updated(
        SyncReport::changed(5).with_etag("\"v1\"").with_cursor("c1"),
    )));
    source.push(Ok(SyncResult::Updated(SyncReport::changed(1))));
    source.push(Ok(SyncResult::NotModified));
    for _ in 0..3 {
        h.engine.sync_now(&inbox()).await.unwrap();
    }
    assert_eq!(
        source.seen_etags(),
        vec![None, Some("\"v1\"".into()), Some("\"v1\"".into())]
    );
    let state = h.engine.state(&inbox()).unwrap().unwrap();
    assert_eq!(state.etag.as_deref(), Some("\"v1\""));
    assert_eq!(state.cursor.as_deref(), Some("c1"));
    assert_eq!(state.last_changed, 1);
}

#[tokio::test]
async fn concurrent_callers_share_one_run() {
    let (h, source) = setup();
    source.push(Ok(SyncResult::Updated(SyncReport::changed(7))));
    let gate = source.hold();
    let engine = h.engine.clone();
    let first = tokio::spawn(async move { engine.sync_now(&inbox()).await.unwrap() });
    source.entered().await;
    let (e2, e3) = (h.engine.clone(), h.engine.clone());
    let second = tokio::spawn(async move { e2.sync_now(&inbox()).await.unwrap() });
    let third =
        tokio::spawn(async move { e3.sync_if_due(&inbox(), Trigger::Focus).await.unwrap() });
    tokio::task::yield_now().await;
    gate.notify_one();
    let expected = SyncOutcome::Updated { changed: 7 };
    assert_eq!(first.await.unwrap(), expected);
    assert_eq!(second.await.unwrap(), expected);
    assert_eq!(third.await.unwrap(), expected);
    assert_eq!(source.calls(), 1);
}

#[tokio::test]
async fn throttles_defer_the_next_run_clamped_to_max_throttle() {
    let (h, source) = setup();
    source.push(Ok(SyncResult::Updated(
        SyncReport::changed(1).with_throttle(SyncThrottle::server_interval(10 * MIN)),
    )));
    h.engine.sync_now(&inbox()).await.unwrap();
    let state = h.engine.state(&inbox()).unwrap().unwrap();
    assert_eq!(state.next_due, Some(h.now().saturating_add(10 * MIN)));
    assert_eq!(
        h.engine.health(&inbox()).unwrap().status,
        HealthStatus::Warning
    );
    // A polling interval shapes automatic runs; Refresh runs through it.
    assert!(
        matches!(
            h.engine.run_due(h.now()).await.as_slice(),
            [] | [(_, SyncOutcome::Skipped(SkipReason::Throttled { .. }))]
        ),
        "the loop waits for the server's interval"
    );
    assert!(matches!(
        h.engine
            .sync_if_due(&inbox(), tauri_plugin_jobs::sync::Trigger::Focus)
            .await
            .unwrap(),
        SyncOutcome::Skipped(SkipReason::Throttled { .. })
    ));
    let calls = source.calls();
    assert!(
        !matches!(
            h.engine.sync_now(&inbox()).await.unwrap(),
            SyncOutcome::Skipped(_)
        ),
        "a person who pressed Refresh gets a run"
    );
    assert_eq!(source.calls(), calls + 1);
    h.advance(10 * MIN);

    // A hostile server asks for ten years.
    source.push(Ok(SyncResult::Throttled(SyncThrottle::quota(
        Duration::from_secs(10 * 365 * 86_400),
    ))));
    let outcome = h.engine.sync_now(&inbox()).await.unwrap();
    let day = Duration::from_secs(86_400);
    assert_eq!(
        outcome,
        SyncOutcome::Throttled {
            until: h.now().saturating_add(day)
        }
    );
    // A consumed quota: Refresh is told at once until when, and asks nothing.
    let calls = source.calls();
    assert_eq!(
        h.engine.sync_now(&inbox()).await.unwrap(),
        SyncOutcome::Skipped(SkipReason::Throttled {
            until: h.now().saturating_add(day)
        })
    );
    assert_eq!(source.calls(), calls);
    h.advance(day);
    assert_eq!(
        h.engine.run_due(h.now()).await.len(),
        1,
        "runs again after 24 h"
    );
    assert_eq!(
        h.engine.health(&inbox()).unwrap().status,
        HealthStatus::Healthy
    );
}

#[tokio::test]
async fn a_throttle_is_published_once_however_often_health_is_checked() {
    let (h, source) = setup();
    h.engine.run_due(h.now()).await;
    let mut stream = h.queue.bus().subscribe(100);
    source.push(Ok(SyncResult::Throttled(SyncThrottle::quota(10 * MIN))));
    h.engine.sync_now(&inbox()).await.unwrap();
    for _ in 0..5 {
        h.advance(SEC);
        h.engine.run_due(h.now()).await;
    }
    let mut published = Vec::new();
    while let Some(event) = stream.try_next() {
        if let Event::PluginHealth(change) = &*event {
            published.push(change.health.reason.clone().unwrap_or_default());
        }
    }
    assert_eq!(published.len(), 1, "{published:?}");
    assert!(
        published[0].starts_with("throttled (quota used up) until 20"),
        "{published:?}"
    );
}

#[tokio::test]
async fn health_is_healthy_failing_or_silent_and_changes_are_published() {
    let (h, source) = setup();
    let mut stream = h.queue.bus().subscribe(100);
    h.engine.run_due(h.now()).await;
    assert_eq!(
        h.engine.health(&inbox()).unwrap().status,
        HealthStatus::Healthy
    );

    for _ in 0..3 {
        source.push(Err(SyncError::failed("HTTP 500")));
        h.engine.sync_now(&inbox()).await.unwrap();
    }
    let failing = h.engine.health(&inbox()).unwrap();
    assert_eq!(failing.status, HealthStatus::Error);
    assert!(failing.reason.unwrap().contains("3 failures in a row"));
    h.engine.sync_now(&inbox()).await.unwrap();
    assert_eq!(
        h.engine.health(&inbox()).unwrap().status,
        HealthStatus::Healthy
    );

    // Nothing calls run_due for a long time: silence is not success.
    h.advance(3 * MIN + SEC);
    let silent = h.engine.health(&inbox()).unwrap();
    assert_eq!(silent.status, HealthStatus::Warning);
    assert!(silent.reason.unwrap().contains("no sync since"));

    let mut seen = Vec::new();
    while let Some(event) = stream.try_next() {
        if let Event::PluginHealth(change) = &*event {
            assert_eq!(change.component, "mail/alice/inbox");
            seen.push(change.health.status);
        }
    }
    // Each change of verdict or reason is published once: retrying after 1, after 2.
    let (ok, warn, err) = (
        HealthStatus::Healthy,
        HealthStatus::Warning,
        HealthStatus::Error,
    );
    assert_eq!(seen, vec![ok, warn, warn, err, ok]);
}

#[tokio::test]
async fn disconnect_removes_state_and_cancels_runs_in_flight() {
    let (h, source) = setup();
    let other = SyncTarget::new("mail", "bob", "inbox");
    h.engine
        .register(other.clone(), policy(), Arc::new(FakeSource::new()))
        .unwrap();
    let _gate = source.hold();
    let engine = h.engine.clone();
    let run = tokio::spawn(async move { engine.sync_now(&inbox()).await.unwrap() });
    source.entered().await;
    let removed = h.engine.disconnect("mail", "alice").unwrap();
    assert_eq!(removed, 1);
    assert_eq!(run.await.unwrap(), SyncOutcome::Cancelled);
    assert_eq!(h.engine.state(&inbox()).unwrap(), None);
    assert_eq!(h.engine.targets(), vec![other.clone()]);
    assert!(
        h.engine.state(&other).unwrap().is_some(),
        "another account is untouched"
    );
    assert!(matches!(
        h.engine.sync_now(&inbox()).await,
        Err(Error::InvalidArgument { name: "target", .. })
    ));
}

#[tokio::test]
async fn state_survives_reopening_raw_db() {
    let (h, source) = setup();
    source.push(Ok(SyncResult::Updated(
        SyncReport::changed(3).with_etag("\"abc\""),
    )));
    h.engine.sync_now(&inbox()).await.unwrap();
    let queue = Queue::open(h.db_path(), QueueOptions::new().clock(h.clock.clone())).unwrap();
    let engine = SyncEngine::new(queue);
    let again = Arc::new(FakeSource::new());
    engine.register(inbox(), policy(), again.clone()).unwrap();
    let state = engine.state(&inbox()).unwrap().unwrap();
    assert_eq!(state.etag.as_deref(), Some("\"abc\""));
    assert_eq!(state.last_changed, 3);
    assert!(
        engine.run_due(h.now()).await.is_empty(),
        "not due again after a restart"
    );
    engine.sync_now(&inbox()).await.unwrap();
    assert_eq!(again.seen_etags(), vec![Some("\"abc\"".into())]);
}

#[tokio::test]
async fn bad_registrations_are_typed_errors() {
    let h = SyncHarness::new();
    let source = Arc::new(FakeSource::new());
    let bad_policy = h
        .engine
        .register(inbox(), SyncPolicy::every(Duration::ZERO), source.clone());
    assert!(
        matches!(bad_policy, Err(Error::InvalidArgument { name: "policy", ref reason }) if reason.contains("every"))
    );
    let bad_target = h
        .engine
        .register(SyncTarget::new("mail", "a.b", "inbox"), policy(), source);
    assert!(matches!(
        bad_target,
        Err(Error::InvalidArgument { name: "target", .. })
    ));
    assert!(h.engine.targets().is_empty());
    assert!(SyncTarget::parse("mail/alice/inbox").is_ok());
    assert!(SyncTarget::parse("mail/alice").is_err());
}

#[tokio::test]
async fn last_modified_survives_a_response_without_it() {
    let (h, source) = setup();
    source.push(Ok(SyncResult::Updated(
        SyncReport::changed(1).with_last_modified("Wed, 21 Oct 2015 07:28:00 GMT"),
    )));
    source.push(Ok(SyncResult::Updated(SyncReport::changed(2))));
    h.engine.run_due(h.now()).await;
    h.advance(MIN);
    h.engine.run_due(h.now()).await;
    let state = h.engine.state(&inbox()).unwrap().unwrap();
    assert_eq!(
        state.last_modified.as_deref(),
        Some("Wed, 21 Oct 2015 07:28:00 GMT")
    );
    assert_eq!(state.last_changed, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trigger_runs_every_target_at_once_so_a_slow_one_delays_no_other() {
    let h = SyncHarness::new();
    let slow = Arc::new(FakeSource::new());
    let quick = Arc::new(FakeSource::new());
    let gate = slow.hold();
    let (slow_target, quick_target) = (
        SyncTarget::new("mail", "alice", "slow"),
        SyncTarget::new("mail", "alice", "quick"),
    );
    h.engine
        .register(slow_target.clone(), policy(), slow.clone())
        .unwrap();
    h.engine
        .register(quick_target.clone(), policy(), quick.clone())
        .unwrap();
    let engine = h.engine.clone();
    let all = tokio::spawn(async move { engine.trigger_all(Trigger::Focus).await });
    slow.entered().await;
    // The slow source is held; the quick one still runs and finishes.
    let quick_done = tokio::time::timeout(Duration::from_secs(10), async {
        while quick.calls() == 0 || h.engine.state(&quick_target).unwrap().unwrap().runs == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(
        quick_done.is_ok(),
        "the quick target waited for the slow one"
    );
    gate.notify_one();
    let outcomes = all.await.unwrap();
    assert_eq!(outcomes.len(), 2);
}

#[tokio::test]
async fn a_finished_run_says_what_started_it() {
    use tauri_plugin_jobs::sync::StartedBy;
    let (h, _source) = setup();
    let mut stream = h.queue.bus().subscribe(100);
    h.engine.run_due(h.now()).await;
    h.engine.sync_now(&inbox()).await.unwrap();
    for trigger in [Trigger::Focus, Trigger::NetworkBack, Trigger::Wake] {
        h.advance(MIN);
        h.engine.sync_if_due(&inbox(), trigger).await.unwrap();
    }
    let mut started = Vec::new();
    while let Some(event) = stream.try_next() {
        if let Event::SyncFinished(finished) = &*event {
            started.push(finished.started_by);
        }
    }
    assert_eq!(
        started,
        [
            StartedBy::Schedule,
            StartedBy::Refresh,
            StartedBy::Focus,
            StartedBy::NetworkBack,
            StartedBy::Wake
        ]
    );
}
