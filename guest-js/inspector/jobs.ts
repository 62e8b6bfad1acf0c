/**
 * The Jobs tab: the filters (status, kind, actor, parent job), the table of durable
 * jobs newest first, the pager, and the detail view of one job with its actions. It
 * gives the shell its loader, and the other tabs the selection and the kind
 * suggestions.
 */
import type { Actor, Job, JobDependencies, JobFilter, JobLogLine, JobStatus, Value, WorkflowState } from "../bindings";
import {
  cancel,
  cancelWorkflow,
  deleteJob,
  getJob,
  getJobLogs,
  getWorkflow,
  jobDependencies,
  listJobs,
  pausedKinds,
  retryJob,
  retryWorkflow,
  signalJob,
} from "../index";
import { ACTORS, STATUSES, mayHaveMore } from "./data";
import { workflowGraph } from "./graph";
import { NO_HANDLER, h, json, progressCell, rowOf, seconds, time, waitingText, whyWaiting } from "./render";
import type { Shell } from "./types";

/** Draws the Jobs tab into its panel; its functions read and draw it again. */
export function mountJobs(shell: Shell) {
  const { root, state, pageSize, panels, failed, act } = shell;

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

  /** The status, and why a queued job waits when it is not just its turn. */
  function statusText(job: Job): string {
    if (job.handlerMissing) return `${job.status} · no handler here`;
    if (job.rateLimitedUntil != null) return `${job.status} · rate limited until ${time(job.rateLimitedUntil)}`;
    const waiting = waitingText(job.waitingFor);
    if (waiting != null) return `${job.status} · ${waiting}`;
    return job.status;
  }

  function jobRow(job: Job): HTMLElement {
    const row = h(
      "tr",
      { "data-id": job.id, "data-status": job.status, class: job.id === state.selected ? "selected" : null },
      h("td", {}, h("button", { "data-action": "open", "aria-label": `Open job ${job.id}`, onclick: () => select(job.id) }, `#${job.id}`)),
      h("td", {}, job.kind),
      h("td", { class: `status status-${job.status}`, title: job.handlerMissing ? NO_HANDLER : null }, statusText(job)),
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
    // A window without the workflow reads still gets the rest.
    const [job, children, deps, flow, logs] = await Promise.all([
      getJob(id),
      listJobs({ parent: id, limit: 20 }),
      jobDependencies(id).catch((): JobDependencies | null => null),
      getWorkflow(id).catch((): WorkflowState | null => null),
      getJobLogs(id).catch((): JobLogLine[] | null => null),
    ]);
    const workflow = flow !== null && (flow.progress.total ?? 0) > 0 ? flow : null;
    // A queued job: whether its kind is paused and, waiting for a slot, the jobs that
    // hold its kind's slots.
    const [holders, paused] =
      job?.status === "queued"
        ? await Promise.all([
            job.waitingFor?.some((w) => w.condition === "slot")
              ? listJobs({ kind: job.kind, status: "running", limit: 20 }).catch((): Job[] => [])
              : [],
            pausedKinds().catch(() => [...state.paused]),
          ])
        : [[], []];
    const graph = job && workflow !== null ? await workflowGraph(job, (other) => void select(other)).catch(() => null) : null;
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
      ["Workflow", workflow === null ? "—" : h("span", { id: "detail-workflow" }, workflowText(workflow))],
      ["Waits for", idList("detail-waits-for", deps?.waitsFor ?? [], deps?.waitsForTotal ?? 0)],
      ["Waited for by", idList("detail-waited-by", deps?.waitedBy ?? [], deps?.waitedByTotal ?? 0)],
      ["Created", time(job.createdAt)],
      ["Runs at", time(job.runAt)],
      ["Started", time(job.startedAt)],
      ["Finished", time(job.finishedAt)],
      ["Progress", job.progress ? `${job.progress.done}${job.progress.total === null ? "" : ` of ${job.progress.total}`}` : "—"],
      ["Lease", job.leaseOwner ? `${job.leaseOwner} until ${time(job.leaseExpiresAt)}` : "—"],
    ];
    if (job.status === "queued") {
      const reasons = whyWaiting(job, { paused });
      facts.splice(2, 0, ["Why it waits", h("ul", { id: "detail-why", class: "why" }, ...reasons.map((r) => h("li", {}, r)))]);
      if (holders.length > 0) {
        facts.splice(3, 0, ["Slots held by", idList("detail-holders", holders.map((j) => j.id), holders.length)]);
      }
    }
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
      if (workflow?.failed) {
        actions.append(
          h("button", { "data-action": "retry-workflow", onclick: () => act(() => retryWorkflow(id), again) }, "Retry workflow"),
        );
      }
      if (workflow !== null && !workflow.ended) {
        actions.append(
          h("button", { "data-action": "cancel-workflow", onclick: () => act(() => cancelWorkflow(id), again) }, "Cancel workflow"),
        );
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
      ...(graph ? [h("h4", {}, "Graph"), h("div", { id: "detail-graph", class: "graph-box" }, graph)] : []),
      h("h4", {}, "Payload"),
      h("pre", { id: "detail-payload" }, json(job.payload)),
      h("h4", {}, "Result"),
      h("pre", { id: "detail-result" }, json(job.result)),
      ...(job.lastError === null ? [] : [h("h4", {}, "Last error"), h("pre", { id: "detail-error" }, job.lastError)]),
      ...(job.attempts === 0 && !job.errors?.length ? [] : [h("h4", {}, "Attempts"), attemptsTimeline(job)]),
      ...stepsSection(job),
      ...logSection(logs ?? []),
      ...signalForm(job),
      actions,
    );
  }

  /**
   * A job's attempts, oldest first: each one that failed or was deferred (offline, a
   * snooze, a throttle: not counted) with when it ended, what it said and until when
   * the job waited (the last 20 the plugin keeps), then how the latest one stands.
   */
  function attemptsTimeline(job: Job): Node {
    const errors = job.errors ?? [];
    const items = errors.map((e) => {
      const head = h("b", {}, `Attempt ${e.attempt}`);
      const said = h("code", {}, e.error);
      switch (e.outcome ?? "failed") {
        case "offline": {
          const probes = e.probes ?? 1;
          const found = probes > 1 ? ` found the network gone ${probes} times, the last ${time(e.at)}: ` : ` found the network gone ${time(e.at)}: `;
          return h("li", { class: "attempt-offline" }, head, found, said, ` (not counted; the kind's next probe ${time(e.until)})`);
        }
        case "snoozed":
          return h("li", { class: "attempt-snoozed" }, head, ` snoozed ${time(e.at)} until ${time(e.until)}: `, said, " (not counted)");
        case "throttled":
          return h("li", { class: "attempt-throttled" }, head, ` met a throttle of its kind ${time(e.at)}, until ${time(e.until)}: `, said, " (not counted)");
        case "slept":
          return h("li", { class: "attempt-slept" }, head, ` began a durable sleep ${time(e.at)}, until ${time(e.until)} (not counted)`);
        default:
          return h("li", { class: "attempt-failed" }, head, ` failed ${time(e.at)}: `, said);
      }
    });
    const last = errors[errors.length - 1];
    const failedLast = last?.attempt === job.attempts && (last.outcome ?? "failed") === "failed" && job.lastError !== null;
    if (job.attempts > 0 && !failedLast) {
      const latest = `Attempt ${job.attempts}`;
      const line =
        job.status === "succeeded"
          ? [h("b", {}, latest), ` succeeded ${time(job.finishedAt)}`]
          : job.status === "running"
            ? [h("b", {}, latest), ` running since ${time(job.startedAt)}`]
            : job.status === "cancelled"
              ? [h("b", {}, latest), ` cancelled ${time(job.finishedAt)}`]
              : null;
      if (line) items.push(h("li", { class: `attempt-${job.status}` }, ...line));
    }
    return h("ol", { id: "detail-attempts", class: "attempts" }, ...items);
  }

  /**
   * A job's steps (durable steps of its handler): each one recorded, with the attempt
   * that ran it, when it ended and how long its body took, a durable sleep with its
   * end, then the step running now, as the job's events said.
   */
  function stepsSection(job: Job): Node[] {
    const done = job.steps ?? [];
    const items = done.map((step) =>
      step.sleepUntil === null
        ? h(
            "li",
            { class: "step-done" },
            h("b", {}, step.name),
            ` done ${time(step.finishedAt)} by attempt ${step.attempt}, in ${seconds(step.finishedAt - step.startedAt)}`,
          )
        : h("li", { class: "step-sleep" }, h("b", {}, step.name), ` sleeps until ${time(step.sleepUntil)} (begun ${time(step.startedAt)})`),
    );
    const last = state.steps.get(job.id);
    if (job.status === "running" && last && last.finishedAt === null && !done.some((step) => step.name === last.name)) {
      items.push(h("li", { class: "step-running" }, h("b", {}, last.name), ` running since ${time(last.startedAt)}`));
    }
    if (items.length === 0) return [];
    return [h("h4", {}, "Steps"), h("ol", { id: "detail-steps", class: "attempts" }, ...items)];
  }

  /** What the job's handler logged (`ctx.log`), oldest first: time, attempt, level, text. */
  function logSection(lines: JobLogLine[]): Node[] {
    if (lines.length === 0) return [];
    const items = lines.map((line) =>
      h(
        "li",
        { class: `log-${line.level}` },
        `${time(line.at)} #${line.attempt} `,
        h("b", {}, line.level),
        " ",
        h("code", {}, line.text),
      ),
    );
    return [h("h4", {}, "Log"), h("ol", { id: "detail-log", class: "attempts" }, ...items)];
  }

  /**
   * For a job waiting for a signal: its name, and a form that sends it (a JSON payload)
   * for support and testing, behind the window's `signal_job` permission (a window
   * without it is told so when it sends).
   */
  function signalForm(job: Job): Node[] {
    if (job.status !== "queued" || !job.awaitsSignal) return [];
    const name = job.awaitsSignal;
    const input = h("input", { id: "detail-signal-payload", value: "null", "aria-label": "payload (JSON)" }) as HTMLInputElement;
    const send = async () => {
      let payload: Value;
      try {
        payload = JSON.parse(input.value || "null") as Value;
      } catch (error) {
        failed(new Error(`the payload is not JSON: ${(error as Error).message}`));
        return;
      }
      await act(() => signalJob(job.id, name, payload), () => drawDetail(job.id).then(() => loadJobs()));
    };
    return [
      h("h4", {}, "Waiting for a signal"),
      h(
        "div",
        { class: "actions", id: "detail-signal" },
        h("span", {}, `"${name}" until ${time(job.sleepingUntil)}`),
        input,
        h("button", { "data-action": "signal", onclick: () => void send() }, "Send signal"),
      ),
    ];
  }

  /** Jobs by id, each opening its detail: the first ones listed, and how many more. */
  function idList(id: string, ids: number[], total: number): Node | string {
    if (total === 0) return "—";
    const shown = ids.slice(0, 20);
    const more = total - shown.length;
    return h(
      "span",
      { class: "actions", id },
      ...shown.map((other) => h("button", { onclick: () => select(other) }, `#${other}`)),
      ...(more > 0 ? [h("span", { class: "muted" }, `and ${more} more`)] : []),
    );
  }

  /** The kind filter's suggestions. */
  function suggestKinds(kinds: Iterable<string>) {
    kindList.replaceChildren(...Array.from(new Set(kinds), (kind) => h("option", { value: kind })));
  }

  return { tbody, loadJobs, select, drawDetail, suggestKinds };
}

/** The Jobs tab, as {@link mountJobs} returns it. */
export type JobsTab = ReturnType<typeof mountJobs>;

/** A workflow's counts in one line: "3 of 5 ended · 2 queued, 3 succeeded · failed". */
function workflowText(flow: WorkflowState): string {
  const counts = flow.pieces.map(([status, n]) => `${n} ${status}`).join(", ");
  const outcome = flow.failed ? " · failed" : flow.ended ? " · done" : "";
  return `${flow.progress.done} of ${flow.progress.total ?? 0} ended · ${counts}${outcome}`;
}
