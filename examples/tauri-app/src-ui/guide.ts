// The guide's webview snippets (docs/), word for word inside functions, so that
// `npm run typecheck` checks them (tests/in_process/readme.rs checks every ts block of the guide
// is here or in the quick start's page). Not part of the demo's page.
import {
  enqueue,
  getJob,
  getWorkflow,
  JobsError,
  listJobs,
  onJobState,
  onSyncFinished,
  pluginHealth,
  signalJob,
  watchJob,
  whyWaiting,
} from "../../../guest-js/index";

/** docs/webview.md: a durable job with a progress bar. */
export async function thumbnailWithABar(bar: HTMLProgressElement): Promise<string> {
// Enqueue, then follow it: the bar starts where the job is, even on a page opened late.
const { id } = await enqueue("thumbnail", { path: "a.png", width: 256 });
const result = await watchJob(id, (percent) => (bar.value = percent ?? 0));
  return result;
}

/** docs/workflows.md: what a failed piece said. */
export async function failedPieces(parent: number, show: (line: string) => void): Promise<void> {
const state = await getWorkflow(parent);
if (state?.failed) {
  // The pieces that failed, each with its last error (redacted).
  for (const job of await listJobs({ parent, status: "failed" })) {
    show(`${job.kind} #${job.id}: ${job.lastError}`);
  }
}
}

/** docs/errors.md: what to tell the user. */
export async function saveWithWords(say: (text: string) => void): Promise<void> {
try {
  await enqueue("save", { draft: 1 });
} catch (error) {
  if (!(error instanceof JobsError)) throw error;
  switch (error.code) {
    case "full":
      say("The disk is full: free some space and try again.");
      break;
    case "busy":
      say("Another program is holding the app's data: try again in a moment.");
      break;
    default:
      say(error.message); // names the argument, kind or target; never a secret
  }
}
}

/** docs/config.md: say when config.toml was refused. */
export async function configBanner(banner: HTMLElement): Promise<void> {
const config = (await pluginHealth()).find((c) => c.component === "config");
if (config && config.health.status !== "healthy") {
  banner.textContent = config.health.reason ?? "config.toml was refused";
}
}

/** docs/typed-kinds.md: what the declarations give a page. */
export async function typedKinds(show: (line: string) => void): Promise<void> {
// A kind the app did not register, or a payload not its handler's, fails tsc:
// enqueue("thumbnial", …), enqueue("thumbnail", { path: "a.png" }).
const { id } = await enqueue("thumbnail", { path: "a.png", width: 256 });
const shown: string = await watchJob(id); // the handler's result type

// Events and records narrowed by kind give that kind's types.
await onJobState(async (change) => {
  if (change.kind === "thumbnail" && change.to === "succeeded") {
    show(`thumbnail: ${await watchJob(change.id)}`);
  }
});
const job = await getJob(id);
if (job?.kind === "thumbnail") show(`${job.payload.path} at ${job.payload.width}px`);
  show(shown);
}

/** docs/sync.md: a page that hears each run of its feed. */
export async function feedListener(reload: () => void, say: (text: string) => void): Promise<() => void> {
const unlisten = await onSyncFinished(({ target, outcome, startedBy }) => {
  if (target !== "rss/main/feed") return;
  if (outcome.outcome === "updated") reload(); // read the items the source stored
  if (outcome.outcome === "failed" && outcome.offline) say("Offline: showing what was saved");
  if (startedBy === "networkBack") say("Synced when the network came back");
});
return unlisten; // call it when the page goes
}

/** docs/outbox.md: a change becomes a durable job; the page lists what is pending. */
export async function outbox(say: (line: string) => void): Promise<void> {
// Each edit of a note: keyed by the note, so a second edit while the first waits
// replaces it, and only the last text is sent.
async function saveNote(id: number, text: string): Promise<void> {
  await enqueue("save-note", { id, text }, { dedupeKey: `note-${id}`, onDuplicate: "replace" });
}

// What is not on the server yet, and why, after a reload as well.
async function showPending(): Promise<void> {
  for (const job of await listJobs({ kind: "save-note", status: "queued" })) {
    if (job.kind === "save-note") say(`note ${job.payload.id}: ${whyWaiting(job).join("; ")}`);
  }
}
await saveNote(7, "Buy milk");
await showPending();
}

/** docs/signals.md: the user's answer to a job that waits for it. */
export async function approve(reportJob: number): Promise<void> {
await signalJob(reportJob, "approval", { approved: true, note: "looks good" });
}
