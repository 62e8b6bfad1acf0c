//! A test kit for apps: their handlers, sync sources and schedules, tested in a few
//! lines, without Tauri, threads of their own or sleeps.
//!
//! [`Backend`] is the whole engine on a temporary `raw.db` with one [`FakeClock`]
//! shared by the queue, runner, scheduler, sync engine and local jobs, and randomness
//! you choose. Move the clock with [`advance`](Backend::advance), then
//! [`settle`](Backend::settle) runs what is due everywhere (schedules, syncs, durable
//! jobs and their retries) until nothing more is due at that instant, on the current
//! tokio runtime (a current-thread one is fine). [`restart`](Backend::restart) closes
//! everything and opens the same file again, as an app restart would. The recorded
//! events and [`history`](Backend::history) are there to assert on.
//!
//! With the `testing` feature, `testing::MockApp` puts the plugin itself in a mock
//! Tauri app, with one window or several and the capability of each, to test commands,
//! capabilities and scopes, and what each window hears on its channels.
//!
//! ```
//! use std::time::Duration;
//! use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
//! use tauri_plugin_jobs::runner::{Handler, JobContext};
//! use tauri_plugin_jobs::testing::Backend;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let backend = Backend::builder()
//!     .handler(Handler::new("double", |n: u32, _ctx: JobContext| async move { Ok(n * 2) }))
//!     .build();
//! let id = backend.queue.enqueue("double", &21, EnqueueOptions::new()).unwrap().id;
//! backend.settle().await;
//! let job = backend.job(id);
//! assert_eq!((job.status, job.result), (JobStatus::Succeeded, Some(serde_json::json!(42))));
//! # });
//! ```

#[cfg(feature = "testing")]
mod app;

use std::sync::{Arc, Mutex};
use std::time::Duration;

#[cfg(feature = "testing")]
pub use app::{Frozen, MockApp, MockChannel};

use crate::awake::KeepAwake;
use crate::bus::{Event, EventBus, JobStateChanged};
use crate::clock::{FakeClock, Timestamp};
use crate::local::LocalJobs;
use crate::locks::lock;
use crate::model::{Job, JobFilter, JobId, JobStatus};
use crate::queue::{Queue, QueueOptions};
use crate::random::{FixedRandom, RandomSource};
use crate::runner::{Handler, Ran, Runner, RunnerSettings};
use crate::scheduler::{ScheduleSpec, Scheduler, Ticked};
use crate::sync::{DynSource, SyncEngine, SyncOutcome, SyncPolicy, SyncSource, SyncTarget};
use crate::tempdir::TempDir;

/// Where a test's clock starts: 2027-01-15 08:00 UTC.
pub const START: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// How many rounds [`Backend::settle`] runs at most before it gives up: far more
/// than any real test needs, so that a loop that never settles fails instead of
/// hanging.
const MOST_ROUNDS: usize = 1_000;

/// What to build a [`Backend`] with.
#[must_use]
pub struct BackendBuilder {
    handlers: Vec<Handler>,
    schedules: Vec<ScheduleSpec>,
    targets: Vec<(SyncTarget, SyncPolicy, Arc<dyn DynSource>)>,
    random: Arc<dyn RandomSource>,
    settings: RunnerSettings,
    start: Timestamp,
    awake: KeepAwake,
    #[cfg(feature = "testing")]
    app: Option<Arc<AppSetup>>,
}

/// What a [`Backend`]'s mock app is given at each open, as an app's `setup` is.
#[cfg(feature = "testing")]
type AppSetup = dyn Fn(&tauri::AppHandle<tauri::test::MockRuntime>) + Send + Sync;

/// The request a [`Backend`] keeps the machine awake with: pretend, so that a test
/// never asks the machine it runs on.
struct Pretend;

impl crate::awake::Inhibitor for Pretend {
    fn inhibit(&self, _why: &str) -> std::result::Result<Box<dyn Send>, String> {
        Ok(Box::new(()))
    }
}

impl BackendBuilder {
    /// Registers a durable job handler.
    pub fn handler(mut self, handler: Handler) -> Self {
        self.handlers.push(handler);
        self
    }

    /// Adds a schedule (upserted at build, and at every restart, as the plugin does).
    pub fn schedule(mut self, schedule: ScheduleSpec) -> Self {
        self.schedules.push(schedule);
        self
    }

    /// Registers a sync target.
    pub fn sync_target<S: SyncSource>(
        mut self,
        target: SyncTarget,
        policy: SyncPolicy,
        source: Arc<S>,
    ) -> Self {
        self.targets.push((target, policy, source));
        self
    }

    /// The randomness of every jitter (retries and sync backoff); `FixedRandom(0.5)`
    /// by default, so that delays are the same on every run.
    pub fn random(mut self, random: impl RandomSource) -> Self {
        self.random = Arc::new(random);
        self
    }

    /// The runner's settings; [`RunnerSettings::for_tests`] by default.
    pub fn settings(mut self, settings: RunnerSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Gives the handlers, local jobs and sync sources an app, as the plugin does in
    /// one: a mock Tauri app (`tauri::test::mock_app`) that `setup` fills as the app's
    /// own `setup` would (`app.manage(..)`), so that a handler's
    /// [`ctx.app::<MockRuntime>()`](crate::runner::JobContext::app) reaches its state on
    /// the fake clock. Run again at each [`restart`](Backend::restart), on a new mock
    /// app, as an app restart runs its `setup` again. With the `testing` feature.
    ///
    /// ```
    /// use tauri::test::MockRuntime;
    /// use tauri::Manager;
    /// use tauri_plugin_jobs::queue::{EnqueueOptions, JobStatus};
    /// use tauri_plugin_jobs::runner::{Handler, JobContext};
    /// use tauri_plugin_jobs::testing::Backend;
    ///
    /// struct Api { base: String }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let backend = Backend::builder()
    ///     .handler(Handler::new("send", |note: u32, ctx: JobContext| async move {
    ///         let app = ctx.app::<MockRuntime>()?;
    ///         Ok(format!("{}/notes/{note}", app.state::<Api>().base))
    ///     }))
    ///     .app(|app| {
    ///         app.manage(Api { base: "http://127.0.0.1:9".into() });
    ///     })
    ///     .build();
    /// let id = backend.queue.enqueue("send", &7, EnqueueOptions::new()).unwrap().id;
    /// backend.settle().await;
    /// assert_eq!(backend.job(id).result, Some(serde_json::json!("http://127.0.0.1:9/notes/7")));
    /// # });
    /// ```
    #[cfg(feature = "testing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    pub fn app(
        mut self,
        setup: impl Fn(&tauri::AppHandle<tauri::test::MockRuntime>) + Send + Sync + 'static,
    ) -> Self {
        self.app = Some(Arc::new(setup));
        self
    }

    /// Where the clock starts; [`START`] by default.
    pub fn start_at(mut self, start: Timestamp) -> Self {
        self.start = start;
        self
    }

    /// The backend on a fresh temporary `raw.db`.
    ///
    /// # Panics
    ///
    /// When something a test cannot go on without fails: the temporary file, or a
    /// handler, schedule or target that is refused (the message says which).
    #[must_use]
    pub fn build(self) -> Backend {
        let dir = TempDir::new("backend");
        let clock = FakeClock::new(self.start);
        Backend::open(Arc::new(self), dir, clock)
    }
}

/// The whole engine on a temporary `raw.db` and a fake clock. See the module docs.
pub struct Backend {
    /// The clock every part reads; move it with [`advance`](Backend::advance).
    pub clock: FakeClock,
    /// The durable queue.
    pub queue: Queue,
    /// The runner of durable jobs, never started: [`settle`](Backend::settle) drives it.
    pub runner: Runner,
    /// The scheduler.
    pub scheduler: Scheduler,
    /// The sync engine.
    pub sync: SyncEngine,
    /// Process-local jobs.
    pub local: LocalJobs,
    /// The bus every part publishes on.
    pub bus: EventBus,
    /// What keeps the machine awake for kinds that ask
    /// ([`Handler::keep_awake`](crate::runner::Handler::keep_awake)): a pretend
    /// request (the machine running the test is never asked), whose
    /// [`status`](KeepAwake::status) says which jobs hold it. The runner's settings
    /// may name another.
    pub awake: KeepAwake,
    events: Arc<Mutex<Vec<Event>>>,
    setup: Arc<BackendBuilder>,
    #[cfg(feature = "testing")]
    app: Option<tauri::App<tauri::test::MockRuntime>>,
    dir: TempDir,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// What one [`Backend::settle`] ran.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Settled {
    /// Schedule runs that enqueued a job (or found its dedupe key taken).
    pub ticked: Vec<Ticked>,
    /// Sync runs and how they ended.
    pub synced: Vec<(SyncTarget, SyncOutcome)>,
    /// Durable job attempts and where each went.
    pub ran: Vec<Ran>,
}

/// A place in the recorded events, for [`Backend::events_since`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark(usize);

impl Backend {
    /// What to build the backend with.
    pub fn builder() -> BackendBuilder {
        BackendBuilder {
            handlers: Vec::new(),
            schedules: Vec::new(),
            targets: Vec::new(),
            random: Arc::new(FixedRandom(0.5)),
            settings: RunnerSettings::for_tests(),
            start: START,
            awake: KeepAwake::new(Pretend),
            #[cfg(feature = "testing")]
            app: None,
        }
    }

    fn open(setup: Arc<BackendBuilder>, dir: TempDir, clock: FakeClock) -> Backend {
        let bus = EventBus::new();
        let events = Arc::new(Mutex::new(Vec::new()));
        let record = events.clone();
        bus.add_handler("testing", move |event: &Event| {
            lock(&record).push(event.clone());
            Ok(())
        });
        let queue = Queue::open(
            dir.path().join("raw.db"),
            QueueOptions::new()
                .clock(clock.clone())
                .bus(bus.clone())
                .random(SharedRandom(setup.random.clone())),
        )
        .expect("a raw.db in the temporary directory");
        let mut settings = setup.settings.clone();
        let awake = settings
            .awake
            .get_or_insert_with(|| setup.awake.clone())
            .clone();
        let runner = Runner::new(queue.clone(), setup.handlers.clone(), settings)
            .expect("the handlers and settings");
        let scheduler = Scheduler::new(queue.clone());
        for schedule in &setup.schedules {
            scheduler
                .upsert(schedule.clone())
                .expect("the schedule to upsert");
        }
        let sync = SyncEngine::with_random(queue.clone(), SharedRandom(setup.random.clone()));
        for (target, policy, source) in &setup.targets {
            sync.register_dyn(target.clone(), *policy, source.clone())
                .expect("the sync target to register");
        }
        let local = LocalJobs::with_clock(bus.clone(), clock.clone());
        #[cfg(feature = "testing")]
        let app = setup.app.as_ref().map(|fill| {
            let app = tauri::test::mock_app();
            fill(app.handle());
            runner.set_app(app.handle());
            local.set_app(app.handle());
            sync.set_app(app.handle());
            app
        });
        Backend {
            #[cfg(feature = "testing")]
            app,
            clock,
            queue,
            runner,
            scheduler,
            sync,
            local,
            bus,
            awake,
            events,
            setup,
            dir,
        }
    }

    /// The mock app the handlers reach, when the builder gave one
    /// ([`BackendBuilder::app`]).
    #[cfg(feature = "testing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
    #[must_use]
    pub fn app(&self) -> Option<&tauri::AppHandle<tauri::test::MockRuntime>> {
        self.app.as_ref().map(tauri::App::handle)
    }

    /// The clock's time.
    #[must_use]
    pub fn now(&self) -> Timestamp {
        use crate::clock::Clock;
        self.clock.now()
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    /// Runs what is due at the clock's time, everywhere, until nothing more is: the
    /// schedules' ticks, the sync runs, the durable jobs (their retries included, once
    /// their time has come). Deterministic for a given clock and randomness.
    ///
    /// # Panics
    ///
    /// When the database fails, or when it has not settled after a thousand rounds
    /// (a handler that enqueues forever).
    pub async fn settle(&self) -> Settled {
        let mut settled = Settled::default();
        for _ in 0..MOST_ROUNDS {
            let now = self.now();
            let ticked = self.scheduler.tick(now).expect("the scheduler's tick");
            let synced = self.sync.run_due(now).await;
            let ran = self.runner.drain().await.expect("the runner's rounds");
            if ticked.is_empty() && synced.is_empty() && ran.is_empty() {
                return settled;
            }
            settled.ticked.extend(ticked);
            settled.synced.extend(synced);
            settled.ran.extend(ran);
        }
        panic!("the backend did not settle in {MOST_ROUNDS} rounds");
    }

    /// Moves the clock forward, then [`settle`](Backend::settle)s.
    pub async fn advance_and_settle(&self, by: Duration) -> Settled {
        self.advance(by);
        self.settle().await
    }

    /// Closes everything and opens the same `raw.db` again with the same handlers,
    /// schedules, targets and clock, as an app restart does. What was running is left
    /// to its lease, as after a crash. The recorded events start afresh.
    #[must_use]
    pub fn restart(self) -> Backend {
        let Backend {
            clock, setup, dir, ..
        } = self;
        Backend::open(setup, dir, clock)
    }

    /// One job.
    ///
    /// # Panics
    ///
    /// When there is no such job.
    #[must_use]
    pub fn job(&self, id: JobId) -> Job {
        self.queue
            .get(id)
            .expect("a read of the job")
            .unwrap_or_else(|| panic!("no job {id}"))
    }

    /// The jobs in `status`, newest first (up to a thousand).
    #[must_use]
    pub fn jobs(&self, status: JobStatus) -> Vec<Job> {
        self.queue
            .list(&JobFilter::new().status(status).limit(1000))
            .expect("a list of jobs")
    }

    /// Marks the events recorded so far; [`events_since`](Backend::events_since)
    /// gives those after it.
    #[must_use]
    pub fn mark(&self) -> Mark {
        Mark(lock(&self.events).len())
    }

    /// Every event published since `mark`, in order.
    #[must_use]
    pub fn events_since(&self, mark: Mark) -> Vec<Event> {
        lock(&self.events)
            .get(mark.0..)
            .map(<[Event]>::to_vec)
            .unwrap_or_default()
    }

    /// A job's life as its state changes, in order: each attempt's start, retries,
    /// the end (since the backend was opened).
    #[must_use]
    pub fn history(&self, id: JobId) -> Vec<JobStateChanged> {
        lock(&self.events)
            .iter()
            .filter_map(|event| match event {
                Event::JobStateChanged(change) if change.id == id => Some(change.clone()),
                _ => None,
            })
            .collect()
    }

    /// Every `kv` key an account stores (its sync state among them): what
    /// [`SyncEngine::disconnect`] removes.
    #[must_use]
    pub fn account_keys(&self, connector: &str, account: &str) -> Vec<String> {
        self.sync
            .stored_keys(connector, account)
            .expect("a read of the account's keys")
    }
}

/// One randomness shared by the queue and the sync engine.
#[derive(Debug, Clone)]
struct SharedRandom(Arc<dyn RandomSource>);

impl RandomSource for SharedRandom {
    fn unit(&self) -> f64 {
        self.0.unit()
    }
}
