import { invoke } from "@tauri-apps/api/core";

let greetInputEl: HTMLInputElement | null;
let greetMsgEl: HTMLElement | null;

async function greet() {
  if (greetMsgEl && greetInputEl) {
    // Learn more about Tauri commands at https://tauri.app/develop/calling-rust/
    greetMsgEl.textContent = await invoke("greet", {
      name: greetInputEl.value,
    });
  }
}

window.addEventListener("DOMContentLoaded", () => {
  greetInputEl = document.querySelector("#greet-input");
  greetMsgEl = document.querySelector("#greet-msg");
  document.querySelector("#greet-form")?.addEventListener("submit", (e) => {
    e.preventDefault();
    greet();
  });
});

// The app's own database, through the official SQL plugin, beside the jobs plugin.
import Database from "@tauri-apps/plugin-sql";

async function checkSql() {
  const db = await Database.load("sqlite:quickstart.db");
  const [row] = await db.select<{ answer: number }[]>("SELECT 40 + 2 AS answer");
  document.querySelector("#sql-answer")!.textContent = String(row.answer);
}
window.addEventListener("DOMContentLoaded", () => void checkSql());

import { enqueueAndWait, runLocal, syncNow, onJobState, JobsError } from "tauri-plugin-jobs-api";

// What the jobs did, under the greeting (<pre id="jobs-log"> in index.html).
const jobsLog = (line: string) => document.querySelector("#jobs-log")?.append(`${line}\n`);

async function tryJobs() {
  // Every state change of a job this window may read.
  await onJobState((change) => jobsLog(`job ${change.id} ${change.kind}: ${change.to}`));

  // A durable job, awaited: resolves with what the handler returned.
  const thumbnail = await enqueueAndWait("thumbnail", { path: "a.png", width: 256 });
  jobsLog(`thumbnail: ${thumbnail}`);

  // A job that fails rejects with a JobsError: a closed set of codes, and a message.
  try {
    await enqueueAndWait("thumbnail", { path: "b.png", width: 0 });
  } catch (error) {
    if (!(error instanceof JobsError)) throw error;
    jobsLog(`${error.code}: ${error.message}`);
  }

  // A process-local job with a progress bar: the id at once, the result at the end.
  const bar = document.querySelector<HTMLProgressElement>("#jobs-progress")!;
  const run = await runLocal("export", 5000, {
    onProgress: (percent) => (bar.value = percent ?? 0),
  });
  jobsLog(`export ${run.id}: ${await run.result} rows`);

  // Refresh. The target synced once at start, so this answers notModified.
  const outcome = await syncNow("github/me/notifications");
  jobsLog(`refresh: ${outcome.outcome}`);
}

window.addEventListener("DOMContentLoaded", () => {
  tryJobs().then(
    () => jobsLog("done"),
    (error) => jobsLog(`failed: ${error}`),
  );
});

import { defineInspector } from "tauri-plugin-jobs-api/inspector";
defineInspector();  // registers <jobs-inspector>
document.body.append(document.createElement("jobs-inspector"));  // or <jobs-inspector></jobs-inspector> in HTML
