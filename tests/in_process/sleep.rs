//! A desktop's sleep, on the fake clock: the lid closes mid-job, the wall clock jumps
//! two hours while no awake time passes (`FakeClock::suspend`), and two runners on two
//! connections (as two processes would be) wake up. A holder that is alive renews
//! before anyone reclaims its job, so the job runs once; a holder that died is
//! reclaimed one renewal period (a third of its lease) of awake time after the wake.
//! Time limits count awake time, backoff waits count wall time, schedules collapse
//! the runs they missed into one, and sync targets due together start spread out.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Harness;
use serde_json::Value;
use tauri_plugin_jobs::clock::Clock;
use tauri_plugin_jobs::queue::{ClaimRequest, EnqueueOptions, JobFailure, JobStatus, Queue};
use tauri_plugin_jobs::random::RandomSource;
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};
use tauri_plugin_jobs::sync::testing::SyncHarness;
use tauri_plugin_jobs::sync::{
    SyncContext, SyncError, SyncPolicy, SyncResult, SyncSource, SyncTarget, Trigger, WAKE_SPREAD,
};
use tokio::sync::Semaphore;

const SEC: Duration = Duration::from_secs(1);
const TWO_HOURS: Duration = Duration::from_secs(7200);

/// A handler that counts its runs and holds each until `gate` lets it go: the test
/// closes `gate` (no permits), which lets through a run that has counted itself but
/// not yet come to wait.
fn held(runs: Arc<AtomicU32>, gate: Arc<Semaphore>) -> Handler {
    Handler::new("k", move |_: Value, _ctx: JobContext| {
        let (runs, gate) = (runs.clone(), gate.clone());
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let _ = gate.acquire().await;
            Ok(())
        }
    })
}

fn runner(queue: Queue, handler: Handler, id: &str) -> Runner {
    let settings = RunnerSettings::for_tests().worker_id(id);
    Runner::new(queue, vec![handler], settings).unwrap()
}

async fn until(what: &str, check: impl Fn() -> bool) {
    for _ in 0..10_000 {
        if check() {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("never: {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_running_when_the_lid_closed_runs_once_and_its_outcome_is_recorded() {
    let h = Harness::new();
    let (runs, gate) = (Arc::new(AtomicU32::new(0)), Arc::new(Semaphore::new(0)));
    let here = runner(h.queue.clone(), held(runs.clone(), gate.clone()), "here");
    let there = runner(h.second_queue(), held(runs.clone(), gate.clone()), "there");
    // Both processes have looked at the clock before the sleep.
    assert_eq!(there.dispatch().unwrap(), 0);
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    assert_eq!(here.dispatch().unwrap(), 1);
    until("the handler runs", || runs.load(Ordering::SeqCst) == 1).await;

    h.clock.suspend(TWO_HOURS);
    // The other process wakes first: the lease looks two hours expired, but its
    // holder gets a renewal period to renew.
    assert_eq!(
        there.dispatch().unwrap(),
        0,
        "no reclaim right after a wake"
    );
    here.maintain().unwrap();
    h.clock.advance(11 * SEC);
    assert_eq!(there.dispatch().unwrap(), 0, "renewed: still held");
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Running);
    assert_eq!(job.lease_owner.as_deref(), Some("here"));

    gate.close();
    here.drain().await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1, "it ran once");
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded);
    let moves: Vec<JobStatus> = h.take_events().iter().map(|c| c.to).collect();
    assert_eq!(
        moves,
        vec![JobStatus::Queued, JobStatus::Running, JobStatus::Succeeded]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_that_died_in_its_sleep_is_reclaimed_after_one_renewal_period() {
    let h = Harness::new();
    let (runs, gate) = (Arc::new(AtomicU32::new(0)), Arc::new(Semaphore::new(0)));
    let there = runner(h.second_queue(), held(runs.clone(), gate.clone()), "there");
    assert_eq!(there.dispatch().unwrap(), 0);
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    // A worker claims it with a 30 s lease, and is gone when the machine wakes.
    let claimed = h
        .queue
        .claim(&ClaimRequest::new("gone", ["k"]).lease(30 * SEC))
        .unwrap();
    assert_eq!(claimed.len(), 1);

    h.clock.suspend(TWO_HOURS);
    assert_eq!(there.dispatch().unwrap(), 0);
    h.clock.advance(9 * SEC);
    assert_eq!(
        there.dispatch().unwrap(),
        0,
        "inside the renewal period (10 s)"
    );
    h.clock.advance(2 * SEC);
    assert_eq!(
        there.dispatch().unwrap(),
        1,
        "nobody renewed: reclaimed and run"
    );
    until("the handler runs", || runs.load(Ordering::SeqCst) == 1).await;
    gate.close();
    there.drain().await.unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_limit_counts_awake_time_and_a_backoff_wall_time() {
    let h = Harness::new();
    let (runs, gate) = (Arc::new(AtomicU32::new(0)), Arc::new(Semaphore::new(0)));
    let limited = held(runs.clone(), gate.clone()).timeout(Duration::from_secs(60));
    let here = runner(h.queue.clone(), limited, "here");
    let id = h.queue.enqueue("k", &1, EnqueueOptions::new()).unwrap().id;
    assert_eq!(here.dispatch().unwrap(), 1);
    until("the handler runs", || runs.load(Ordering::SeqCst) == 1).await;
    // Two hours of wall clock, no awake time: a 60 s limit has not run out.
    h.clock.suspend(TWO_HOURS);
    here.maintain().unwrap();
    gate.close();
    here.drain().await.unwrap();
    assert_eq!(
        h.queue.get(id).unwrap().unwrap().status,
        JobStatus::Succeeded,
        "not timed out"
    );

    // A failed attempt waits out its backoff on the wall clock: the sleep counts.
    let id = h.queue.enqueue("k", &2, EnqueueOptions::new()).unwrap().id;
    let lease = h
        .queue
        .claim(&ClaimRequest::new("w", ["k"]).lease(30 * SEC))
        .unwrap()
        .remove(0)
        .lease;
    h.queue
        .fail(&lease, JobFailure::retryable("offline"))
        .unwrap();
    let waiting = h.queue.get(id).unwrap().unwrap();
    assert!(waiting.run_at > h.clock.now());
    h.clock.suspend(TWO_HOURS);
    let again = h
        .queue
        .claim(&ClaimRequest::new("w", ["k"]).lease(30 * SEC))
        .unwrap();
    assert_eq!(again.len(), 1, "runnable at once after the sleep");
}

#[test]
fn a_schedule_runs_once_for_the_slots_it_slept_through() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler
        .upsert(ScheduleSpec::every("tidy", "k", 60 * SEC))
        .unwrap();
    h.clock.suspend(TWO_HOURS);
    let ticked = scheduler.tick(h.clock.now()).unwrap();
    assert_eq!(ticked.len(), 1, "120 missed slots collapse into one run");
    let schedule = scheduler.get("tidy").unwrap().unwrap();
    assert!(schedule.next_run > h.clock.now());
}

/// Randomness that steps through a list, for spread-out starts.
#[derive(Debug)]
struct Steps(Mutex<Vec<f64>>);

impl RandomSource for Steps {
    fn unit(&self) -> f64 {
        let mut steps = self.0.lock().unwrap();
        let value = steps.remove(0);
        steps.push(value);
        value
    }
}

/// A source that notes, on tokio's (awake) clock, when each run started.
#[derive(Debug, Default)]
struct Timed(Mutex<Vec<tokio::time::Instant>>);

impl SyncSource for Timed {
    async fn sync(&self, _ctx: &SyncContext) -> Result<SyncResult, SyncError> {
        self.0.lock().unwrap().push(tokio::time::Instant::now());
        Ok(SyncResult::NotModified)
    }
}

#[tokio::test(start_paused = true)]
async fn targets_due_together_after_a_wake_start_spread_out() {
    let harness = SyncHarness::with_random(Steps(Mutex::new(vec![0.1, 0.5, 0.9, 0.3])));
    let source = Arc::new(Timed::default());
    for name in ["a", "b", "c", "d"] {
        harness
            .engine
            .register(
                SyncTarget::new("demo", "me", name),
                SyncPolicy::every(Duration::from_secs(600)),
                source.clone(),
            )
            .unwrap();
    }
    let started = tokio::time::Instant::now();
    harness.engine.trigger_all(Trigger::Wake).await;
    let starts: Vec<Duration> = source
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|at| at.duration_since(started))
        .collect();
    assert_eq!(starts.len(), 4);
    assert!(starts.iter().all(|at| *at < WAKE_SPREAD), "{starts:?}");
    let first = starts.iter().min().unwrap();
    let last = starts.iter().max().unwrap();
    assert!(
        *last - *first >= Duration::from_secs(3),
        "spread over the window: {starts:?}"
    );
    // A focus, with nothing slept, starts them at once.
    source.0.lock().unwrap().clear();
    harness.advance(Duration::from_secs(601));
    let started = tokio::time::Instant::now();
    harness.engine.trigger_all(Trigger::Focus).await;
    let starts = source.0.lock().unwrap().clone();
    assert!(starts.iter().all(|at| *at == started), "{starts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backlog_after_a_wake_starts_no_more_jobs_than_the_runner_has_slots() {
    let h = Harness::new();
    let (runs, gate) = (Arc::new(AtomicU32::new(0)), Arc::new(Semaphore::new(0)));
    let here = runner(h.queue.clone(), held(runs.clone(), gate.clone()), "here");
    for n in 0..50 {
        h.queue.enqueue("k", &n, EnqueueOptions::new()).unwrap();
    }
    h.clock.suspend(TWO_HOURS);
    assert_eq!(here.dispatch().unwrap(), 4, "the default four workers");
    assert_eq!(here.dispatch().unwrap(), 0);
    gate.close();
    drop(here);
}
