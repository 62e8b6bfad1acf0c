//! Signals to jobs and what jobs logged.
//!
//! A signal is sent to one job by name, with a JSON payload: from Rust
//! ([`Queue::signal`]), a window (`signal_job`, scoped) or an agent. It is kept in
//! `raw.db` (the first one of a name stays), and when the job waits for it
//! ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal)) its
//! start comes to now, in every process on the file (a runner that watches the file
//! wakes at the write, as for any job made runnable). A handler's log lines
//! ([`JobContext::log`](crate::runner::JobContext::log)) are stored by the runner in
//! batches, with the writes it makes anyway.

use serde_json::Value;

use super::Queue;
use crate::bus::JobLogged;
use crate::clock::Timestamp;
use crate::db::Notice;
use crate::error::{Error, Result};
use crate::model::{JobId, JobLogLine, JobStatus, Patterns, SignalRefusal};
use crate::store::jobs::logs::{self, LogRow};
use crate::store::jobs::signals::{self, Sent, SignalRow};
use crate::store::jobs::Fence;

/// The longest signal name, in bytes.
pub const MAX_SIGNAL_NAME_BYTES: usize = 200;

/// How many lines of each job's log are kept, by default (`jobs.log_lines` in
/// `config.toml`).
pub const DEFAULT_LOG_LINES: u32 = 200;

/// What [`Queue::signal`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SignalSent {
    /// The job was waiting for it: it runs now.
    pub woke: bool,
    /// A signal of that name was sent before: that first one stays, this one is
    /// dropped (sending again is harmless).
    pub already_sent: bool,
}

impl Queue {
    /// Sends signal `name` with `payload` to job `id`. Kept until the job reads it
    /// (the first one of a name stays: sending again does nothing), and a job waiting
    /// for it runs at once. Refused with [`Error::SignalRefused`] when the job has ended,
    /// when its wait for it timed out, or when its kind's handler declares no such
    /// signal ([`Handler::signal`](crate::runner::Handler::signal)) and the job is not
    /// waiting for it now; [`Error::JobNotFound`] for no job; the payload is bounded
    /// and checked as an enqueue's is.
    pub fn signal(&self, id: JobId, name: &str, payload: &Value) -> Result<SignalSent> {
        self.signal_within(id, name, payload, None)
    }

    /// [`signal`](Queue::signal) for a caller that may only touch the kinds `reach`
    /// allows (a scoped window): a job of another kind is not found, checked in the
    /// transaction.
    pub(crate) fn signal_within(
        &self,
        id: JobId,
        name: &str,
        payload: &Value,
        reach: Option<&Patterns>,
    ) -> Result<SignalSent> {
        check_signal_name(name)?;
        let text = crate::json::checked_text(payload, self.db().kinds().max_payload_bytes)
            .map_err(|reason| Error::invalid_argument("payload", reason))?;
        let db = self.db();
        let now = db.now();
        let specs = db.kinds().specs();
        let sent = db.write(now, |tx, changes| {
            let Some((kind, status, awaits)) = signals::target(tx, id)? else {
                return Err(Error::JobNotFound(id));
            };
            if reach.is_some_and(|reach| !reach.allows(&kind)) {
                return Err(Error::JobNotFound(id));
            }
            let refused = |reason| Error::SignalRefused {
                id,
                name: name.to_owned(),
                reason,
            };
            if status.is_finished() {
                return Err(refused(SignalRefusal::Ended(status)));
            }
            let declared = specs
                .get(&kind)
                .is_some_and(|spec| spec.signals.iter().any(|n| n == name));
            if !declared && awaits.as_deref() != Some(name) {
                return Err(refused(SignalRefusal::NotAwaited));
            }
            match signals::send(tx, id, name, &text, now)? {
                Sent::Stored { woke } => {
                    if woke {
                        // The page hears it move: queued, runnable now.
                        changes.push(crate::store::jobs::Change {
                            id,
                            kind,
                            from: Some(JobStatus::Queued),
                            to: JobStatus::Queued,
                            attempt: 0,
                            ran: None,
                            deferred: false,
                        });
                    }
                    Ok(SignalSent {
                        woke,
                        already_sent: false,
                    })
                }
                Sent::Before => Ok(SignalSent {
                    woke: false,
                    already_sent: true,
                }),
                Sent::WaitOver => Err(refused(SignalRefusal::WaitOver)),
            }
        })?;
        if sent.woke {
            db.notify(Notice::Runnable);
        }
        Ok(sent)
    }

    /// Job `id`'s row for signal `name`: what was sent, the wait's deadline.
    pub(crate) fn signal_row(&self, id: JobId, name: &str) -> Result<SignalRow> {
        Ok(self
            .db()
            .read(|conn| signals::read(conn, id, name))?
            .unwrap_or_default())
    }

    /// Notes that the attempt `fence` holds waits for `name` until `deadline` (one
    /// noted before stays); `Error::LostLease` when the fence no longer holds.
    pub(crate) fn begin_signal_wait(
        &self,
        fence: &Fence<'_>,
        name: &str,
        deadline: Timestamp,
    ) -> Result<SignalRow> {
        let db = self.db();
        db.store().write(|tx| {
            if !signals::begin_wait(tx, fence, name, deadline)? {
                return Err(lost(fence));
            }
            Ok(signals::read(tx, fence.id, name)?.unwrap_or_default())
        })
    }

    /// Notes that the wait for `name` timed out (a signal that came meanwhile wins).
    pub(crate) fn time_out_signal(&self, fence: &Fence<'_>, name: &str) -> Result<SignalRow> {
        self.db()
            .store()
            .write(|tx| signals::time_out(tx, fence, name))?
            .ok_or_else(|| lost(fence))
    }

    /// Job `id`'s kind, if there is such a job.
    pub(crate) fn kind_of(&self, id: JobId) -> Result<Option<String>> {
        self.db().read(|conn| crate::store::jobs::kind_of(conn, id))
    }

    /// Job `id`'s log, the lines after `after` (their `seq`; 0 for all kept), oldest
    /// first.
    pub fn logs(&self, id: JobId, after: u64) -> Result<Vec<JobLogLine>> {
        let rows = self.db().read(|conn| logs::of_job(conn, id, after))?;
        Ok(rows.into_iter().map(shown).collect())
    }

    /// Appends each job's `lines` to its log in one transaction, keeping the last
    /// `keep` of each, and says so on the bus (a `jobLogged` event per job).
    pub(crate) fn store_logs(
        &self,
        batch: &[(JobId, String, Vec<PendingLine>)],
        keep: u32,
    ) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let db = self.db();
        let now = db.now();
        let stored = db.store().write(|tx| {
            let mut stored = Vec::with_capacity(batch.len());
            for (id, kind, lines) in batch {
                let lines: Vec<(Timestamp, u32, &str, &str)> = lines
                    .iter()
                    .map(|line| (line.at, line.attempt, line.level, line.text.as_str()))
                    .collect();
                stored.push((*id, kind.clone(), logs::append(tx, *id, &lines, keep)?));
            }
            Ok(stored)
        })?;
        for (id, kind, rows) in stored {
            db.bus().publish(JobLogged {
                id,
                kind,
                lines: rows.into_iter().map(shown).collect(),
                at: now,
            });
        }
        Ok(())
    }
}

/// A line logged, not stored yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingLine {
    pub at: Timestamp,
    pub attempt: u32,
    pub level: &'static str,
    /// Redacted and cut.
    pub text: String,
}

fn shown(row: LogRow) -> JobLogLine {
    JobLogLine {
        seq: row.seq,
        at: row.at,
        attempt: row.attempt,
        level: row.level,
        text: row.text,
    }
}

fn lost(fence: &Fence<'_>) -> Error {
    Error::LostLease {
        id: fence.id,
        worker: fence.worker.to_owned(),
        attempt: fence.attempt,
    }
}

/// Refuses a signal name that is empty or longer than [`MAX_SIGNAL_NAME_BYTES`].
pub(crate) fn check_signal_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_SIGNAL_NAME_BYTES {
        return Err(Error::invalid_argument(
            "name",
            format!(
                "a signal's name is 1 to {MAX_SIGNAL_NAME_BYTES} bytes; {:?} is {}",
                crate::model::truncate_chars(name, 40),
                name.len()
            ),
        ));
    }
    Ok(())
}
