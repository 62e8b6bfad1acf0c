/**
 * The jobs inspector: a panel any app can put in a page or a window of its own to see
 * what its background work is doing (durable jobs with filters and a detail view,
 * counts, charts of what happened, schedules, sync targets, local jobs), live, and to
 * act on it when the window
 * holds the `jobs:admin` permission set.
 *
 * Framework-free: `defineInspector()` registers `<jobs-inspector>`, or
 * `mountInspector(element)` draws into any element. It renders into a shadow root
 * (its styles never reach the page, the page's never reach it), follows the system's
 * light or dark scheme, uses only the plugin's public commands and events, and makes
 * no network request. Text from jobs (payloads, errors, kinds) is always set as text,
 * never parsed as HTML.
 *
 * This file is the entry point and the shell: the bar, the tabs and their panels, the
 * message line, the timers, start-up and `destroy()`. The tabs are drawn by
 * `inspector/jobs.ts` and `inspector/tables.ts`, kept live by `inspector/live.ts`.
 */
import type { UnlistenFn } from "@tauri-apps/api/event";

import type { Actor, Job, JobStatus } from "./bindings";
import { JobsError, jobCounts, pluginHealth } from "./index";
import { probeAdmin } from "./inspector/data";
import { mountHistory } from "./inspector/history";
import { mountJobs } from "./inspector/jobs";
import { liveUpdates } from "./inspector/live";
import { h } from "./inspector/render";
import { STYLE } from "./inspector/style";
import { mountTables } from "./inspector/tables";
import type { Inspector, InspectorOptions, InspectorView, Shell } from "./inspector/types";

export type { Inspector, InspectorOptions, InspectorView } from "./inspector/types";

const VIEWS: [InspectorView, string][] = [
  ["jobs", "Jobs"],
  ["counts", "Counts"],
  ["history", "History"],
  ["schedules", "Schedules"],
  ["sync", "Sync"],
  ["local", "Local jobs"],
];

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
    steps: new Map(),
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
  // The plugin's own troubles (a refused config.toml, a damaged raw.db, conditions a
  // waiting job needs and the machine cannot tell), above every tab; hidden when none.
  const health = h("div", { class: "health", id: "plugin-health", role: "status", hidden: "" });
  // While jobs keep the machine from sleeping: which (those this window may read).
  const awake = h("div", { class: "awake", id: "keep-awake", role: "status", hidden: "" });
  // While the app's quit waits for work to finish: what is left.
  const quitting = h("div", { class: "awake", id: "quitting", role: "status", hidden: "" });
  const frame = h(
    "div",
    { class: "root", part: "root" },
    h("div", { class: "bar" }, tabs, mode),
    health,
    awake,
    quitting,
    message,
    ...panels.values(),
  );
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

  async function loadHealth(): Promise<void> {
    // A window without the command sees no banner, and no error for it.
    const components = await pluginHealth().catch(() => null);
    const all = Array.isArray(components) ? components : [];
    const troubles = all.filter((c) => c.health.status !== "healthy");
    for (const [component, line] of [
      ["awake", awake],
      ["quit", quitting],
    ] as const) {
      const said = all.find((c) => c.component === component && c.health.status === "healthy" && c.health.reason);
      line.textContent = said?.health.reason ?? "";
      line.hidden = !said;
    }
    health.replaceChildren(
      ...troubles.map((c) =>
        h("div", { class: `health-${c.health.status}`, "data-component": c.component }, `${c.component}: ${c.health.reason ?? c.health.status}`),
      ),
    );
    health.hidden = troubles.length === 0;
  }

  function load(view: InspectorView): Promise<void> {
    switch (view) {
      case "jobs":
        return loadJobs();
      case "counts":
        return loadCounts();
      case "history":
        return loadHistory();
      case "schedules":
        return loadSchedules();
      case "sync":
        return loadSync();
      case "local":
        return loadLocal();
    }
  }

  // ----- tabs -----
  // The tabs, over the shell: `load`, `start` and the listener call their loaders.
  const shell: Shell = { root, state, pageSize, panels, unlisten, failed, soon, act, show, load, loadHealth };
  const jobs = mountJobs(shell);
  const tables = mountTables(shell, jobs);
  const history = mountHistory(shell);
  const { loadHistory } = history;
  const { loadJobs, suggestKinds } = jobs;
  const { loadCounts, loadSchedules, loadSync, loadLocal } = tables;
  const { listen } = liveUpdates(shell, jobs, tables, history);

  async function start() {
    const admin = options.admin ?? (await probeAdmin());
    state.admin = admin;
    mode.textContent = admin ? "admin: actions available" : "read-only (this window lacks jobs:admin)";
    mode.setAttribute("data-admin", String(admin));
    show(state.view, false);
    await Promise.all([load(state.view), loadHealth()]);
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
    show: (view: InspectorView) => {
      if (VIEWS.some(([known]) => known === view)) show(view);
    },
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
 * (the tab shown: the first one, and the one shown whenever the attribute changes),
 * `page-size`, and `admin="false"` to hide the actions even where the window may use
 * them. Calling it again does nothing.
 */
export function defineInspector(tag = "jobs-inspector"): void {
  if (customElements.get(tag)) return;
  customElements.define(
    tag,
    class JobsInspectorElement extends HTMLElement {
      private inspector: Inspector | null = null;

      static get observedAttributes(): string[] {
        return ["view"];
      }

      attributeChangedCallback(name: string, _old: string | null, value: string | null) {
        if (name === "view" && value && this.inspector) this.inspector.show(value as InspectorView);
      }

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
