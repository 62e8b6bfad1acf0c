//! A target's outcomes over time (`SyncEngine::history`): each run that ended counts
//! once in its minute with how long it took, runs that did not happen count nothing,
//! minutes fold into hours with the job history, and a disconnect forgets them.

use super::*;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::queue::{HistoryKeep, HistoryRange, HistoryStep};

#[tokio::test]
async fn each_run_counts_once_by_how_it_ended_and_a_disconnect_forgets_them() {
    let (h, source) = setup();
    source.push(Ok(SyncResult::Updated(SyncReport::changed(3))));
    source.push(Ok(SyncResult::NotModified));
    source.push(Err(SyncError::failed("HTTP 500")));
    source.push(Err(SyncError::offline("unreachable")));
    let start = h.now();
    h.engine.sync_now(&inbox()).await.unwrap();
    h.engine.sync_now(&inbox()).await.unwrap();
    // Within the refresh floor, not due: no run, nothing counted.
    h.engine
        .sync_if_due(&inbox(), Trigger::Focus)
        .await
        .unwrap();
    h.advance(MIN);
    h.engine.sync_now(&inbox()).await.unwrap();
    h.engine.sync_now(&inbox()).await.unwrap();
    assert_eq!(source.calls(), 4);

    let points = h
        .engine
        .history(&inbox(), HistoryRange::last_hour(h.now()))
        .unwrap();
    assert_eq!(points.len(), 2, "{points:?}");
    let (first, second) = (&points[0], &points[1]);
    assert_eq!(
        first.at,
        Timestamp::from_millis(start.as_millis() / 60_000 * 60_000)
    );
    assert_eq!(
        (first.updated, first.not_modified, first.changed),
        (1, 1, 3)
    );
    assert_eq!((second.failed, second.offline, second.updated), (1, 1, 0));
    // The fake clock stood still while the source ran.
    assert_eq!(first.took_p95_ms, Some(0));
    assert_eq!(
        h.engine
            .history_targets(HistoryRange::last_hour(h.now()))
            .unwrap(),
        ["mail/alice/inbox"]
    );
    let day = h
        .engine
        .history(&inbox(), HistoryRange::last_day(h.now()))
        .unwrap();
    assert_eq!(day.len(), 1);
    assert_eq!(
        day[0].updated + day[0].not_modified + day[0].failed + day[0].offline,
        4
    );

    // Folded into hours with the job history, exactly.
    h.advance(Duration::from_secs(3 * 3600));
    let keep = HistoryKeep {
        by_minute: Duration::from_secs(3600),
        ..HistoryKeep::default()
    };
    assert_eq!(h.queue.compact_history(keep).unwrap(), 2);
    let range = HistoryRange::new(start.saturating_sub(MIN), h.now(), HistoryStep::Minute);
    let folded = h.engine.history(&inbox(), range).unwrap();
    assert_eq!(folded.len(), 1);
    assert_eq!(folded[0].span_ms, 3_600_000);
    assert_eq!(
        (folded[0].updated, folded[0].failed, folded[0].changed),
        (1, 1, 3)
    );

    h.engine.disconnect("mail", "alice").unwrap();
    assert!(h.engine.history(&inbox(), range).unwrap().is_empty());
}
