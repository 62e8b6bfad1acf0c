//! What every comparison binary shares: the command line, bounded waits with a
//! watchdog, the figures (rates, medians, percentiles) and the `ROW` lines the suite
//! reads. Each binary includes this file with `#[path = "../../harness.rs"]` (or
//! `"../harness.rs"`), so the peers, built as crates of their own with lockfiles of
//! their own, measure and report alike.

use std::error::Error as StdError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub type BoxError = Box<dyn StdError + Send + Sync>;
pub type Res<T> = Result<T, BoxError>;

// ---------------------------------------------------------------------------
// Bounded waits and a watchdog

static PROCESS_START: OnceLock<Instant> = OnceLock::new();
/// Milliseconds since the start when the wait in progress began or last saw
/// progress; 0 when no wait is in progress.
pub static WAIT_STARTED_MS: AtomicU64 = AtomicU64::new(0);
static WAIT_LIMIT_MS: AtomicU64 = AtomicU64::new(120_000);

pub fn since_start_ms() -> u64 {
    PROCESS_START
        .get_or_init(Instant::now)
        .elapsed()
        .as_millis() as u64
        + 1
}

pub fn wait_limit() -> Duration {
    Duration::from_millis(WAIT_LIMIT_MS.load(Ordering::Relaxed))
}

pub fn set_wait_limit(limit: Duration) {
    WAIT_LIMIT_MS.store(limit.as_millis() as u64, Ordering::Relaxed);
}

/// Ends the process (exit code 2) if one wait runs more than 10 s past the limit,
/// e.g. because a runtime thread is blocked and a tokio timeout can no longer fire.
pub fn start_watchdog(binary: &'static str) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(500));
        let started = WAIT_STARTED_MS.load(Ordering::Relaxed);
        if started == 0 {
            continue;
        }
        let limit = WAIT_LIMIT_MS.load(Ordering::Relaxed);
        if since_start_ms().saturating_sub(started) > limit + 10_000 {
            eprintln!(
                "{binary}: watchdog: a wait has been running for more than {} s; giving up",
                limit / 1000 + 10
            );
            std::process::exit(2);
        }
    });
}

/// Awaits `fut` for at most the wait limit, failing with a message naming `what`.
/// Nested inside a longer wait, it hands the watchdog back to that wait afterwards.
pub async fn bounded<T>(what: &str, fut: impl std::future::Future<Output = T>) -> Res<T> {
    let outer = WAIT_STARTED_MS.swap(since_start_ms(), Ordering::Relaxed);
    let limit = wait_limit();
    let out = tokio::time::timeout(limit, fut).await;
    WAIT_STARTED_MS.store(outer, Ordering::Relaxed);
    out.map_err(|_| format!("timed out after {} s waiting for {what}", limit.as_secs()).into())
}

// ---------------------------------------------------------------------------
// Figures

pub fn rate(n: usize, elapsed: Duration) -> f64 {
    n as f64 / elapsed.as_secs_f64()
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A run longer than this is not repeated: at that length one run is steady, and
/// the suite stays within its time.
pub const LONG_RUN: Duration = Duration::from_secs(60);

/// Runs `f` `repeat` times (once if a run takes longer than `LONG_RUN`) and returns
/// the median, logging each run on stderr.
pub fn median_of(label: &str, repeat: usize, mut f: impl FnMut() -> Res<f64>) -> Res<f64> {
    let mut values = Vec::with_capacity(repeat);
    for i in 0..repeat {
        let started = Instant::now();
        let v = f().map_err(|e| format!("{label}: {e}"))?;
        let took = started.elapsed();
        eprintln!(
            "  {label}: run {}/{repeat}: {v:.0} ({:.1} s)",
            i + 1,
            took.as_secs_f64()
        );
        values.push(v);
        if took > LONG_RUN && i + 1 < repeat {
            eprintln!(
                "  {label}: a run took over {} s; not repeated",
                LONG_RUN.as_secs()
            );
            break;
        }
    }
    Ok(median(values))
}

/// One result line for the suite.
pub fn row(scenario: &str, value: &str) {
    println!("ROW\t{scenario}\t{value}");
}

// ---------------------------------------------------------------------------
// The command line

pub struct Args {
    /// The main size (`--jobs`, 20000).
    pub jobs: usize,
    /// The second size (`--small`, 2000), to show how the cost grows with the table.
    pub small: usize,
    pub repeat: usize,
    pub timeout_secs: u64,
    /// Extra rows on a file switched to WAL before the library opens it.
    pub wal_preset: bool,
    /// Sweep settings instead of printing rows.
    pub tune: bool,
}

pub const USAGE: &str = "[--jobs N (20000)] [--small N (2000)] [--repeat R (3)] \
                         [--timeout-secs S (120)] [--wal-preset] [--tune]";

pub fn parse_args(binary: &str, args: &[String]) -> Res<Args> {
    let mut out = Args {
        jobs: 20_000,
        small: 2_000,
        repeat: 3,
        timeout_secs: 120,
        wal_preset: false,
        tune: false,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| -> Res<u64> {
            let v = it.next().ok_or(format!("{name} needs a value"))?;
            v.parse::<u64>()
                .map_err(|_| format!("{name}: not a number: {v}").into())
        };
        match arg.as_str() {
            "--jobs" => out.jobs = value("--jobs")? as usize,
            "--small" => out.small = value("--small")? as usize,
            "--repeat" => out.repeat = value("--repeat")? as usize,
            "--timeout-secs" => out.timeout_secs = value("--timeout-secs")?,
            "--wal-preset" => out.wal_preset = true,
            "--tune" => out.tune = true,
            "-h" | "--help" => {
                eprintln!("usage: {binary} {USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument: {other}").into()),
        }
    }
    if out.jobs == 0 || out.small == 0 || out.repeat == 0 || out.timeout_secs == 0 {
        return Err("--jobs, --small, --repeat and --timeout-secs must be positive".into());
    }
    set_wait_limit(Duration::from_secs(out.timeout_secs));
    Ok(out)
}

/// The whole of `main` but for the binary's own `run`: parses the arguments, starts
/// the watchdog, reports an error on stderr with exit code 1.
pub fn main_with(binary: &'static str, run: impl FnOnce(Args) -> Res<()>) {
    PROCESS_START.get_or_init(Instant::now);
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = parse_args(binary, &args).and_then(|args| {
        start_watchdog(binary);
        run(args)
    });
    if let Err(e) = result {
        eprintln!("{binary}: error: {e}");
        std::process::exit(1);
    }
    eprintln!("{binary}: done in {:.1} s", started.elapsed().as_secs_f64());
}
