/**
 * A workflow's graph, in the detail of its parent: the parent, its pieces and the jobs
 * after them (the pieces that wait for others), coloured by status, as SVG drawn here.
 * Each node opens its job's detail (click, Enter or Space); a failed one shows its
 * error in its tooltip. The first {@link MAX_NODES} pieces are drawn, and the count of
 * the rest said.
 */
import type { Job } from "../bindings";
import { jobDependencies, listJobs } from "../index";

const SVG = "http://www.w3.org/2000/svg";
/** The most pieces a graph draws. */
export const MAX_NODES = 40;
const NODE_W = 190;
const NODE_H = 20;
const GAP = 6;
const COLUMN = 250;

function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

type Placed = { job: Job; x: number; y: number };

/** A job's node: its id, kind and status; `open` shows its detail. */
function node({ job, x, y }: Placed, open: (id: number) => void): SVGElement {
  const label = `#${job.id} ${job.kind}`;
  const short = label.length > 26 ? `${label.slice(0, 25)}…` : label;
  const tip = `#${job.id} ${job.kind}: ${job.status}${job.lastError ? ` — ${job.lastError}` : ""}`;
  const g = svg(
    "g",
    { class: `node st-${job.status}`, "data-id": job.id, "data-status": job.status, role: "button", tabindex: 0, "aria-label": tip },
    svg("title", {}, tip),
    svg("rect", { x, y, width: NODE_W, height: NODE_H, rx: 4 }),
    svg("rect", { x, y, width: 4, height: NODE_H, class: "mark" }),
    svg("text", { x: x + 10, y: y + 14 }, `${short} · ${job.status}`),
  );
  g.addEventListener("click", () => open(job.id));
  g.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if (key === "Enter" || key === " ") {
      event.preventDefault();
      open(job.id);
    }
  });
  return g;
}

function column(jobs: Job[], x: number, height: number): Placed[] {
  const top = (height - (jobs.length * (NODE_H + GAP) - GAP)) / 2;
  return jobs.map((job, i) => ({ job, x, y: top + i * (NODE_H + GAP) }));
}

function edge(from: Placed, to: Placed): SVGElement {
  return svg("line", { x1: from.x + NODE_W, y1: from.y + NODE_H / 2, x2: to.x, y2: to.y + NODE_H / 2, class: "edge" });
}

/** The graph of the workflow whose parent is `parent`, or null when it has no pieces. */
export async function workflowGraph(parent: Job, open: (id: number) => void): Promise<HTMLElement | SVGElement | null> {
  const children = await listJobs({ parent: parent.id, limit: MAX_NODES + 1 });
  if (children.length === 0) return null;
  const shown = children.slice(0, MAX_NODES).sort((a, b) => a.id - b.id);
  const deps = await Promise.all(shown.map((child) => jobDependencies(child.id).catch(() => null)));
  // A job after the pieces says it waited even once it was freed (its rows go then):
  // drawn from the pieces enqueued before it, what `then` waits for.
  const waits = new Map<number, number[]>();
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
  for (const piece of placedPieces) graph.append(edge(root, piece));
  for (const then of placedAfter) {
    const sources = placedPieces.filter((piece) => waits.get(then.job.id)!.includes(piece.job.id));
    for (const source of sources.length > 0 ? sources : placedPieces) graph.append(edge(source, then));
  }
  for (const placed of [root, ...placedPieces, ...placedAfter]) graph.append(node(placed, open));
  const more = children.length - shown.length;
  if (more <= 0) return graph;
  const box = document.createElement("div");
  const note = document.createElement("p");
  note.className = "muted";
  note.textContent = `The first ${MAX_NODES} jobs of the workflow are drawn; more are not.`;
  box.append(graph, note);
  return box;
}
