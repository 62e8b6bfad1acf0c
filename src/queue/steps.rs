//! Long work in steps: the steps a job's attempts recorded, a step recorded by the
//! attempt that holds the lease, and the results a job that waited for others reads.
//!
//! A step is recorded in one commit of its own, fenced by the attempt's lease as every
//! write of an attempt is: a stale attempt (its lease run out, the job claimed again)
//! records nothing, and nothing overwrites a step once recorded. Handlers use
//! [`JobContext::step`](crate::runner::JobContext::step); a worker of its own
//! (an agent) calls [`Queue::record_step`] and reads [`Queue::step_outputs`].

use std::collections::HashMap;

use serde_json::Value;

use super::lease::fence_of;
use super::{Lease, Queue};
use crate::bus::JobStepChanged;
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::model::{Input, JobId, JobStatus, JobStep};
use crate::store::jobs::steps::{self, InputRow, Recorded, StepRow};
use crate::store::jobs::Fence;

/// A step's recorded output, as a later attempt reads it back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StepOutput {
    /// What the step returned (JSON); `Null` for a sleep.
    pub output: Value,
    /// A durable sleep's end.
    pub sleep_until: Option<Timestamp>,
    /// The attempt that recorded it.
    pub attempt: u32,
}

impl Queue {
    /// The steps job `id` has recorded, in the order they finished (names, attempts,
    /// times; not what they returned).
    pub fn steps(&self, id: JobId) -> Result<Vec<JobStep>> {
        let rows = self.db().read(|conn| steps::of_job(conn, id))?;
        Ok(rows.into_iter().map(shown).collect())
    }

    /// What each step of job `id` returned, by name: what an attempt reads back
    /// instead of running a step again.
    pub fn step_outputs(&self, id: JobId) -> Result<HashMap<String, StepOutput>> {
        let rows = self.db().read(|conn| steps::of_job(conn, id))?;
        rows.into_iter()
            .map(|row| {
                let output = match &row.output {
                    Some(text) => serde_json::from_str(text).map_err(|e| Error::StoredJson {
                        id,
                        column: "job_steps.output",
                        reason: e.to_string(),
                    })?,
                    None => Value::Null,
                };
                let step = StepOutput {
                    output,
                    sleep_until: row.sleep_until,
                    attempt: row.attempt,
                };
                Ok((row.name, step))
            })
            .collect()
    }

    /// Records step `name` of the attempt `lease` holds, which began at `started_at`
    /// and returned `output` (bounded as a result is: the queue's largest payload).
    /// One commit, fenced by the lease: `Error::LostLease` when the attempt no longer
    /// holds it (nothing is written), and a step already recorded under the name is
    /// never overwritten (`Error::InvalidArgument`, naming it).
    pub fn record_step(
        &self,
        lease: &Lease,
        name: &str,
        output: &Value,
        started_at: Timestamp,
    ) -> Result<()> {
        self.record_step_of(
            &fence_of(lease),
            &lease.kind,
            name,
            output,
            started_at,
            None,
        )
    }

    /// [`record_step`](Queue::record_step) for the attempt `fence` names (a runner's
    /// handler: no lease copied per job).
    pub(crate) fn record_step_of(
        &self,
        fence: &Fence<'_>,
        kind: &str,
        name: &str,
        output: &Value,
        started_at: Timestamp,
        seq: Option<u64>,
    ) -> Result<()> {
        let text = output.to_string();
        let limit = self.db().kinds().max_payload_bytes;
        if text.len() > limit {
            return Err(Error::invalid_argument(
                "step",
                format!(
                    "step {name:?} returned {} bytes of JSON, more than the limit of {limit}",
                    text.len()
                ),
            ));
        }
        self.record(fence, kind, name, Some(text), None, started_at, seq)
    }

    /// Records the durable sleep `name` of the attempt `lease` holds, ending at
    /// `until`; fenced as [`record_step`](Queue::record_step).
    pub(crate) fn record_sleep(
        &self,
        fence: &Fence<'_>,
        kind: &str,
        name: &str,
        until: Timestamp,
        started_at: Timestamp,
        seq: Option<u64>,
    ) -> Result<()> {
        self.record(fence, kind, name, None, Some(until), started_at, seq)
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        fence: &Fence<'_>,
        kind: &str,
        name: &str,
        output: Option<String>,
        sleep_until: Option<Timestamp>,
        started_at: Timestamp,
        seq: Option<u64>,
    ) -> Result<()> {
        check_step_name(name)?;
        let db = self.db();
        let now = db.now();
        let row = StepRow {
            name: name.to_owned(),
            attempt: fence.attempt,
            started_at,
            finished_at: now,
            output,
            sleep_until,
            seq,
        };
        let recorded = db.store().write(|tx| steps::record(tx, fence, &row))?;
        match recorded {
            Recorded::Done => {
                db.bus().publish(JobStepChanged {
                    id: fence.id,
                    kind: kind.to_owned(),
                    attempt: fence.attempt,
                    name: row.name,
                    started_at,
                    finished_at: Some(now),
                    sleep_until,
                });
                Ok(())
            }
            Recorded::LostLease => Err(Error::LostLease {
                id: fence.id,
                worker: fence.worker.to_owned(),
                attempt: fence.attempt,
            }),
            Recorded::AlreadyThere => Err(Error::invalid_argument(
                "step",
                format!("step {name:?} of job {} is recorded already", fence.id),
            )),
        }
    }

    /// How each job job `id` waited for stands, with its result, in the order its
    /// enqueue named them (`after`, then the pieces of `after_pieces_of` by id);
    /// `None` when it waited for none.
    pub fn inputs(&self, id: JobId) -> Result<Option<Vec<Input<Value>>>> {
        let rows = self.db().read(|conn| steps::inputs_of(conn, id))?;
        rows.map(|rows| rows.into_iter().map(input_from).collect())
            .transpose()
    }

    /// How job `id` stands, with its result: [`Input`] of any job, read by id.
    pub fn input(&self, id: JobId) -> Result<Input<Value>> {
        let Some(job) = self.get(id)? else {
            return Ok(Input::Missing { id });
        };
        let result = job.result.map(|value| value.to_string());
        input_from(InputRow {
            id,
            found: Some((job.kind, job.status, result, job.last_error)),
        })
    }
}

/// A step as shown.
pub(super) fn shown(row: StepRow) -> JobStep {
    JobStep {
        name: row.name,
        attempt: row.attempt,
        started_at: row.started_at,
        finished_at: row.finished_at,
        sleep_until: row.sleep_until,
    }
}

fn input_from(row: InputRow) -> Result<Input<Value>> {
    let id = row.id;
    let Some((_, status, result, error)) = row.found else {
        return Ok(Input::Missing { id });
    };
    Ok(match status {
        JobStatus::Succeeded => Input::Succeeded {
            id,
            result: match result {
                Some(text) => serde_json::from_str(&text).map_err(|e| Error::StoredJson {
                    id,
                    column: "result",
                    reason: e.to_string(),
                })?,
                None => Value::Null,
            },
        },
        JobStatus::Failed => Input::Failed { id, error },
        JobStatus::Cancelled => Input::Cancelled { id },
        state => Input::Pending { id, state },
    })
}

/// The longest step name, in bytes.
pub const MAX_STEP_NAME_BYTES: usize = 200;

/// Refuses a step name that is empty or longer than [`MAX_STEP_NAME_BYTES`].
pub(crate) fn check_step_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_STEP_NAME_BYTES {
        return Err(Error::invalid_argument(
            "step",
            format!(
                "a step's name is 1 to {MAX_STEP_NAME_BYTES} bytes; {:?} is {}",
                crate::model::truncate_chars(name, 40),
                name.len()
            ),
        ));
    }
    Ok(())
}
