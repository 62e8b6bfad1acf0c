/**
 * Workflows: a parent job, its pieces, and the jobs that run once every piece has
 * ended, enqueued in one transaction; their state as one (a parent's pieces by
 * status and one progress figure); what a job waits for; cancel and (`jobs:admin`)
 * retry as one. Follow one to its end with `watchJob(parent)`.
 */
import { type EnqueueArgs, type JobDependencies, type WorkflowCancelled, type WorkflowIds, type WorkflowRetried, type WorkflowState } from "./bindings";
import type { JobIdOf, JobKindName, PayloadOf, TypedJob } from "./kinds";
/**
 * One job of a workflow of kind `K`: its payload (which may be left out where the kind
 * takes `null`) and options (no `parent`: the workflow sets it).
 */
export type StepOf<K> = {
    kind: K;
    options?: Partial<EnqueueArgs>;
} & (null extends PayloadOf<K> ? {
    payload?: PayloadOf<K>;
} : {
    payload: PayloadOf<K>;
});
/** One job of a workflow, of any kind; with the app's kinds declared, its payload is checked against its kind's. */
export type Step = {
    [K in JobKindName]: StepOf<K>;
}[JobKindName];
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
export type TypedWorkflowIds<P> = Omit<WorkflowIds, "parent"> & {
    parent: JobIdOf<P>;
};
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
export declare function enqueueWorkflow<P extends JobKindName>(workflow: WorkflowSteps<P>): Promise<TypedWorkflowIds<P>>;
/** The workflow under `parent`: pieces by status, progress, outcome; `null` when there is none. */
export declare function getWorkflow(parent: number): Promise<WorkflowState | null>;
/** Cancels what has not run of the workflow under `parent`; running jobs are asked to stop. */
export declare function cancelWorkflow(parent: number): Promise<WorkflowCancelled>;
/**
 * Runs the failed jobs of the workflow under `parent` again, and makes the jobs their
 * failure cancelled wait again (`jobs:admin`).
 */
export declare function retryWorkflow(parent: number): Promise<WorkflowRetried>;
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
export declare function workflowResults(parent: number): Promise<TypedJob[]>;
/** What a job waits for and what waits for it; `null` when there is no such job. */
export declare function jobDependencies(id: number): Promise<JobDependencies | null>;
