/**
 * What the inspector's tests share: a job record, a plugin behind mocked IPC with the
 * jobs in it, and waits for the drawn page. Not part of the package.
 */
import { mockIPC } from "@tauri-apps/api/mocks";

import type { Job, JobStatus } from "./bindings";
import { mountInspector } from "./inspector";
import { subscribed, subscription } from "./test-plugin";

export type Call = { cmd: string; args: any };

export function job(id: number, fields: Partial<Job> = {}): Job {
  return {
    id,
    kind: "ingest",
    payload: { batch: id },
    status: "queued",
    priority: 50,
    runAt: 1,
    attempts: 0,
    maxAttempts: 5,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    dedupeKey: null,
    lastError: null,
    errors: [],
    result: null,
    parent: null,
    actor: "user",
    createdAt: 1,
    updatedAt: 1,
    finishedAt: null,
    startedAt: null,
    timeoutMs: null,
    maxOfflineMs: null,
    snoozedUntil: null,
    heldBecause: null,
    progress: null,
    unreadable: null,
    payloadVersion: 1,
    handlerMissing: false,
    rateLimitedUntil: null,
    ...fields,
  } as Job;
}


/** A plugin with `jobs` in it; `admin` says whether the window may use admin commands. */
export function backend(jobs: Job[], admin: boolean): Call[] {
  const calls: Call[] = [];
  mockIPC(
    (cmd, args: any) => {
      if (subscription(cmd, args)) return subscribed.id;
      calls.push({ cmd, args });
      switch (cmd) {
        case "plugin:jobs|retry_job":
          if (!admin) throw "jobs.retry_job not allowed. Permissions associated with this command: jobs:allow-retry-job";
          if (args.id === 0) throw { code: "notFound", message: "no job 0" };
          jobs.find((j) => j.id === args.id)!.status = "queued";
          return "requeued";
        case "plugin:jobs|list_jobs": {
          const f = args.filter;
          return jobs
            .filter((j) => (f.status === null || j.status === f.status) && (f.kind === null || j.kind === f.kind))
            .filter((j) => (f.parent === null || j.parent === f.parent) && (f.actor === null || j.actor === f.actor))
            .filter((j) => f.before === null || j.id < f.before)
            .sort((a, b) => b.id - a.id)
            .slice(0, f.limit ?? 50);
        }
        case "plugin:jobs|get_job":
          return jobs.find((j) => j.id === args.id) ?? null;
        case "plugin:jobs|get_job_logs":
          return jobs.some((j) => j.id === args.id)
            ? [{ seq: 1, at: 1_000, attempt: 1, level: "info", text: "drafted, waiting" }]
            : null;
        case "plugin:jobs|signal_job":
          return { woke: true, alreadySent: false };
        case "plugin:jobs|get_workflow": {
          const pieces = jobs.filter((j) => j.parent === args.parent);
          const counts: [JobStatus, number][] = [];
          for (const piece of pieces) {
            const found = counts.find(([status]) => status === piece.status);
            if (found) found[1] += 1;
            else counts.push([piece.status, 1]);
          }
          const done = pieces.filter((j) => ["succeeded", "failed", "cancelled"].includes(j.status)).length;
          const failed = pieces.some((j) => j.status === "failed" || j.status === "cancelled");
          return { parent: args.parent, status: "succeeded", pieces: counts, progress: { done, total: pieces.length },
            ended: done === pieces.length, failed };
        }
        case "plugin:jobs|job_dependencies": {
          // As the plugin answers: a reindex waited for the embeds; once freed to run
          // (here: once it has run) its rows are gone, and it only says it waited.
          const freed = (j: Job) => j.status === "running" || j.status === "succeeded";
          const asked = jobs.find((j) => j.id === args.id);
          const waited = asked?.kind === "reindex";
          const waitsFor = waited && !freed(asked) ? jobs.filter((j) => j.kind === "embed").map((j) => j.id) : [];
          const waitedBy = asked?.kind === "embed" ? jobs.filter((j) => j.kind === "reindex" && !freed(j)).map((j) => j.id) : [];
          return { id: args.id, waited, waitsFor, waitsForTotal: waitsFor.length, waitedBy, waitedByTotal: waitedBy.length };
        }
        case "plugin:jobs|retry_workflow":
          if (!admin) throw "jobs.retry_workflow not allowed";
          for (const j of jobs) if (j.parent === args.parent && j.status !== "succeeded") j.status = "queued";
          return { requeued: 1, waitingAgain: 1 };
        case "plugin:jobs|job_counts":
          return [{ kind: "ingest", status: "queued", count: jobs.length }];
        case "plugin:jobs|paused_kinds":
          return [];
        case "plugin:jobs|job_history": {
          // Two minutes of "ingest" ending 10 min before now, by the test's own clock.
          const at = Math.floor(Date.now() / 60_000) * 60_000 - 600_000;
          const point = (at: number, succeeded: number, failed: number) => ({
            at, spanMs: 60_000, succeeded, failed, cancelled: 0, retries: failed, offline: failed * 4, throttled: failed > 0 ? 1 : 0,
            waitP50Ms: 3, waitP95Ms: 7, runP50Ms: 120, runP95Ms: 1400 + failed,
          });
          if (args.span === "lastDay") return [{ kind: "ingest", points: [{ ...point(Math.floor(at / 3_600_000) * 3_600_000, 7, 3), spanMs: 3_600_000 }] }];
          return [{ kind: "ingest", points: [point(at, 4, 0), point(at + 60_000, 3, 3)] }];
        }
        case "plugin:jobs|sync_history":
          return [{ target: "gh/me/notes", points: [{ at: Math.floor(Date.now() / 60_000) * 60_000, spanMs: 60_000, updated: 1,
            notModified: 2, failed: 1, offline: 0, throttled: 0, changed: 9, tookP50Ms: 80, tookP95Ms: 250 }] }];
        case "plugin:jobs|list_schedules":
          return [
            { name: "digest", kind: "mail", payload: null, priority: 50, dedupeKey: null, actor: "system", intervalMs: null,
              cron: "0 8 * * *", zone: "Europe/Berlin", nextRun: 10, paused: false, lastRun: null, lastJob: 1, createdAt: 1, updatedAt: 1 },
          ];
        case "plugin:jobs|sync_status":
          return [{ target: "gh/me/notes", state: { lastSuccess: 5, consecutiveFailures: 2, nextDue: 9, throttledUntil: null },
            health: { status: "warning", reason: "2 failures" } }];
        case "plugin:jobs|plugin_health":
          return [
            { component: "config", health: { status: "error", reason: "config.toml: jobs.rate_limit: unknown key: did you mean `rate_limits`?" } },
            { component: "conditions", health: { status: "healthy", reason: null } },
            { component: "awake", health: { status: "healthy", reason: "keeping the machine awake for ingest #1" } },
            { component: "quit", health: { status: "healthy", reason: "finishing 2 jobs before quitting: upload 2" } },
          ];
        case "plugin:jobs|list_local_jobs":
          return [{ id: "local-1", kind: "export", status: "running", done: 5, total: 10, cancelRequested: false, error: null,
            startedAt: 1, finishedAt: null, result: null }];
        default:
          return null;
      }
    },
  );
  return calls;
}

export function lastList(calls: Call[]): Call {
  const lists = calls.filter((c) => c.cmd === "plugin:jobs|list_jobs");
  return lists[lists.length - 1];
}


export const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out: ${what}`);
};


/** Mounts a read-only inspector on `jobs` and opens job 1's detail, with its graph. */
export async function graphOf(jobs: Job[]) {
  backend(jobs, false);
  const host = document.createElement("div");
  const inspector = mountInspector(host);
  await inspector.ready;
  const root = host.shadowRoot!;
  (root.querySelector('tr[data-id="1"] button[data-action="open"]') as HTMLElement).click();
  await until(() => !!root.querySelector("#detail-graph svg"), "the graph");
  return { inspector, root };
}
