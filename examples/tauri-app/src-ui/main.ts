// The demo page, written against the plugin's webview API (guest-js) only, plus
// three demo-only commands that flip the loopback feed's switches.
import { invoke } from "@tauri-apps/api/core";

import {
  cancel,
  commands,
  enqueue,
  onJobsEvent,
  onResync,
  spawnLocal,
  syncNow,
  syncStatus,
  watchLocalJob,
  wireNetworkHint,
  type Job,
} from "../../../guest-js/index";

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
  try {
    await syncNow(TARGET);
  } finally {
    $("refresh").removeAttribute("disabled");
    await renderSync();
  }
});

$("bump").addEventListener("click", () => void invoke("bump_feed"));

$<HTMLInputElement>("fail-toggle").addEventListener("change", async (event) => {
  await invoke("set_server_failing", { failing: (event.target as HTMLInputElement).checked });
});

// ===== export =====

let exportId: string | null = null;
let progressEvents = 0;

$("export-start").addEventListener("click", async () => {
  progressEvents = 0;
  $("export-events").textContent = "0";
  $<HTMLProgressElement>("export-progress").value = 0;
  try {
    exportId = await spawnLocal("export", 400);
  } catch (error) {
    setBadge("export-state", String((error as Error).message), "error");
    return;
  }
  setBadge("export-state", "running", "running");
  const done = await watchLocalJob(exportId, (percent) => {
    progressEvents += 1;
    $("export-events").textContent = String(progressEvents);
    if (percent !== null) $<HTMLProgressElement>("export-progress").value = percent;
  });
  setBadge("export-state", done.status, done.status);
  exportId = null;
});

$("export-cancel").addEventListener("click", async () => {
  if (exportId) await cancel(exportId);
});

// ===== durable jobs =====

let batch = 1;

$("enqueue").addEventListener("click", async () => {
  for (let i = 0; i < 3; i++) await enqueue("ingest", { batch: batch++ }, { priority: 50 });
});
$("enqueue-flaky").addEventListener("click", async () => {
  await enqueue("ingest", { batch: batch++, fail_first: 2 }, { priority: 10 });
});
$("enqueue-urgent").addEventListener("click", async () => {
  await enqueue("ingest", { batch: batch++ }, { priority: 100 });
});

function row(job: Job): HTMLTableRowElement {
  const tr = document.createElement("tr");
  tr.dataset.id = String(job.id);
  const cells = [String(job.id), job.kind, String(job.priority), job.status, `${job.attempts}/${job.maxAttempts}`, job.lastError ?? ""];
  cells.forEach((text, index) => {
    const td = document.createElement("td");
    if (index === 3) {
      const badge = document.createElement("span");
      badge.className = `badge ${text}`;
      badge.textContent = text;
      td.append(badge);
    } else {
      td.textContent = text;
    }
    if (index === 5) td.className = "error";
    tr.append(td);
  });
  const actions = document.createElement("td");
  if (job.status === "queued" || job.status === "running") {
    const button = document.createElement("button");
    button.textContent = "Cancel";
    button.addEventListener("click", () => void cancel(job.id));
    actions.append(button);
  }
  tr.append(actions);
  return tr;
}

async function renderJobs() {
  const result = await commands.listJobs({ status: null, kind: null, parent: null, before: null, limit: 12 });
  if (result.status !== "ok") return;
  $("jobs").replaceChildren(...result.data.map(row));
  const schedules = await commands.listSchedules();
  if (schedules.status === "ok" && schedules.data[0]) {
    $("schedule-name").textContent = schedules.data[0].name;
    $("schedule-next").textContent = time(schedules.data[0].nextRun);
  }
}

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
  }, 100);
}

await onJobsEvent((event, dropped) => {
  $("dropped").textContent = String(dropped);
  if (event.type === "jobStateChanged") jobsChanged();
  if (event.type === "pluginHealth" || event.type === "syncProgress" || event.type === "syncFinished") void renderSync();
});
// The plugin dropped state changes while the page was busy: reload what it shows.
await onResync(() => {
  jobsChanged();
  void renderSync();
});

wireNetworkHint();
const info = await invoke<{ failing: boolean }>("server_info");
$<HTMLInputElement>("fail-toggle").checked = info.failing;
await Promise.all([renderSync(), renderJobs()]);
document.body.dataset.ready = "true";
