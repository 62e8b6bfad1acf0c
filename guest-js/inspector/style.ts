/**
 * The inspector's stylesheet, put in its shadow root: colours for the system's light
 * and dark schemes, then the bar and its tabs, the filters, the tables, the pager,
 * the detail view and the history charts.
 */

export const STYLE = `
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
