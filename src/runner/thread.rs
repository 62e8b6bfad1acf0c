//! The runner's own thread: the loop that writes outcomes, keeps leases and claims in
//! rounds, sleeping between them until something can change; and the graceful stop.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use tokio::runtime::Handle;

use super::{Ended, Interrupt, Runner, Signal};
use crate::db::Db;
use crate::error::Result;
use crate::locks::lock;
use crate::model::JobId;
use crate::queue::LEASE_SWEEP_INTERVAL;

/// After a write to the file's log that showed no other connection's commit, when to
/// look again: SQLite appends a commit's frames to the log before it publishes the
/// commit in the shared index, so the first look can come a little early. Each is
/// one `PRAGMA data_version`, no transaction.
const WRITE_RECHECKS: [Duration; 2] = [Duration::from_millis(2), Duration::from_millis(20)];

/// How long the runner must have been idle (no attempt started or ended) before it
/// watches the file's log. While busy it looks at the queue after every batch anyway,
/// and a watch would wake on each of its own commits.
pub const WATCH_AFTER_IDLE: Duration = Duration::from_millis(20);

/// What the runner's thread knows of other processes' writes.
struct Others {
    // SQLite's data_version as last seen: it moves only for other connections' commits.
    version: Option<i64>,
    rechecks: std::slice::Iter<'static, Duration>,
    recheck_at: Option<Instant>,
    // Whether this runner holds a want on the log watch.
    watching: bool,
    busy_at: Option<Instant>,
}

impl Others {
    fn new(version: Option<i64>) -> Self {
        Others {
            version,
            rechecks: WRITE_RECHECKS.iter(),
            recheck_at: None,
            watching: false,
            busy_at: None,
        }
    }

    /// A round did work: no watch needed until it has been quiet a while.
    fn busy(&mut self, db: &Db) {
        self.busy_at = Some(Instant::now());
        if std::mem::take(&mut self.watching) {
            db.want_writes(false);
        }
    }

    /// Turns the watch on once the runner has been idle long enough; returns whether
    /// it just did (the caller then looks for commits made while it was off).
    fn watch_if_quiet(&mut self, db: &Db) -> bool {
        if self.watching
            || self
                .busy_at
                .is_some_and(|at| at.elapsed() < WATCH_AFTER_IDLE)
        {
            return false;
        }
        self.watching = true;
        db.want_writes(true);
        true
    }

    /// The next moment the thread must look: a recheck, or the end of a busy spell.
    fn deadline(&self) -> Option<Instant> {
        let quiet = (!self.watching)
            .then(|| self.busy_at.map(|at| at + WATCH_AFTER_IDLE))
            .flatten();
        match (self.recheck_at, quiet) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The wait ended with no signal: a due recheck looks at `data_version` only;
    /// anything else (the poll, a lease renewal, a due job) asks for a round.
    fn timed_out(&mut self, db: &Db) -> bool {
        match self.recheck_at {
            Some(at) if at <= Instant::now() => self.committed(db),
            _ => true,
        }
    }

    /// The log was written: whether another connection committed (then a round).
    fn written(&mut self, db: &Db) -> bool {
        self.rechecks = WRITE_RECHECKS.iter();
        self.committed(db)
    }

    /// Whether another connection committed since the last look. When not, after a
    /// write, that commit may not be visible yet: the next recheck is set.
    fn committed(&mut self, db: &Db) -> bool {
        let now = db.data_version().ok();
        if now.is_none() || now != self.version {
            self.version = now;
            self.recheck_at = None;
            return true;
        }
        self.recheck_at = self.rechecks.next().map(|delay| Instant::now() + *delay);
        false
    }

    /// The loop ends: give the want back.
    fn release(&mut self, db: &Db) {
        if std::mem::take(&mut self.watching) {
            db.want_writes(false);
        }
    }
}

/// When the thread's next timed round is due: the poll interval, a lease renewal, a
/// lease of any process running out or its sweep, a job falling due. Worked out once
/// after each round, when the thread first has to wait, and kept until the next round,
/// so that wake-ups which bring no round (writes to the log that show no other
/// connection's commit, as a stream of them can be) never postpone it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Due {
    /// Not worked out yet since the last round, which ended at `ended` and found
    /// every slot busy (`saturated`) or failed.
    After {
        ended: Instant,
        saturated: bool,
        failed: bool,
    },
    At(Instant),
}

impl Due {
    /// After a round that ended now.
    fn after(saturated: bool, failed: bool) -> Self {
        Due::After {
            ended: Instant::now(),
            saturated,
            failed,
        }
    }

    /// The deadline, worked out the first time from `wait` (how long after the
    /// round; counted from its end, so a late look only brings it earlier).
    fn at(&mut self, wait: impl FnOnce(bool, bool) -> Duration) -> Instant {
        match *self {
            Due::At(at) => at,
            Due::After {
                ended,
                saturated,
                failed,
            } => {
                let at = ended + wait(saturated, failed);
                *self = Due::At(at);
                at
            }
        }
    }
}

impl Runner {
    /// Starts the runner's thread; handlers run on the current tokio runtime.
    /// Calling it again, or after [`stop`](Runner::stop), does nothing.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub fn start(&self) {
        let mut thread = lock(&self.inner.thread);
        if thread.is_some() || self.inner.stopping.is_cancelled() {
            return;
        }
        *lock(&self.inner.runtime) = Some(Handle::current());
        let runner = self.clone();
        let spawned = std::thread::Builder::new()
            .name("jobs-runner".into())
            .spawn(move || runner.run_loop());
        match spawned {
            Ok(handle) => *thread = Some(handle),
            Err(error) => tracing::error!(%error, "could not start the runner thread"),
        }
    }

    /// Whether [`start`](Runner::start) started the thread.
    #[cfg(test)]
    pub(crate) fn is_started(&self) -> bool {
        lock(&self.inner.thread).is_some()
    }

    pub(super) fn run_loop(&self) {
        let db = self.inner.queue.db().clone();
        let mut others = Others::new(db.data_version().ok());
        let mut batch = Vec::new();
        let mut claim = true;
        let mut due = Due::after(false, false);
        // How long after a round the next timed one comes (a query, made once per
        // round, and only when the thread has to wait or skipped a round).
        let wait = |saturated: bool, failed: bool| {
            if failed {
                self.inner.settings.poll_interval
            } else {
                self.next_wait(saturated)
            }
        };
        loop {
            if claim {
                // After a failed round (a full disk, a file locked past the busy
                // deadline), the next one waits for the poll interval or a signal,
                // never less.
                due = match self.round(std::mem::take(&mut batch)) {
                    Ok((saturated, worked)) => {
                        if worked {
                            others.busy(&db);
                        }
                        Due::after(saturated, false)
                    }
                    Err(error) => {
                        tracing::warn!(%error, "runner round failed; trying again after the poll interval");
                        Due::after(false, true)
                    }
                };
            }
            let inbox = lock(&self.inner.inbox);
            // Outcomes of handlers that returned in their first poll: the next round
            // writes them at once.
            let ready = std::mem::take(&mut *lock(&self.inner.ready));
            let nothing_ready = ready.is_empty();
            batch.extend(ready);
            // Work already waiting (a handler that finished meanwhile) needs no wait,
            // nor the query that works out how long to wait.
            let first = if nothing_ready {
                match inbox.try_recv() {
                    Ok(signal) => Some(signal),
                    Err(TryRecvError::Disconnected) => return others.release(&db),
                    Err(TryRecvError::Empty) => {
                        // Quiet for a while: watch the log, after a look for what other
                        // processes committed while it was off.
                        if others.watch_if_quiet(&db) && others.committed(&db) {
                            claim = true;
                            continue;
                        }
                        let at = due.at(wait);
                        let until = others.deadline().map_or(at, |recheck| recheck.min(at));
                        match inbox.recv_timeout(until.saturating_duration_since(Instant::now())) {
                            Ok(signal) => Some(signal),
                            Err(RecvTimeoutError::Timeout) => {
                                // A recheck that finds no commit is no round, unless the
                                // round's own time has come meanwhile.
                                claim = others.timed_out(&db) || Instant::now() >= at;
                                continue;
                            }
                            Err(RecvTimeoutError::Disconnected) => return others.release(&db),
                        }
                    }
                }
            } else {
                None
            };
            // Take everything that is waiting: several outcomes make one transaction.
            let mut stop = false;
            let mut only_written = nothing_ready;
            for signal in first.into_iter().chain(inbox.try_iter()) {
                only_written &= matches!(signal, Signal::Written);
                stop |= self.sort(signal, &mut batch);
            }
            if stop {
                drop(inbox);
                if let Err(error) = self.settle(batch, false) {
                    tracing::warn!(%error, "could not record finished jobs at stop");
                }
                return others.release(&db);
            }
            // A write to the log alone: this process's own (nothing to do) or another's.
            // Without another's commit the round's deadline stays where it was: the
            // wake-up may bring a round earlier, never push the timed one later.
            claim = !only_written || others.written(&db) || due.at(wait) <= Instant::now();
        }
    }

    /// Acts on one signal from the inbox: an outcome joins `batch`, a cancel interrupts
    /// its handler at once, a wake-up is taken. Returns whether it asks to stop.
    pub(super) fn sort(&self, signal: Signal, batch: &mut Vec<Ended>) -> bool {
        match signal {
            Signal::Done(lease, outcome) => batch.push(Ended::done(lease, outcome)),
            // Release: pairs with the subscriber's swap (see `Runner::new`).
            Signal::Wake => self.inner.wake_pending.store(false, Ordering::Release),
            Signal::Written => self.inner.written_pending.store(false, Ordering::Release),
            Signal::Cancel(id) => self.interrupt(id, Interrupt::Cancel),
            Signal::Stop => return true,
        }
        false
    }

    /// One round of the loop: lease upkeep, then the finished attempts written and
    /// the freed slots refilled in one transaction. Returns whether every slot is busy,
    /// and whether any attempt ended or started.
    fn round(&self, batch: Vec<Ended>) -> Result<(bool, bool)> {
        #[cfg(test)]
        self.inner.rounds.fetch_add(1, Ordering::Relaxed);
        self.maintain()?;
        let (ended, started) = self.settle(batch, true)?;
        Ok((
            self.running() >= self.inner.settings.workers as usize,
            ended + started > 0,
        ))
    }

    /// How long the thread may sleep: until the poll interval, the next lease
    /// renewal, the earliest lease of any process running out, or (when a slot is
    /// free) the next run time of a job it could claim.
    fn next_wait(&self, saturated: bool) -> Duration {
        let now = self.now();
        let mut wait = self.inner.settings.poll_interval;
        for job in lock(&self.inner.running).values() {
            let renew_at = job.renewed_at.saturating_add(job.lease.length() / 3);
            wait = wait.min(renew_at.duration_since(now));
            if let Some(store_at) = job.progress.store_due_at() {
                wait = wait.min(store_at.duration_since(now));
            }
        }
        if !saturated {
            // Only jobs that could be claimed count: a backlog held back by a full cap
            // (here or in another process) or a paused kind is no reason to wake. What
            // frees it wakes the thread on its own: a handler returning, an enqueue, a
            // cap or pause changed in this process; another process's write, through
            // the watch on the file's log (or at the poll interval without one).
            if let Ok(Some(at)) = self.inner.queue.next_claimable_at(&self.inner.request) {
                wait = wait.min(at.duration_since(now));
            }
        }
        // A lease running out (another process's worker died or froze: its job must
        // be reclaimed whatever else happens in the file); a live one renews first.
        // Just past the expiry, as the sweep takes leases that ran out by then; one
        // that ran out already waits for this handle's next sweep (at most one a
        // `LEASE_SWEEP_INTERVAL`), or a whole interval when the sweep was due and this
        // round did not claim (every slot busy): never a spin.
        if let Ok(Some(at)) = self.inner.queue.next_lease_expiry() {
            let until = if at < now {
                let sweep = self.inner.queue.next_sweep_at();
                if sweep > now {
                    sweep.duration_since(now)
                } else {
                    LEASE_SWEEP_INTERVAL
                }
            } else {
                at.saturating_add(Duration::from_millis(1))
                    .duration_since(now)
            };
            wait = wait.min(until);
        }
        // A claimable job due now is claimed by the next round; 1 ms is a floor, not a
        // retry period.
        wait.max(Duration::from_millis(1))
    }

    /// Stops claiming, lets running handlers finish for `grace`, then interrupts the
    /// rest and gives their jobs back without counting the attempt.
    pub async fn stop(&self, grace: Duration) -> Result<()> {
        self.stop_releasing(grace).await.map(drop)
    }

    /// [`stop`](Runner::stop), saying which jobs it gave back (those still running
    /// when the grace ran out): what an app about to be updated can show, and what
    /// runs again after the restart.
    pub async fn stop_releasing(&self, grace: Duration) -> Result<Vec<JobId>> {
        self.inner.stopping.cancel();
        let thread = lock(&self.inner.thread).take();
        if let Some(thread) = thread {
            let _ = self.inner.signals.send(Signal::Stop);
            // Joining a thread blocks; it ends within one round.
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let done = self.inner.done_ready.notified();
            self.finish_pending()?;
            if self.running() == 0 {
                return Ok(Vec::new());
            }
            if tokio::time::timeout_at(deadline, done).await.is_err() {
                break;
            }
        }
        let ids: Vec<JobId> = lock(&self.inner.running).keys().copied().collect();
        for id in &ids {
            self.interrupt(*id, Interrupt::Release);
        }
        while self.running() > 0 {
            let done = self.inner.done_ready.notified();
            if self.finish_pending()? == 0 {
                done.await;
            }
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::queue::{EnqueueOptions, NewJob, Queue, QueueOptions};
    use crate::runner::{Handler, JobContext, Runner, RunnerSettings};

    fn hold(kind: &str) -> Handler {
        Handler::new(kind, |_: serde_json::Value, _ctx: JobContext| async move {
            std::future::pending::<()>().await;
            Ok(())
        })
    }

    #[tokio::test]
    async fn a_backlog_held_back_by_a_cap_or_a_pause_is_no_reason_to_wake() {
        let dir = tempfile::tempdir().unwrap();
        let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
        let settings = RunnerSettings {
            poll_interval: Duration::from_secs(5),
            retention: None,
            ..RunnerSettings::default()
        };
        let runner = Runner::new(
            queue.clone(),
            vec![hold("gpu").concurrency(1), hold("scan")],
            settings,
        )
        .unwrap();
        let jobs = (0..100).map(|i| NewJob::new("gpu", serde_json::json!(i)));
        queue.enqueue_batch(jobs).unwrap();
        assert_eq!(
            runner.dispatch().unwrap(),
            1,
            "one slot of four, by the cap"
        );
        assert_eq!(runner.next_wait(false), Duration::from_secs(5));

        queue.pause_kind("scan").unwrap();
        queue.enqueue("scan", &1, EnqueueOptions::new()).unwrap();
        assert_eq!(runner.dispatch().unwrap(), 0);
        assert_eq!(runner.next_wait(false), Duration::from_secs(5));

        // A job due in two seconds is something to wake for.
        let later = EnqueueOptions::new().delay(Duration::from_secs(2));
        queue.enqueue("gpu-free", &1, later).unwrap();
        let settings = RunnerSettings {
            poll_interval: Duration::from_secs(10),
            ..RunnerSettings::default()
        };
        let runner_with_free_kind =
            Runner::new(queue.clone(), vec![hold("gpu-free")], settings).unwrap();
        let wait = runner_with_free_kind.next_wait(false);
        assert!(
            wait > Duration::from_millis(1500) && wait <= Duration::from_secs(2),
            "{wait:?}"
        );
    }

    #[tokio::test]
    async fn another_processs_lease_running_out_is_a_reason_to_wake_but_never_to_spin() {
        use crate::clock::{Clock, FakeClock, Timestamp};
        use crate::queue::{ClaimRequest, LEASE_SWEEP_INTERVAL};
        let dir = tempfile::tempdir().unwrap();
        let clock = FakeClock::new(Timestamp::from_millis(1_800_000_000_000));
        let queue = Queue::open(
            dir.path().join("raw.db"),
            QueueOptions::new().clock(clock.clone()),
        )
        .unwrap();
        let settings = RunnerSettings {
            poll_interval: Duration::from_secs(3600),
            retention: None,
            ..RunnerSettings::default()
        };
        let runner = Runner::new(queue.clone(), vec![hold("mine")], settings).unwrap();
        assert_eq!(
            runner.next_wait(false),
            Duration::from_secs(3600),
            "nothing runs"
        );
        // Another worker (another process, say) holds a job for two seconds.
        queue.enqueue("theirs", &1, EnqueueOptions::new()).unwrap();
        let other = ClaimRequest::new("elsewhere", ["theirs"]).lease(Duration::from_secs(2));
        assert_eq!(queue.claim(&other).unwrap().len(), 1);
        let wait = runner.next_wait(false);
        assert!(
            wait > Duration::from_secs(2) && wait <= Duration::from_millis(2001),
            "{wait:?}"
        );
        // Past it, before a sweep took it: the next sweep, not a spin.
        clock.advance(Duration::from_secs(3));
        assert!(clock.now() > Timestamp::from_millis(1_800_000_002_000));
        assert_eq!(runner.next_wait(false), LEASE_SWEEP_INTERVAL);
        // Just after a sweep (another claim on the handle) that came too early for
        // it: until the next sweep, not a whole interval more.
        queue.enqueue("theirs", &2, EnqueueOptions::new()).unwrap();
        let short = other.lease(Duration::from_millis(500));
        assert_eq!(queue.claim(&short).unwrap().len(), 1, "and swept");
        clock.advance(Duration::from_millis(600));
        assert_eq!(runner.next_wait(false), Duration::from_millis(400));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wake_ups_that_bring_no_commit_never_postpone_the_poll() {
        use std::sync::atomic::Ordering;
        use std::time::Instant;

        use crate::runner::Signal;
        let dir = tempfile::tempdir().unwrap();
        let queue = Queue::open(dir.path().join("raw.db"), QueueOptions::new()).unwrap();
        let poll = Duration::from_millis(50);
        let settings = RunnerSettings {
            poll_interval: poll,
            retention: None,
            ..RunnerSettings::default()
        };
        let runner = Runner::new(queue, vec![hold("mine")], settings).unwrap();
        runner.start();
        // A stream of log wake-ups that show no commit (this process's own writes,
        // say), faster than the poll and than the rechecks after each.
        let stream = Duration::from_millis(600);
        let started = Instant::now();
        let before = runner.inner.rounds.load(Ordering::Relaxed);
        let mut every = tokio::time::interval(Duration::from_millis(5));
        while started.elapsed() < stream {
            every.tick().await;
            runner.inner.signals.send(Signal::Written).unwrap();
        }
        let rounds = runner.inner.rounds.load(Ordering::Relaxed) - before;
        runner.stop(Duration::from_secs(1)).await.unwrap();
        assert!(
            rounds >= 6,
            "{rounds} rounds in {stream:?} of wake-ups, polling every {poll:?}"
        );
    }
}
