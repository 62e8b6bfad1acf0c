//! Rate limits per kind: N starts per window, across every claimer of the file, on the
//! fake clock.

use super::*;
use tauri_plugin_jobs::queue::RateLimit;

const MIN: Duration = Duration::from_secs(60);

fn claim_all(queue: &Queue, kinds: &[&str]) -> Vec<tauri_plugin_jobs::queue::ClaimedJob> {
    queue
        .claim(
            &ClaimRequest::new("w", kinds.iter().copied())
                .lease(30 * SEC)
                .max_jobs(100),
        )
        .unwrap()
}

fn enqueue_n(queue: &Queue, kind: &str, n: u32) {
    for i in 0..n {
        queue.enqueue(kind, &i, EnqueueOptions::new()).unwrap();
    }
}

#[test]
fn a_kind_starts_at_most_its_limit_per_window_then_one_per_interval() {
    let h = Harness::new();
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(3, MIN)))
        .unwrap();
    assert_eq!(
        h.queue.rate_limit("mail").unwrap(),
        Some(RateLimit::new(3, MIN))
    );
    enqueue_n(&h.queue, "mail", 10);
    assert_eq!(
        claim_all(&h.queue, &["mail"]).len(),
        3,
        "a burst of the limit"
    );
    assert!(claim_all(&h.queue, &["mail"]).is_empty());
    // One more start every 20 s (60 s / 3), never sooner.
    let start = h.clock_now();
    let request = ClaimRequest::new("w", ["mail"]);
    assert_eq!(
        h.queue.next_claimable_at(&request).unwrap(),
        Some(Timestamp::from_millis(start.as_millis() + 20_000)),
        "an idle claimer sleeps until the limit frees a start"
    );
    h.advance(19 * SEC);
    assert!(claim_all(&h.queue, &["mail"]).is_empty());
    h.advance(SEC);
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 1);
    // After a quiet window the whole burst is there again.
    h.advance(MIN);
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 3);
}

#[test]
fn every_handle_on_the_file_shares_the_limit() {
    let h = Harness::new();
    let other = h.second_queue();
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(4, MIN)))
        .unwrap();
    enqueue_n(&h.queue, "mail", 10);
    let mut started = 0;
    for round in 0..6 {
        let queue = if round % 2 == 0 { &h.queue } else { &other };
        started += queue
            .claim(&ClaimRequest::new(format!("w{round}"), ["mail"]).max_jobs(1))
            .unwrap()
            .len();
    }
    assert_eq!(started, 4);
}

#[test]
fn a_limited_kind_does_not_hold_back_others_and_its_jobs_say_until_when() {
    let h = Harness::new();
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(1, MIN)))
        .unwrap();
    enqueue_n(&h.queue, "mail", 3);
    enqueue_n(&h.queue, "thumb", 3);
    let claimed = claim_all(&h.queue, &["mail", "thumb"]);
    let mail = claimed.iter().filter(|c| c.job.kind == "mail").count();
    assert_eq!((mail, claimed.len()), (1, 4));
    // The waiting jobs say why, in a job, a list and the counts.
    let until = Timestamp::from_millis(h.clock_now().as_millis() + 60_000);
    let waiting = h
        .queue
        .list(&JobFilter::new().status(JobStatus::Queued))
        .unwrap();
    assert_eq!(waiting.len(), 2);
    assert!(waiting
        .iter()
        .all(|job| job.rate_limited_until == Some(until)));
    let counts = h.queue.counts().unwrap();
    let queued = counts
        .iter()
        .find(|c| c.kind == "mail" && c.status == JobStatus::Queued)
        .unwrap();
    assert_eq!(queued.rate_limited_until, Some(until));
    // A running job is not waiting: no mark.
    let running = claimed.iter().find(|c| c.job.kind == "mail").unwrap();
    assert_eq!(
        h.queue
            .get(running.job.id)
            .unwrap()
            .unwrap()
            .rate_limited_until,
        None
    );
    // Once a start is free, the mark goes.
    h.advance(MIN);
    assert_eq!(
        h.queue
            .get(waiting[0].id)
            .unwrap()
            .unwrap()
            .rate_limited_until,
        None
    );
}

#[test]
fn clearing_the_limit_frees_the_kind_at_once() {
    let h = Harness::new();
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(1, MIN)))
        .unwrap();
    enqueue_n(&h.queue, "mail", 3);
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 1);
    h.queue.set_rate_limit("mail", None).unwrap();
    assert_eq!(h.queue.rate_limit("mail").unwrap(), None);
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 2);
}

#[test]
fn the_runner_stores_a_handlers_limit_and_runs_the_backlog_at_its_pace() {
    use tauri_plugin_jobs::runner::{Handler, JobContext};
    use tauri_plugin_jobs::testing::Backend;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let backend = Backend::builder()
                .handler(
                    Handler::new("mail", |n: u32, _ctx: JobContext| async move { Ok(n) })
                        .rate_limit(2, MIN),
                )
                .build();
            assert_eq!(
                backend.queue.rate_limit("mail").unwrap(),
                Some(RateLimit::new(2, MIN))
            );
            enqueue_n(&backend.queue, "mail", 5);
            backend.settle().await;
            let done = |backend: &Backend| backend.jobs(JobStatus::Succeeded).len();
            assert_eq!(done(&backend), 2, "a burst of two");
            // One more every 30 s (60 s / 2).
            backend.advance_and_settle(29 * SEC).await;
            assert_eq!(done(&backend), 2);
            backend.advance_and_settle(SEC).await;
            assert_eq!(done(&backend), 3);
            backend.advance_and_settle(60 * SEC).await;
            assert_eq!(done(&backend), 5);
        });
}

#[test]
fn config_toml_wins_over_the_handlers_limit() {
    use tauri_plugin_jobs::config::Config;
    use tauri_plugin_jobs::runner::{Handler, JobContext, RunnerSettings};
    use tauri_plugin_jobs::testing::Backend;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[jobs.rate_limits]\nmail = \"1/2m\"\n").unwrap();
    let config = Config::load(&path).unwrap();
    let backend = Backend::builder()
        .handler(
            Handler::new("mail", |n: u32, _ctx: JobContext| async move { Ok(n) })
                .rate_limit(2, MIN),
        )
        .settings(RunnerSettings::from_config(&config.jobs))
        .build();
    assert_eq!(
        backend.queue.rate_limit("mail").unwrap(),
        Some(RateLimit::new(1, 2 * MIN))
    );
}
