/**
 * The tabs that are one table each, read again whole: jobs per kind and status (with
 * Pause and Resume of a kind), schedules (Run now, Pause, Resume), sync targets
 * (Refresh) and this process's local jobs (Cancel).
 */
import type { JobStatus, KindCount } from "../bindings";
import {
  cancel,
  jobCounts,
  listLocalJobs,
  listSchedules,
  pausedKinds,
  pauseKind,
  pauseSchedule,
  resumeKind,
  resumeSchedule,
  runScheduleNow,
  syncNow,
  syncStatus,
} from "../index";
import { STATUSES } from "./data";
import type { JobsTab } from "./jobs";
import { NO_HANDLER, duration, h, progressCell, time, waitingText } from "./render";
import type { Shell } from "./types";

/** Sets up the table tabs (drawn when read); a schedule's last job opens in the Jobs tab. */
export function mountTables(shell: Shell, jobs: Pick<JobsTab, "select" | "suggestKinds">) {
  const { state, panels, failed, act, show } = shell;
  const { select, suggestKinds } = jobs;

  // ----- counts -----
  const countsPanel = panels.get("counts")!;
  async function loadCounts() {
    const [counts, paused] = await Promise.all([jobCounts(), pausedKinds()]);
    if (state.destroyed) return;
    state.paused = new Set(paused);
    const kinds = new Map<string, Map<JobStatus, number>>();
    const unhandled = new Set<string>();
    const limited = new Map<string, number>();
    const waiting = new Map<string, string>();
    for (const { kind, status, count, handlerMissing, rateLimitedUntil, waitingFor, heldBecause } of counts as KindCount[]) {
      if (!kinds.has(kind)) kinds.set(kind, new Map());
      kinds.get(kind)!.set(status, count);
      if (handlerMissing) unhandled.add(kind);
      if (rateLimitedUntil != null) limited.set(kind, rateLimitedUntil);
      const why = waitingText(waitingFor);
      if (why != null) waiting.set(kind, heldBecause ? `${why} (${heldBecause})` : why);
    }
    for (const kind of paused) if (!kinds.has(kind)) kinds.set(kind, new Map());
    suggestKinds(kinds.keys());
    const rows = [...kinds.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([kind, byStatus]) => {
      const isPaused = state.paused.has(kind);
      const cells = STATUSES.map((s) => h("td", { class: "num", "data-status": s }, String(byStatus.get(s) ?? 0)));
      const action = state.admin
        ? h(
            "button",
            {
              "data-action": isPaused ? "resume" : "pause",
              onclick: () => act(() => (isPaused ? resumeKind(kind) : pauseKind(kind)), loadCounts),
            },
            isPaused ? "Resume" : "Pause",
          )
        : "";
      const until = limited.get(kind);
      const claims = isPaused
        ? "paused"
        : unhandled.has(kind)
          ? "no handler here"
          : until != null
            ? `rate limited until ${time(until)}`
            : (waiting.get(kind) ?? "");
      return h(
        "tr",
        { "data-kind": kind, title: unhandled.has(kind) ? NO_HANDLER : null },
        h("th", { scope: "row" }, kind),
        ...cells,
        h("td", {}, claims),
        h("td", {}, action),
      );
    });
    countsPanel.replaceChildren(
      h(
        "table",
        { "aria-label": "Jobs per kind and status" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Kind"), ...STATUSES.map((s) => h("th", { scope: "col", class: "num" }, s)), h("th", {}, "Claims"), h("th", {}, ""))),
        h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No jobs yet."))])),
      ),
    );
  }

  // ----- schedules -----
  const schedulesPanel = panels.get("schedules")!;
  async function loadSchedules() {
    const schedules = await listSchedules();
    if (state.destroyed) return;
    const rows = schedules.map((s) => {
      const when = s.cron !== null ? `cron ${s.cron}${s.zone ? ` (${s.zone})` : " (UTC)"}` : `every ${duration(s.intervalMs ?? 0)}`;
      const actions = h("span", { class: "actions" });
      if (state.admin) {
        actions.append(
          h("button", { "data-action": "run", onclick: () => act(() => runScheduleNow(s.name), loadSchedules) }, "Run now"),
          h(
            "button",
            {
              "data-action": s.paused ? "resume" : "pause",
              onclick: () => act(() => (s.paused ? resumeSchedule(s.name) : pauseSchedule(s.name)), loadSchedules),
            },
            s.paused ? "Resume" : "Pause",
          ),
        );
      }
      return h(
        "tr",
        { "data-name": s.name },
        h("th", { scope: "row" }, s.name),
        h("td", {}, s.kind),
        h("td", {}, when),
        h("td", {}, s.paused ? "paused" : time(s.nextRun)),
        h("td", {}, time(s.lastRun)),
        h("td", {}, s.lastJob === null ? "—" : h("button", { onclick: () => openJob(s.lastJob!) }, `#${s.lastJob}`)),
        h("td", {}, actions),
      );
    });
    schedulesPanel.replaceChildren(
      h(
        "table",
        { "aria-label": "Schedules" },
        h("thead", {}, h("tr", {}, ...["Name", "Kind", "When", "Next run", "Last run", "Last job", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No schedules."))])),
      ),
    );
  }

  function openJob(id: number) {
    show("jobs");
    select(id).catch(failed);
  }

  // ----- sync -----
  const syncPanel = panels.get("sync")!;
  async function loadSync() {
    const targets = await syncStatus();
    if (state.destroyed) return;
    const rows = targets.map(({ target, state: s, health }) => {
      const waits: string[] = [];
      if (s.throttledUntil) waits.push(`throttled until ${time(s.throttledUntil)}`);
      if (s.consecutiveFailures) waits.push(`${s.consecutiveFailures} failure(s), next try ${time(s.nextDue)}`);
      return h(
        "tr",
        { "data-target": target },
        h("th", { scope: "row" }, target),
        h("td", { class: `health-${health.status}` }, health.status, health.reason ? h("div", { class: "muted" }, health.reason) : null),
        h("td", {}, time(s.lastSuccess)),
        h("td", {}, s.nextDue ? time(s.nextDue) : "—"),
        h("td", {}, waits.join("; ") || "—", s.lastError ? h("div", { class: "muted" }, s.lastError) : null),
        h("td", {}, h("button", { "data-action": "refresh", onclick: () => act(() => syncNow(target), loadSync) }, "Refresh")),
      );
    });
    syncPanel.replaceChildren(
      h(
        "table",
        { "aria-label": "Sync targets" },
        h("thead", {}, h("tr", {}, ...["Target", "Health", "Last success", "Next due", "Backoff / throttle", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No sync targets."))])),
      ),
    );
  }

  // ----- local jobs -----
  const localPanel = panels.get("local")!;
  async function loadLocal() {
    const jobs = await listLocalJobs();
    if (state.destroyed) return;
    const rows = jobs
      .slice()
      .reverse()
      .map((job) =>
        h(
          "tr",
          { "data-id": job.id },
          h("th", { scope: "row" }, job.id),
          h("td", {}, job.kind),
          h("td", { class: `status status-${job.status}` }, job.status),
          h("td", {}, progressCell(job.done || job.total ? { done: job.done, total: job.total } : null)),
          h("td", {}, time(job.startedAt)),
          h("td", {}, job.error ?? ""),
          h(
            "td",
            {},
            job.status === "running" && state.admin
              ? h("button", { "data-action": "cancel", onclick: () => act(() => cancel(job.id), loadLocal) }, "Cancel")
              : "",
          ),
        ),
      );
    localPanel.replaceChildren(
      h(
        "table",
        { "aria-label": "Local jobs of this process" },
        h("thead", {}, h("tr", {}, ...["Job", "Kind", "Status", "Progress", "Started", "Error", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No local jobs in this process."))])),
      ),
    );
  }

  return { loadCounts, loadSchedules, loadSync, loadLocal };
}

/** The table tabs, as {@link mountTables} returns them. */
export type Tables = ReturnType<typeof mountTables>;
