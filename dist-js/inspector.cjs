'use strict';

var index = require('./index.cjs');
require('@tauri-apps/api/core');

/**
 * What the inspector knows of the plugin's data apart from drawing it: the statuses
 * and actors jobs have, whether older jobs may follow a page, and whether this window
 * may call the admin commands.
 */
const STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"];
const ACTORS = ["user", "agent", "system"];
/** About the most bytes of payloads and results the plugin puts in one page. */
const PAGE_BYTES = 4 << 20;
/**
 * Whether older jobs may follow a page: a full page, or one the plugin may have cut
 * short at its byte budget (a page of large payloads ends early, with more behind it).
 */
function mayHaveMore(rows, pageSize) {
    if (rows.length === 0)
        return false;
    if (rows.length >= pageSize)
        return true;
    const bytes = rows.reduce((sum, job) => sum + JSON.stringify(job.payload ?? null).length + JSON.stringify(job.result ?? null).length, 0);
    return bytes > PAGE_BYTES / 2;
}
/** Whether this window may call the admin commands: a retry of job 0 does nothing. */
async function probeAdmin() {
    try {
        const result = await index.commands.retryJob(0);
        if (result.status === "ok")
            return true;
        const error = result.error;
        // Tauri refuses a command the window lacks with a plain string; the plugin's own
        // errors (job 0 not found) are objects.
        return typeof error !== "string";
    }
    catch {
        return false;
    }
}

/**
 * How the inspector draws: elements whose strings are always set as text, never
 * parsed as HTML, the cells its tables share (times, durations, JSON, progress), and
 * the row of a job found by its id, and what a waiting job waits for.
 */
/** An element with attributes and children (strings become text, never HTML). */
function h(tag, attrs = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
        if (value === null || value === undefined || value === false)
            continue;
        if (name.startsWith("on") && typeof value === "function") {
            element.addEventListener(name.slice(2), value);
        }
        else if (name === "class") {
            element.className = String(value);
        }
        else {
            element.setAttribute(name, value === true ? "" : String(value));
        }
    }
    for (const child of children) {
        if (child !== null && child !== undefined)
            element.append(child);
    }
    return element;
}
function time(ms) {
    if (ms === null || ms === undefined)
        return "—";
    const date = new Date(ms);
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
function json(value) {
    return value === null || value === undefined ? "—" : JSON.stringify(value, null, 2);
}
function percent(done, total) {
    return total ? Math.min(100, Math.round((done / total) * 100)) : null;
}
function progressCell(progress) {
    if (!progress)
        return "";
    const value = percent(progress.done, progress.total);
    if (value === null)
        return `${progress.done} done`;
    return h("progress", { max: 100, value, "aria-label": `${value} percent` });
}
/** The row of the job with `id`, found by comparing: data never becomes a selector. */
function rowOf(tbody, id) {
    return Array.from(tbody.querySelectorAll("tr")).find((row) => row.dataset.id === String(id));
}
/** What a job of a kind nobody runs here is waiting for. */
const NO_HANDLER = "waiting for a handler that is not registered in this app (a kind an update removed?)";
/** A duration in words: "850 ms", "1.2 s", "3 min 5 s". */
function seconds(ms) {
    if (ms < 1000)
        return `${Math.max(0, Math.round(ms))} ms`;
    if (ms < 60_000)
        return `${(ms / 1000).toFixed(1)} s`;
    const s = Math.round(ms / 1000);
    return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const SVG$1 = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 72;
const JOB_SERIES = [
    { name: "succeeded", color: "good", of: (p) => p.succeeded },
    { name: "failed", color: "bad", of: (p) => p.failed },
    { name: "cancelled", color: "muted", of: (p) => p.cancelled },
];
const SYNC_SERIES = [
    { name: "updated", color: "good", of: (p) => p.updated },
    { name: "not modified", color: "accent", of: (p) => p.notModified },
    { name: "failed", color: "bad", of: (p) => p.failed },
    { name: "offline", color: "warn", of: (p) => p.offline },
    { name: "throttled", color: "muted", of: (p) => p.throttled },
];
function svg$1(tag, attrs, ...children) {
    const element = document.createElementNS(SVG$1, tag);
    for (const [name, value] of Object.entries(attrs))
        element.setAttribute(name, String(value));
    for (const child of children)
        element.append(child);
    return element;
}
/** The periods a span shows, oldest first: 60 minutes or 24 hours up to the current one. */
function slots(span, now, points) {
    const step = span === "lastHour" ? 60_000 : 3_600_000;
    const count = span === "lastHour" ? 60 : 24;
    // The current period by this clock, or a later one the plugin's clock is in.
    let last = Math.floor(now / step) * step;
    for (const point of points)
        last = Math.max(last, Math.floor(point.at / step) * step);
    return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * step);
}
/** A stacked bar chart of `points` over `starts`; a point in no slot is left out. */
function barChart(label, starts, points, series) {
    const step = starts.length > 1 ? starts[1] - starts[0] : 60_000;
    const bySlot = new Map();
    for (const point of points)
        bySlot.set(Math.floor(point.at / step) * step, point);
    const totals = starts.map((at) => {
        const point = bySlot.get(at);
        return point ? series.reduce((sum, s) => sum + s.of(point), 0) : 0;
    });
    const top = Math.max(1, ...totals);
    const width = WIDTH / starts.length;
    const chart = svg$1("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: "chart", preserveAspectRatio: "none" });
    chart.append(svg$1("title", {}, label));
    chart.append(svg$1("line", { x1: 0, y1: HEIGHT - 0.5, x2: WIDTH, y2: HEIGHT - 0.5, class: "axis" }));
    starts.forEach((at, i) => {
        const point = bySlot.get(at);
        if (!point || totals[i] === 0)
            return;
        const bar = svg$1("g", { "data-at": at, "data-total": totals[i] });
        const parts = series.map((s) => `${s.of(point)} ${s.name}`).filter((text) => !text.startsWith("0 "));
        bar.append(svg$1("title", {}, `${time(at)}: ${parts.join(", ")}`));
        let y = HEIGHT;
        for (const s of series) {
            const n = s.of(point);
            if (n === 0)
                continue;
            const height = (n / top) * (HEIGHT - 4);
            y -= height;
            bar.append(svg$1("rect", { x: i * width + 0.5, y, width: Math.max(1, width - 1), height, class: `s-${s.color}`, "data-series": s.name }));
        }
        chart.append(bar);
    });
    return chart;
}
/** The largest value of `of` among `points`, or null when none has one. */
function worst(points, of) {
    let most = null;
    for (const point of points) {
        const value = of(point);
        if (value !== null && (most === null || value > most))
            most = value;
    }
    return most;
}
function sum(points, of) {
    return points.reduce((total, point) => total + of(point), 0);
}
/** Sets up the History tab. */
function mountHistory(shell) {
    const { state, panels, failed } = shell;
    const panel = panels.get("history");
    let span = "lastHour";
    const choose = h("select", {
        "aria-label": "Span",
        onchange: (event) => {
            span = event.target.value;
            loadHistory().catch(failed);
        },
    }, h("option", { value: "lastHour" }, "Last hour, by minute"), h("option", { value: "lastDay" }, "Last day, by hour"));
    const body = h("div", { class: "history" });
    panel.append(h("div", { class: "filters" }, h("label", {}, "Span", choose)), body);
    async function loadHistory() {
        const asked = span;
        const [kinds, targets] = await Promise.all([index.jobHistory({ span: asked }), index.syncHistory({ span: asked })]);
        if (state.destroyed || asked !== span)
            return;
        const now = Date.now();
        const by = span === "lastHour" ? "minute" : "hour";
        const sections = [];
        for (const { kind, points } of kinds) {
            const starts = slots(span, now, points);
            const ended = sum(points, (p) => p.succeeded + p.failed + p.cancelled);
            const failedCount = sum(points, (p) => p.failed);
            const retries = sum(points, (p) => p.retries);
            const offline = sum(points, (p) => p.offline);
            const throttled = sum(points, (p) => p.throttled);
            const slept = sum(points, (p) => p.slept ?? 0);
            const run = worst(points, (p) => p.runP95Ms);
            const wait = worst(points, (p) => p.waitP95Ms);
            const words = [
                `${ended} ended`,
                `${failedCount} failed`,
                `${retries} retried`,
                offline > 0 ? `${offline} deferred offline` : null,
                throttled > 0 ? `${throttled} asked to wait` : null,
                slept > 0 ? `${slept} began a durable sleep` : null,
                run === null ? null : `run p95 up to ${index.duration(run)}`,
                wait === null ? null : `wait p95 up to ${index.duration(wait)}`,
            ].filter((w) => w !== null);
            sections.push(h("figure", { "data-kind": kind }, h("figcaption", {}, h("strong", {}, kind), ` — ${words.join(", ")} (a bar per ${by})`), barChart(`${kind}: ${words.join(", ")}`, starts, points, JOB_SERIES)));
        }
        for (const { target, points } of targets) {
            const starts = slots(span, now, points);
            const runs = sum(points, (p) => p.updated + p.notModified + p.failed + p.offline + p.throttled);
            const bad = sum(points, (p) => p.failed + p.offline);
            const took = worst(points, (p) => p.tookP95Ms);
            const words = [`${runs} runs`, `${bad} failed or offline`, `${sum(points, (p) => p.changed)} items changed`, took === null ? null : `p95 up to ${index.duration(took)}`].filter((w) => w !== null);
            sections.push(h("figure", { "data-target": target }, h("figcaption", {}, h("strong", {}, target), ` — ${words.join(", ")} (a bar per ${by})`), barChart(`${target}: ${words.join(", ")}`, starts, points, SYNC_SERIES)));
        }
        const legend = h("p", { class: "muted legend" }, ...JOB_SERIES.map((s) => h("span", {}, h("i", { class: `s-${s.color}` }), s.name)), " · sync: ", ...SYNC_SERIES.map((s) => h("span", {}, h("i", { class: `s-${s.color}` }), s.name)));
        body.replaceChildren(...(sections.length ? [legend, ...sections] : [h("p", { class: "muted" }, "Nothing ended in this span.")]));
    }
    return { loadHistory };
}

const SVG = "http://www.w3.org/2000/svg";
/** The most pieces a graph draws. */
const MAX_NODES = 40;
const NODE_W = 190;
const NODE_H = 20;
const GAP = 6;
const COLUMN = 250;
function svg(tag, attrs, ...children) {
    const element = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs))
        element.setAttribute(name, String(value));
    for (const child of children)
        element.append(child);
    return element;
}
/** A job's node: its id, kind and status; `open` shows its detail. */
function node({ job, x, y }, open) {
    const label = `#${job.id} ${job.kind}`;
    const short = label.length > 26 ? `${label.slice(0, 25)}…` : label;
    const tip = `#${job.id} ${job.kind}: ${job.status}${job.lastError ? ` — ${job.lastError}` : ""}`;
    const g = svg("g", { class: `node st-${job.status}`, "data-id": job.id, "data-status": job.status, role: "button", tabindex: 0, "aria-label": tip }, svg("title", {}, tip), svg("rect", { x, y, width: NODE_W, height: NODE_H, rx: 4 }), svg("rect", { x, y, width: 4, height: NODE_H, class: "mark" }), svg("text", { x: x + 10, y: y + 14 }, `${short} · ${job.status}`));
    g.addEventListener("click", () => open(job.id));
    g.addEventListener("keydown", (event) => {
        const key = event.key;
        if (key === "Enter" || key === " ") {
            event.preventDefault();
            open(job.id);
        }
    });
    return g;
}
function column(jobs, x, height) {
    const top = (height - (jobs.length * (NODE_H + GAP) - GAP)) / 2;
    return jobs.map((job, i) => ({ job, x, y: top + i * (NODE_H + GAP) }));
}
function edge(from, to) {
    return svg("line", { x1: from.x + NODE_W, y1: from.y + NODE_H / 2, x2: to.x, y2: to.y + NODE_H / 2, class: "edge" });
}
/** The graph of the workflow whose parent is `parent`, or null when it has no pieces. */
async function workflowGraph(parent, open) {
    const children = await index.listJobs({ parent: parent.id, limit: MAX_NODES + 1 });
    if (children.length === 0)
        return null;
    const shown = children.slice(0, MAX_NODES).sort((a, b) => a.id - b.id);
    const deps = await Promise.all(shown.map((child) => index.jobDependencies(child.id).catch(() => null)));
    // A job after the pieces says it waited even once it was freed (its rows go then):
    // drawn from the pieces enqueued before it, what `then` waits for.
    const waits = new Map();
    shown.forEach((child, i) => {
        const dep = deps[i];
        if (dep && (dep.waited || dep.waitsForTotal > 0)) {
            waits.set(child.id, dep.waitsForTotal > 0 ? dep.waitsFor : shown.filter((other) => other.id < child.id).map((other) => other.id));
        }
    });
    const pieces = shown.filter((child) => !waits.has(child.id));
    const after = shown.filter((child) => waits.has(child.id));
    const rows = Math.max(1, pieces.length, after.length);
    const height = rows * (NODE_H + GAP) + GAP;
    const [root] = column([parent], 4, height);
    const placedPieces = column(pieces, 4 + COLUMN, height);
    const placedAfter = column(after, 4 + 2 * COLUMN, height);
    const width = 8 + NODE_W + (after.length > 0 ? 2 : 1) * COLUMN;
    const graph = svg("svg", {
        viewBox: `0 0 ${width} ${height}`,
        width,
        height,
        class: "graph",
        role: "group",
        "aria-label": `Workflow #${parent.id}: ${pieces.length} pieces, ${after.length} after them`,
    });
    for (const piece of placedPieces)
        graph.append(edge(root, piece));
    for (const then of placedAfter) {
        const sources = placedPieces.filter((piece) => waits.get(then.job.id).includes(piece.job.id));
        for (const source of sources.length > 0 ? sources : placedPieces)
            graph.append(edge(source, then));
    }
    for (const placed of [root, ...placedPieces, ...placedAfter])
        graph.append(node(placed, open));
    const more = children.length - shown.length;
    if (more <= 0)
        return graph;
    const box = document.createElement("div");
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = `The first ${MAX_NODES} jobs of the workflow are drawn; more are not.`;
    box.append(graph, note);
    return box;
}

/** Draws the Jobs tab into its panel; its functions read and draw it again. */
function mountJobs(shell) {
    const { root, state, pageSize, panels, failed, act } = shell;
    // ----- jobs -----
    const jobsPanel = panels.get("jobs");
    const statusSelect = h("select", { id: "filter-status" }, h("option", { value: "" }, "any"), ...STATUSES.map((s) => h("option", { value: s }, s)));
    const kindInput = h("input", { id: "filter-kind", list: "kinds", placeholder: "any", size: 14 });
    const kindList = h("datalist", { id: "kinds" });
    const actorSelect = h("select", { id: "filter-actor" }, h("option", { value: "" }, "any"), ...ACTORS.map((a) => h("option", { value: a }, a)));
    const parentInput = h("input", { id: "filter-parent", type: "number", min: 1, placeholder: "any", size: 6 });
    const applyFilters = () => {
        state.filter = {
            status: (statusSelect.value || null),
            kind: kindInput.value.trim(),
            actor: (actorSelect.value || null),
            parent: parentInput.value ? Number(parentInput.value) : null,
        };
        state.cursors = [null];
        loadJobs().catch(failed);
    };
    for (const control of [statusSelect, actorSelect])
        control.addEventListener("change", applyFilters);
    for (const control of [kindInput, parentInput]) {
        control.addEventListener("change", applyFilters);
        control.addEventListener("keydown", (event) => {
            if (event.key === "Enter")
                applyFilters();
        });
    }
    const field = (label, control) => h("label", {}, label, control);
    const tbody = h("tbody", { id: "jobs" });
    const newer = h("button", { id: "page-newer", onclick: () => page(-1) }, "← Newer");
    const older = h("button", { id: "page-older", onclick: () => page(1) }, "Older →");
    const pageLabel = h("span", { class: "muted" });
    const detail = h("div", { class: "detail", id: "detail", hidden: true, tabindex: -1 });
    detail.addEventListener("keydown", (event) => {
        if (event.key === "Escape")
            select(null);
    });
    jobsPanel.append(h("div", { class: "filters", role: "search" }, field("Status", statusSelect), field("Kind", kindInput), kindList, field("Actor", actorSelect), field("Parent job", parentInput), h("button", { onclick: applyFilters }, "Apply")), h("table", { "aria-label": "Durable jobs, newest first" }, h("thead", {}, h("tr", {}, ...["Job", "Kind", "Status", "Attempts", "Priority", "Actor", "Created", "Progress"].map((t) => h("th", { scope: "col" }, t)))), tbody), h("div", { class: "pager" }, newer, older, pageLabel), detail);
    function filterNow() {
        return {
            status: state.filter.status,
            kind: state.filter.kind || null,
            actor: state.filter.actor,
            parent: state.filter.parent,
            before: state.cursors[state.cursors.length - 1],
            limit: pageSize,
        };
    }
    function page(step) {
        if (step > 0) {
            const last = state.rows[state.rows.length - 1];
            if (!last)
                return;
            state.cursors.push(last.id);
        }
        else if (state.cursors.length > 1) {
            state.cursors.pop();
        }
        loadJobs().catch(failed);
    }
    /** The status, and why a queued job waits when it is not just its turn. */
    function statusText(job) {
        if (job.handlerMissing)
            return `${job.status} · no handler here`;
        if (job.rateLimitedUntil != null)
            return `${job.status} · rate limited until ${time(job.rateLimitedUntil)}`;
        const waiting = index.waitingText(job.waitingFor);
        if (waiting != null)
            return `${job.status} · ${waiting}`;
        return job.status;
    }
    function jobRow(job) {
        const row = h("tr", { "data-id": job.id, "data-status": job.status, class: job.id === state.selected ? "selected" : null }, h("td", {}, h("button", { "data-action": "open", "aria-label": `Open job ${job.id}`, onclick: () => select(job.id) }, `#${job.id}`)), h("td", {}, job.kind), h("td", { class: `status status-${job.status}`, title: job.handlerMissing ? NO_HANDLER : null }, statusText(job)), h("td", { class: "num" }, `${job.attempts}/${job.maxAttempts}`), h("td", { class: "num" }, String(job.priority)), h("td", {}, job.actor), h("td", { title: new Date(job.createdAt).toISOString() }, time(job.createdAt)), h("td", { class: "progress" }, progressCell(job.progress)));
        return row;
    }
    async function loadJobs() {
        const rows = await index.listJobs(filterNow());
        if (state.destroyed)
            return;
        state.rows = rows;
        const focused = root.activeElement?.closest?.("tr")?.getAttribute("data-id");
        tbody.replaceChildren(...rows.map(jobRow));
        if (rows.length === 0) {
            tbody.append(h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No jobs match.")));
        }
        if (focused)
            rowOf(tbody, focused)?.querySelector("button")?.focus();
        newer.disabled = state.cursors.length <= 1;
        older.disabled = !mayHaveMore(rows, pageSize);
        pageLabel.textContent = `page ${state.cursors.length}`;
        if (state.selected !== null)
            await drawDetail(state.selected);
    }
    async function select(id) {
        state.selected = id;
        for (const row of Array.from(tbody.querySelectorAll("tr")))
            row.classList.toggle("selected", row.dataset.id === String(id));
        if (id === null) {
            detail.hidden = true;
            detail.replaceChildren();
            return;
        }
        await drawDetail(id);
        detail.focus();
    }
    async function drawDetail(id) {
        // A window without the workflow reads still gets the rest.
        const [job, children, deps, flow, logs] = await Promise.all([
            index.getJob(id),
            index.listJobs({ parent: id, limit: 20 }),
            index.jobDependencies(id).catch(() => null),
            index.getWorkflow(id).catch(() => null),
            index.getJobLogs(id).catch(() => null),
        ]);
        const workflow = flow !== null && (flow.progress.total ?? 0) > 0 ? flow : null;
        // A queued job: whether its kind is paused and, waiting for a slot, the jobs that
        // hold its kind's slots.
        const [holders, paused] = job?.status === "queued"
            ? await Promise.all([
                job.waitingFor?.some((w) => w.condition === "slot")
                    ? index.listJobs({ kind: job.kind, status: "running", limit: 20 }).catch(() => [])
                    : [],
                index.pausedKinds().catch(() => [...state.paused]),
            ])
            : [[], []];
        const graph = job && workflow !== null ? await workflowGraph(job, (other) => void select(other)).catch(() => null) : null;
        if (state.destroyed || state.selected !== id)
            return;
        detail.hidden = false;
        if (!job) {
            detail.replaceChildren(h("p", { class: "muted" }, `Job #${id} is gone (deleted, pruned, or outside this window's scope).`));
            return;
        }
        const facts = [
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
            const reasons = index.whyWaiting(job, { paused });
            facts.splice(2, 0, ["Why it waits", h("ul", { id: "detail-why", class: "why" }, ...reasons.map((r) => h("li", {}, r)))]);
            if (holders.length > 0) {
                facts.splice(3, 0, ["Slots held by", idList("detail-holders", holders.map((j) => j.id), holders.length)]);
            }
        }
        if (job.cancelRequested)
            facts.push(["Cancel", "requested"]);
        if (job.unreadable)
            facts.push(["Unreadable", job.unreadable]);
        const actions = h("div", { class: "actions" });
        if (state.admin) {
            const again = () => drawDetail(id).then(() => loadJobs());
            if (job.status === "failed" || job.status === "queued") {
                actions.append(h("button", { "data-action": "retry", onclick: () => act(() => index.retryJob(id), again) }, "Retry now"));
            }
            if (job.status === "queued" || job.status === "running") {
                actions.append(h("button", { "data-action": "cancel", onclick: () => act(() => index.cancel(id), again) }, "Cancel"));
            }
            if (workflow?.failed) {
                actions.append(h("button", { "data-action": "retry-workflow", onclick: () => act(() => index.retryWorkflow(id), again) }, "Retry workflow"));
            }
            if (workflow !== null && !workflow.ended) {
                actions.append(h("button", { "data-action": "cancel-workflow", onclick: () => act(() => index.cancelWorkflow(id), again) }, "Cancel workflow"));
            }
            if (job.status === "succeeded" || job.status === "failed" || job.status === "cancelled") {
                actions.append(h("button", {
                    "data-action": "delete",
                    onclick: () => act(() => index.deleteJob(id), async () => (await select(null), await loadJobs())),
                }, "Delete"));
            }
        }
        actions.append(h("button", { "data-action": "close", onclick: () => select(null) }, "Close"));
        detail.replaceChildren(h("h3", {}, `Job #${job.id}`), h("dl", {}, ...facts.flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, value)])), ...(graph ? [h("h4", {}, "Graph"), h("div", { id: "detail-graph", class: "graph-box" }, graph)] : []), h("h4", {}, "Payload"), h("pre", { id: "detail-payload" }, json(job.payload)), h("h4", {}, "Result"), h("pre", { id: "detail-result" }, json(job.result)), ...(job.lastError === null ? [] : [h("h4", {}, "Last error"), h("pre", { id: "detail-error" }, job.lastError)]), ...(job.attempts === 0 && !job.errors?.length ? [] : [h("h4", {}, "Attempts"), attemptsTimeline(job)]), ...stepsSection(job), ...logSection(logs ?? []), ...signalForm(job), actions);
    }
    /**
     * A job's attempts, oldest first: each one that failed or was deferred (offline, a
     * snooze, a throttle: not counted) with when it ended, what it said and until when
     * the job waited (the last 20 the plugin keeps), then how the latest one stands.
     */
    function attemptsTimeline(job) {
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
            const line = job.status === "succeeded"
                ? [h("b", {}, latest), ` succeeded ${time(job.finishedAt)}`]
                : job.status === "running"
                    ? [h("b", {}, latest), ` running since ${time(job.startedAt)}`]
                    : job.status === "cancelled"
                        ? [h("b", {}, latest), ` cancelled ${time(job.finishedAt)}`]
                        : null;
            if (line)
                items.push(h("li", { class: `attempt-${job.status}` }, ...line));
        }
        return h("ol", { id: "detail-attempts", class: "attempts" }, ...items);
    }
    /**
     * A job's steps (durable steps of its handler): each one recorded, with the attempt
     * that ran it, when it ended and how long its body took, a durable sleep with its
     * end, then the step running now, as the job's events said.
     */
    function stepsSection(job) {
        const done = job.steps ?? [];
        const items = done.map((step) => step.sleepUntil === null
            ? h("li", { class: "step-done" }, h("b", {}, step.name), ` done ${time(step.finishedAt)} by attempt ${step.attempt}, in ${seconds(step.finishedAt - step.startedAt)}`)
            : h("li", { class: "step-sleep" }, h("b", {}, step.name), ` sleeps until ${time(step.sleepUntil)} (begun ${time(step.startedAt)})`));
        const last = state.steps.get(job.id);
        if (job.status === "running" && last && last.finishedAt === null && !done.some((step) => step.name === last.name)) {
            items.push(h("li", { class: "step-running" }, h("b", {}, last.name), ` running since ${time(last.startedAt)}`));
        }
        if (items.length === 0)
            return [];
        return [h("h4", {}, "Steps"), h("ol", { id: "detail-steps", class: "attempts" }, ...items)];
    }
    /** What the job's handler logged (`ctx.log`), oldest first: time, attempt, level, text. */
    function logSection(lines) {
        if (lines.length === 0)
            return [];
        const items = lines.map((line) => h("li", { class: `log-${line.level}` }, `${time(line.at)} #${line.attempt} `, h("b", {}, line.level), " ", h("code", {}, line.text)));
        return [h("h4", {}, "Log"), h("ol", { id: "detail-log", class: "attempts" }, ...items)];
    }
    /**
     * For a job waiting for a signal: its name, and a form that sends it (a JSON payload)
     * for support and testing, behind the window's `signal_job` permission (a window
     * without it is told so when it sends).
     */
    function signalForm(job) {
        if (job.status !== "queued" || !job.awaitsSignal)
            return [];
        const name = job.awaitsSignal;
        const input = h("input", { id: "detail-signal-payload", value: "null", "aria-label": "payload (JSON)" });
        const send = async () => {
            let payload;
            try {
                payload = JSON.parse(input.value || "null");
            }
            catch (error) {
                failed(new Error(`the payload is not JSON: ${error.message}`));
                return;
            }
            await act(() => index.signalJob(job.id, name, payload), () => drawDetail(job.id).then(() => loadJobs()));
        };
        return [
            h("h4", {}, "Waiting for a signal"),
            h("div", { class: "actions", id: "detail-signal" }, h("span", {}, `"${name}" until ${time(job.sleepingUntil)}`), input, h("button", { "data-action": "signal", onclick: () => void send() }, "Send signal")),
        ];
    }
    /** Jobs by id, each opening its detail: the first ones listed, and how many more. */
    function idList(id, ids, total) {
        if (total === 0)
            return "—";
        const shown = ids.slice(0, 20);
        const more = total - shown.length;
        return h("span", { class: "actions", id }, ...shown.map((other) => h("button", { onclick: () => select(other) }, `#${other}`)), ...(more > 0 ? [h("span", { class: "muted" }, `and ${more} more`)] : []));
    }
    /** The kind filter's suggestions. */
    function suggestKinds(kinds) {
        kindList.replaceChildren(...Array.from(new Set(kinds), (kind) => h("option", { value: kind })));
    }
    return { tbody, loadJobs, select, drawDetail, suggestKinds };
}
/** A workflow's counts in one line: "3 of 5 ended · 2 queued, 3 succeeded · failed". */
function workflowText(flow) {
    const counts = flow.pieces.map(([status, n]) => `${n} ${status}`).join(", ");
    const outcome = flow.failed ? " · failed" : flow.ended ? " · done" : "";
    return `${flow.progress.done} of ${flow.progress.total ?? 0} ended · ${counts}${outcome}`;
}

/**
 * Keeps the inspector live: one listener on the plugin's events reloads the view shown
 * when what it shows changes (at most every 100 or 250 ms, the charts every second),
 * moves progress bars in place, and reads the view shown again after the stream
 * dropped events.
 */
/** The listener of a drawn inspector; the shell starts it after the first render. */
function liveUpdates(shell, jobs, tables, history) {
    const { state, unlisten, soon, load } = shell;
    const { tbody, loadJobs, drawDetail } = jobs;
    const { loadCounts, loadSchedules, loadSync, loadLocal } = tables;
    const { loadHistory } = history;
    // ----- live -----
    async function listen() {
        unlisten.push(await index.onJobsEvent((event, dropped) => {
            if (state.destroyed)
                return;
            switch (event.type) {
                case "jobStateChanged":
                case "jobDeleted": {
                    if (event.type === "jobDeleted" || event.to !== "running")
                        state.steps.delete(event.id);
                    const shown = state.rows.some((row) => row.id === event.id);
                    if (state.view === "jobs" && (shown || state.cursors.length === 1))
                        soon("jobs", 100, loadJobs);
                    if (state.view === "counts")
                        soon("counts", 250, loadCounts);
                    if (state.view === "history" && event.type === "jobStateChanged")
                        soon("history", 1000, loadHistory);
                    break;
                }
                case "jobProgress": {
                    const cell = rowOf(tbody, event.id)?.querySelector("td.progress");
                    if (cell)
                        cell.replaceChildren(progressCell(event));
                    if (state.selected === event.id)
                        soon("detail", 250, () => drawDetail(event.id));
                    break;
                }
                case "jobLogged":
                    if (state.selected === event.id)
                        soon("detail", 250, () => drawDetail(event.id));
                    break;
                case "jobStep": {
                    // The last one of each job; a job's end forgets it (its steps are read).
                    state.steps.set(event.id, event);
                    if (state.selected === event.id)
                        soon("detail", 250, () => drawDetail(event.id));
                    break;
                }
                case "jobsPruned":
                    if (state.view === "jobs")
                        soon("jobs", 100, loadJobs);
                    if (state.view === "counts")
                        soon("counts", 250, loadCounts);
                    break;
                case "kindPaused":
                    if (state.view === "counts")
                        soon("counts", 100, loadCounts);
                    break;
                case "scheduleChanged":
                    if (state.view === "schedules")
                        soon("schedules", 100, loadSchedules);
                    break;
                case "pluginHealth":
                    soon("health", 250, shell.loadHealth);
                    if (state.view === "sync")
                        soon("sync", 100, loadSync);
                    if (state.view === "history")
                        soon("history", 1000, loadHistory);
                    break;
                case "syncFinished":
                case "accountDisconnected":
                    if (state.view === "sync")
                        soon("sync", 100, loadSync);
                    if (state.view === "history")
                        soon("history", 1000, loadHistory);
                    break;
                case "localJobChanged":
                case "localJobProgress":
                    if (state.view === "local")
                        soon("local", 100, loadLocal);
                    break;
            }
            if (dropped > state.seenDropped) {
                state.seenDropped = dropped;
                soon("all", 100, () => load(state.view));
            }
        }));
    }
    return { listen };
}

/**
 * The inspector's stylesheet, put in its shadow root: colours for the system's light
 * and dark schemes, then the bar and its tabs, the filters, the tables, the pager,
 * the detail view and the history charts.
 */
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
.health { padding: 6px 8px; border-bottom: 1px solid var(--line); }
.health div { white-space: pre-wrap; }
.awake { padding: 4px 8px; border-bottom: 1px solid var(--line); color: var(--muted); }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.why { margin: 0; padding-left: 16px; }
.attempts { margin: 0 0 6px; padding-left: 20px; }
.attempts li { margin: 2px 0; word-break: break-word; }
.attempt-failed b { color: var(--bad); }
.attempt-succeeded b { color: var(--good); }
.attempt-offline b, .attempt-snoozed b, .attempt-throttled b, .attempt-slept b, .step-sleep b { color: var(--muted); }
.step-done b { color: var(--good); }
.graph-box { overflow: auto; max-height: 420px; margin-bottom: 6px; }
.graph .edge { stroke: var(--line); }
.graph .node { cursor: pointer; }
.graph .node rect { fill: var(--soft); stroke: var(--line); }
.graph .node:focus-visible rect, .graph .node:hover rect { stroke: var(--accent); }
.graph .node text { fill: var(--fg); font-size: 11px; }
.graph .st-succeeded .mark { fill: var(--good); }
.graph .st-failed .mark { fill: var(--bad); }
.graph .st-failed rect:first-of-type { stroke: var(--bad); }
.graph .st-running .mark, .graph .st-queued .mark { fill: var(--warn); }
.graph .st-cancelled .mark { fill: var(--muted); }
.history figure { margin: 0 0 10px; }
.history figcaption { margin-bottom: 2px; }
.chart { display: block; width: 100%; height: 72px; background: var(--soft); border-radius: 4px; }
.chart .axis { stroke: var(--line); }
.s-good { fill: var(--good); background: var(--good); }
.s-bad { fill: var(--bad); background: var(--bad); }
.s-muted { fill: var(--muted); background: var(--muted); }
.s-accent { fill: var(--accent); background: var(--accent); }
.s-warn { fill: var(--warn); background: var(--warn); }
.legend span { margin-right: 10px; white-space: nowrap; }
.legend i { display: inline-block; width: 9px; height: 9px; border-radius: 2px; margin-right: 4px; }
`;

/** Sets up the table tabs (drawn when read); a schedule's last job opens in the Jobs tab. */
function mountTables(shell, jobs) {
    const { state, panels, failed, act, show } = shell;
    const { select, suggestKinds } = jobs;
    // ----- counts -----
    const countsPanel = panels.get("counts");
    async function loadCounts() {
        const [counts, paused] = await Promise.all([index.jobCounts(), index.pausedKinds()]);
        if (state.destroyed)
            return;
        state.paused = new Set(paused);
        const kinds = new Map();
        const unhandled = new Set();
        const limited = new Map();
        const waiting = new Map();
        for (const { kind, status, count, handlerMissing, rateLimitedUntil, waitingFor, heldBecause } of counts) {
            if (!kinds.has(kind))
                kinds.set(kind, new Map());
            kinds.get(kind).set(status, count);
            if (handlerMissing)
                unhandled.add(kind);
            if (rateLimitedUntil != null)
                limited.set(kind, rateLimitedUntil);
            const why = index.waitingText(waitingFor);
            if (why != null)
                waiting.set(kind, heldBecause ? `${why} (${heldBecause})` : why);
        }
        for (const kind of paused)
            if (!kinds.has(kind))
                kinds.set(kind, new Map());
        suggestKinds(kinds.keys());
        const rows = [...kinds.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([kind, byStatus]) => {
            const isPaused = state.paused.has(kind);
            const cells = STATUSES.map((s) => h("td", { class: "num", "data-status": s }, String(byStatus.get(s) ?? 0)));
            const action = state.admin
                ? h("button", {
                    "data-action": isPaused ? "resume" : "pause",
                    onclick: () => act(() => (isPaused ? index.resumeKind(kind) : index.pauseKind(kind)), loadCounts),
                }, isPaused ? "Resume" : "Pause")
                : "";
            const until = limited.get(kind);
            const claims = isPaused
                ? "paused"
                : unhandled.has(kind)
                    ? "no handler here"
                    : until != null
                        ? `rate limited until ${time(until)}`
                        : (waiting.get(kind) ?? "");
            return h("tr", { "data-kind": kind, title: unhandled.has(kind) ? NO_HANDLER : null }, h("th", { scope: "row" }, kind), ...cells, h("td", {}, claims), h("td", {}, action));
        });
        countsPanel.replaceChildren(h("table", { "aria-label": "Jobs per kind and status" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Kind"), ...STATUSES.map((s) => h("th", { scope: "col", class: "num" }, s)), h("th", {}, "Claims"), h("th", {}, ""))), h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 8, class: "muted" }, "No jobs yet."))]))));
    }
    // ----- schedules -----
    const schedulesPanel = panels.get("schedules");
    async function loadSchedules() {
        const schedules = await index.listSchedules();
        if (state.destroyed)
            return;
        const rows = schedules.map((s) => {
            const when = s.cron !== null ? `cron ${s.cron}${s.zone ? ` (${s.zone})` : " (UTC)"}` : `every ${index.duration(s.intervalMs ?? 0)}`;
            const actions = h("span", { class: "actions" });
            if (state.admin) {
                actions.append(h("button", { "data-action": "run", onclick: () => act(() => index.runScheduleNow(s.name), loadSchedules) }, "Run now"), h("button", {
                    "data-action": s.paused ? "resume" : "pause",
                    onclick: () => act(() => (s.paused ? index.resumeSchedule(s.name) : index.pauseSchedule(s.name)), loadSchedules),
                }, s.paused ? "Resume" : "Pause"));
            }
            return h("tr", { "data-name": s.name }, h("th", { scope: "row" }, s.name), h("td", {}, s.kind), h("td", {}, when), h("td", {}, s.paused ? "paused" : time(s.nextRun)), h("td", {}, time(s.lastRun)), h("td", {}, s.lastJob === null ? "—" : h("button", { onclick: () => openJob(s.lastJob) }, `#${s.lastJob}`)), h("td", {}, actions));
        });
        schedulesPanel.replaceChildren(h("table", { "aria-label": "Schedules" }, h("thead", {}, h("tr", {}, ...["Name", "Kind", "When", "Next run", "Last run", "Last job", ""].map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No schedules."))]))));
    }
    function openJob(id) {
        show("jobs");
        select(id).catch(failed);
    }
    // ----- sync -----
    const syncPanel = panels.get("sync");
    async function loadSync() {
        const targets = await index.syncStatus();
        if (state.destroyed)
            return;
        const rows = targets.map(({ target, state: s, health }) => {
            const waits = [];
            if (s.throttledUntil)
                waits.push(`throttled until ${time(s.throttledUntil)}`);
            if (s.consecutiveFailures)
                waits.push(`${s.consecutiveFailures} failure(s), next try ${time(s.nextDue)}`);
            return h("tr", { "data-target": target }, h("th", { scope: "row" }, target), h("td", { class: `health-${health.status}` }, health.status, health.reason ? h("div", { class: "muted" }, health.reason) : null), h("td", {}, time(s.lastSuccess)), h("td", {}, s.nextDue ? time(s.nextDue) : "—"), h("td", {}, waits.join("; ") || "—", s.lastError ? h("div", { class: "muted" }, s.lastError) : null), h("td", {}, h("button", { "data-action": "refresh", onclick: () => act(() => index.syncNow(target), loadSync) }, "Refresh")));
        });
        syncPanel.replaceChildren(h("table", { "aria-label": "Sync targets" }, h("thead", {}, h("tr", {}, ...["Target", "Health", "Last success", "Next due", "Backoff / throttle", ""].map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No sync targets."))]))));
    }
    // ----- local jobs -----
    const localPanel = panels.get("local");
    async function loadLocal() {
        const jobs = await index.listLocalJobs();
        if (state.destroyed)
            return;
        const rows = jobs
            .slice()
            .reverse()
            .map((job) => h("tr", { "data-id": job.id }, h("th", { scope: "row" }, job.id), h("td", {}, job.kind), h("td", { class: `status status-${job.status}` }, job.status), h("td", {}, progressCell(job.done || job.total ? { done: job.done, total: job.total } : null)), h("td", {}, time(job.startedAt)), h("td", {}, job.error ?? ""), h("td", {}, job.status === "running" && state.admin
            ? h("button", { "data-action": "cancel", onclick: () => act(() => index.cancel(job.id), loadLocal) }, "Cancel")
            : "")));
        localPanel.replaceChildren(h("table", { "aria-label": "Local jobs of this process" }, h("thead", {}, h("tr", {}, ...["Job", "Kind", "Status", "Progress", "Started", "Error", ""].map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, ...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 7, class: "muted" }, "No local jobs in this process."))]))));
    }
    return { loadCounts, loadSchedules, loadSync, loadLocal };
}

const VIEWS = [
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
function mountInspector(host, options = {}) {
    const started = performance.now();
    let firstRender = null;
    const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
    root.replaceChildren();
    const pageSize = Math.min(1000, Math.max(1, Math.floor(options.pageSize ?? 50)));
    const state = {
        view: options.view ?? "jobs",
        admin: options.admin ?? false,
        filter: { status: null, kind: "", actor: null, parent: null },
        cursors: [null],
        rows: [],
        selected: null,
        paused: new Set(),
        destroyed: false,
        // Events the plugin's stream dropped, as last seen; none are looked at before the
        // first render.
        seenDropped: Number.POSITIVE_INFINITY,
        steps: new Map(),
    };
    const unlisten = [];
    const timers = new Map();
    // ----- frame -----
    const message = h("div", { class: "message", role: "status", "aria-live": "polite" });
    const mode = h("span", { class: "mode" });
    const tabs = h("div", { role: "tablist", "aria-label": "Inspector views" });
    const panels = new Map();
    for (const [view, label] of VIEWS) {
        const tab = h("button", {
            role: "tab",
            id: `tab-${view}`,
            "data-view": view,
            "aria-controls": `panel-${view}`,
            onclick: () => show(view),
            onkeydown: (event) => {
                const index = VIEWS.findIndex(([v]) => v === view);
                const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
                if (step === 0)
                    return;
                event.preventDefault();
                const next = VIEWS[(index + step + VIEWS.length) % VIEWS.length][0];
                show(next);
                root.querySelector(`#tab-${next}`)?.focus();
            },
        }, label);
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
    const frame = h("div", { class: "root", part: "root" }, h("div", { class: "bar" }, tabs, mode), health, awake, quitting, message, ...panels.values());
    root.append(h("style", {}, STYLE), frame);
    function say(text) {
        message.textContent = text;
    }
    function failed(error) {
        say(error instanceof index.JobsError ? `${error.code}: ${error.message}` : String(error));
    }
    /** Runs `work` at most once per `ms` for `key`, after the last call. */
    function soon(key, ms, work) {
        if (timers.has(key) || state.destroyed)
            return;
        timers.set(key, setTimeout(() => {
            timers.delete(key);
            if (!state.destroyed)
                work().catch(failed);
        }, ms));
    }
    async function act(work, then) {
        say("");
        try {
            await work();
        }
        catch (error) {
            failed(error);
        }
        await then();
    }
    /** Shows a tab; `reload` reads its data (start-up reads it itself, once). */
    function show(view, reload = true) {
        state.view = view;
        for (const tab of Array.from(tabs.children)) {
            const selected = tab.dataset.view === view;
            tab.setAttribute("aria-selected", String(selected));
            tab.setAttribute("tabindex", selected ? "0" : "-1");
        }
        for (const [name, panel] of panels)
            panel.hidden = name !== view;
        if (reload)
            load(view).catch(failed);
    }
    async function loadHealth() {
        // A window without the command sees no banner, and no error for it.
        const components = await index.pluginHealth().catch(() => null);
        const all = Array.isArray(components) ? components : [];
        const troubles = all.filter((c) => c.health.status !== "healthy");
        for (const [component, line] of [
            ["awake", awake],
            ["quit", quitting],
        ]) {
            const said = all.find((c) => c.component === component && c.health.status === "healthy" && c.health.reason);
            line.textContent = said?.health.reason ?? "";
            line.hidden = !said;
        }
        health.replaceChildren(...troubles.map((c) => h("div", { class: `health-${c.health.status}`, "data-component": c.component }, `${c.component}: ${c.health.reason ?? c.health.status}`)));
        health.hidden = troubles.length === 0;
    }
    function load(view) {
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
    const shell = { root, state, pageSize, panels, unlisten, failed, soon, act, show, load, loadHealth };
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
            index.jobCounts()
                .then((counts) => suggestKinds(counts.map((c) => c.kind)))
                .catch(() => { });
        }
        firstRender = performance.now() - started;
        host.dataset.firstRenderMs = firstRender.toFixed(1);
        host.dispatchEvent(new CustomEvent("jobs-inspector-ready", { detail: { firstRenderMs: firstRender } }));
        state.seenDropped = 0;
        await listen();
        if (state.destroyed)
            for (const stop of unlisten.splice(0))
                stop();
    }
    const ready = start().catch((error) => {
        failed(error);
        throw error;
    });
    return {
        ready,
        firstRenderMs: () => firstRender,
        refresh: () => load(state.view),
        show: (view) => {
            if (VIEWS.some(([known]) => known === view))
                show(view);
        },
        destroy() {
            state.destroyed = true;
            for (const timer of timers.values())
                clearTimeout(timer);
            timers.clear();
            for (const stop of unlisten.splice(0))
                stop();
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
function defineInspector(tag = "jobs-inspector") {
    if (customElements.get(tag))
        return;
    customElements.define(tag, class JobsInspectorElement extends HTMLElement {
        constructor() {
            super(...arguments);
            this.inspector = null;
        }
        static get observedAttributes() {
            return ["view"];
        }
        attributeChangedCallback(name, _old, value) {
            if (name === "view" && value && this.inspector)
                this.inspector.show(value);
        }
        connectedCallback() {
            const view = this.getAttribute("view");
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
        get handle() {
            return this.inspector;
        }
    });
}

exports.defineInspector = defineInspector;
exports.mountInspector = mountInspector;
