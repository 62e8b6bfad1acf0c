//! Waiting for someone, and saying what happened, from a handler:
//! [`JobContext::wait_for_signal`] ends the attempt until a signal comes (or a
//! deadline passes), holding no worker; [`JobContext::log`] keeps the job's own lines in
//! `raw.db`, for the inspector and `getJobLogs`.

use std::fmt;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::steps::StepError;
use super::{JobContext, JobError};
use crate::model::sanitize_error;
use crate::store::jobs::signals::SignalRow;

/// How much a line a handler logs says ([`JobContext::log`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// Something failed.
    Error,
    /// Something to look at.
    Warn,
    /// What the job did.
    Info,
    /// Detail.
    Debug,
}

impl LogLevel {
    fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
        }
    }
}

impl JobContext {
    /// Waits for signal `name` for at most `within`: the attempt ends (pass what this
    /// returns on with `?`), the job waits in `raw.db` (no worker held, no attempt
    /// counted, nothing polled; `whyWaiting` and the inspector say what for and until
    /// when), and a signal sent to it (`Queue::signal`, `app.jobs().queue().signal`, the
    /// webview's `signalJob`, an agent) brings it back at once, in any process on the
    /// file. The next attempt, after the steps before the wait are read back, gets
    /// `Ok(Some(payload))`; past the deadline with nothing sent, `Ok(None)`: the
    /// handler decides what a timeout means. A signal sent before the wait began is
    /// kept and read here (declare the name with
    /// [`Handler::signal`](super::Handler::signal)); the first one of a name stays.
    /// What it returns is fixed once read: every later attempt reads the same.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use tauri_plugin_jobs::runner::{Handler, JobContext};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Answer { approved: bool }
    ///
    /// let send = Handler::new("send-report", |report: String, ctx: JobContext| async move {
    ///     let draft: String = ctx.step("draft", || async { Ok(format!("draft of {report}")) }).await?;
    ///     let answer: Option<Answer> = ctx.wait_for_signal("approval", Duration::from_secs(86_400)).await?;
    ///     match answer {
    ///         Some(Answer { approved: true }) => ctx.step("send", || async { Ok(draft.len()) }).await,
    ///         Some(_) => Ok(0),     // declined
    ///         None => Ok(0),        // nobody answered within a day
    ///     }
    /// })
    /// .signal("approval");
    /// ```
    pub async fn wait_for_signal<T: DeserializeOwned>(
        &self,
        name: &str,
        within: Duration,
    ) -> Result<Option<T>, JobError> {
        let step = format!("signal:{name}");
        crate::queue::check_signal_name(name).map_err(|_| StepError::BadName {
            step: crate::model::truncate_chars(name, 40),
        })?;
        let steps = self.begin_step(&step)?;
        let fence = self.fence(steps);
        let store = |error: &crate::Error| StepError::store(&step, error);
        let mut row = self
            .queue
            .signal_row(self.id, name)
            .map_err(|e| store(&e))?;
        let now = self.now();
        if row.payload.is_none() && !row.timed_out {
            match row.deadline {
                None => {
                    let deadline = now.saturating_add(within);
                    row = self
                        .queue
                        .begin_signal_wait(&fence, name, deadline)
                        .map_err(|e| store(&e))?;
                }
                Some(deadline) if now >= deadline => {
                    row = self
                        .queue
                        .time_out_signal(&fence, name)
                        .map_err(|e| store(&e))?;
                }
                Some(_) => {}
            }
        }
        read_signal(&step, name, row)
    }

    /// Keeps `text` in the job's log at [`LogLevel::Info`] (see [`log_at`](JobContext::log_at)).
    pub fn log(&self, text: impl fmt::Display) {
        self.log_at(LogLevel::Info, text);
    }

    /// Keeps `text` in the job's log in `raw.db`, with the time and the attempt:
    /// redacted as errors are (secrets in URLs, headers, JSON and prose) and cut to 500
    /// characters, the last `jobs.log_lines` (200 by default) of the job kept. Stored
    /// by the runner within a second, in one write for every line of every job of a
    /// round (with the attempt's outcome when it ends), never one write per line; gone
    /// with the job. The webview reads them (`getJobLogs`, `watchJob(id, { onLog })`),
    /// the inspector shows them. Cheap: nothing is written while the handler runs.
    pub fn log_at(&self, level: LogLevel, text: impl fmt::Display) {
        if let Some(progress) = &self.progress {
            progress.log(level.as_str(), sanitize_error(&text.to_string()));
        }
    }
}

/// What a wait for `name` gives, from its row: the payload, a timeout, or the wait
/// going on until its deadline.
fn read_signal<T: DeserializeOwned>(
    step: &str,
    name: &str,
    row: SignalRow,
) -> Result<Option<T>, JobError> {
    if let Some(payload) = row.payload {
        return serde_json::from_str(&payload).map(Some).map_err(|error| {
            JobError::Step(StepError::Unreadable {
                step: step.to_owned(),
                reason: error.to_string(),
            })
        });
    }
    if row.timed_out {
        return Ok(None);
    }
    match row.deadline {
        Some(until) => Err(JobError::AwaitingSignal {
            name: name.to_owned(),
            until,
        }),
        // Not reachable: the wait noted its deadline.
        None => Ok(None),
    }
}
