//! Process-local jobs benchmark: spawn-to-finish overhead and the cost of progress
//! calls that publish nothing. `cargo bench --bench local_jobs`.

use std::time::Instant;

use tauri_plugin_jobs::bus::EventBus;
use tauri_plugin_jobs::local::{BoxError, LocalJobs};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let jobs = LocalJobs::new(EventBus::new());
    let n = 20_000;
    let started = Instant::now();
    for _ in 0..n {
        let (_, result) =
            jobs.spawn_awaitable("empty", |_ctx| async move { Ok::<_, BoxError>(()) });
        result.wait().await.unwrap();
    }
    let per_job = started.elapsed() / n;
    println!(
        "{:<66} {:>16}",
        "spawn_awaitable + wait, empty job (us per job)",
        format!("{:.1}", per_job.as_secs_f64() * 1e6)
    );

    let calls = 1_000_000u64;
    let (_, result) = jobs.spawn_awaitable("progress", move |ctx| async move {
        // Every call after the first percent step publishes nothing.
        let started = Instant::now();
        for done in 0..calls {
            ctx.progress(done, Some(calls * 1000)).await;
        }
        Ok::<_, BoxError>(started.elapsed())
    });
    let elapsed = result.wait().await.unwrap();
    println!(
        "{:<66} {:>16}",
        "1,000,000 progress calls that publish nothing (ns per call)",
        format!("{:.1}", elapsed.as_nanos() as f64 / calls as f64)
    );
}
