//! Long work in steps on the fake clock: a step runs once for the whole job and later
//! attempts read it back; names are unique per attempt; outputs are bounded; a stale
//! attempt records nothing; a replaced payload drops its steps, a deleted job takes
//! them; durable sleeps hold no worker and end on time, across a restart too; a
//! job reads what the jobs it waited for returned.

use std::collections::HashMap;
use std::sync::Mutex;

use tauri_plugin_jobs::queue::{
    AttemptOutcome, ClaimRequest, DependencyFailure, HistoryRange, HistoryStep, Input, OnDuplicate,
    Queue,
};
use tauri_plugin_jobs::runner::StepError;

use super::*;

const HOUR: Duration = Duration::from_secs(3600);

/// How many times each step's body ran, by name.
#[derive(Clone, Default)]
struct Ran(Arc<Mutex<HashMap<String, u32>>>);

impl Ran {
    fn note(&self, name: &str) {
        *self.0.lock().unwrap().entry(name.to_owned()).or_default() += 1;
    }

    fn of(&self, name: &str) -> u32 {
        self.0.lock().unwrap().get(name).copied().unwrap_or(0)
    }
}

/// Download, convert, summarise; the summary (a paid call) fails on the job's first
/// attempt after it was made, as a crash after the call would.
fn episode(ran: &Ran) -> Handler {
    let ran = ran.clone();
    Handler::new("episode", move |url: String, ctx: JobContext| {
        let ran = ran.clone();
        async move {
            let file: String = ctx
                .step("download", || async {
                    ran.note("download");
                    Ok(format!("{url}.mp3"))
                })
                .await?;
            let text: String = ctx
                .step("convert", || async {
                    ran.note("convert");
                    Ok(format!("text of {file}"))
                })
                .await?;
            let summary: String = ctx
                .step("summarise", || async {
                    ran.note("summarise");
                    Ok(format!("summary of {text}"))
                })
                .await?;
            if ctx.attempt == 1 {
                return Err(JobError::retryable("the process died after the paid call"));
            }
            Ok(summary)
        }
    })
    .retry(RetryPolicy::new(SEC, SEC, 0.0).unwrap())
}

#[tokio::test]
async fn each_step_runs_once_for_the_whole_job_and_later_attempts_read_it_back() {
    let h = Harness::new();
    let ran = Ran::default();
    let runner = Runner::new(h.queue.clone(), vec![episode(&ran)], settings()).unwrap();
    let id = h
        .queue
        .enqueue("episode", &"ep1", EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Succeeded, 2));
    assert_eq!(job.result, Some(json!("summary of text of ep1.mp3")));
    for step in ["download", "convert", "summarise"] {
        assert_eq!(ran.of(step), 1, "{step} ran once");
    }
    let names: Vec<_> = job
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.attempt))
        .collect();
    assert_eq!(names, [("download", 1), ("convert", 1), ("summarise", 1)]);
    assert!(job.steps.iter().all(|s| s.sleep_until.is_none()));
    // A list carries no steps; the history counts the retry only.
    let listed = h
        .queue
        .list(&tauri_plugin_jobs::queue::JobFilter::default())
        .unwrap();
    assert!(listed[0].steps.is_empty());
}

#[tokio::test]
async fn a_name_used_twice_in_one_attempt_fails_the_job_naming_it() {
    let h = Harness::new();
    let twice = Handler::new("twice", |_: (), ctx: JobContext| async move {
        for _ in 0..2 {
            ctx.step("page", || async { Ok(1) }).await?;
        }
        Ok(())
    });
    let runner = Runner::new(h.queue.clone(), vec![twice], settings()).unwrap();
    let id = h
        .queue
        .enqueue("twice", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Failed, 1),
        "permanent"
    );
    let error = job.last_error.unwrap();
    assert!(
        error.contains("step \"page\" ran twice in one attempt"),
        "{error}"
    );
}

#[tokio::test]
async fn an_output_over_the_bound_is_refused_naming_the_step() {
    let h = Harness::new();
    let big = Handler::new("big", |_: (), ctx: JobContext| async move {
        ctx.step("blob", || async { Ok("x".repeat(2 << 20)) })
            .await?;
        Ok(())
    });
    let runner = Runner::new(h.queue.clone(), vec![big], settings()).unwrap();
    let id = h
        .queue
        .enqueue("big", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    let error = job.last_error.unwrap();
    assert!(
        error.contains("step \"blob\"") && error.contains("more than the limit"),
        "{error}"
    );
    assert!(job.steps.is_empty(), "nothing recorded");
    // The error the handler saw is typed.
    let typed = JobError::from(StepError::Duplicate { step: "x".into() });
    assert!(matches!(typed, JobError::Step(StepError::Duplicate { .. })));
}

#[test]
fn a_stale_attempt_cannot_record_a_step_and_the_new_attempts_count() {
    let h = Harness::new();
    let id = h
        .queue
        .enqueue("import", &"mailbox", EnqueueOptions::new())
        .unwrap()
        .id;
    let claim = |worker: &str| {
        let request = ClaimRequest::new(worker, ["import"]).lease(30 * SEC);
        h.queue.claim(&request).unwrap().remove(0).lease
    };
    let stale = claim("worker-a");
    h.queue
        .record_step(&stale, "list", &json!([1, 2]), h.clock.now())
        .unwrap();
    // The lease runs out; another worker claims the job.
    h.advance(31 * SEC);
    let fresh = claim("worker-b");
    assert_eq!(fresh.attempt, 2);
    let refused = h
        .queue
        .record_step(&stale, "fetch", &json!("old"), h.clock.now())
        .unwrap_err();
    assert!(
        matches!(refused, tauri_plugin_jobs::Error::LostLease { .. }),
        "{refused}"
    );
    // Nor can it overwrite what is recorded, nor can the new attempt: a name is
    // recorded once.
    let again = h
        .queue
        .record_step(&fresh, "list", &json!("other"), h.clock.now())
        .unwrap_err();
    assert!(again.to_string().contains("recorded already"), "{again}");
    h.queue
        .record_step(&fresh, "fetch", &json!("new"), h.clock.now())
        .unwrap();
    let outputs = h.queue.step_outputs(id).unwrap();
    assert_eq!(outputs["list"].output, json!([1, 2]));
    assert_eq!(outputs["fetch"].output, json!("new"));
    assert_eq!(outputs["fetch"].attempt, 2);
}

#[tokio::test]
async fn a_replaced_payload_drops_its_steps_and_a_deleted_job_takes_them() {
    let h = Harness::new();
    let ran = Ran::default();
    let runner = Runner::new(h.queue.clone(), vec![episode(&ran)], settings()).unwrap();
    let replace = |url: &str| {
        h.queue
            .enqueue(
                "episode",
                &url,
                EnqueueOptions::new()
                    .dedupe_key("episode")
                    .on_duplicate(OnDuplicate::Replace),
            )
            .unwrap()
            .id
    };
    let id = replace("ep1");
    runner.drain().await.unwrap(); // three steps, then the first attempt fails
    assert_eq!(h.queue.steps(id).unwrap().len(), 3);
    replace("ep1");
    assert_eq!(
        h.queue.steps(id).unwrap().len(),
        3,
        "the same payload keeps them"
    );
    replace("ep2");
    assert!(
        h.queue.steps(id).unwrap().is_empty(),
        "another payload's work"
    );
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.result, Some(json!("summary of text of ep2.mp3")));
    assert_eq!(ran.of("download"), 2, "once per payload");
    h.queue.delete(id).unwrap();
    assert!(h.queue.steps(id).unwrap().is_empty(), "gone with the job");

    // Retention takes them with the job too.
    let pruned = replace("ep3");
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    h.advance(2 * SEC);
    runner.drain().await.unwrap();
    assert_eq!(
        h.queue.get(pruned).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
    assert_eq!(h.queue.steps(pruned).unwrap().len(), 3);
    h.advance(8 * 24 * HOUR);
    assert_eq!(h.queue.prune(7 * 24 * HOUR).unwrap(), 1);
    assert!(
        h.queue.steps(pruned).unwrap().is_empty(),
        "pruned with the job"
    );
}

/// Welcome, a day's durable sleep, a reminder.
fn trial(ran: &Ran) -> Handler {
    let ran = ran.clone();
    Handler::new("trial", move |user: String, ctx: JobContext| {
        let ran = ran.clone();
        async move {
            ctx.step("welcome", || async {
                ran.note("welcome");
                Ok(())
            })
            .await?;
            ctx.sleep("a-day", 24 * HOUR).await?;
            ran.note("after the sleep");
            ctx.step("reminder", || async {
                ran.note("reminder");
                Ok(format!("reminded {user}"))
            })
            .await
        }
    })
}

#[tokio::test]
async fn a_durable_sleep_holds_no_worker_and_ends_on_time() {
    let h = Harness::new();
    let ran = Ran::default();
    let runner = Runner::new(h.queue.clone(), vec![trial(&ran)], settings()).unwrap();
    let id = h
        .queue
        .enqueue("trial", &"ada", EnqueueOptions::new())
        .unwrap()
        .id;
    let start = h.clock.now();
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    let end = start.saturating_add(24 * HOUR);
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Queued, 0),
        "not counted"
    );
    assert_eq!(job.sleeping_until, Some(end));
    assert_eq!(job.run_at, end);
    assert_eq!(job.steps.last().unwrap().sleep_until, Some(end));
    assert_eq!(runner.running(), 0, "no worker held");
    // A day less a second: nothing runs.
    h.advance(24 * HOUR - SEC);
    runner.drain().await.unwrap();
    assert_eq!(ran.of("after the sleep"), 0);
    h.advance(SEC);
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(
        (job.status, job.attempts),
        (JobStatus::Succeeded, 1),
        "{job:?}"
    );
    assert_eq!(job.result, Some(json!("reminded ada")));
    assert_eq!((ran.of("welcome"), ran.of("reminder")), (1, 1));
    assert_eq!(job.sleeping_until, None);
    let slept: Vec<_> = job.errors.iter().map(|e| (e.outcome, e.until)).collect();
    assert_eq!(slept, [(AttemptOutcome::Slept, Some(end))]);
    let history = h
        .queue
        .history(
            "trial",
            HistoryRange::new(start, h.clock.now().saturating_add(HOUR), HistoryStep::Hour),
        )
        .unwrap();
    let sum = |f: fn(&tauri_plugin_jobs::queue::HistoryPoint) -> u64| -> u64 {
        history.iter().map(f).sum()
    };
    assert_eq!(
        (sum(|p| p.slept), sum(|p| p.retries), sum(|p| p.succeeded)),
        (1, 0, 1)
    );
}

#[tokio::test]
async fn a_sleep_goes_on_across_a_restart_and_a_wall_clock_sleep_waits_for_nine() {
    let h = Harness::new();
    let ran = Ran::default();
    let id = h
        .queue
        .enqueue("trial", &"grace", EnqueueOptions::new())
        .unwrap()
        .id;
    {
        let runner = Runner::new(h.queue.clone(), vec![trial(&ran)], settings()).unwrap();
        runner.drain().await.unwrap();
    }
    // The app restarts half way through the sleep: another handle on the file.
    h.advance(12 * HOUR);
    let reopened = h.second_queue();
    let runner = Runner::new(reopened.clone(), vec![trial(&ran)], settings()).unwrap();
    runner.drain().await.unwrap();
    assert_eq!(ran.of("after the sleep"), 0);
    h.advance(12 * HOUR);
    runner.drain().await.unwrap();
    assert_eq!(
        reopened.get(id).unwrap().unwrap().status,
        JobStatus::Succeeded
    );
    assert_eq!(ran.of("welcome"), 1);

    // "Tomorrow at 9", in UTC: the clock starts at 08:00 UTC, so 09:00 today.
    let nine = Handler::new("digest", |_: (), ctx: JobContext| async move {
        ctx.sleep_until_next("nine", "0 9 * * *", "UTC").await?;
        Ok(ctx.now())
    });
    let h = Harness::new();
    let runner = Runner::new(h.queue.clone(), vec![nine], settings()).unwrap();
    let id = h
        .queue
        .enqueue("digest", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    let until = job.sleeping_until.expect("sleeping");
    assert_eq!(
        until.as_millis() % (24 * 3_600_000),
        9 * 3_600_000,
        "09:00 UTC"
    );
    assert!(until > h.clock.now() && until.duration_since(h.clock.now()) <= 24 * HOUR);
}

#[tokio::test]
async fn a_job_reads_what_the_jobs_it_waited_for_returned_in_the_order_given() {
    let h = Harness::new();
    let size = Handler::new("size", |n: u64, _ctx: JobContext| async move {
        if n == 0 {
            return Err(JobError::permanent("empty"));
        }
        Ok(n * 10)
    });
    let total = Handler::new("total", |_: (), ctx: JobContext| async move {
        let inputs: Vec<Input<u64>> = ctx.inputs()?;
        Ok(inputs
            .iter()
            .map(|input| match input {
                Input::Succeeded { result, .. } => result.to_string(),
                Input::Failed { error, .. } => {
                    format!("failed ({})", error.clone().unwrap_or_default())
                }
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join(", "))
    });
    let runner = Runner::new(h.queue.clone(), vec![size, total], settings()).unwrap();
    let ids: Vec<_> = [3u64, 0, 1]
        .into_iter()
        .map(|n| {
            h.queue
                .enqueue("size", &n, EnqueueOptions::new())
                .unwrap()
                .id
        })
        .collect();
    // Waits for them in this order (not the ids'), and runs though one fails.
    let order = [ids[2], ids[0], ids[1]];
    let after = EnqueueOptions::new()
        .after(order)
        .on_dependency_failure(DependencyFailure::Run);
    let sum = h.queue.enqueue("total", &(), after).unwrap().id;
    runner.drain().await.unwrap();
    runner.drain().await.unwrap();
    let job = h.queue.get(sum).unwrap().unwrap();
    assert_eq!(job.result, Some(json!("10, 30, failed (empty)")));
    // One by id, from outside a handler too.
    assert_eq!(
        h.queue.input(ids[0]).unwrap(),
        Input::Succeeded {
            id: ids[0],
            result: json!(30)
        }
    );
    assert_eq!(
        h.queue
            .input(tauri_plugin_jobs::queue::JobId::from(999))
            .unwrap(),
        Input::Missing {
            id: tauri_plugin_jobs::queue::JobId::from(999)
        }
    );
    assert_eq!(h.queue.inputs(ids[0]).unwrap(), None, "waited for none");
}

#[tokio::test]
async fn a_step_the_new_build_no_longer_asks_for_is_ignored() {
    let h = Harness::new();
    // The old build: "fetch" then "parse"; its first attempt fails after both.
    let old = Handler::new("import", |_: (), ctx: JobContext| async move {
        ctx.step("fetch", || async { Ok("raw".to_owned()) }).await?;
        ctx.step("parse", || async { Ok(7u32) }).await?;
        Err::<(), _>(JobError::retryable("quit before the end"))
    })
    .retry(RetryPolicy::new(SEC, SEC, 0.0).unwrap());
    let id = h
        .queue
        .enqueue("import", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    {
        let runner = Runner::new(h.queue.clone(), vec![old], settings()).unwrap();
        runner.drain().await.unwrap();
    }
    // The update renamed "parse" to "parse-v2" (its output changed type) and kept
    // "fetch": the old record of "fetch" is read back, "parse" is ignored.
    let parsed = Arc::new(AtomicU32::new(0));
    let counted = parsed.clone();
    let new = Handler::new("import", move |_: (), ctx: JobContext| {
        let counted = counted.clone();
        async move {
            let raw: String = ctx
                .step("fetch", || async { Ok("fetched again".to_owned()) })
                .await?;
            let words: Vec<String> = ctx
                .step("parse-v2", || async {
                    counted.fetch_add(1, Ordering::SeqCst);
                    Ok(vec![raw.clone()])
                })
                .await?;
            Ok(words)
        }
    });
    h.advance(2 * SEC);
    let runner = Runner::new(h.queue.clone(), vec![new], settings()).unwrap();
    runner.drain().await.unwrap();
    let job = h.queue.get(id).unwrap().unwrap();
    assert_eq!(job.result, Some(json!(["raw"])), "{job:?}");
    assert_eq!(parsed.load(Ordering::SeqCst), 1);
    let names: Vec<_> = job.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["fetch", "parse", "parse-v2"]);
}

#[test]
fn a_queue_handle_reads_every_step_of_a_job() {
    let h = Harness::new();
    let other: Queue = h.second_queue();
    assert!(other
        .steps(tauri_plugin_jobs::queue::JobId::from(1))
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_fan_in_over_ten_thousand_pieces_reads_them_all_in_one_call() {
    use tauri_plugin_jobs::queue::NewJob;
    let h = Harness::new();
    let piece = Handler::new("piece", |n: u32, _ctx: JobContext| async move { Ok(n) });
    let sum = Handler::new("sum", |_: (), ctx: JobContext| async move {
        let inputs: Vec<Input<u32>> = ctx.inputs()?;
        let count = inputs.len();
        let in_order = inputs.windows(2).all(|w| w[0].id() < w[1].id());
        let total: u64 = inputs
            .into_iter()
            .filter_map(Input::ok)
            .map(u64::from)
            .sum();
        Ok(json!({ "count": count, "total": total, "inOrder": in_order }))
    });
    let parent = Handler::new("parent", |_: (), _ctx: JobContext| async move { Ok(()) });
    let runner = Runner::new(h.queue.clone(), vec![piece, sum, parent], settings()).unwrap();
    let parent = h
        .queue
        .enqueue("parent", &(), EnqueueOptions::new())
        .unwrap()
        .id;
    h.queue
        .enqueue_batch(
            (0..10_000u32).map(|n| {
                NewJob::new("piece", json!(n)).options(EnqueueOptions::new().parent(parent))
            }),
        )
        .unwrap();
    let then = EnqueueOptions::new().parent(parent).after_pieces_of(parent);
    let sum = h.queue.enqueue("sum", &(), then).unwrap().id;
    for _ in 0..10_000 {
        runner.drain().await.unwrap();
        if h.queue.get(sum).unwrap().unwrap().status == JobStatus::Succeeded {
            break;
        }
    }
    let job = h.queue.get(sum).unwrap().unwrap();
    assert_eq!(
        job.result,
        Some(json!({ "count": 10_000, "total": 49_995_000u64, "inOrder": true }))
    );
}
