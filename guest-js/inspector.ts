/**
 * The jobs inspector: a panel any app can put in a page or a window of its own to see
 * what its background work is doing (durable jobs with filters and a detail view,
 * counts, schedules, sync targets, local jobs), live, and to act on it when the window
 * holds the `jobs:admin` permission set.
 *
 * Framework-free: `defineInspector()` registers `<jobs-inspector>`, or
 * `mountInspector(element)` draws into any element. It renders into a shadow root
 * (its styles never reach the page, the page's never reach it), follows the system's
 * light or dark scheme, uses only the plugin's public commands and events, and makes
 * no network request. Text from jobs (payloads, errors, kinds) is always set as text,
 * never parsed as HTML.
 */
import type { UnlistenFn } from "@tauri-apps/api/event";

import { commands, type Job, type JobFilter, type JobStatus, type KindCount, type Actor } from "./bindings";
import {
  JobsError,
  cancel,
  deleteJob,
  getJob,
  jobCounts,
  listJobs,
  listLocalJobs,
  listSchedules,
  onJobsEvent,
  pausedKinds,
  pauseKind,
  pauseSchedule,
  resumeKind,
  resumeSchedule,
  retryJob,
  runScheduleNow,
  syncNow,
  syncStatus,
} from "./index";

/** The inspector's tabs. */
/** The row of the job with `id`, found by comparing: data never becomes a selector. */
function rowOf(tbody: Element, id: string | number): HTMLTableRowElement | undefined {
  return Array.from(tbody.querySelectorAll("tr")).find((row) => row.dataset.id === String(id));
}

/** What a job of a kind nobody runs here is waiting for. */
const NO_HANDLER = "waiting for a handler that is not registered in this app (a kind an update removed?)";

/** About the most bytes of payloads and results the plugin puts in one page. */
const PAGE_BYTES = 4 << 20;

/**
 * Whether older jobs may follow a page: a full page, or one the plugin may have cut
 * short at its byte budget (a page of large payloads ends early, with more behind it).
 */
function mayHaveMore(rows: Job[], pageSize: number): boolean {
  if (rows.length === 0) return false;
  if (rows.length >= pageSize) return true;
  const bytes = rows.reduce((sum, job) => sum + JSON.stringify(job.payload ?? null).length + JSON.stringify(job.result ?? null).length, 0);
  return bytes > PAGE_BYTES / 2;
}

export type InspectorView = "jobs" | "counts" | "schedules" | "sync" | "local";

/** How to draw the inspector. */
export type InspectorOptions = {
  /** The tab shown first; `jobs` by default. */
  view?: InspectorView;
  /** Jobs per page, 1 to 1000; 50 by default. */
  pageSize?: number;
  /**
   * Whether to show the actions. By default the inspector asks the plugin: it calls
   * an admin command that can do nothing (a retry of job 0) and shows the actions
   * only if the window was allowed to call it.
   */
  admin?: boolean;
};

/** A drawn inspector. */
export type Inspector = {
  /** Resolves once the first view is drawn with its data. */
  readonly ready: Promise<void>;
  /** Milliseconds from the call to the first view drawn with its data. */
  firstRenderMs(): number | null;
  /** Reads everything shown again. */
  refresh(): Promise<void>;
  /** Stops listening and empties the element. */
  destroy(): void;
};

const STATUSES: JobStatus[] = ["queued", "running", "succeeded", "failed", "cancelled"];
const ACTORS: Actor[] = ["user", "agent", "system"];
const VIEWS: [InspectorView, string][] = [
  ["jobs", "Jobs"],
  ["counts", "Counts"],
  ["schedules", "Schedules"],
  ["sync", "Sync"],
  ["local", "Local jobs"],
];

const STYLE = `
:host { display: block; font: 13px/1.4 system-ui, sans-serif; color-scheme: light dark;
  --bg: #fff; --fg: #1d1f23; --muted: #6a707c; --line: #dde1e6; --accent: #2f6fde;
  --soft: #f3f5f8; --bad: #c62828; --good: #2e7d32; --warn: #b26a00; }
@media (prefers-color-scheme: dark) {
  :host { --bg: #1b1d21; --fg: #e6e8eb; --muted: #9aa1ad; --line: #353a42; --accent: #6ea2ff;
    --soft: #24272d; --bad: #ff7b72; --good: #7ee787; --warn: #e3b341; }
}
.root { background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.bar { display: flex; align-items: center; gap: 8px; padding: 6px 8px; border-bottom: 1px solid var(--line); background: var(--soft); flex-wrap: wrap; }
[role=tablist] { display: flex; gap: 2px; }
button, select, input { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 5px; padding: 3px 8px; }
button { cursor: pointer; }
button:hover { border-color: var(--accent); }
button:disabled { opacity: .45; cursor: default; border-color: var(--line); }
button:focus-visible, select:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
[role=tab][aria-selected=true] { background: var(--accent); border-color: var(--accent); color: #fff; }
.mode { margin-left: auto; color: var(--muted); }
.panel { padding: 8px; }
.filters { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; margin-bottom: 6px; }
.filters label { display: flex; flex-direction: column; gap: 2px; color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
tr.selected td { background: var(--soft); }
.status { font-weight: 600; }
.status-failed, .health-error { color: var(--bad); }
.status-succeeded, .health-healthy { color: var(--good); }
.status-running, .status-queued, .health-warning { color: var(--warn); }
.status-cancelled { color: var(--muted); }
.muted { color: var(--muted); }
.pager { display: flex; gap: 8px; align-items: center; margin-top: 6px; }
.detail { border-top: 1px solid var(--line); margin-top: 8px; padding-top: 8px; }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 6px; }
.detail dt { color: var(--muted); }
pre { margin: 0; padding: 6px; background: var(--soft); border-radius: 5px; max-height: 220px; overflow: auto; white-space: pre-wrap; word-break: break-word; }
progress { width: 90px; }
.actions { display: flex; gap: 6px; flex-wrap: wrap; }
.message { color: var(--bad); min-height: 1em; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
`;

/** Attributes; `on*` functions become listeners, `false` and empty values are left out. */
type Attrs = Record<string, unknown>;

/** An element with attributes and children (strings become text, never HTML). */
function h(tag: string, attrs: Attrs = {}, ...children: (Node | string | null | undefined)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value as EventListener);
    } else if (name === "class") {
      element.className = String(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined) element.append(child);
  }
  return element;
}

function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function duration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

function json(value: unknown): string {
  return value === null || value === undefined ? "—" : JSON.stringify(value, null, 2);
}

function percent(done: number, total: number | null): number | null {
  return total ? Math.min(100, Math.round((done / total) * 100)) : null;
}

function progressCell(progress: { done: number; total: number | null } | null | undefined): Node | string {
  if (!progress) return "";
  const value = percent(progress.done, progress.total);
  if (value === null) return `${progress.done} done`;
  return h("progress", { max: 100, value, "aria-label": `${value} percent` });
}

/** Whether this window may call the admin commands: a retry of job 0 does nothing. */
async function probeAdmin(): Promise<boolean> {
  try {
    const result = await commands.retryJob(0);
    if (result.status === "ok") return true;
    const error = result.error as unknown;
    // Tauri refuses a command the window lacks with a plain string; the plugin's own
    // errors (job 0 not found) are objects.
    return typeof error !== "string";
  } catch {
    return false;
  }
}

/**
 * Draws the inspector into `host` (in its shadow root, made if it has none) and keeps
 * it live until {@link Inspector.destroy}.
 */
export function mountInspector(host: HTMLElement, options: InspectorOptions = {}): Inspector {
  const started = performance.now();
  let firstRender: number | null = null;
  const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  root.replaceChildren();
  const pageSize = Math.min(1000, Math.max(1, Math.floor(options.pageSize ?? 50)));

  const state = {
    view: options.view ?? ("jobs" as InspectorView),
    admin: options.admin ?? false,
    filter: { status: null as JobStatus | null, kind: "", actor: null as Actor | null, parent: null as number | null },
    cursors: [null] as (number | null)[],
    rows: [] as Job[],
    selected: null as number | null,
    paused: new Set<string>(),
    destroyed: false,
    // Events the plugin's stream dropped, as last seen; none are looked at before the
    // first render.
    seenDropped: Number.POSITIVE_INFINITY,
  };
  const unlisten: UnlistenFn[] = [];
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  // ----- frame -----
  const message = h("div", { class: "message", role: "status", "aria-live": "polite" });
  const mode = h("span", { class: "mode" });
  const tabs = h("div", { role: "tablist", "aria-label": "Inspector views" });
  const panels = new Map<InspectorView, HTMLElement>();
  for (const [view, label] of VIEWS) {
    const tab = h(
      "button",
      {
        role: "tab",
        id: `tab-${view}`,
        "data-view": view,
        "aria-controls": `panel-${view}`,
        onclick: () => show(view),
        onkeydown: (event: KeyboardEvent) => {
          const index = VIEWS.findIndex(([v]) => v === view);
          const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
          if (step === 0) return;
          event.preventDefault();
          const next = VIEWS[(index + step + VIEWS.length) % VIEWS.length][0];
          show(next);
          (root.querySelector(`#tab-${next}`) as HTMLElement | null)?.focus();
        },
      },
      label,
    );
    tabs.append(tab);
    panels.set(view, h("section", { class: "panel", role: "tabpanel", id: `panel-${view}`, "aria-labelledby": `tab-${view}` }));
  }
  const frame = h("div", { class: "root", part: "root" }, h("div", { class: "bar" }, tabs, mode), message, ...panels.values());
  root.append(h("style", {}, STYLE), frame);

  function say(text: string) {
    message.textContent = text;
  }

  function failed(error: unknown) {
    say(error instanceof JobsError ? `${error.code}: ${error.message}` : String(error));
  }

  /** Runs `work` at most once per `ms` for `key`, after the last call. */
  function soon(key: string, ms: number, work: () => Promise<void>) {
    if (timers.has(key) || state.destroyed) return;
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        if (!state.destroyed) work().catch(failed);
      }, ms),
    );
  }

  async function act(work: () => Promise<unknown>, then: () => Promise<void>) {
    say("");
    try {
      await work();
    } catch (error) {
      failed(error);
    }
    await then();
  }

  /** Shows a tab; `reload` reads its data (start-up reads it itself, once). */
  function show(view: InspectorView, reload = true) {
    state.view = view;
    for (const tab of Array.from(tabs.children)) {
      const selected = (tab as HTMLElement).dataset.view === view;
      tab.setAttribute("aria-selected", String(selected));
      tab.setAttribute("tabindex", selected ? "0" : "-1");
    }
    for (const [name, panel] of panels) panel.hidden = name !== view;
    if (reload) load(view).catch(failed);
  }

  function load(view: InspectorView): Promise<void> {
    switch (view) {
      case "jobs":
        return loadJobs();
      case "counts":
        return loadCounts();
      case "schedules":
        return loadSchedules();
      case "sync":
        return loadSync();
      case "local":
        return loadLocal();
    }
  }

  // ----- jobs -----
  const jobsPanel = panels.get("jobs")!;
  const statusSelect = h(
    "select",
    { id: "filter-status" },
    h("option", { value: "" }, "any"),
    ...STATUSES.map((s) => h("option", { value: s }, s)),
  ) as HTMLSelectElement;
  const kindInput = h("input", { id: "filter-kind", list: "kinds", placeholder: "any", size: 14 }) as HTMLInputElement;
  const kindList = h("datalist", { id: "kinds" });
  const actorSelect = h(
    "select",
    { id: "filter-actor" },
    h("option", { value: "" }, "any"),
    ...ACTORS.map((a) => h("option", { value: a }, a)),
  ) as HTMLSelectElement;
  const parentInput = h("input", { id: "filter-parent", type: "number", min: 1, placeholder: "any", size: 6 }) as HTMLInputElement;
  const applyFilters = () => {
    state.filter = {
      status: (statusSelect.value || null) as JobStatus | null,
      kind: kindInput.value.trim(),
      actor: (actorSelect.value || null) as Actor | null,
      parent: parentInput.value ? Number(parentInput.value) : null,
    };
    state.cursors = [null];
    loadJobs().catch(failed);
  };
  for (const control of [statusSelect, actorSelect]) control.addEventListener("change", applyFilters);
  for (const control of [kindInput, parentInput]) {
    control.addEventListener("change", applyFilters);
    control.addEventListener("keydown", (event) => {
      if ((event as KeyboardEvent).key === "Enter") applyFilters();
    });
  }
  const field = (label: string, control: HTMLElement) => h("label", {}, label, control);
  const tbody = h("tbody", { id: "jobs" });
  const newer = h("button", { id: "page-newer", onclick: () => page(-1) }, "← Newer") as HTMLButtonElement;
  const older = h("button", { id: "page-older", onclick: () => page(1) }, "Older →") as HTMLButtonElement;
  const pageLabel = h("span", { class: "muted" });
  const detail = h("div", { class: "detail", id: "detail", hidden: true, tabindex: -1 });
  detail.addEventListener("keydown", (event) => {
    if ((event as KeyboardEvent).key === "Escape") select(null);
  });
  jobsPanel.append(
    h(
      "div",
      { class: "filters", role: "search" },
      field("Status", statusSelect),
      field("Kind", kindInput),
      kindList,
      field("Actor", actorSelect),
      field("Parent job", parentInput),
      h("button", { onclick: applyFilters }, "Apply"),
    ),
    h(
      "table",
      { "aria-label": "Durable jobs, newest first" },
      h(
        "thead",
        {},
        h("tr", {}, ...["Job", "Kind", "Status", "Attempts", "Priority", "Actor", "Created", "Progress"].map((t) => h("th", { scope: "col" }, t))),
      ),
      tbody,
    ),
    h("div", { class: "pager" }, newer, older, pageLabel),
    detail,
  );

  function filterNow(): JobFilter {
    return {
      status: state.filter.status,
      kind: state.filter.kind || null,
      actor: state.filter.actor,
      parent: state.filter.parent,
      before: state.cursors[state.cursors.length - 1],
      limit: pageSize,
    } as JobFilter;
  }

  function page(step: number) {
    if (step > 0) {
      const last = state.rows[state.rows.length - 1];
      if (!last) return;
      state.cursors.push(last.id);
    } else if (state.cursors.length > 1) {
      state.cursors.pop();
    }
    loadJobs().catch(failed);
  }

  function jobRow(job: Job): HTMLElement {
    const row = h(
      "tr",
      { "data-id": job.id, "data-status": job.status, class: job.id === state.selected ? "selected" : null },
      h("td", {}, h("button", { "data-action": "open", "aria-label": `Open job ${job.id}`, onclick: () => select(job.id) }, `#${job.id}`)),
      h("td", {}, job.kind),
      h(
        "td",
        { class: `status status-${job.status}`, title: job.handlerMissing ? NO_HANDLER : null },
        job.handlerMissing ? `${job.status} · no handler here` : job.status,
      ),
      h("td", { class: "num" }, `${job.attempts}/${job.maxAttempts}`),
      h("td", { class: "num" }, String(job.priority)),
      h("td", {}, job.actor),
      h("td", { title: new Date(job.createdAt).toISOString() }, time(job.createdAt)),
      h("td", { class: "progress" }, progressCell(job.progress)),
    );
    return row;
  }

  async function loadJobs() {
    const rows = await listJobs(filterNow());
    if (state.destroyed) return;
    state.rows = rows;
    const focused = root.activeElement?.closest?.("tr")?.getAttribute("data-id");
    tbody.replaceChildren(...rows.map(jobRow));
    if (rows.length === 0) {
      tbody.append(h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No jobs match.")));
    }
    if (focused) (rowOf(tbody, focused)?.querySelector("button") as HTMLElement | null)?.focus();
    newer.disabled = state.cursors.length <= 1;
    older.disabled = !mayHaveMore(rows, pageSize);
    pageLabel.textContent = `page ${state.cursors.length}`;
    if (state.selected !== null) await drawDetail(state.selected);
  }

  async function select(id: number | null) {
    state.selected = id;
    for (const row of Array.from(tbody.querySelectorAll("tr"))) row.classList.toggle("selected", row.dataset.id === String(id));
    if (id === null) {
      detail.hidden = true;
      detail.replaceChildren();
      return;
    }
    await drawDetail(id);
    detail.focus();
  }

  async function drawDetail(id: number) {
    const [job, children] = await Promise.all([getJob(id), listJobs({ parent: id, limit: 20 })]);
    if (state.destroyed || state.selected !== id) return;
    detail.hidden = false;
    if (!job) {
      detail.replaceChildren(h("p", { class: "muted" }, `Job #${id} is gone (deleted, pruned, or outside this window's scope).`));
      return;
    }
    const facts: [string, Node | string][] = [
      ["Kind", job.kind],
      ["Status", h("span", { class: `status status-${job.status}`, id: "detail-status" }, job.status)],
      ["Attempts", `${job.attempts} of ${job.maxAttempts}`],
      ["Priority", String(job.priority)],
      ["Actor", job.actor],
      ["Dedupe key", job.dedupeKey ?? "—"],
      ["Parent", job.parent === null ? "—" : h("button", { onclick: () => select(job.parent) }, `#${job.parent}`)],
      [
        "Pieces",
        children.length === 0
          ? "—"
          : h("span", { class: "actions" }, ...children.map((c) => h("button", { onclick: () => select(c.id) }, `#${c.id} ${c.status}`))),
      ],
      ["Created", time(job.createdAt)],
      ["Runs at", time(job.runAt)],
      ["Started", time(job.startedAt)],
      ["Finished", time(job.finishedAt)],
      ["Progress", job.progress ? `${job.progress.done}${job.progress.total === null ? "" : ` of ${job.progress.total}`}` : "—"],
      ["Lease", job.leaseOwner ? `${job.leaseOwner} until ${time(job.leaseExpiresAt)}` : "—"],
    ];
    if (job.cancelRequested) facts.push(["Cancel", "requested"]);
    if (job.unreadable) facts.push(["Unreadable", job.unreadable]);
    const actions = h("div", { class: "actions" });
    if (state.admin) {
      const again = () => drawDetail(id).then(() => loadJobs());
      if (job.status === "failed" || job.status === "queued") {
        actions.append(h("button", { "data-action": "retry", onclick: () => act(() => retryJob(id), again) }, "Retry now"));
      }
      if (job.status === "queued" || job.status === "running") {
        actions.append(h("button", { "data-action": "cancel", onclick: () => act(() => cancel(id), again) }, "Cancel"));
      }
      if (job.status === "succeeded" || job.status === "failed" || job.status === "cancelled") {
        actions.append(
          h(
            "button",
            {
              "data-action": "delete",
              onclick: () => act(() => deleteJob(id), async () => (await select(null), await loadJobs())),
            },
            "Delete",
          ),
        );
      }
    }
    actions.append(h("button", { "data-action": "close", onclick: () => select(null) }, "Close"));
    detail.replaceChildren(
      h("h3", {}, `Job #${job.id}`),
      h("dl", {}, ...facts.flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, value)])),
      h("h4", {}, "Payload"),
      h("pre", { id: "detail-payload" }, json(job.payload)),
      h("h4", {}, "Result"),
      h("pre", { id: "detail-result" }, json(job.result)),
      h("h4", {}, "Last error"),
      h("pre", { id: "detail-error" }, job.lastError ?? "—"),
      actions,
    );
  }

  /** The kind filter's suggestions. */
  function suggestKinds(kinds: Iterable<string>) {
    kindList.replaceChildren(...Array.from(new Set(kinds), (kind) => h("option", { value: kind })));
  }

  // ----- counts -----
  const countsPanel = panels.get("counts")!;
  async function loadCounts() {
    const [counts, paused] = await Promise.all([jobCounts(), pausedKinds()]);
    if (state.destroyed) return;
    state.paused = new Set(paused);
    const kinds = new Map<string, Map<JobStatus, number>>();
    const unhandled = new Set<string>();
    for (const { kind, status, count, handlerMissing } of counts as KindCount[]) {
      if (!kinds.has(kind)) kinds.set(kind, new Map());
      kinds.get(kind)!.set(status, count);
      if (handlerMissing) unhandled.add(kind);
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
      const claims = isPaused ? "paused" : unhandled.has(kind) ? "no handler here" : "";
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

  // ----- live -----
  async function listen() {
    unlisten.push(
      await onJobsEvent((event, dropped) => {
        if (state.destroyed) return;
        switch (event.type) {
          case "jobStateChanged":
          case "jobDeleted": {
            const shown = state.rows.some((row) => row.id === event.id);
            if (state.view === "jobs" && (shown || state.cursors.length === 1)) soon("jobs", 100, loadJobs);
            if (state.view === "counts") soon("counts", 250, loadCounts);
            break;
          }
          case "jobProgress": {
            const cell = rowOf(tbody, event.id)?.querySelector("td.progress");
            if (cell) cell.replaceChildren(progressCell(event));
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
          case "syncFinished":
          case "pluginHealth":
          case "accountDisconnected":
            if (state.view === "sync") soon("sync", 100, loadSync);
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

  async function start() {
    const admin = options.admin ?? (await probeAdmin());
    state.admin = admin;
    mode.textContent = admin ? "admin: actions available" : "read-only (this window lacks jobs:admin)";
    mode.setAttribute("data-admin", String(admin));
    show(state.view, false);
    await load(state.view);
    // The kind suggestions come from the counts, whichever view is first.
    if (state.view !== "counts") {
      jobCounts()
        .then((counts) => suggestKinds(counts.map((c) => c.kind)))
        .catch(() => {});
    }
    firstRender = performance.now() - started;
    host.dataset.firstRenderMs = firstRender.toFixed(1);
    host.dispatchEvent(new CustomEvent("jobs-inspector-ready", { detail: { firstRenderMs: firstRender } }));
    state.seenDropped = 0;
    await listen();
    if (state.destroyed) for (const stop of unlisten.splice(0)) stop();
  }

  const ready = start().catch((error) => {
    failed(error);
    throw error;
  });

  return {
    ready,
    firstRenderMs: () => firstRender,
    refresh: () => load(state.view),
    destroy() {
      state.destroyed = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const stop of unlisten.splice(0)) stop();
      root.replaceChildren();
    },
  };
}

/**
 * Registers the `<jobs-inspector>` element (or another tag name). Attributes: `view`
 * (the first tab), `page-size`, and `admin="false"` to hide the actions even where the
 * window may use them. Calling it again does nothing.
 */
export function defineInspector(tag = "jobs-inspector"): void {
  if (customElements.get(tag)) return;
  customElements.define(
    tag,
    class JobsInspectorElement extends HTMLElement {
      private inspector: Inspector | null = null;

      connectedCallback() {
        const view = this.getAttribute("view") as InspectorView | null;
        const pageSize = this.getAttribute("page-size");
        const admin = this.getAttribute("admin");
        this.inspector = mountInspector(this, {
          view: view ?? undefined,
          pageSize: pageSize ? Number(pageSize) : undefined,
          admin: admin === "false" ? false : undefined,
        });
      }

      disconnectedCallback() {
        this.inspector?.destroy();
        this.inspector = null;
      }

      /** The drawn inspector, while the element is in a document. */
      get handle(): Inspector | null {
        return this.inspector;
      }
    },
  );
}
