// The demo page, written against the plugin's webview API (guest-js) only, plus
// demo-only commands that flip the loopback feed's switches and pretend the machine
// is on battery.
import { invoke } from "@tauri-apps/api/core";

import {
  cancel,
  deleteJob,
  enqueue,
  enqueueWorkflow,
  getJob,
  jobCounts,
  listJobs,
  listSchedules,
  onJobsEvent,
  onResync,
  pauseKind,
  pausedKinds,
  pauseSchedule,
  pluginHealth,
  resumeKind,
  resumeSchedule,
  retryJob,
  runLocal,
  runScheduleNow,
  syncNow,
  syncStatus,
  watchJob,
  wireNetworkHint,
  JobsError,
  type Job,
  type ScheduleName,
} from "../../../guest-js/index";
// The demo's own types (specta writes them); the kinds' declarations beside this file
// (src-ui/jobs-kinds.d.ts, which the plugin writes) type every call below.
import type { Ingest } from "./types";
import { defineInspector } from "../../../guest-js/inspector";

const TARGET = "demo/local/feed";
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function time(ms: number | null | undefined): string {
  return ms ? new Date(ms).toLocaleTimeString() : "never";
}

function setBadge(id: string, text: string, kind: string) {
  const badge = $(id);
  badge.textContent = text;
  badge.className = `badge ${kind}`;
}

// ===== sync =====

async function renderSync() {
  const status = (await syncStatus()).find((s) => s.target === TARGET);
  if (!status) return;
  const { state, health } = status;
  setBadge("sync-health", health.reason ? `${health.status}: ${health.reason}` : health.status, health.status);
  $("sync-last").textContent = time(state.lastSuccess);
  $("sync-changed").textContent = String(state.lastChanged);
  $("sync-runs").textContent = String(state.runs);
  const now = Date.now();
  let text = "idle";
  if (state.throttledUntil && state.throttledUntil > now) text = `throttled until ${time(state.throttledUntil)}`;
  else if ((state.consecutiveFailures ?? 0) > 0)
    text = `${state.offline ? "offline" : "backing off"} after ${state.consecutiveFailures} failure(s), next try ${time(state.nextDue)}`;
  else if (state.nextDue) text = `next sync ${time(state.nextDue)}`;
  $("sync-state").textContent = text;
}

$("refresh").addEventListener("click", async () => {
  $("refresh").setAttribute("disabled", "");
  let outcome: Awaited<ReturnType<typeof syncNow>> | null = null;
  try {
    outcome = await syncNow(TARGET);
  } finally {
    $("refresh").removeAttribute("disabled");
    await renderSync();
  }
  // A consumed quota: Refresh does not ask again, and says until when.
  if (outcome?.outcome === "skipped" && outcome.reason === "throttled") {
    $("sync-state").textContent = `the server asked us to wait until ${time(outcome.until)}`;
  }
});

$("bump").addEventListener("click", () => void invoke("bump_feed"));

$<HTMLInputElement>("throttle-toggle").addEventListener("change", async (event) => {
  await invoke("set_server_throttling", { throttling: (event.target as HTMLInputElement).checked });
});

$<HTMLInputElement>("fail-toggle").addEventListener("change", async (event) => {
  await invoke("set_server_failing", { failing: (event.target as HTMLInputElement).checked });
});

// ===== export =====

// One call: the job's id, its progress on a channel of its own, what it returns, and
// Cancel through an AbortSignal.
let exporting: AbortController | null = null;
let progressEvents = 0;

$("export-start").addEventListener("click", async () => {
  progressEvents = 0;
  $("export-events").textContent = "0";
  $("export-result").textContent = "";
  $<HTMLProgressElement>("export-progress").value = 0;
  exporting = new AbortController();
  try {
    const run = await runLocal("export", 400, {
      signal: exporting.signal,
      onProgress: (percent) => {
        progressEvents += 1;
        $("export-events").textContent = String(progressEvents);
        if (percent !== null) $<HTMLProgressElement>("export-progress").value = percent;
      },
    });
    setBadge("export-state", "running", "running");
    $("export-result").textContent = await run.result;
    setBadge("export-state", "succeeded", "succeeded");
  } catch (error) {
    const code = error instanceof JobsError ? error.code : "error";
    setBadge("export-state", code === "cancelled" ? "cancelled" : (error as Error).message, code === "cancelled" ? "cancelled" : "error");
  } finally {
    exporting = null;
  }
});

$("export-cancel").addEventListener("click", () => exporting?.abort());

// ===== durable jobs =====

const KIND = "ingest";
let batch = 1;
// The latest percent each job reported, from its progress events; a row drawn again
// starts from here (or from what the job stored, for a window opened mid-job).
const percents = new Map<number, number>();

async function enqueueBatch(payload: Partial<Ingest>, options: Parameters<typeof enqueue>[2]) {
  const { id } = await enqueue(KIND, { batch: batch++, ...payload }, options);
  document.body.dataset.lastJob = String(id);
}

$("enqueue").addEventListener("click", async () => {
  for (let i = 0; i < 3; i++) await enqueueBatch({}, { priority: 50 });
});
$("enqueue-flaky").addEventListener("click", () => void enqueueBatch({ fail_first: 2 }, { priority: 10 }));
$("enqueue-urgent").addEventListener("click", () => void enqueueBatch({}, { priority: 100 }));
// One attempt only: it fails, and waits for someone to press Retry.
$("enqueue-fails-once").addEventListener("click", () => void enqueueBatch({ fail_first: 1 }, { priority: 60, maxAttempts: 1 }));

function button(label: string, action: () => Promise<unknown>): HTMLButtonElement {
  const element = document.createElement("button");
  element.textContent = label;
  element.dataset.action = label.toLowerCase();
  element.addEventListener("click", () => {
    element.disabled = true;
    action().catch((error: Error) => setBadge("jobs-error", error.message, "error"));
  });
  return element;
}

/** "retries in 4 s" for a job waiting out its backoff, else its last error. */
function note(job: Job, now: number): string {
  if (job.status === "queued" && job.attempts > 0 && job.runAt > now) {
    return `retries in ${Math.ceil((job.runAt - now) / 1000)} s · ${job.lastError ?? ""}`;
  }
  return job.lastError ?? "";
}

function row(job: Job, now: number): HTMLTableRowElement {
  const tr = document.createElement("tr");
  tr.dataset.id = String(job.id);
  tr.dataset.status = job.status;
  const cell = (content: string | Node, className?: string) => {
    const td = document.createElement("td");
    td.append(content);
    if (className) td.className = className;
    tr.append(td);
    return td;
  };
  cell(String(job.id));
  cell(String(job.priority));
  const badge = document.createElement("span");
  badge.className = `badge ${job.status}`;
  badge.textContent = job.status;
  cell(badge);
  const bar = document.createElement("progress");
  bar.max = 100;
  const stored = job.progress?.total ? Math.floor((Math.min(job.progress.done, job.progress.total) * 100) / job.progress.total) : 0;
  bar.value = Math.max(percents.get(job.id) ?? 0, stored);
  cell(bar, "bar");
  cell(`${job.attempts}/${job.maxAttempts}`);
  const text = cell(note(job, now), "error");
  if (job.status === "queued" && job.attempts > 0 && job.runAt > now) {
    text.dataset.retryAt = String(job.runAt);
    text.dataset.error = job.lastError ?? "";
  }
  const actions = cell("", "actions");
  const waiting = job.status === "queued" && job.runAt > now;
  if (job.status === "failed" || waiting) actions.append(button("Retry", () => retryJob(job.id)));
  if (job.status === "queued" || job.status === "running") actions.append(button("Cancel", () => cancel(job.id)));
  if (job.status === "succeeded" || job.status === "failed" || job.status === "cancelled") {
    actions.append(button("Delete", () => deleteJob(job.id)));
  }
  return tr;
}

async function renderJobs() {
  const now = Date.now();
  const [jobs, counts, paused] = await Promise.all([listJobs({ kind: KIND, limit: 12 }), jobCounts(), pausedKinds()]);
  $("jobs").replaceChildren(...jobs.map((job) => row(job, now)));
  const totals = new Map<string, number>();
  for (const count of counts.filter((c) => c.kind === KIND)) totals.set(count.status, (totals.get(count.status) ?? 0) + count.count);
  for (const status of ["queued", "running", "succeeded", "failed", "cancelled"]) {
    $(`count-${status}`).textContent = String(totals.get(status) ?? 0);
  }
  const isPaused = paused.includes(KIND);
  $("kind-pause").textContent = isPaused ? `Resume ${KIND}` : `Pause ${KIND}`;
  setBadge("kind-state", isPaused ? "paused" : "running", isPaused ? "warning" : "healthy");
  tickRetries();
}

$("kind-pause").addEventListener("click", async () => {
  if ((await pausedKinds()).includes(KIND)) await resumeKind(KIND);
  else await pauseKind(KIND);
});

// "retries in N s" counts down on the page itself, with no call to the plugin, and
// only while some job waits out a backoff.
let retryTimer: ReturnType<typeof setTimeout> | null = null;
function tickRetries() {
  if (retryTimer !== null) return;
  const cells = Array.from(document.querySelectorAll<HTMLElement>("[data-retry-at]"));
  if (cells.length === 0) return;
  const now = Date.now();
  for (const cell of cells) {
    const left = Math.max(0, Math.ceil((Number(cell.dataset.retryAt) - now) / 1000));
    cell.textContent = `retries in ${left} s · ${cell.dataset.error ?? ""}`;
  }
  retryTimer = setTimeout(() => {
    retryTimer = null;
    tickRetries();
  }, 1000);
}

// ===== a job that needs a charger =====

let reembedJob: number | null = null;
async function renderReembed() {
  if (reembedJob === null) return;
  const job = await getJob(reembedJob);
  if (!job) return;
  // Why it waits comes from the plugin: the machine does not meet what the kind needs.
  const waiting = (job.waitingFor ?? []).some((w) => w.condition === "acPower");
  $("reembed-state").textContent = waiting ? `${job.status} · waiting for a charger` : job.status;
  $("reembed-state").dataset.status = job.status;
}
$("reembed").addEventListener("click", async () => {
  reembedJob = (await enqueue("reembed", "inbox")).id;
  await renderReembed();
});
$<HTMLInputElement>("battery-toggle").addEventListener("change", async (event) => {
  await invoke("set_pretend_on_battery", { onBattery: (event.target as HTMLInputElement).checked });
  await renderReembed();
});

// ===== a workflow: one bar for the whole import =====

const MESSAGES = 12;
$("import-start").addEventListener("click", async () => {
  const start = $<HTMLButtonElement>("import-start");
  start.disabled = true;
  $<HTMLProgressElement>("import-progress").value = 0;
  $("import-result").textContent = "";
  setBadge("import-state", "running", "running");
  try {
    // The import, a piece per message and the rebuild after them: one transaction.
    const ids = await enqueueWorkflow({
      parent: { kind: "import-mailbox", payload: "inbox" },
      pieces: Array.from({ length: MESSAGES }, (_, n) => ({ kind: "embed-message", payload: n })),
      then: [{ kind: "rebuild-index", payload: null }],
    });
    // Watching the parent follows the whole workflow: the bar counts every piece.
    const result = await watchJob(ids.parent, (percent, done, total) => {
      $<HTMLProgressElement>("import-progress").value = percent ?? 0;
      $("import-done").textContent = String(done);
      $("import-total").textContent = String(total ?? 0);
    });
    const index = await getJob(ids.then[0]);
    $("import-result").textContent = `${result}, ${index?.result ?? "no index"}`;
    setBadge("import-state", "succeeded", "succeeded");
  } catch (error) {
    setBadge("import-state", error instanceof JobsError ? error.code : "failed", "failed");
    $("import-result").textContent = String(error instanceof Error ? error.message : error);
  } finally {
    start.disabled = false;
  }
});

// ===== schedule =====

let shownSchedule: ScheduleName | null = null;

async function renderSchedule() {
  const schedule = (await listSchedules())[0];
  if (!schedule) return;
  shownSchedule = schedule.name;
  $("schedule-name").textContent = schedule.name;
  $("schedule-next").textContent = schedule.paused ? "paused" : time(schedule.nextRun);
  // Times on the page are the machine's local time; the zone is the schedule's.
  const zone = schedule.zone === "local" ? `local, ${Intl.DateTimeFormat().resolvedOptions().timeZone}` : (schedule.zone ?? "UTC");
  $("schedule-zone").textContent = `${schedule.cron ?? `every ${(schedule.intervalMs ?? 0) / 1000} s`} (${zone})`;
  $("schedule-last").textContent = time(schedule.lastRun);
  $("schedule-pause").textContent = schedule.paused ? "Resume" : "Pause";
  $("schedule-pause").dataset.paused = String(schedule.paused);
}

$("schedule-run").addEventListener("click", async () => {
  if (shownSchedule === null) return;
  const { id } = await runScheduleNow(shownSchedule);
  document.body.dataset.lastJob = String(id);
});
$("schedule-pause").addEventListener("click", async () => {
  const name = $("schedule-name").textContent ?? "";
  if ($("schedule-pause").dataset.paused === "true") await resumeSchedule(name);
  else await pauseSchedule(name);
});

// ===== events =====

// Everything on the page follows the plugin's events; nothing polls. A burst of job
// changes is drawn once, on the next timer tick after the first of them.
let jobsPending = false;
function jobsChanged() {
  if (jobsPending) return;
  jobsPending = true;
  setTimeout(() => {
    jobsPending = false;
    void renderJobs();
    void renderReembed();
  }, 100);
}

await onJobsEvent((event, dropped) => {
  $("dropped").textContent = String(dropped);
  if (event.type === "jobStateChanged" || event.type === "jobDeleted" || event.type === "kindPaused") jobsChanged();
  if (event.type === "jobStateChanged" && event.to === "running") percents.delete(event.id);
  if (event.type === "jobProgress" && event.percent !== null) {
    // Straight onto the row's bar: no reload for a progress event.
    percents.set(event.id, event.percent);
    // The row is found by comparing its id: data never becomes a selector.
    const row = Array.from(document.querySelectorAll<HTMLElement>("#jobs tr")).find((tr) => tr.dataset.id === String(event.id));
    const bar = row?.querySelector<HTMLProgressElement>("progress");
    if (bar) bar.value = event.percent;
  }
  if (event.type === "scheduleChanged") void renderSchedule();
  // The feed's source says each item it stored (SyncContext::message).
  if (event.type === "messageStored") $("messages-stored").textContent = String(Number($("messages-stored").textContent) + 1);
  if (event.type === "pluginHealth" || event.type === "syncProgress" || event.type === "syncFinished") void renderSync();
});
// The plugin dropped state changes while the page was busy: reload what it shows.
await onResync(() => {
  jobsChanged();
  void renderSync();
  void renderSchedule();
});

// The inspector: registered once, drawn when first opened (its first render is timed
// from there; the e2e run prints it).
defineInspector();
$("open-inspector").addEventListener("click", () => {
  const panel = $("inspector-panel");
  panel.classList.remove("hidden");
  if (!panel.querySelector("jobs-inspector")) panel.append(document.createElement("jobs-inspector"));
  panel.scrollIntoView();
});

// What is wrong with the plugin itself (a config.toml it refused, a damaged raw.db),
// in words, above everything else.
async function renderHealth() {
  const wrong = (await pluginHealth()).filter((c) => c.health.status !== "healthy" && c.component !== "conditions");
  const banner = $("plugin-health");
  banner.textContent = wrong.map((c) => `${c.component}: ${c.health.reason ?? c.health.status}`).join("\n");
  banner.classList.toggle("hidden", wrong.length === 0);
}

wireNetworkHint();
const info = await invoke<{ failing: boolean }>("server_info");
await renderHealth();
$<HTMLInputElement>("fail-toggle").checked = info.failing;
await Promise.all([renderSync(), renderJobs(), renderSchedule()]);
document.body.dataset.ready = "true";
