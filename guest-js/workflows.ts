/**
 * Workflows: a parent job, its pieces, and the jobs that run once every piece has
 * ended, enqueued in one transaction; their state as one (a parent's pieces by
 * status and one progress figure); what a job waits for; cancel and (`jobs:admin`)
 * retry as one. Follow one to its end with `watchJob(parent)`.
 */
import {
  commands,
  type EnqueueArgs,
  type JobDependencies,
  type Value,
  type WorkflowCancelled,
  type WorkflowIds,
  type WorkflowRetried,
  type WorkflowState,
} from "./bindings";
import { enqueueArgs, unwrap } from "./core";

/** One job of a workflow: its kind, payload and options (no `parent`: the workflow sets it). */
export type Step = { kind: string; payload?: Value; options?: Partial<EnqueueArgs> };

/** What {@link enqueueWorkflow} takes. */
export type WorkflowSteps = {
  /** The parent job, which the workflow is known by. */
  parent: Step;
  /** Its pieces, each a piece of the parent. */
  pieces?: Step[];
  /** Jobs that run once every piece has ended (pieces of the parent too). */
  then?: Step[];
};

function step({ kind, payload = null, options = {} }: Step) {
  return { kind, payload, options: enqueueArgs(options) };
}

/**
 * Enqueues a workflow for the user in one transaction: every step's kind must be in
 * the window's scope, and nothing is written when one is refused.
 *
 * ```ts
 * const ids = await enqueueWorkflow({
 *   parent: { kind: "import", payload: { mailbox: "inbox" } },
 *   pieces: messages.map((id) => ({ kind: "embed", payload: { id } })),
 *   then: [{ kind: "reindex" }],
 * });
 * await watchJob(ids.parent, (percent) => (bar.value = percent ?? 0));
 * ```
 */
export async function enqueueWorkflow(workflow: WorkflowSteps): Promise<WorkflowIds> {
  return unwrap(
    await commands.enqueueWorkflow({
      parent: step(workflow.parent),
      pieces: (workflow.pieces ?? []).map(step),
      then: (workflow.then ?? []).map(step),
    }),
  );
}

/** The workflow under `parent`: pieces by status, progress, outcome; `null` when there is none. */
export async function getWorkflow(parent: number): Promise<WorkflowState | null> {
  return unwrap(await commands.getWorkflow(parent));
}

/** Cancels what has not run of the workflow under `parent`; running jobs are asked to stop. */
export async function cancelWorkflow(parent: number): Promise<WorkflowCancelled> {
  return unwrap(await commands.cancelWorkflow(parent));
}

/**
 * Runs the failed jobs of the workflow under `parent` again, and makes the jobs their
 * failure cancelled wait again (`jobs:admin`).
 */
export async function retryWorkflow(parent: number): Promise<WorkflowRetried> {
  return unwrap(await commands.retryWorkflow(parent));
}

/** What a job waits for and what waits for it; `null` when there is no such job. */
export async function jobDependencies(id: number): Promise<JobDependencies | null> {
  return unwrap(await commands.jobDependencies(id));
}
