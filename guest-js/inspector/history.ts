/**
 * The History tab: a chart per job kind (what ended per period, stacked: succeeded,
 * failed, cancelled; retries, attempts deferred offline, asked to wait by a service or
 * that began a durable sleep, and
 * the slowest p95 wait and run in the caption) and per
 * sync target (its runs by how they ended), over the last hour by minute or the last
 * day by hour. The charts are SVG drawn here, with no chart library; each bar's
 * numbers are in its tooltip and the chart's in its label.
 */
import type { HistoryPoint, HistorySpan, SyncHistoryPoint } from "../bindings";
import { jobHistory, syncHistory } from "../index";
import { duration, h, time } from "./render";
import type { Shell } from "./types";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 72;

/** A segment of a stacked bar: what it counts, and its colour (a class: `s-good`, ...). */
type Series<P> = { name: string; color: string; of: (point: P) => number };

const JOB_SERIES: Series<HistoryPoint>[] = [
  { name: "succeeded", color: "good", of: (p) => p.succeeded },
  { name: "failed", color: "bad", of: (p) => p.failed },
  { name: "cancelled", color: "muted", of: (p) => p.cancelled },
];

const SYNC_SERIES: Series<SyncHistoryPoint>[] = [
  { name: "updated", color: "good", of: (p) => p.updated },
  { name: "not modified", color: "accent", of: (p) => p.notModified },
  { name: "failed", color: "bad", of: (p) => p.failed },
  { name: "offline", color: "warn", of: (p) => p.offline },
  { name: "throttled", color: "muted", of: (p) => p.throttled },
];

function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** The periods a span shows, oldest first: 60 minutes or 24 hours up to the current one. */
export function slots(span: "lastHour" | "lastDay", now: number, points: { at: number }[]): number[] {
  const step = span === "lastHour" ? 60_000 : 3_600_000;
  const count = span === "lastHour" ? 60 : 24;
  // The current period by this clock, or a later one the plugin's clock is in.
  let last = Math.floor(now / step) * step;
  for (const point of points) last = Math.max(last, Math.floor(point.at / step) * step);
  return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * step);
}

/** A stacked bar chart of `points` over `starts`; a point in no slot is left out. */
export function barChart<P extends { at: number }>(
  label: string,
  starts: number[],
  points: P[],
  series: Series<P>[],
): SVGElement {
  const step = starts.length > 1 ? starts[1] - starts[0] : 60_000;
  const bySlot = new Map<number, P>();
  for (const point of points) bySlot.set(Math.floor(point.at / step) * step, point);
  const totals = starts.map((at) => {
    const point = bySlot.get(at);
    return point ? series.reduce((sum, s) => sum + s.of(point), 0) : 0;
  });
  const top = Math.max(1, ...totals);
  const width = WIDTH / starts.length;
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: "chart", preserveAspectRatio: "none" });
  chart.append(svg("title", {}, label));
  chart.append(svg("line", { x1: 0, y1: HEIGHT - 0.5, x2: WIDTH, y2: HEIGHT - 0.5, class: "axis" }));
  starts.forEach((at, i) => {
    const point = bySlot.get(at);
    if (!point || totals[i] === 0) return;
    const bar = svg("g", { "data-at": at, "data-total": totals[i] });
    const parts = series.map((s) => `${s.of(point)} ${s.name}`).filter((text) => !text.startsWith("0 "));
    bar.append(svg("title", {}, `${time(at)}: ${parts.join(", ")}`));
    let y = HEIGHT;
    for (const s of series) {
      const n = s.of(point);
      if (n === 0) continue;
      const height = (n / top) * (HEIGHT - 4);
      y -= height;
      bar.append(svg("rect", { x: i * width + 0.5, y, width: Math.max(1, width - 1), height, class: `s-${s.color}`, "data-series": s.name }));
    }
    chart.append(bar);
  });
  return chart;
}

/** The largest value of `of` among `points`, or null when none has one. */
function worst<P>(points: P[], of: (point: P) => number | null): number | null {
  let most: number | null = null;
  for (const point of points) {
    const value = of(point);
    if (value !== null && (most === null || value > most)) most = value;
  }
  return most;
}

function sum<P>(points: P[], of: (point: P) => number): number {
  return points.reduce((total, point) => total + of(point), 0);
}

/** Sets up the History tab. */
export function mountHistory(shell: Shell) {
  const { state, panels, failed } = shell;
  const panel = panels.get("history")!;
  let span: "lastHour" | "lastDay" = "lastHour";

  const choose = h(
    "select",
    {
      "aria-label": "Span",
      onchange: (event: Event) => {
        span = (event.target as HTMLSelectElement).value as typeof span;
        loadHistory().catch(failed);
      },
    },
    h("option", { value: "lastHour" }, "Last hour, by minute"),
    h("option", { value: "lastDay" }, "Last day, by hour"),
  );
  const body = h("div", { class: "history" });
  panel.append(h("div", { class: "filters" }, h("label", {}, "Span", choose)), body);

  async function loadHistory() {
    const asked: HistorySpan = span;
    const [kinds, targets] = await Promise.all([jobHistory({ span: asked }), syncHistory({ span: asked })]);
    if (state.destroyed || asked !== span) return;
    const now = Date.now();
    const by = span === "lastHour" ? "minute" : "hour";
    const sections: HTMLElement[] = [];
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
        run === null ? null : `run p95 up to ${duration(run)}`,
        wait === null ? null : `wait p95 up to ${duration(wait)}`,
      ].filter((w) => w !== null);
      sections.push(
        h(
          "figure",
          { "data-kind": kind },
          h("figcaption", {}, h("strong", {}, kind), ` — ${words.join(", ")} (a bar per ${by})`),
          barChart(`${kind}: ${words.join(", ")}`, starts, points, JOB_SERIES),
        ),
      );
    }
    for (const { target, points } of targets) {
      const starts = slots(span, now, points);
      const runs = sum(points, (p) => p.updated + p.notModified + p.failed + p.offline + p.throttled);
      const bad = sum(points, (p) => p.failed + p.offline);
      const took = worst(points, (p) => p.tookP95Ms);
      const words = [`${runs} runs`, `${bad} failed or offline`, `${sum(points, (p) => p.changed)} items changed`, took === null ? null : `p95 up to ${duration(took)}`].filter(
        (w) => w !== null,
      );
      sections.push(
        h(
          "figure",
          { "data-target": target },
          h("figcaption", {}, h("strong", {}, target), ` — ${words.join(", ")} (a bar per ${by})`),
          barChart(`${target}: ${words.join(", ")}`, starts, points, SYNC_SERIES),
        ),
      );
    }
    const legend = h(
      "p",
      { class: "muted legend" },
      ...JOB_SERIES.map((s) => h("span", {}, h("i", { class: `s-${s.color}` }), s.name)),
      " · sync: ",
      ...SYNC_SERIES.map((s) => h("span", {}, h("i", { class: `s-${s.color}` }), s.name)),
    );
    body.replaceChildren(...(sections.length ? [legend, ...sections] : [h("p", { class: "muted" }, "Nothing ended in this span.")]));
  }

  return { loadHistory };
}

export type HistoryTab = ReturnType<typeof mountHistory>;
