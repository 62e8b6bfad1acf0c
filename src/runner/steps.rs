//! Long work in steps, from a handler: [`JobContext::step`] runs a named step's body
//! once and records what it returned, so that every later attempt of the job gets it
//! back instead of running it again; [`JobContext::sleep`] waits in `raw.db`, holding
//! no worker; [`JobContext::inputs`] reads what the jobs a job waited for returned.
//!
//! Compared with a checkpoint an app writes itself, a step is recorded fenced by the
//! attempt's lease (a stale attempt records nothing), goes with its job, and is seen
//! in the inspector. The rules every durable-step engine states hold here too: code
//! between steps runs again on every attempt, and a step is at least once (its body
//! can finish and the process die before its record commits).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{JobContext, JobError};
use crate::bus::JobStepChanged;
use crate::clock::Timestamp;
use crate::error::Error;
use crate::locks::lock;
use crate::model::{Cron, Input, JobId};
use crate::queue::{check_step_name, StepOutput};
use crate::store::jobs::Fence;

/// Why a step could not be run or recorded ([`JobError::Step`]). Each names the step.
/// Not a `std::error::Error`: `?` would make one a retryable [`JobError`] with its
/// words only; it converts into `JobError::Step`, permanent or not as
/// [`is_permanent`](StepError::is_permanent) says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StepError {
    /// Two steps of one attempt have the same name: name each one (a loop names
    /// each, `format!("page-{n}")`).
    Duplicate {
        /// The name.
        step: String,
    },
    /// The name is empty or longer than
    /// [`MAX_STEP_NAME_BYTES`](crate::queue::MAX_STEP_NAME_BYTES).
    BadName {
        /// The name, cut.
        step: String,
    },
    /// What the step returned is too large to record, or does not serialise.
    Output {
        /// The step.
        step: String,
        /// Why.
        reason: String,
    },
    /// What an earlier attempt recorded cannot be read as the type this build asks
    /// for (the step's output type changed: give the step a new name).
    Unreadable {
        /// The step.
        step: String,
        /// Why.
        reason: String,
    },
    /// The attempt no longer holds the job's lease (it ran out and the job was claimed
    /// again): nothing was recorded, and the attempt's outcome will not be either.
    LostLease {
        /// The step.
        step: String,
    },
    /// `raw.db` could not be read or written.
    Store {
        /// The step.
        step: String,
        /// What the database said.
        error: String,
    },
}

impl StepError {
    /// Whether retrying cannot help: everything but a lost lease and the database.
    #[must_use]
    pub fn is_permanent(&self) -> bool {
        !matches!(self, StepError::LostLease { .. } | StepError::Store { .. })
    }

    pub(super) fn store(step: &str, error: &Error) -> StepError {
        match error {
            Error::LostLease { .. } => StepError::LostLease {
                step: step.to_owned(),
            },
            Error::InvalidArgument { reason, .. } => StepError::Output {
                step: step.to_owned(),
                reason: reason.clone(),
            },
            other => StepError::Store {
                step: step.to_owned(),
                error: other.to_string(),
            },
        }
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Duplicate { step } => write!(
                f,
                "step {step:?} ran twice in one attempt: name each step once (a loop names \
                 each, \"page-3\")"
            ),
            StepError::BadName { step } => write!(
                f,
                "a step's name is 1 to {} bytes: {step:?}",
                crate::queue::MAX_STEP_NAME_BYTES
            ),
            StepError::Output { step, reason } => {
                write!(
                    f,
                    "step {step:?} returned what cannot be recorded: {reason}"
                )
            }
            StepError::Unreadable { step, reason } => write!(
                f,
                "step {step:?} was recorded with an output this build cannot read ({reason}): \
                 a step whose output type changes needs a new name"
            ),
            StepError::LostLease { step } => write!(
                f,
                "step {step:?} not recorded: the attempt no longer holds the job's lease"
            ),
            StepError::Store { step, error } => {
                write!(f, "step {step:?} not recorded: {error}")
            }
        }
    }
}

impl From<StepError> for JobError {
    fn from(error: StepError) -> Self {
        JobError::Step(error)
    }
}

/// An attempt's steps: what fences their records (the runner's worker id and the
/// lease's token; the job and the attempt are the context's), the names used so far,
/// and what earlier attempts recorded (read at its first step, once). Kept in the
/// attempt's [`AttemptProgress`](super::progress::AttemptProgress), which every clone
/// of its context shares: a handler without steps pays for none of it.
pub(crate) struct Steps {
    worker: Arc<str>,
    token: i64,
    // Mutex: a handler may run steps from tasks of its own; held for a lookup.
    used: Mutex<HashSet<String>>,
    // Mutex: filled at the first step of the attempt.
    recorded: Mutex<Option<HashMap<String, StepOutput>>>,
    // The place of the next step this attempt records (the steps read, plus those
    // recorded since): no look at the others per step. Relaxed: one attempt's steps.
    next_seq: std::sync::atomic::AtomicU64,
}

impl Steps {
    pub(crate) fn new(worker: Arc<str>, token: i64) -> Steps {
        Steps {
            worker,
            token,
            used: Mutex::new(HashSet::new()),
            recorded: Mutex::new(None),
            next_seq: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl Steps {
    /// The place of the step about to be recorded (the job's steps were read first).
    fn take_seq(&self) -> u64 {
        self.next_seq
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

impl JobContext {
    /// What fences this attempt's step records.
    pub(super) fn fence<'a>(&self, steps: &'a Steps) -> Fence<'a> {
        Fence {
            id: self.id,
            worker: &steps.worker,
            attempt: self.attempt,
            token: steps.token,
        }
    }
}

impl fmt::Debug for Steps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the lease: its token is a secret.
        f.debug_struct("Steps")
            .field("used", &lock(&self.used).len())
            .finish_non_exhaustive()
    }
}

impl JobContext {
    /// Runs step `name` once for the whole job: its body runs and what it returns is
    /// recorded in `raw.db` (one commit, fenced by this attempt's lease); every later
    /// attempt of the job (after a retry, a crash, a quit, a lost lease, a deferral, a
    /// sleep, an update) gets the recorded value back, read through serde, without
    /// running the body. A paid call is paid once.
    ///
    /// - Names are unique within a job (a loop names each: `format!("page-{n}")`); the
    ///   same name twice in one attempt is [`StepError::Duplicate`], a permanent error.
    /// - A body that fails records nothing: its error is the handler's, as any other
    ///   (retried, permanent, offline, a snooze).
    /// - At least once: a body that finished whose record did not commit (the process
    ///   killed between the two) runs again at the next attempt.
    /// - Code between steps runs again at every attempt: keep work with effects inside
    ///   steps, and the code between them cheap and free of effects.
    /// - What it returns is bounded as a result is (the queue's largest payload,
    ///   1 MiB by default): a larger one is [`StepError::Output`], naming the step.
    ///
    /// ```no_run
    /// use tauri_plugin_jobs::runner::{Handler, JobContext, JobError};
    ///
    /// # async fn download(_: &str) -> Result<String, JobError> { Ok(String::new()) }
    /// # async fn summarise(_: &str) -> Result<String, JobError> { Ok(String::new()) }
    /// let handler = Handler::new("episode", |url: String, ctx: JobContext| async move {
    ///     let file: String = ctx.step("download", || download(&url)).await?;
    ///     // A paid call: never paid twice, whatever happens after it.
    ///     let summary: String = ctx.step("summarise", || summarise(&file)).await?;
    ///     Ok(summary)
    /// });
    /// ```
    pub async fn step<T, F, Fut>(&self, name: impl Into<String>, body: F) -> Result<T, JobError>
    where
        T: Serialize + DeserializeOwned + Send,
        F: FnOnce() -> Fut + Send,
        Fut: Future<Output = Result<T, JobError>> + Send,
    {
        let name = name.into();
        let steps = self.begin_step(&name)?;
        if let Some(done) = self.recorded(steps, &name)? {
            return read_back(&name, done.output);
        }
        let started = self.now();
        self.queue.bus().publish(JobStepChanged {
            id: self.id,
            kind: self.kind.clone(),
            attempt: self.attempt,
            name: name.clone(),
            started_at: started,
            finished_at: None,
            sleep_until: None,
        });
        let value = body().await?;
        let output = serde_json::to_value(&value).map_err(|error| StepError::Output {
            step: name.clone(),
            reason: error.to_string(),
        })?;
        let seq = steps.take_seq();
        self.queue
            .record_step_of(
                &self.fence(steps),
                &self.kind,
                &name,
                &output,
                started,
                Some(seq),
            )
            .map_err(|error| StepError::store(&name, &error))?;
        // What the next attempts will get: the value as serde reads it back.
        read_back(&name, output)
    }

    /// A durable sleep of `duration`, named like a step: the attempt ends (return
    /// what this returns with `?`), the job waits in `raw.db` (no worker held, no
    /// attempt counted, nothing polled; through quits, restarts and updates), and its
    /// next attempt, at the sleep's end, goes on past it: the steps before it are
    /// read back, this call returns `Ok(())`. The end is fixed when the sleep first
    /// begins. A job whose sleep ends while the app is closed runs at the next start.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use tauri_plugin_jobs::runner::{Handler, JobContext};
    ///
    /// let handler = Handler::new("trial", |user: String, ctx: JobContext| async move {
    ///     ctx.step("welcome", || async { Ok(format!("welcome {user}")) }).await?;
    ///     ctx.sleep("three-days", Duration::from_secs(3 * 86_400)).await?;
    ///     ctx.step("reminder", || async { Ok(format!("remind {user}")) }).await
    /// });
    /// ```
    pub async fn sleep(&self, name: impl Into<String>, duration: Duration) -> Result<(), JobError> {
        self.sleep_with(name.into(), |now| Ok(now.saturating_add(duration)))
    }

    /// A durable sleep until `until` (a time on the queue's clock), as
    /// [`sleep`](JobContext::sleep).
    pub async fn sleep_until(
        &self,
        name: impl Into<String>,
        until: Timestamp,
    ) -> Result<(), JobError> {
        self.sleep_with(name.into(), |_| Ok(until))
    }

    /// A durable sleep until the next time `cron` (five fields, as a schedule's)
    /// matches on the wall clock of `zone` ("local" for the machine's, an IANA name,
    /// or "UTC"): "tomorrow at 9" is `sleep_until_next("morning", "0 9 * * *",
    /// "local")`, by the scheduler's rules (daylight saving included). Fixed when it
    /// first begins, as [`sleep`](JobContext::sleep). Time zones come with the
    /// `schedules` feature (on by default): without it only `"UTC"` is taken, and
    /// another zone is an error naming the feature.
    pub async fn sleep_until_next(
        &self,
        name: impl Into<String>,
        cron: &str,
        zone: &str,
    ) -> Result<(), JobError> {
        let name = name.into();
        let step = name.clone();
        let clock = self.queue.db().clock().clone();
        self.sleep_with(name, move |now| {
            let bad = |reason: String| StepError::Output {
                step: step.clone(),
                reason,
            };
            let cron: Cron = cron
                .parse()
                .map_err(|error: crate::model::CronError| bad(error.to_string()))?;
            let zone = crate::scheduler::zone_named(zone, &*clock)
                .map_err(|error| bad(error.to_string()))?;
            cron.next_after_in(now, &zone)
                .ok_or_else(|| bad(format!("{cron} never matches")))
        })
    }

    fn sleep_with(
        &self,
        name: String,
        until_of: impl FnOnce(Timestamp) -> Result<Timestamp, StepError>,
    ) -> Result<(), JobError> {
        let steps = self.begin_step(&name)?;
        let now = self.now();
        let until = match self.recorded(steps, &name)? {
            // A step of that name that is no sleep (the code changed): done.
            Some(done) => match done.sleep_until {
                Some(until) => until,
                None => return Ok(()),
            },
            None => {
                let until = until_of(now)?;
                let seq = steps.take_seq();
                self.queue
                    .record_sleep(&self.fence(steps), &self.kind, &name, until, now, Some(seq))
                    .map_err(|error| StepError::store(&name, &error))?;
                until
            }
        };
        if now >= until {
            return Ok(());
        }
        Err(JobError::Sleeping { until, step: name })
    }

    /// How each job this one waited for stands, with its result as `T`, in the order
    /// its enqueue named them: `EnqueueOptions::after(ids)` in the order given, then
    /// the pieces of `after_pieces_of(parent)` by id (a workflow's `then` job reads its
    /// pieces'). A job that failed or was cancelled reads as such (a job that waited
    /// with `DependencyFailure::Run` runs anyway), one deleted since as missing. Empty
    /// for a job that waited for none. One read, however many.
    ///
    /// ```no_run
    /// use tauri_plugin_jobs::queue::Input;
    /// use tauri_plugin_jobs::runner::{Handler, JobContext};
    ///
    /// let index = Handler::new("index", |_: (), ctx: JobContext| async move {
    ///     let sizes: Vec<Input<u64>> = ctx.inputs()?;
    ///     Ok(sizes.into_iter().filter_map(Input::ok).sum::<u64>())
    /// });
    /// ```
    pub fn inputs<T: DeserializeOwned>(&self) -> Result<Vec<Input<T>>, JobError> {
        let inputs = self
            .queue
            .inputs(self.id)
            .map_err(JobError::retryable)?
            .unwrap_or_default();
        inputs.into_iter().map(typed).collect()
    }

    /// How job `id` stands, with its result as `T`: a job that ran before this one
    /// (any job of the file, by id).
    pub fn input<T: DeserializeOwned>(&self, id: JobId) -> Result<Input<T>, JobError> {
        typed(self.queue.input(id).map_err(JobError::retryable)?)
    }

    /// Checks `name` and marks it used in this attempt; the attempt's steps.
    pub(super) fn begin_step(&self, name: &str) -> Result<&Steps, StepError> {
        if check_step_name(name).is_err() {
            return Err(StepError::BadName {
                step: crate::model::truncate_chars(name, 40),
            });
        }
        let steps = self
            .progress
            .as_deref()
            .map(|progress| &progress.steps)
            .ok_or_else(|| StepError::Store {
                step: name.to_owned(),
                error: "this context runs no attempt of a job (no lease to record a step with)"
                    .into(),
            })?;
        if !lock(&steps.used).insert(name.to_owned()) {
            return Err(StepError::Duplicate {
                step: name.to_owned(),
            });
        }
        Ok(steps)
    }

    /// What an earlier attempt recorded under `name`, if anything; the job's steps are
    /// read at the attempt's first step, once.
    fn recorded(&self, steps: &Steps, name: &str) -> Result<Option<StepOutput>, StepError> {
        let mut recorded = lock(&steps.recorded);
        if recorded.is_none() {
            let read = self
                .queue
                .step_outputs(self.id)
                .map_err(|error| StepError::store(name, &error))?;
            steps
                .next_seq
                .store(read.len() as u64 + 1, std::sync::atomic::Ordering::Relaxed);
            *recorded = Some(read);
        }
        Ok(recorded.as_ref().and_then(|all| all.get(name)).cloned())
    }
}

/// `output` as `T`, or why not, naming the step.
fn read_back<T: DeserializeOwned>(name: &str, output: Value) -> Result<T, JobError> {
    serde_json::from_value(output).map_err(|error| {
        JobError::Step(StepError::Unreadable {
            step: name.to_owned(),
            reason: error.to_string(),
        })
    })
}

/// An input's result as `T`.
fn typed<T: DeserializeOwned>(input: Input<Value>) -> Result<Input<T>, JobError> {
    Ok(match input {
        Input::Succeeded { id, result } => Input::Succeeded {
            id,
            result: serde_json::from_value(result).map_err(|error| {
                JobError::permanent(format!(
                    "the result of job {id} cannot be read as the type asked for: {error}"
                ))
            })?,
        },
        Input::Failed { id, error } => Input::Failed { id, error },
        Input::Cancelled { id } => Input::Cancelled { id },
        Input::Pending { id, state } => Input::Pending { id, state },
        Input::Missing { id } => Input::Missing { id },
    })
}
