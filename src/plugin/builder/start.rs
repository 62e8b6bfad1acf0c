//! Opening everything in the plugin's `setup` and starting the loops: the queue on
//! `raw.db` with `config.toml` (or the last file taken when it is refused), the
//! runner, and the scheduler and sync engine the build's features bring.

use std::sync::Arc;
#[cfg(feature = "sync")]
use std::sync::Mutex;
use std::time::Duration;

use tauri::{Manager, Runtime};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "local")]
use super::super::LOCAL_JOBS_PER_WINDOW;
#[cfg(feature = "sync")]
use super::super::REFRESH_FLOOR;
use super::super::{events, limits, Jobs};
use super::Builder;
use crate::awake::{KeepAwake, SystemInhibitor};
use crate::bus::EventBus;
use crate::conditions::ConditionSource;
use crate::config::Config;
#[cfg(feature = "local")]
use crate::local::LocalJobs;
use crate::model::HealthStatus;
use crate::queue::{KindSpec, Queue, QueueOptions};
use crate::runner::{Runner, RunnerSettings};
#[cfg(feature = "schedules")]
use crate::scheduler::Scheduler;
#[cfg(feature = "sync")]
use crate::sync::SyncEngine;
use crate::sync::{DynSource, SyncPolicy, SyncTarget};

impl Builder {
    /// Opens everything, starting nothing: [`Jobs::start`] starts the loops once the
    /// app is running.
    pub(super) fn start<R: Runtime>(mut self, app: &tauri::AppHandle<R>) -> crate::Result<Jobs> {
        let paths = app.path();
        let config_path = match self.config.take() {
            Some(path) => path,
            None => paths
                .app_config_dir()
                .map_err(|error| crate::Error::invalid_argument("config", error.to_string()))?
                .join("config.toml"),
        };
        let database = match self.database.take() {
            Some(path) => path,
            None => paths
                .app_data_dir()
                .map_err(|error| crate::Error::invalid_argument("database", error.to_string()))?
                .join("raw.db"),
        };
        let bus = EventBus::new();
        let conditions = self.conditions.take().unwrap_or_else(default_conditions);
        // One request with the system for the process, shared by the runner and the
        // local jobs; nothing is asked of the system before a job needs it.
        let who = app.package_info().name.clone();
        let awake = self
            .awake
            .get_or_insert_with(|| KeepAwake::new(SystemInhibitor::new().who(who)))
            .clone();
        let (opened, config_health) =
            self.open_configured(&config_path, &database, &bus, &conditions)?;
        report_conditions(&opened.queue);
        // Windows hear when the machine starts or stops being kept awake; the event
        // names no job (`plugin_health` names those a window may read).
        {
            let (bus, clock) = (bus.clone(), opened.queue.clock().clone());
            awake.on_change(move |status| {
                bus.publish(crate::bus::PluginHealth {
                    component: crate::awake::AWAKE_COMPONENT.to_owned(),
                    health: KeepAwake::health_without_jobs(status),
                    at: clock.now(),
                });
            });
        }
        #[cfg(feature = "local")]
        let local = tauri::async_runtime::block_on(async { LocalJobs::new(bus.clone()) });
        #[cfg(feature = "local")]
        local.keep_awake(awake.clone(), opened.local_awake);
        let (notices, notifier) = (std::mem::take(&mut self.notices), self.notifier.take());
        let quit = Arc::new(super::super::quit::Quit::new(
            std::mem::take(&mut self.quit),
            super::super::quit::Work {
                queue: opened.queue.clone(),
                runner: opened.runner.clone(),
                #[cfg(feature = "local")]
                local: local.clone(),
            },
            bus.clone(),
        ));
        let jobs = Jobs {
            queue: opened.queue,
            runner: opened.runner.clone(),
            #[cfg(feature = "schedules")]
            scheduler: opened.scheduler.clone(),
            #[cfg(feature = "sync")]
            sync: opened.sync.clone(),
            // Made inside Tauri's runtime, which they spawn on: the app's own threads
            // (its `setup` among them) may start local jobs too.
            #[cfg(feature = "local")]
            local,
            awake,
            bus,
            #[cfg(feature = "local")]
            local_kinds: self.local_kinds,
            subscriptions: events::Subscriptions::default(),
            #[cfg(feature = "local")]
            local_slots: limits::LocalSlots::new(
                self.local_jobs_per_window.unwrap_or(LOCAL_JOBS_PER_WINDOW),
            ),
            #[cfg(feature = "sync")]
            network_pass: limits::NetworkPass::default(),
            #[cfg(feature = "sync")]
            refresh_floor: self.refresh_floor.unwrap_or(REFRESH_FLOOR),
            config_health,
            config_path,
            grace: self.grace.unwrap_or(Duration::from_secs(5)),
            stop: CancellationToken::new(),
            #[cfg(feature = "sync")]
            network: Mutex::new(None),
            #[cfg(feature = "sync")]
            watch_network: !self.ignore_network,
            started: std::sync::Once::new(),
            instances: Arc::new(super::super::instances::Instances::new(
                app.config().identifier.clone(),
            )),
            quit,
            focus: Arc::default(),
        };
        super::closing::watch_notices(app, &jobs, notices, notifier);
        {
            let app = app.clone();
            jobs.quit.set_exit(Arc::new(move |code| app.exit(code)));
        }
        jobs.runner.set_app(app);
        #[cfg(desktop)]
        if self.taskbar_progress {
            super::super::taskbar::watch(
                app.clone(),
                &jobs.bus,
                jobs.awake.clone(),
                jobs.stop.clone(),
            );
        }
        #[cfg(feature = "local")]
        jobs.local.set_app(app);
        #[cfg(feature = "sync")]
        jobs.sync.set_app(app);
        Ok(jobs)
    }

    /// Opens the queue on `database` and makes the runner, scheduler and sync engine
    /// as the code and `config` say (`None`: the file was refused), starting nothing.
    /// Everything the file says is checked before a schedule is written, so a refused
    /// file leaves only what the second call, without it, writes again: the kinds'
    /// caps and limits as the code sets them. Without the file, the schedules it set
    /// at an earlier start stay as they are.
    pub(super) fn open(
        &self,
        database: &std::path::Path,
        file: Option<&Config>,
        bus: &EventBus,
        conditions: &Arc<dyn ConditionSource>,
    ) -> crate::Result<Opened> {
        let built_in = Config::default();
        let config = file.unwrap_or(&built_in);
        let queue = Queue::open(
            database,
            QueueOptions::new()
                .bus(bus.clone())
                .conditions_from(conditions.clone())
                .config(&config.jobs),
        )?;
        for (kind, how) in &self.retired {
            let retired = queue.retire_kind(kind, *how)?;
            tracing::info!(kind = %kind, ?retired, "retired a job kind");
        }
        for kind in &self.agent_kinds {
            queue.register_kind(kind.clone(), KindSpec::new());
        }
        let handlers = self
            .handlers
            .iter()
            .map(|handler| match self.keep_awake.get(handler.kind()) {
                Some(reason) if handler.keep_awake.is_none() => {
                    handler.clone().keep_awake(reason.clone())
                }
                _ => handler.clone(),
            })
            .collect();
        let mut settings = RunnerSettings::from_config(&config.jobs);
        settings.awake = self.awake.clone();
        let runner = Runner::new(queue.clone(), handlers, settings)?;
        // Local kinds that keep the machine awake: the app's, as config.toml changes
        // them (a name there may be a durable kind's: local jobs never run it).
        let mut local_awake: std::collections::HashMap<String, Option<String>> = self
            .keep_awake
            .iter()
            .map(|(kind, reason)| (kind.clone(), Some(reason.clone())))
            .collect();
        for (kind, on) in &config.jobs.keep_awake {
            if *on {
                local_awake.entry(kind.clone()).or_insert(None);
            } else {
                local_awake.remove(kind);
            }
        }
        // Checked before any schedule is written.
        #[cfg(not(feature = "sync"))]
        if let Some(target) = config.sync.keys().next() {
            return Err(config.error(
                &format!("sync.\"{target}\""),
                "the app is built without the `sync` feature of tauri-plugin-jobs",
            ));
        }
        let targets = with_sync_config(self.targets.clone(), config)?;
        #[cfg(feature = "schedules")]
        let scheduler = Scheduler::new(queue.clone());
        #[cfg(feature = "schedules")]
        match file {
            // The code's schedules as config.toml changes them, and the file's own.
            Some(config) => drop(scheduler.declare(self.schedules.clone(), config)?),
            None => drop(scheduler.declare_without_file(self.schedules.clone())?),
        }
        #[cfg(not(feature = "schedules"))]
        if let Some(name) = config.schedules.keys().next() {
            return Err(config.error(
                &format!("schedules.{name}"),
                "the app is built without the `schedules` feature of tauri-plugin-jobs",
            ));
        }
        #[cfg(feature = "sync")]
        let sync = SyncEngine::new(queue.clone());
        #[cfg(feature = "sync")]
        for (target, policy, source) in targets {
            sync.register_dyn(target, policy, source)?;
        }
        #[cfg(not(feature = "sync"))]
        drop(targets);
        Ok(Opened {
            queue,
            runner,
            local_awake,
            #[cfg(feature = "schedules")]
            scheduler,
            #[cfg(feature = "sync")]
            sync,
        })
    }
}

/// What [`Builder::open`] made.
pub(super) struct Opened {
    pub(super) queue: Queue,
    runner: Runner,
    #[cfg_attr(not(feature = "local"), allow(dead_code))]
    local_awake: std::collections::HashMap<String, Option<String>>,
    #[cfg(feature = "schedules")]
    scheduler: Scheduler,
    #[cfg(feature = "sync")]
    sync: SyncEngine,
}

/// Where conditions come from when the app names no source: the system's, with the
/// `system-conditions` feature; none without it (constraints count as met, and the
/// `conditions` component's health says why).
fn default_conditions() -> Arc<dyn ConditionSource> {
    #[cfg(feature = "system-conditions")]
    return Arc::new(crate::conditions::SystemConditions::default());
    #[cfg(not(feature = "system-conditions"))]
    return Arc::new(crate::conditions::NotBuiltIn);
}

/// The component whose health says whether `config.toml` was refused.
pub(crate) const CONFIG_COMPONENT: &str = "config";

/// Logs what the condition source cannot tell on this machine (constraints on it
/// count as met); [`Queue::conditions_health`] says it to the app.
fn report_conditions(queue: &Queue) {
    let health = queue.conditions_health();
    if health.status != HealthStatus::Healthy {
        let reason = health.reason.unwrap_or_default();
        tracing::info!(%reason, "some conditions for constrained jobs cannot be told here");
    }
}

type Targets = Vec<(SyncTarget, SyncPolicy, Arc<dyn DynSource>)>;

/// The app's sync targets with the policies `config.toml` changes; a section for a
/// target the app does not register is an error naming it.
fn with_sync_config(targets: Targets, config: &Config) -> crate::Result<Targets> {
    let mut sections = config.sync.clone();
    let targets = targets
        .into_iter()
        .map(|(target, policy, source)| {
            let policy = match sections.remove(&target.to_string()) {
                Some(section) => policy.with_config(&section),
                None => policy,
            };
            (target, policy, source)
        })
        .collect();
    match sections.keys().next() {
        Some(target) => Err(config.error(
            &format!("sync.\"{target}\""),
            "the app registers no sync target by this name",
        )),
        None => Ok(targets),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::settings::refuses_config;
    use super::*;
    use crate::sync::testing::FakeSource;

    #[test]
    fn config_changes_a_registered_targets_policy_and_refuses_an_unknown_one() {
        let config = Config::parse(
            "[sync.\"demo/me/feed\"]\nevery = \"10m\"\nmax_backoff = \"10s\"",
            "/etc/app/config.toml",
        )
        .unwrap();
        let targets: Targets = vec![(
            SyncTarget::new("demo", "me", "feed"),
            SyncPolicy::every(Duration::from_secs(60)),
            Arc::new(FakeSource::new()),
        )];
        let changed = with_sync_config(targets, &config).unwrap();
        let policy = changed[0].1;
        assert_eq!(policy.interval(), Duration::from_secs(600));
        assert_eq!(
            policy.delay_for(5, 0.5),
            Duration::from_secs(10),
            "capped at 10 s"
        );
        assert!(policy.validate().is_ok(), "the base came down to the cap");

        let Err(refused) = with_sync_config(Vec::new(), &config) else {
            panic!("a section for no registered target was accepted");
        };
        let refused = refused.to_string();
        assert!(refused.contains("sync.\"demo/me/feed\""), "{refused}");
        assert!(refused.contains("registers no sync target"), "{refused}");
    }

    #[test]
    fn the_plugin_runs_nothing_until_the_apps_run_loop_starts() {
        use tauri::test::{mock_builder, mock_context, noop_assets};
        let dir = tempfile::tempdir().unwrap();
        let app = mock_builder()
            .plugin(
                Builder::new()
                    .database(dir.path().join("raw.db"))
                    .config(dir.path().join("config.toml"))
                    .build(),
            )
            .build(mock_context(noop_assets()))
            .unwrap();
        let jobs = app.state::<Jobs>();
        assert!(
            !jobs.runner.is_started(),
            "the runner started with the plugin's setup, before the app's own"
        );
        jobs.start();
        assert!(jobs.runner.is_started());
        tauri::async_runtime::block_on(jobs.shutdown());
    }

    #[test]
    fn a_refused_file_keeps_the_last_good_files_settings_across_restarts() {
        use crate::model::RateLimit;
        use crate::runner::Handler;
        use tauri::test::{mock_builder, mock_context, noop_assets};
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config.toml");
        // One start of the app with the file as it is now: the rate limit and cap in
        // force for `download`, and the config health.
        let start = || {
            let app = mock_builder()
                .plugin(
                    Builder::new()
                        .database(dir.path().join("raw.db"))
                        .config(&config)
                        .handler(Handler::new(
                            "download",
                            |_: serde_json::Value, _ctx: crate::runner::JobContext| async move {
                                Ok(())
                            },
                        ))
                        .build(),
                )
                .build(mock_context(noop_assets()))
                .unwrap();
            let jobs = app.state::<Jobs>();
            assert_eq!(
                jobs.config_path(),
                config,
                "the app can ask where the file is"
            );
            let seen = (
                jobs.queue.rate_limit("download").unwrap(),
                jobs.queue.kind_limit("download").unwrap(),
                jobs.config_health().clone(),
            );
            tauri::async_runtime::block_on(jobs.shutdown());
            seen
        };
        let five_a_minute = Some(RateLimit::new(5, Duration::from_secs(60)));
        std::fs::write(
            &config,
            "[jobs.rate_limits]\ndownload = \"5/1m\"\n[jobs.kind_limits]\ndownload = 2\n",
        )
        .unwrap();
        let (rate, cap, health) = start();
        assert_eq!((rate, cap), (five_a_minute, Some(2)));
        assert_eq!(health.status, HealthStatus::Healthy);

        // A typo: refused whole, the last good file's limits stay, the key is named.
        std::fs::write(
            &config,
            "[jobs.rate_limit]\ndownload = \"5/1m\"\n[jobs.kind_limits]\ndownload = 2\n",
        )
        .unwrap();
        for restart in 0..2 {
            let (rate, cap, health) = start();
            assert_eq!((rate, cap), (five_a_minute, Some(2)), "restart {restart}");
            assert_eq!(health.status, HealthStatus::Error);
            let reason = health.reason.unwrap();
            assert!(
                reason.contains("jobs.rate_limit: unknown key: did you mean `rate_limits`?"),
                "{reason}"
            );
            assert!(
                reason.contains("the settings of the last config.toml taken"),
                "{reason}"
            );
            assert!(!reason.contains(&*dir.path().to_string_lossy()), "{reason}");
        }

        // Fixed, with other values: those apply, and become the last good file.
        std::fs::write(&config, "[jobs.kind_limits]\ndownload = 1\n").unwrap();
        let (rate, cap, health) = start();
        assert_eq!((rate, cap), (None, Some(1)));
        assert_eq!(health.status, HealthStatus::Healthy);
        std::fs::write(&config, "[jobs]\nworkers = 0\n").unwrap();
        let (rate, cap, _) = start();
        assert_eq!((rate, cap), (None, Some(1)), "the newer good file is kept");
    }

    #[cfg(feature = "schedules")]
    #[test]
    fn a_refused_file_writes_no_schedule_and_keeps_the_ones_a_good_file_set() {
        use crate::runner::Handler;
        use crate::scheduler::ScheduleSpec;
        use crate::scheduler::Scheduler;
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("raw.db");
        let builder = Builder::new()
            .handler(Handler::new(
                "echo",
                |_: serde_json::Value, _ctx: crate::runner::JobContext| async move { Ok(()) },
            ))
            .schedule(ScheduleSpec::every(
                "tidy",
                "echo",
                Duration::from_secs(3600),
            ));
        let (bus, conditions) = (
            EventBus::new(),
            Arc::new(crate::conditions::UnknownConditions) as Arc<dyn ConditionSource>,
        );
        let schedules = |queue: &Queue| {
            let mut all: Vec<(String, Option<u64>, i64)> = Scheduler::new(queue.clone())
                .list()
                .unwrap()
                .into_iter()
                .map(|s| {
                    (
                        s.name,
                        s.interval_ms.map(|ms| ms / 1000),
                        s.next_run.as_millis(),
                    )
                })
                .collect();
            all.sort();
            all
        };
        // A good file: it changes the code's schedule and adds one.
        let good = Config::parse(
            "[schedules.tidy]\nevery = \"2h\"\n\n[schedules.report]\nkind = \"echo\"\nevery = \"1h\"",
            "config.toml",
        )
        .unwrap();
        let opened = builder
            .open(&database, Some(&good), &bus, &conditions)
            .unwrap();
        let set = schedules(&opened.queue);
        assert_eq!(set.len(), 2);
        assert_eq!((set[1].0.as_str(), set[1].1), ("tidy", Some(7200)));
        drop(opened);

        // A file that parses but fails later (a target the app does not register),
        // with a schedule of its own before it: refused, and nothing of it written.
        let bad = Config::parse(
            "[schedules.extra]\nkind = \"echo\"\nevery = \"1m\"\n\n[sync.\"nope/me/x\"]\nevery = \"1h\"",
            "config.toml",
        )
        .unwrap();
        let Err(error) = builder.open(&database, Some(&bad), &bus, &conditions) else {
            panic!("the file was taken");
        };
        assert!(
            refuses_config(&error, std::path::Path::new("config.toml")),
            "{error}"
        );
        // Started without it: the good file's schedules stay as they were.
        let opened = builder.open(&database, None, &bus, &conditions).unwrap();
        assert_eq!(schedules(&opened.queue), set, "a typo costs no schedule");
    }
}
