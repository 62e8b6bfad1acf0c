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
fn a_bursting_limit_starts_its_whole_budget_at_once_then_one_per_interval() {
    let h = Harness::new();
    let bursty = RateLimit::new(5, MIN).burst(5);
    h.queue.set_rate_limit("upload", Some(bursty)).unwrap();
    assert_eq!(h.queue.rate_limit("upload").unwrap(), Some(bursty));
    // Another process's claims obey the same budget.
    let other = h.second_queue();
    enqueue_n(&h.queue, "upload", 30);
    assert_eq!(claim_all(&h.queue, &["upload"]).len(), 5, "five at once");
    assert!(claim_all(&other, &["upload"]).is_empty(), "then a wait");
    let start = h.clock_now();
    assert_eq!(
        h.queue
            .next_claimable_at(&ClaimRequest::new("w", ["upload"]))
            .unwrap(),
        Some(Timestamp::from_millis(start.as_millis() + 12_000)),
        "the budget comes back one start per 12 s"
    );
    h.advance(11 * SEC);
    assert!(claim_all(&other, &["upload"]).is_empty());
    h.advance(SEC);
    assert_eq!(claim_all(&other, &["upload"]).len(), 1);
    assert!(claim_all(&h.queue, &["upload"]).is_empty());
    // A quiet minute fills the budget again: five at once.
    h.advance(MIN);
    assert_eq!(claim_all(&h.queue, &["upload"]).len(), 5);
    // A burst of 3 out of 5: three at once.
    let h = Harness::new();
    h.queue
        .set_rate_limit("fetch", Some(RateLimit::new(5, MIN).burst(3)))
        .unwrap();
    enqueue_n(&h.queue, "fetch", 10);
    assert_eq!(claim_all(&h.queue, &["fetch"]).len(), 3);
}

#[test]
fn a_kind_starts_one_job_per_interval_and_never_more_than_its_limit_in_a_window() {
    let h = Harness::new();
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(3, MIN)))
        .unwrap();
    assert_eq!(
        h.queue.rate_limit("mail").unwrap(),
        Some(RateLimit::new(3, MIN))
    );
    enqueue_n(&h.queue, "mail", 20);
    // Spread evenly: one start every 20 s (60 s / 3), never sooner.
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 1);
    assert!(claim_all(&h.queue, &["mail"]).is_empty());
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
    // A quiet spell saves nothing up: still one start, then 20 s.
    h.advance(10 * MIN);
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 1);
    assert!(claim_all(&h.queue, &["mail"]).is_empty());
    // Claimed as fast as allowed for ten minutes, every minute-long window holds at
    // most three starts.
    let mut starts = Vec::new();
    for _ in 0..600 {
        h.advance(SEC);
        for _ in claim_all(&h.queue, &["mail"]) {
            starts.push(h.clock_now().as_millis());
        }
    }
    assert!(starts.len() >= 25, "{} starts", starts.len());
    for (i, first) in starts.iter().enumerate() {
        let within = starts[i..]
            .iter()
            .take_while(|t| **t < first + 60_000)
            .count();
        assert!(within <= 3, "{within} starts in the minute from {first}");
    }
}

#[test]
fn a_looser_limit_frees_the_kind_soon_and_a_refused_start_costs_nothing() {
    let h = Harness::new();
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(1, 3600 * SEC)))
        .unwrap();
    enqueue_n(&h.queue, "mail", 3);
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 1);
    assert!(claim_all(&h.queue, &["mail"]).is_empty());
    // 100 a second now: the start booked an hour ahead moves to 10 ms from now.
    h.queue
        .set_rate_limit("mail", Some(RateLimit::new(100, SEC)))
        .unwrap();
    h.advance(Duration::from_millis(10));
    assert_eq!(claim_all(&h.queue, &["mail"]).len(), 1);

    // A job the claim refuses (its payload does not fit the kind) is not a start.
    h.queue.register_kind(
        "strict",
        KindSpec::new().payload(Schema::custom("a number", |value| {
            value
                .as_u64()
                .map(drop)
                .ok_or_else(|| "not a number".to_owned())
        })),
    );
    h.queue
        .set_rate_limit("strict", Some(RateLimit::new(1, 3600 * SEC)))
        .unwrap();
    // Written by another program's build, past this one's schema.
    let other = Queue::open(h.dir.path().join("raw.db"), QueueOptions::new()).unwrap();
    other
        .enqueue("strict", &"text", EnqueueOptions::new())
        .unwrap();
    h.advance(SEC);
    h.queue
        .enqueue("strict", &7, EnqueueOptions::new())
        .unwrap();
    // The claim takes the older, refused job (it ends failed, naming why)...
    assert!(claim_all(&h.queue, &["strict"]).is_empty());
    let failed = h
        .queue
        .list(&JobFilter::new().status(JobStatus::Failed))
        .unwrap();
    assert_eq!(failed.len(), 1);
    // ...and the hour's one start is still there for the good one.
    let claimed = claim_all(&h.queue, &["strict"]);
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].job.payload, json!(7));
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
            assert_eq!(done(&backend), 1);
            // One more every 30 s (60 s / 2).
            backend.advance_and_settle(29 * SEC).await;
            assert_eq!(done(&backend), 1);
            backend.advance_and_settle(SEC).await;
            assert_eq!(done(&backend), 2);
            for _ in 0..3 {
                backend.advance_and_settle(30 * SEC).await;
            }
            assert_eq!(done(&backend), 5);

            // A handler's burst: three at once, then one per 20 s.
            let backend = Backend::builder()
                .handler(
                    Handler::new("fetch", |n: u32, _ctx: JobContext| async move { Ok(n) })
                        .rate_limit(3, MIN)
                        .rate_burst(3),
                )
                .build();
            assert_eq!(
                backend.queue.rate_limit("fetch").unwrap(),
                Some(RateLimit::new(3, MIN).burst(3))
            );
            enqueue_n(&backend.queue, "fetch", 5);
            backend.settle().await;
            assert_eq!(backend.jobs(JobStatus::Succeeded).len(), 3);
            backend.advance_and_settle(20 * SEC).await;
            assert_eq!(backend.jobs(JobStatus::Succeeded).len(), 4);
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
