//! Kill -9 during each step of a five-step handler in turn, each time in a new
//! process on the same file: each recorded step's side effect happens once over all
//! attempts, the interrupted step's at most twice, and the result is an uninterrupted
//! run's. A recorded step is progress: five workers dead in a row do not fail the job
//! (`max_lease_expiries`, 3 by default, counts those that died without one).

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};

use super::{Reaper, CHILD_DB, CHILD_LOG};

/// The step a child blocks in (0: none), for the parent to kill it there.
const BLOCK_IN: &str = "TAURI_PLUGIN_JOBS_CRASH_BLOCK_IN";
const STEPS: u32 = 5;

fn spawn_steps_child(path: &std::path::Path, block_in: u32) -> Reaper {
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "steps::steps_child",
            "--exact",
            "--ignored",
            "--test-threads=1",
        ])
        .env(CHILD_DB, path)
        .env(CHILD_LOG, path.with_extension("steps"))
        .env(BLOCK_IN, block_in.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    Reaper(Some(child))
}

fn log_lines(path: &std::path::Path) -> Vec<String> {
    match std::fs::File::open(path.with_extension("steps")) {
        Ok(file) => std::io::BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn kill_9_in_each_step_runs_each_recorded_step_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let id = queue
        .enqueue("five-steps", &json!("episode"), EnqueueOptions::new())
        .unwrap()
        .id;
    let deadline = Instant::now() + Duration::from_secs(120);
    for step in 1..=STEPS {
        let mut child = spawn_steps_child(&path, step);
        // Bounded: the child says it is in the step, or the test ends.
        let blocked = format!("blocked {step}");
        while !log_lines(&path).contains(&blocked) {
            assert!(
                Instant::now() < deadline,
                "the child never reached step {step}"
            );
            let process = child.0.as_mut().unwrap();
            assert!(
                process.try_wait().unwrap().is_none(),
                "the child ended before step {step}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let process = child.0.as_mut().unwrap();
        process.kill().unwrap(); // SIGKILL, in the middle of the step
        process.wait().unwrap();
    }
    // The last process runs it to the end.
    let mut child = spawn_steps_child(&path, 0);
    let process = child.0.as_mut().unwrap();
    while process.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the last child did not finish");
        std::thread::sleep(Duration::from_millis(20));
    }
    let job = queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded, "{job:?}");
    // What an uninterrupted run returns: the sum of every step's output.
    assert_eq!(job.result, Some(json!(150)));
    let lines = log_lines(&path);
    for step in 1..=STEPS {
        let count = |what: &str| {
            lines
                .iter()
                .filter(|l| **l == format!("{what} {step}"))
                .count()
        };
        assert_eq!(
            count("done"),
            1,
            "step {step}'s effect happened once: {lines:?}"
        );
        assert_eq!(
            count("start"),
            2,
            "step {step} was cut short once, then ran again"
        );
    }
    // One attempt per process; the five its workers died in count no failure.
    assert_eq!(job.attempts, STEPS + 1);
    assert_eq!(job.steps.len(), STEPS as usize);
    for (n, step) in job.steps.iter().enumerate() {
        assert_eq!(
            step.attempt,
            n as u32 + 2,
            "step {} recorded by the next process",
            n + 1
        );
    }
}

/// The child side: a runner whose handler runs five steps, blocking for good in the
/// step `BLOCK_IN` names (its parent kills it there).
#[test]
#[ignore = "started by kill_9_in_each_step_runs_each_recorded_step_once"]
fn steps_child() {
    let path = std::env::var(CHILD_DB).expect("started by the parent test");
    let log = std::env::var(CHILD_LOG).unwrap();
    let block_in: u32 = std::env::var(BLOCK_IN).unwrap().parse().unwrap();
    let note = move |line: String| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&log)
            .unwrap();
        // One write of a whole line: appends of it are never interleaved.
        file.write_all(format!("{line}\n").as_bytes()).unwrap();
    };
    let note = std::sync::Arc::new(note);
    let note_for_signal = note.clone();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let queue = Queue::open(&path, QueueOptions::new()).unwrap();
        let handler = Handler::new("five-steps", move |_: String, ctx: JobContext| {
            let note = note.clone();
            async move {
                let mut sum = 0u32;
                for step in 1..=STEPS {
                    let note = note.clone();
                    sum += ctx
                        .step(format!("step-{step}"), || async move {
                            note(format!("start {step}"));
                            if step == block_in {
                                note(format!("blocked {step}"));
                                std::future::pending::<()>().await;
                            }
                            note(format!("done {step}"));
                            Ok(step * 10)
                        })
                        .await?;
                }
                Ok(sum)
            }
        });
        // Step 1, a wait for "approved" (the job's second kind), step 2.
        let note2 = note_for_signal.clone();
        let signalled = Handler::new("approve-then-send", move |_: String, ctx: JobContext| {
            let note = note2.clone();
            async move {
                let first = note.clone();
                ctx.step("step-1", || async move {
                    first("start 1".into());
                    first("done 1".into());
                    Ok(())
                })
                .await?;
                note("waiting".into());
                let answer: Option<String> = ctx
                    .wait_for_signal("approved", Duration::from_secs(86_400))
                    .await?;
                let answer = answer.unwrap_or_default();
                let second = note.clone();
                ctx.step("step-2", || async move {
                    second("start 2".into());
                    if block_in == 2 {
                        second("blocked 2".into());
                        std::future::pending::<()>().await;
                    }
                    second("done 2".into());
                    Ok(format!("sent after {answer}"))
                })
                .await
            }
        })
        .signal("approved");
        let runner = Runner::new(
            queue.clone(),
            vec![handler, signalled],
            RunnerSettings::for_tests(),
        )
        .unwrap();
        runner.start();
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            if super::unfinished(&queue) == 0 {
                break;
            }
        }
        runner.stop(Duration::from_secs(1)).await.unwrap();
    });
}

/// The same with a wait for a signal between two steps: killed while it waits (no
/// process holds it then), killed in the step after the signal came; the step before
/// runs once, the payload read is the one sent, the step after runs once.
#[test]
fn kill_9_around_a_wait_for_a_signal_loses_nothing_and_runs_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raw.db");
    let queue = Queue::open(&path, QueueOptions::new()).unwrap();
    let id = queue
        .enqueue("approve-then-send", &json!("report"), EnqueueOptions::new())
        .unwrap()
        .id;
    let deadline = Instant::now() + Duration::from_secs(120);
    let wait_for_line = |child: &mut Reaper, line: &str| {
        while !log_lines(&path).iter().any(|l| l == line) {
            assert!(Instant::now() < deadline, "the child never logged {line:?}");
            let process = child.0.as_mut().unwrap();
            assert!(
                process.try_wait().unwrap().is_none(),
                "the child ended before {line:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    // A child runs the step before and begins to wait; killed while the job waits.
    let mut child = spawn_steps_child(&path, 0);
    wait_for_line(&mut child, "waiting");
    // The child logs before it waits: the wait is written a moment later.
    while queue.get(id).unwrap().unwrap().awaits_signal.is_none() {
        assert!(Instant::now() < deadline, "the job never began to wait");
        std::thread::sleep(Duration::from_millis(10));
    }
    let process = child.0.as_mut().unwrap();
    process.kill().unwrap();
    process.wait().unwrap();
    // The answer comes while no process runs; a child blocks in the step after it.
    queue.signal(id, "approved", &json!("yes")).unwrap();
    let mut child = spawn_steps_child(&path, 2);
    wait_for_line(&mut child, "blocked 2");
    let process = child.0.as_mut().unwrap();
    process.kill().unwrap();
    process.wait().unwrap();
    // The last child ends it.
    let mut child = spawn_steps_child(&path, 0);
    let process = child.0.as_mut().unwrap();
    while process.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the last child did not finish");
        std::thread::sleep(Duration::from_millis(20));
    }
    let job = queue.get(id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Succeeded, "{job:?}");
    assert_eq!(job.result, Some(json!("sent after yes")));
    let lines = log_lines(&path);
    let count = |what: &str| lines.iter().filter(|l| *l == what).count();
    assert_eq!(
        count("done 1"),
        1,
        "the step before the wait ran once: {lines:?}"
    );
    assert_eq!(count("done 2"), 1, "the step after it ran once");
    assert_eq!(count("start 2"), 2, "cut short once, then again");
}
