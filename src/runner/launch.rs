//! Starting a claimed job's handler: its closure and first poll on the runner's
//! thread, inside the runtime's context, then a task only if it has to wait; and
//! interrupting a running handler from outside.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::handler::HandlerFuture;
use super::progress::AttemptProgress;
use super::{Ended, Inner, Interrupt, JobContext, JobError, Runner, RunningJob, Signal};
use crate::awake::AwakeJob;
use crate::locks::lock;
use crate::model::JobId;
use crate::panics::{panic_message, CatchUnwind};
use crate::queue::{Held, JobFailure, Lease, Outcome};
use crate::store::jobs::Start;

impl Runner {
    /// Stops a running handler for `why`; its task then reports the outcome.
    ///
    /// The interrupt is sent before the handler's token is cancelled: a handler that
    /// notices the token and returns has its return lose to the interrupt, so the
    /// outcome is always the interrupt's (`cancelled` for a cancel), never a race.
    pub(super) fn interrupt(&self, id: JobId, why: Interrupt) {
        if let Some(job) = lock(&self.inner.running).get_mut(&id) {
            if let Some(interrupt) = job.interrupt.take() {
                let _ = interrupt.send(why);
            }
            job.token.cancel();
        }
    }

    /// Spawns the handler of a claimed job as one task that also catches its panic
    /// and listens for interrupts. A handler that returns in its first poll is not
    /// spawned, nor counted in `running`: its outcome is returned, for the caller to
    /// write.
    ///
    /// Only the thread that launches handlers acts on interrupts (the runner's, or
    /// the one calling `dispatch` and `finish_pending`), so none can come for a job
    /// during its first poll, before it is in `running`.
    #[must_use]
    pub(super) fn launch(
        &self,
        runtime: &Handle,
        job: Start,
        lease: Lease,
        held: Held,
    ) -> Option<Ended> {
        let Some(handler) = self.inner.handlers.get(&job.kind) else {
            // A claim names only our kinds; never panic over it all the same.
            tracing::error!(kind = %job.kind, "claimed a job with no handler");
            return None;
        };
        let job_id = job.id;
        let token = CancellationToken::new();
        let (interrupt_tx, interrupt_rx) = oneshot::channel();
        let progress = Arc::new(AttemptProgress::new(
            job.id,
            job.kind.clone(),
            lease.attempt,
            self.inner.queue.bus().clone(),
            self.inner.queue.clock().clone(),
            self.inner.wake.clone(),
            super::steps::Steps::new(
                self.inner.worker.clone(),
                crate::queue::token_from_text(&lease.token),
            ),
        ));
        let ctx = JobContext {
            id: job.id,
            kind: job.kind.clone(),
            attempt: lease.attempt,
            parent: job.parent,
            actor: job.actor,
            cancel: token.clone(),
            progress: Some(progress.clone()),
            queue: self.inner.queue.clone(),
            app: self.inner.app.get().cloned().unwrap_or_default(),
            payload_hash: job.payload_hash,
        };
        // The handler's closure and its future's first poll run here, on this thread,
        // inside the runtime's context (a closure may call `tokio::spawn` before
        // returning its future). A panic in either is a failed attempt, never the end
        // of this thread.
        let _context = runtime.enter();
        // One span per attempt around the handler, its closure included, so an app's
        // subscriber (or `log`) shows which job logged what.
        let span = tracing::info_span!(
            "job",
            id = %job.id,
            kind = %job.kind,
            attempt = lease.attempt,
            worker = %lease.worker,
        );
        let made = {
            let _in_span = span.enter();
            std::panic::catch_unwind(AssertUnwindSafe(|| (handler.run)(job.payload, ctx)))
        };
        let future: HandlerFuture = match made {
            Ok(future) => future,
            Err(panic) => {
                let message = format!("handler panicked: {}", panic_message(&*panic));
                Box::pin(std::future::ready(Err(JobError::retryable(message))))
            }
        };
        let work = CatchUnwind(future);
        let limit = job
            .timeout_ms
            .map(Duration::from_millis)
            .or(handler.timeout);
        let deadline = async move {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let mut task: Pin<Box<dyn Future<Output = Option<Outcome>> + Send>> = Box::pin(
            tracing::Instrument::instrument(
                async move {
                    let mut interrupt_rx = interrupt_rx;
                    let interrupted = |why: Result<Interrupt, _>| match why {
                        Ok(Interrupt::Cancel) => Some(Outcome::Cancelled),
                        Ok(Interrupt::Release) => Some(Outcome::Released),
                        Ok(Interrupt::LostLease) | Err(_) => None,
                    };
                    // Biased, interrupt first: once the runner has interrupted a handler,
                    // what the handler returns at the same moment does not count.
                    tokio::select! {
                        biased;
                        why = &mut interrupt_rx => interrupted(why),
                        joined = work => match interrupt_rx.try_recv() {
                            // The interrupt came between the two polls of this select (the
                            // handler returned because its token was cancelled right after
                            // it): it still wins.
                            Ok(why) => interrupted(Ok(why)),
                            Err(_) => Some(match joined {
                                Ok(Ok(result)) => Outcome::Succeeded(result),
                                Ok(Err(error)) => error.into_outcome(),
                                Err(panic) => Outcome::Failed(JobFailure::retryable(format!("handler panicked: {panic}"))),
                            }),
                        },
                        () = deadline => Some(Outcome::Failed(JobFailure::retryable(format!(
                            "timed out: the attempt ran longer than its limit of {:?}",
                            limit.unwrap_or_default()
                        )))),
                    }
                },
                span,
            ),
        );
        // The first poll: a handler that finishes without waiting costs no thread
        // hand-off at all, which is most of a short job's cost. One that waits is
        // handed to the runtime as it stands; the runtime polls it again at once, so
        // no wake-up is lost to this poll's no-op waker.
        let first = task
            .as_mut()
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        match first {
            Poll::Ready(outcome) => {
                progress.finish();
                Runner::keep_ended_logs(&self.inner, &progress);
                let last = progress.take_last();
                Some(Ended {
                    lease,
                    outcome,
                    known: Some((held, last)),
                })
            }
            Poll::Pending => {
                lock(&self.inner.running).insert(
                    job_id,
                    RunningJob {
                        lease: lease.clone(),
                        held,
                        // The lease was granted at the claim.
                        renewed_at: held.started_at,
                        token,
                        interrupt: Some(interrupt_tx),
                        progress: progress.clone(),
                    },
                );
                // A job that waits keeps the machine awake while it runs, if its kind
                // asks: the guard goes with its task, however that ends.
                let awake = self.inner.awake.as_ref().and_then(|(awake, kinds)| {
                    let reason = kinds.get(&lease.kind)?;
                    Some(awake.hold(AwakeJob::durable(&lease.kind, job_id), reason.clone()))
                });
                let inner = self.inner.clone();
                crate::tasks::spawn_on(runtime, async move {
                    let outcome = task.await;
                    drop(awake);
                    progress.finish();
                    Runner::keep_ended_logs(&inner, &progress);
                    inner.done(lease, outcome);
                });
                None
            }
        }
    }
}

impl Inner {
    /// Hands a handler's outcome to whoever writes it: the thread, or drain/stop. A
    /// closed inbox means the runner is gone and the lease will simply run out.
    fn done(&self, lease: Lease, outcome: Option<Outcome>) {
        let _ = self.signals.send(Signal::Done(lease, outcome));
        self.done_ready.notify_one();
    }
}
