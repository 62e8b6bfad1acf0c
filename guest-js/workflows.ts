/**
 * Workflows: a parent job, its pieces, and the jobs that run once every piece has
 * ended, enqueued in one transaction; their state as one (a parent's pieces by
 * status and one progress figure); what a job waits for; cancel and (`jobs:admin`)
 * retry as one. Follow one to its end with `watchJob(parent)`.
 */
import {
  commands,
  type EnqueueArgs,
  type Job,
  type JobDependencies,
  type Value,
  type WorkflowCancelled,
  type WorkflowIds,
  type WorkflowRetried,
  type WorkflowState,
} from "./bindings";
import { enqueueArgs, jobFilter, unwrap } from "./core";
import type { JobIdOf, JobKindName, PayloadOf, TypedJob } from "./kinds";

/**
 * One job of a workflow of kind `K`: its payload (which may be left out where the kind
 * takes `null`) and options (no `parent`: the workflow sets it).
 */
export type StepOf<K> = { kind: K; options?: Partial<EnqueueArgs> } & (null extends PayloadOf<K>
  ? { payload?: PayloadOf<K> }
  : { payload: PayloadOf<K> });

/** One job of a workflow, of any kind; with the app's kinds declared, its payload is checked against its kind's. */
export type Step = { [K in JobKindName]: StepOf<K> }[JobKindName];

/** What {@link enqueueWorkflow} takes; `P` is the parent's kind. */
export type WorkflowSteps<P extends JobKindName = JobKindName> = {
  /** The parent job, which the workflow is known by. */
  parent: StepOf<P>;
  /** Its pieces, each a piece of the parent. */
  pieces?: Step[];
  /** Jobs that run once every piece has ended (pieces of the parent too). */
  then?: Step[];
};

/** What {@link enqueueWorkflow} resolves with: the parent's id remembers its kind. */
export type TypedWorkflowIds<P> = Omit<WorkflowIds, "parent"> & { parent: JobIdOf<P> };

function step({ kind, payload, options = {} }: Step) {
  return { kind, payload: (payload ?? null) as Value, options: enqueueArgs(options) };
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
export async function enqueueWorkflow<P extends JobKindName>(workflow: WorkflowSteps<P>): Promise<TypedWorkflowIds<P>> {
  return unwrap(
    await commands.enqueueWorkflow({
      parent: step(workflow.parent as Step),
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

/** The most jobs one page of {@link workflowResults} reads. */
const RESULTS_PAGE = 1000;

/**
 * The results of the workflow under `parent`, piece by piece: each of its pieces (and
 * the jobs after them) the window may read, oldest first, with its status, result and
 * last error, typed by kind where the app declares its kinds (narrow on `kind`). Pieces
 * of kinds outside the window's scope are left out, as `listJobs` leaves them; a
 * piece not ended yet has no result. Read in pages of 1,000.
 *
 * ```ts
 * for (const piece of await workflowResults(ids.parent)) {
 *   if (piece.kind === "embed" && piece.status === "succeeded") sizes.push(piece.result);
 * }
 * ```
 */
export async function workflowResults(parent: number): Promise<TypedJob[]> {
  const pieces: TypedJob[] = [];
  let before: number | null = null;
  for (;;) {
    const page: Job[] = unwrap(await commands.listJobs(jobFilter({ parent, before, limit: RESULTS_PAGE })));
    pieces.push(...(page as TypedJob[]));
    if (page.length < RESULTS_PAGE) break;
    before = page[page.length - 1].id;
  }
  return pieces.reverse();
}

/** What a job waits for and what waits for it; `null` when there is no such job. */
export async function jobDependencies(id: number): Promise<JobDependencies | null> {
  return unwrap(await commands.jobDependencies(id));
}
