//! Jobs end to end through a started runner: a producer enqueues, the runner claims,
//! runs a no-op handler on tokio and records the outcome, with events on and one
//! stream subscribed (as the plugin forwards them to the webview).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::bus::{Event, EventBus};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus, Queue};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tokio::sync::Notify;

use crate::ceiling::{Paired, PerStep};
use crate::report::{count, median, ms, percentile, rate, Report};

/// How the producer writes jobs.
#[derive(Clone, Copy)]
enum Producer {
    /// One job per transaction.
    Single,
    /// Batches of 1000 per transaction.
    Batches,
    /// Every job enqueued (in batches) before the runner starts; the rate counts the
    /// runner alone.
    Before,
}

/// A queue whose bus counts successes of `noop` jobs and wakes `all_done` at the `n`th.
fn counted_queue(dir: &std::path::Path, n: usize) -> (Queue, Arc<Notify>) {
    let bus = EventBus::new();
    let succeeded = Arc::new(AtomicUsize::new(0));
    let all_done = Arc::new(Notify::new());
    let done = all_done.clone();
    bus.add_handler("count", move |event: &Event| {
        if let Event::JobStateChanged(change) = event {
            if change.to == JobStatus::Succeeded
                && change.kind == "noop"
                && succeeded.fetch_add(1, Ordering::Relaxed) + 1 == n
            {
                done.notify_one();
            }
        }
        Ok(())
    });
    let queue = Queue::open(dir.join("raw.db"), crate::queue::options().bus(bus)).unwrap();
    (queue, all_done)
}

fn noop() -> Handler {
    Handler::new(
        "noop",
        |_: serde_json::Value, _ctx: JobContext| async move { Ok(()) },
    )
}

/// Producer and runner at once; the rate counts from the first enqueue to the last
/// success. `finished` jobs are run to the end first through the queue API (claimed
/// and completed in batches), so the timed round meets a table that holds them.
async fn end_to_end(n: usize, workers: u32, producer: Producer, finished: usize) -> f64 {
    end_to_end_beside(n, workers, producer, finished, 0, false).await
}

/// [`end_to_end`], with `limited` jobs of another kind queued first, its rate limit
/// (one start an hour) spent: claimed beside `noop` in every round, never started.
async fn end_to_end_beside(
    n: usize,
    workers: u32,
    producer: Producer,
    finished: usize,
    limited: usize,
    fan_in: bool,
) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let (queue, all_done) = counted_queue(dir.path(), finished + n);
    if finished > 0 {
        crate::queue::enqueue_all(&queue, &["noop"], finished);
        crate::queue::drain(&queue, &["noop"], &[], 4, 100);
    }
    let mut handlers = vec![noop()];
    if limited > 0 {
        let hour = Duration::from_secs(3600);
        handlers.push(
            Handler::new(
                "mail",
                |_: serde_json::Value, _ctx: JobContext| async move { Ok(()) },
            )
            .rate_limit(1, hour),
        );
        queue
            .set_rate_limit(
                "mail",
                Some(tauri_plugin_jobs::queue::RateLimit::new(1, hour)),
            )
            .unwrap();
        // Its one start an hour spent before the timed round.
        queue
            .enqueue("mail", &json!(0), EnqueueOptions::new())
            .unwrap();
        for job in queue
            .claim(&tauri_plugin_jobs::queue::ClaimRequest::new(
                "setup",
                ["mail"],
            ))
            .unwrap()
        {
            queue.complete(&job.lease, None).unwrap();
        }
        crate::queue::enqueue_all(&queue, &["mail"], limited);
    }
    let _stream = queue.bus().subscribe(1024);
    let mut settings = RunnerSettings::default();
    settings.workers = workers;
    let runner = Runner::new(queue.clone(), handlers, settings).unwrap();
    let done = all_done.notified();
    if let Producer::Before = producer {
        crate::queue::enqueue_all(&queue, &["noop"], n);
    }
    if fan_in {
        // One job (of a kind nothing here runs) waiting for every queued one.
        use tauri_plugin_jobs::queue::{JobFilter, JobStatus};
        let mut ids = Vec::with_capacity(n);
        let mut before = None;
        loop {
            let mut filter = JobFilter::new()
                .status(JobStatus::Queued)
                .kind("noop")
                .limit(1000);
            filter.before = before;
            let page = queue.list(&filter).unwrap();
            let Some(last) = page.last() else { break };
            before = Some(last.id);
            ids.extend(page.iter().map(|job| job.id));
        }
        queue
            .enqueue("last", &json!({}), EnqueueOptions::new().after(ids))
            .unwrap();
    }
    runner.start();
    let started = Instant::now();
    let writer = std::thread::spawn(move || match producer {
        Producer::Before => {}
        Producer::Single => {
            for i in 0..n {
                queue
                    .enqueue("noop", &json!({ "n": i }), EnqueueOptions::new())
                    .unwrap();
            }
        }
        Producer::Batches => crate::queue::enqueue_all(&queue, &["noop"], n),
    });
    tokio::time::timeout(Duration::from_secs(300), done)
        .await
        .expect("the runner finished every job within 5 minutes");
    let rate = rate(n, started.elapsed());
    writer.join().unwrap();
    runner.stop(Duration::from_secs(5)).await.unwrap();
    rate
}

async fn repeat(
    report: &Report,
    n: usize,
    workers: u32,
    producer: Producer,
    finished: usize,
) -> f64 {
    let mut rates = Vec::new();
    for _ in 0..report.repeat {
        rates.push(end_to_end(n, workers, producer, finished).await);
    }
    median(rates)
}

pub async fn measure(report: &mut Report) {
    let n = report.jobs;
    for workers in [1, 4] {
        let name =
            format!("runner: enqueue one per commit while {workers} worker(s) run them (jobs/s)");
        if report.wants(&name) {
            let mut paired = PerStep::new();
            for _ in 0..report.repeat {
                let ceilings = PerStep::ceilings(n);
                paired.add(ceilings, end_to_end(n, workers, Producer::Single, 0).await);
            }
            // The target is for the runner as shipped (4 workers); one worker is
            // bound by the latency of each claim and shown for comparison.
            paired.row(report, &name, workers == RunnerSettings::default().workers);
        }
    }
    let batched_workers = crate::report::env_usize("BENCH_BATCH_WORKERS", 64) as u32;
    let name = format!(
        "runner: enqueue 1000 per commit while {batched_workers} workers run them, group commit (jobs/s)"
    );
    if report.wants(&name) {
        let jobs = n.max(50_000);
        let mut paired = Paired::new();
        for _ in 0..report.repeat {
            let ceiling = crate::ceiling::grouped_once(jobs);
            paired.add(
                ceiling,
                end_to_end(jobs, batched_workers, Producer::Batches, 0).await,
            );
        }
        let (value, vs_cg) = paired.result();
        report.checked(
            &name,
            count(value),
            format!("{:.0}% of CG", vs_cg * 100.0),
            ">= 40,000",
            value >= 40_000.0,
        );
    }
    // At two sizes, and the small one again on a table that holds the large one
    // finished: how the cost grows with the table (the peers are measured alike).
    let small = crate::report::env_usize("BENCH_SMALL", 2_000);
    for (size, finished) in [(n, 0), (small, 0), (small, n)] {
        for workers in [4, batched_workers] {
            let on_table = if finished > 0 {
                format!(" on a table of {} finished", count(finished as f64))
            } else {
                String::new()
            };
            let name = format!(
                "runner: {} jobs queued first{on_table}, {workers} workers run them (jobs/s)",
                count(size as f64)
            );
            if report.wants(&name) {
                let value = repeat(report, size, workers, Producer::Before, finished).await;
                report.info(&name, count(value));
            }
        }
    }
    // A kind at its rate limit with a backlog, claimed beside: it must not slow the
    // kinds that may run (measured in pairs, the same run without it first).
    let name = format!(
        "runner: {} jobs queued first, 4 workers, beside {} of a kind at its rate limit (of the same without it)",
        count(n as f64),
        count(n as f64)
    );
    if report.wants(&name) {
        let mut ratios = Vec::new();
        let mut beside = Vec::new();
        for _ in 0..report.repeat {
            let alone = end_to_end(n, 4, Producer::Before, 0).await;
            let with = end_to_end_beside(n, 4, Producer::Before, 0, n, false).await;
            ratios.push(with / alone);
            beside.push(with);
        }
        let ratio = median(ratios);
        report.checked(
            &name,
            format!("{} jobs/s", count(median(beside))),
            format!("{:.0}% of the same without it", ratio * 100.0),
            ">= 90%",
            ratio >= 0.9,
        );
    }
    // A workflow's fan-in: one job waiting for every queued one must not slow them.
    let name = format!(
        "runner: {} jobs queued first, 4 workers, one job waiting for all of them (of the same without it)",
        count(n as f64)
    );
    if report.wants(&name) {
        let mut ratios = Vec::new();
        let mut with_it = Vec::new();
        for _ in 0..report.repeat {
            let alone = end_to_end(n, 4, Producer::Before, 0).await;
            let with = end_to_end_beside(n, 4, Producer::Before, 0, 0, true).await;
            ratios.push(with / alone);
            with_it.push(with);
        }
        let ratio = median(ratios);
        report.checked(
            &name,
            format!("{} jobs/s", count(median(with_it))),
            format!("{:.0}% of the same without it", ratio * 100.0),
            ">= 90%",
            ratio >= 0.9,
        );
    }
    // Long work in steps: each step recorded is one commit of its own; 1,000 steps of
    // one job against 1,000 enqueues of one job per commit, in pairs.
    let name = "runner: 1,000 durable steps of one job, a commit each (steps/s, of one enqueue per commit)";
    if report.wants(name) {
        let mut ratios = Vec::new();
        let mut rates = Vec::new();
        for _ in 0..report.repeat {
            let enqueues = {
                let dir = tempfile::tempdir().unwrap();
                let queue =
                    Queue::open(dir.path().join("raw.db"), crate::queue::options()).unwrap();
                let started = Instant::now();
                for i in 0..1_000 {
                    queue
                        .enqueue("k", &json!({ "n": i }), EnqueueOptions::new())
                        .unwrap();
                }
                rate(1_000, started.elapsed())
            };
            let steps = steps_of_one_job(1_000).await;
            ratios.push(steps / enqueues);
            rates.push(steps);
        }
        let ratio = median(ratios);
        report.checked(
            name,
            count(median(rates)),
            format!("{:.0}% of one enqueue per commit", ratio * 100.0),
            ">= 100%",
            ratio >= 1.0,
        );
    }
    // A job's log: lines are held and stored in batches, with the writes the runner
    // makes anyway; jobs that log 100 lines each against the same that log none.
    let name = "runner: 2,000 jobs queued first, each logging 100 lines, 4 workers (of the same without logs)";
    if report.wants(name) {
        let mut ratios = Vec::new();
        let mut rates = Vec::new();
        for _ in 0..report.repeat {
            let quiet = logging_jobs(2_000, 0).await;
            let chatty = logging_jobs(2_000, 100).await;
            ratios.push(chatty / quiet);
            rates.push(chatty);
        }
        let (ratio, rate) = (median(ratios), median(rates));
        // What is promised is the writes: one row per job per store, never one per
        // line; the figure says what the lines cost the runner's thread besides.
        report.info(
            name,
            format!(
                "{} jobs/s, {} lines/s ({:.0}% of the same without logs)",
                count(rate),
                count(rate * 100.0),
                ratio * 100.0
            ),
        );
    }
    let name = "runner: enqueue-to-start latency, idle runner, same process, p50 / p99 (ms)";
    if report.wants(name) {
        let mut samples = latency_in_process(200).await;
        let p50 = percentile(&mut samples, 0.5);
        let p99 = percentile(&mut samples, 0.99);
        report.checked(
            name,
            format!("{:.3} / {:.3}", ms(p50), ms(p99)),
            String::new(),
            "p50 < 1 ms",
            p50 < Duration::from_millis(1),
        );
    }
}

/// Enqueues one job at a time into an idle started runner and times the handler's
/// start.
async fn latency_in_process(samples: usize) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::open(dir.path().join("raw.db"), crate::queue::options()).unwrap();
    let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    let started_tx = Arc::new(Mutex::new(started_tx));
    let handler = Handler::new("timed", move |_: serde_json::Value, _ctx: JobContext| {
        let at = Instant::now();
        let tx = started_tx.clone();
        async move {
            let _ = tx.lock().unwrap().send(at);
            Ok(())
        }
    });
    let runner = Runner::new(queue.clone(), vec![handler], RunnerSettings::default()).unwrap();
    runner.start();
    let mut out = Vec::with_capacity(samples);
    for i in 0..samples {
        // Let the previous job's outcome be written and the runner go back to sleep.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let queue = queue.clone();
        let sent = tokio::task::spawn_blocking(move || {
            let sent = Instant::now();
            queue
                .enqueue("timed", &json!({ "i": i }), EnqueueOptions::new())
                .unwrap();
            sent
        })
        .await
        .unwrap();
        let began = tokio::time::timeout(Duration::from_secs(10), started_rx.recv())
            .await
            .expect("the handler started within 10 s")
            .unwrap();
        out.push(began.saturating_duration_since(sent));
    }
    runner.stop(Duration::from_secs(5)).await.unwrap();
    out
}

/// One job whose handler runs `steps` durable steps, each recorded: steps per second,
/// from the job's start to its success.
async fn steps_of_one_job(steps: u32) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let (queue, all_done) = counted_queue(dir.path(), 1);
    let started = Arc::new(Mutex::new(None));
    let at_start = started.clone();
    let handler = Handler::new("noop", move |_: serde_json::Value, ctx: JobContext| {
        let at_start = at_start.clone();
        async move {
            *at_start.lock().unwrap() = Some(Instant::now());
            for i in 0..steps {
                ctx.step(format!("step-{i}"), || async move { Ok(i) })
                    .await?;
            }
            Ok(())
        }
    });
    let runner = Runner::new(queue.clone(), vec![handler], RunnerSettings::default()).unwrap();
    let done = all_done.notified();
    tokio::pin!(done);
    done.as_mut().enable();
    queue
        .enqueue("noop", &json!({}), EnqueueOptions::new())
        .unwrap();
    runner.start();
    done.await;
    let took = started.lock().unwrap().expect("the handler ran").elapsed();
    runner.stop(Duration::from_secs(1)).await.unwrap();
    rate(steps as usize, took)
}

/// `n` jobs queued first, each logging `lines` lines, run by 4 workers: jobs per
/// second.
async fn logging_jobs(n: usize, lines: u32) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let (queue, all_done) = counted_queue(dir.path(), n);
    crate::queue::enqueue_all(&queue, &["noop"], n);
    let handler = Handler::new(
        "noop",
        move |_: serde_json::Value, ctx: JobContext| async move {
            for i in 0..lines {
                ctx.log(format_args!("line {i} of the job's work"));
            }
            Ok(())
        },
    );
    let runner = Runner::new(queue.clone(), vec![handler], RunnerSettings::default()).unwrap();
    let done = all_done.notified();
    tokio::pin!(done);
    done.as_mut().enable();
    let started = Instant::now();
    runner.start();
    tokio::time::timeout(Duration::from_secs(300), done)
        .await
        .expect("the runner finished every job within 5 minutes");
    let rate = rate(n, started.elapsed());
    runner.stop(Duration::from_secs(5)).await.unwrap();
    rate
}
