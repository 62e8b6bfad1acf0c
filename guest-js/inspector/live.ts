/**
 * Keeps the inspector live: one listener on the plugin's events reloads the view shown
 * when what it shows changes (at most every 100 or 250 ms, the charts every second),
 * moves progress bars in place, and reads the view shown again after the stream
 * dropped events.
 */
import { onJobsEvent } from "../index";
import type { HistoryTab } from "./history";
import type { JobsTab } from "./jobs";
import { progressCell, rowOf } from "./render";
import type { Tables } from "./tables";
import type { Shell } from "./types";

/** The listener of a drawn inspector; the shell starts it after the first render. */
export function liveUpdates(shell: Shell, jobs: JobsTab, tables: Tables, history: HistoryTab) {
  const { state, unlisten, soon, load } = shell;
  const { tbody, loadJobs, drawDetail } = jobs;
  const { loadCounts, loadSchedules, loadSync, loadLocal } = tables;
  const { loadHistory } = history;

  // ----- live -----
  async function listen() {
    unlisten.push(
      await onJobsEvent((event, dropped) => {
        if (state.destroyed) return;
        switch (event.type) {
          case "jobStateChanged":
          case "jobDeleted": {
            if (event.type === "jobDeleted" || event.to !== "running") state.steps.delete(event.id);
            const shown = state.rows.some((row) => row.id === event.id);
            if (state.view === "jobs" && (shown || state.cursors.length === 1)) soon("jobs", 100, loadJobs);
            if (state.view === "counts") soon("counts", 250, loadCounts);
            if (state.view === "history" && event.type === "jobStateChanged") soon("history", 1000, loadHistory);
            break;
          }
          case "jobProgress": {
            const cell = rowOf(tbody, event.id)?.querySelector("td.progress");
            if (cell) cell.replaceChildren(progressCell(event));
            if (state.selected === event.id) soon("detail", 250, () => drawDetail(event.id));
            break;
          }
          case "jobLogged":
            if (state.selected === event.id) soon("detail", 250, () => drawDetail(event.id));
            break;
          case "jobStep": {
            // The last one of each job; a job's end forgets it (its steps are read).
            state.steps.set(event.id, event);
            if (state.selected === event.id) soon("detail", 250, () => drawDetail(event.id));
            break;
          }
          case "jobsPruned":
            if (state.view === "jobs") soon("jobs", 100, loadJobs);
            if (state.view === "counts") soon("counts", 250, loadCounts);
            break;
          case "kindPaused":
            if (state.view === "counts") soon("counts", 100, loadCounts);
            break;
          case "scheduleChanged":
            if (state.view === "schedules") soon("schedules", 100, loadSchedules);
            break;
          case "pluginHealth":
            soon("health", 250, shell.loadHealth);
            if (state.view === "sync") soon("sync", 100, loadSync);
            if (state.view === "history") soon("history", 1000, loadHistory);
            break;
          case "syncFinished":
          case "accountDisconnected":
            if (state.view === "sync") soon("sync", 100, loadSync);
            if (state.view === "history") soon("history", 1000, loadHistory);
            break;
          case "localJobChanged":
          case "localJobProgress":
            if (state.view === "local") soon("local", 100, loadLocal);
            break;
          default:
            break;
        }
        if (dropped > state.seenDropped) {
          state.seenDropped = dropped;
          soon("all", 100, () => load(state.view));
        }
      }),
    );
  }

  return { listen };
}
