//! The history per kind (`Queue::history`), on a fake clock: what each end adds, in the
//! transaction that ends the job (a rolled-back one adds nothing, an idle queue writes
//! nothing), the percentiles read from it, folding minutes into hours and forgetting
//! hours, the runner's hourly compaction, and refused ranges.

use crate::common;

use std::time::Duration;

use common::Harness;
use serde_json::json;
use tauri_plugin_jobs::clock::{Clock, Timestamp};
use tauri_plugin_jobs::queue::{
    ClaimRequest, EnqueueOptions, HistoryKeep, HistoryPoint, HistoryRange, HistoryStep, JobFailure,
    Queue,
};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tauri_plugin_jobs::Error;

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

/// Enqueues a job of `kind`, lets it wait `wait`, claims it, lets it run `run`.
fn start(
    h: &Harness,
    kind: &str,
    wait: Duration,
    run: Duration,
) -> tauri_plugin_jobs::queue::Lease {
    h.queue
        .enqueue(kind, &json!({}), EnqueueOptions::new().max_attempts(2))
        .unwrap();
    h.clock.advance(wait);
    let lease = claim_one(h, kind);
    h.clock.advance(run);
    lease
}

/// Claims the next job of `kind`, which must be there.
fn claim_one(h: &Harness, kind: &str) -> tauri_plugin_jobs::queue::Lease {
    h.queue
        .claim(&ClaimRequest::new("w", [kind]))
        .unwrap()
        .pop()
        .unwrap()
        .lease
}

fn total(points: &[HistoryPoint]) -> (u64, u64, u64, u64) {
    points.iter().fold((0, 0, 0, 0), |t, p| {
        (
            t.0 + p.succeeded,
            t.1 + p.failed,
            t.2 + p.cancelled,
            t.3 + p.retries,
        )
    })
}

fn last_hour(queue: &Queue, kind: &str, now: Timestamp) -> Vec<HistoryPoint> {
    queue.history(kind, HistoryRange::last_hour(now)).unwrap()
}

#[test]
fn each_end_counts_once_in_its_minute_with_its_wait_and_run_time() {
    let h = Harness::new();
    let lease = start(
        &h,
        "mail",
        Duration::from_millis(40),
        Duration::from_millis(300),
    );
    h.queue.complete(&lease, None).unwrap();
    h.clock.advance(MINUTE);
    // A failure retried, then failed for good.
    let lease = start(&h, "mail", Duration::ZERO, Duration::from_millis(10));
    h.queue.fail(&lease, JobFailure::retryable("down")).unwrap();
    h.clock.advance(HOUR / 2);
    let lease = claim_one(&h, "mail");
    h.queue.fail(&lease, JobFailure::retryable("down")).unwrap();
    // A queued job cancelled.
    let queued = h
        .queue
        .enqueue("mail", &json!({ "n": 1 }), EnqueueOptions::new())
        .unwrap();
    h.queue.cancel(queued.id).unwrap();

    let points = last_hour(&h.queue, "mail", h.clock.now());
    assert_eq!(total(&points), (1, 1, 1, 1), "{points:?}");
    assert_eq!(points.len(), 3, "three minutes saw ends: {points:?}");
    assert_eq!(points[1].retries, 1);
    let first = &points[0];
    assert_eq!(first.span_ms, 60_000);
    assert_eq!(first.succeeded, 1);
    // Never under the true figure, at most √2 over it.
    let (run, wait) = (first.run_p50_ms.unwrap(), first.wait_p50_ms.unwrap());
    assert!((300..=425).contains(&run), "run p50 {run}");
    assert!((40..=57).contains(&wait), "wait p50 {wait}");
    assert!(h
        .queue
        .history("other", HistoryRange::last_hour(h.clock.now()))
        .unwrap()
        .is_empty());
    assert_eq!(
        h.queue
            .history_kinds(HistoryRange::last_hour(h.clock.now()))
            .unwrap(),
        vec!["mail".to_owned()]
    );
}

#[test]
fn a_batch_ends_many_jobs_in_one_row_and_a_lost_lease_adds_nothing() {
    let h = Harness::new();
    for n in 0..20 {
        h.queue
            .enqueue("thumb", &json!({ "n": n }), EnqueueOptions::new())
            .unwrap();
    }
    let jobs = h
        .queue
        .claim(&ClaimRequest::new("w", ["thumb"]).max_jobs(20))
        .unwrap();
    h.clock.advance(Duration::from_millis(5));
    let mut batch: Vec<_> = jobs
        .iter()
        .map(|job| {
            (
                job.lease.clone(),
                tauri_plugin_jobs::queue::Outcome::Succeeded(None),
            )
        })
        .collect();
    // A lease nobody holds: refused, and not counted.
    let mut stranger = jobs[0].lease.clone();
    stranger.attempt += 1;
    batch.push((stranger, tauri_plugin_jobs::queue::Outcome::Succeeded(None)));
    let results = h.queue.finish_batch(batch).unwrap();
    assert!(results.last().unwrap().is_err());
    let points = last_hour(&h.queue, "thumb", h.clock.now());
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].succeeded, 20);
    assert_eq!(points[0].run_p95_ms, Some(5));
}

#[test]
fn a_runner_records_what_its_handlers_did() {
    let h = Harness::new();
    let handler = Handler::new("calc", |n: u32, _ctx: JobContext| async move {
        if n == 0 {
            Err(tauri_plugin_jobs::runner::JobError::permanent("zero"))
        } else {
            Ok(())
        }
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], RunnerSettings::for_tests()).unwrap();
    for n in [0u32, 1, 2] {
        h.queue
            .enqueue("calc", &json!(n), EnqueueOptions::new())
            .unwrap();
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(runner.drain()).unwrap();
    let points = last_hour(&h.queue, "calc", h.clock.now());
    assert_eq!(total(&points), (2, 1, 0, 0), "{points:?}");
}

#[test]
fn minutes_fold_into_hours_and_old_hours_go() {
    let h = Harness::new();
    let start_at = h.clock.now();
    // An end in each of 3 minutes.
    for _ in 0..3 {
        let lease = start(&h, "sync", Duration::ZERO, Duration::from_millis(100));
        h.queue.complete(&lease, None).unwrap();
        h.clock.advance(MINUTE);
    }
    let day = HistoryRange::new(
        start_at.saturating_sub(HOUR * 2),
        start_at.saturating_add(HOUR * 2),
        HistoryStep::Hour,
    );
    let by_hour = h.queue.history("sync", day).unwrap();
    assert_eq!(total(&by_hour), (3, 0, 0, 0));
    // Three days on, the minutes fold into their hours: the same totals and times.
    h.clock.advance(HOUR * 72);
    let gone = h.queue.compact_history(HistoryKeep::default()).unwrap();
    assert_eq!(gone, 3, "three minute rows folded");
    assert_eq!(h.queue.history("sync", day).unwrap(), by_hour);
    let by_minute = HistoryRange {
        step: HistoryStep::Minute,
        ..day
    };
    let points = h.queue.history("sync", by_minute).unwrap();
    assert!(points.iter().all(|p| p.span_ms == 3_600_000), "{points:?}");
    assert_eq!(total(&points), (3, 0, 0, 0));
    // Past 30 days the hours go too.
    h.clock.advance(HOUR * 24 * 30);
    assert!(h.queue.compact_history(HistoryKeep::default()).unwrap() >= 1);
    assert!(h.queue.history("sync", day).unwrap().is_empty());
}

#[test]
fn the_runner_compacts_hourly() {
    let h = Harness::new();
    let lease = start(&h, "old", Duration::ZERO, Duration::ZERO);
    h.queue.complete(&lease, None).unwrap();
    let ended_at = h.clock.now();
    h.clock.advance(HOUR * 24 * 31);
    let handler = Handler::new("old", |_: serde_json::Value, _ctx: JobContext| async {
        Ok(())
    });
    let runner = Runner::new(h.queue.clone(), vec![handler], RunnerSettings::for_tests()).unwrap();
    let range = HistoryRange::new(
        ended_at.saturating_sub(HOUR),
        ended_at.saturating_add(HOUR),
        HistoryStep::Hour,
    );
    runner.maintain().unwrap();
    assert_eq!(
        h.queue.history("old", range).unwrap().len(),
        1,
        "not on the start's path"
    );
    h.clock.advance(MINUTE);
    runner.maintain().unwrap();
    assert!(
        h.queue.history("old", range).unwrap().is_empty(),
        "past keeping: gone"
    );
}

#[test]
fn an_idle_queue_and_an_enqueue_write_no_history() {
    let h = Harness::new();
    h.queue
        .enqueue("mail", &json!({}), EnqueueOptions::new())
        .unwrap();
    let lease = claim_one(&h, "mail");
    let _ = h.queue.heartbeat(&lease).unwrap();
    let wide = HistoryRange::new(
        h.clock.now().saturating_sub(HOUR * 24),
        h.clock.now().saturating_add(HOUR),
        HistoryStep::Minute,
    );
    assert!(h.queue.history_kinds(wide).unwrap().is_empty());
}

#[test]
fn a_range_backwards_or_too_long_is_refused_naming_it() {
    let h = Harness::new();
    let now = h.clock.now();
    let backwards = HistoryRange::new(now, now.saturating_sub(HOUR), HistoryStep::Minute);
    let long = HistoryRange::new(now.saturating_sub(HOUR * 24 * 40), now, HistoryStep::Hour);
    for range in [backwards, long] {
        match h.queue.history("mail", range) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, "range"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn the_current_minute_rides_in_job_counts_and_moves_to_job_history_when_it_is_over() {
    let h = Harness::new();
    let rows = |sql: &str| -> i64 {
        let conn = rusqlite::Connection::open(h.queue.path()).unwrap();
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    };
    let lease = start(&h, "mail", Duration::ZERO, Duration::from_millis(5));
    h.queue.complete(&lease, None).unwrap();
    // The end wrote the page `job_counts` is on, and no `job_history` row.
    assert_eq!(rows("SELECT count(*) FROM job_history"), 0);
    assert_eq!(
        rows("SELECT count(*) FROM job_counts WHERE status = 'minute'"),
        1
    );
    // Counts never show the minute's row; the history does.
    let counts = h.queue.counts().unwrap();
    assert!(
        counts.iter().all(|c| c.status.as_str() != "minute"),
        "{counts:?}"
    );
    assert_eq!(total(&last_hour(&h.queue, "mail", h.clock.now())).0, 1);
    assert_eq!(
        h.queue
            .history_kinds(HistoryRange::last_hour(h.clock.now()))
            .unwrap(),
        ["mail"]
    );
    // The next minute's end moves the last one to `job_history`.
    h.clock.advance(MINUTE);
    let lease = start(&h, "mail", Duration::ZERO, Duration::from_millis(5));
    h.queue.complete(&lease, None).unwrap();
    assert_eq!(rows("SELECT count(*) FROM job_history"), 1);
    let points = last_hour(&h.queue, "mail", h.clock.now());
    assert_eq!(
        points.iter().map(|p| p.succeeded).collect::<Vec<_>>(),
        [1, 1]
    );
}

#[test]
fn counts_take_in_the_current_minutes_ends_before_and_after_they_move() {
    let h = Harness::new();
    let count = |status: &str| -> u32 {
        h.queue
            .counts()
            .unwrap()
            .iter()
            .filter(|c| c.kind == "mail" && c.status.as_str() == status)
            .map(|c| c.count)
            .sum()
    };
    let lease = start(&h, "mail", Duration::ZERO, Duration::ZERO);
    h.queue.complete(&lease, None).unwrap();
    let lease = start(&h, "mail", Duration::ZERO, Duration::ZERO);
    let failed = lease.job_id;
    h.queue.fail(&lease, JobFailure::permanent("gone")).unwrap();
    // Both ends are only in the minute's row: the counts add them.
    assert_eq!((count("succeeded"), count("failed")), (1, 1));
    // Run again while its end is still in the minute: it leaves `failed` at once.
    h.queue.retry_now(failed).unwrap();
    assert_eq!(count("failed"), 0);
    assert_eq!(count("queued"), 1);
    let rerun = claim_one(&h, "mail");
    h.queue.complete(&rerun, None).unwrap();
    assert_eq!((count("succeeded"), count("failed")), (2, 0));
    // The next minute's end moves the last minute's ends into the counts' own rows.
    h.clock.advance(MINUTE);
    let lease = start(&h, "mail", Duration::ZERO, Duration::ZERO);
    h.queue.complete(&lease, None).unwrap();
    assert_eq!((count("succeeded"), count("failed")), (3, 0));
    // Deleting a finished job counts at once, wherever its end is kept.
    h.queue.delete(rerun.job_id).unwrap();
    assert_eq!(count("succeeded"), 2);
    // Compaction long after moves the idle kind's minute too; nothing changes.
    h.clock.advance(HOUR * 49);
    h.queue.compact_history(HistoryKeep::default()).unwrap();
    assert_eq!((count("succeeded"), count("failed")), (2, 0));
    let conn = rusqlite::Connection::open(h.queue.path()).unwrap();
    let minutes: i64 = conn
        .query_row(
            "SELECT count(*) FROM job_counts WHERE status = 'minute'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(minutes, 0);
}

#[test]
fn a_job_that_waited_for_others_waits_from_when_they_ended() {
    let h = Harness::new();
    let parent = h
        .queue
        .enqueue("fetch", &json!({}), EnqueueOptions::new())
        .unwrap()
        .id;
    h.clock.advance(Duration::from_secs(1));
    h.queue
        .enqueue("index", &json!({}), EnqueueOptions::new().after([parent]))
        .unwrap();
    // The parent starts 38 s later and ends 1 s after that, 39 s after its child was
    // enqueued; the child starts 3 s after the parent ended.
    h.clock.advance(Duration::from_secs(38));
    let lease = claim_one(&h, "fetch");
    h.clock.advance(Duration::from_secs(1));
    h.queue.complete(&lease, None).unwrap();
    h.clock.advance(Duration::from_secs(3));
    let lease = claim_one(&h, "index");
    h.clock.advance(Duration::from_millis(10));
    h.queue.complete(&lease, None).unwrap();
    let points = last_hour(&h.queue, "index", h.clock.now());
    assert_eq!(points.len(), 1, "{points:?}");
    let wait = points[0].wait_p50_ms.unwrap();
    assert!(
        (3_000..=4_243).contains(&wait),
        "the wait counts from the parent's end (3 s), not the enqueue (42 s): {wait} ms"
    );
}

#[test]
fn a_range_holds_only_the_periods_that_start_in_it() {
    let h = Harness::new();
    let start = h.clock.now();
    let at =
        |offset: Duration| Timestamp::from_millis(start.as_millis() + offset.as_millis() as i64);
    // One end, at 10:10 (the harness starts on the hour).
    h.clock.advance(10 * MINUTE);
    let lease = start_at_once(&h, "mail");
    h.queue.complete(&lease, None).unwrap();
    h.clock.advance(HOUR);

    let by_hour = |from, to| {
        h.queue
            .history("mail", HistoryRange::new(from, to, HistoryStep::Hour))
            .unwrap()
    };
    let by_minute = |from, to| {
        h.queue
            .history("mail", HistoryRange::new(from, to, HistoryStep::Minute))
            .unwrap()
    };
    // From inside the hour or the minute of the end: neither period starts in the range.
    assert_eq!(by_hour(at(30 * MINUTE), at(HOUR)), vec![]);
    assert_eq!(
        by_minute(at(10 * MINUTE + MINUTE / 2), at(20 * MINUTE)),
        vec![]
    );
    let kinds = h
        .queue
        .history_kinds(HistoryRange::new(
            at(30 * MINUTE),
            at(35 * MINUTE),
            HistoryStep::Minute,
        ))
        .unwrap();
    assert_eq!(kinds, Vec::<String>::new());
    // From the start of either period, it is there.
    let hours = by_hour(at(Duration::ZERO), at(HOUR));
    assert_eq!(
        (hours.len(), hours[0].at, hours[0].succeeded),
        (1, start, 1)
    );
    let minutes = by_minute(at(10 * MINUTE), at(11 * MINUTE));
    assert_eq!((minutes.len(), minutes[0].at), (1, at(10 * MINUTE)));
    // Folded into its hour, the end is in the hour from its start only.
    h.queue
        .compact_history(HistoryKeep {
            by_minute: MINUTE,
            by_hour: 24 * HOUR,
        })
        .unwrap();
    assert_eq!(by_minute(at(10 * MINUTE), at(HOUR)), vec![]);
    assert_eq!(by_minute(at(Duration::ZERO), at(HOUR)).len(), 1);
    assert_eq!(by_hour(at(Duration::from_millis(1)), at(2 * HOUR)), vec![]);
}

/// Enqueues a job of `kind` and claims it at once.
fn start_at_once(h: &Harness, kind: &str) -> tauri_plugin_jobs::queue::Lease {
    start(h, kind, Duration::ZERO, Duration::ZERO)
}
