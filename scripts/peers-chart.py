#!/usr/bin/env python3
"""Draws docs/peers.svg, ours against each peer's best settings on every shared
workload (ours ÷ theirs, log scale, a line at the 2x goal), from the "same work"
table of docs/performance.md. Run it after that table changes:

    python3 scripts/peers-chart.py
"""
import math
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
text = (root / "docs/performance.md").read_text()
rows = []
for line in text.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 6 and re.fullmatch(r"[\d.]+x", cells[3] or "") and "their file" not in cells[0]:
        if "documented defaults" in cells[0]:
            continue
        apalis = cells[5] if re.fullmatch(r"[\d.]+x", cells[5] or "") else None
        rows.append((cells[0], float(cells[3][:-1]), float(apalis[:-1]) if apalis else None))

width, left, right, bar, gap = 760, 330, 40, 12, 14
height = 60 + len(rows) * (2 * bar + gap) + 40
lo = 1.0
# The scale ends at the power of ten above the largest ratio (1000x at least), so no
# bar or label runs past the chart.
largest = max(r for row in rows for r in row[1:] if r is not None)
hi = 10.0 ** max(3, math.ceil(math.log10(largest)))
def x(ratio):
    return left + (width - left - right) * (math.log10(ratio) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
       f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
       '<text x="10" y="20" font-size="14" font-weight="bold">tauri-plugin-jobs ÷ each peer, best settings (log scale)</text>',
       '<rect x="10" y="30" width="12" height="10" fill="#1e40af"/><text x="26" y="39">÷ effectum 0.7.0</text>',
       '<rect x="150" y="30" width="12" height="10" fill="#b45309"/><text x="166" y="39">÷ apalis-sqlite 1.0.0</text>']
top = 60
for tick in (1, 2) + tuple(10 ** k for k in range(1, round(math.log10(hi)) + 1)):
    out.append(f'<line x1="{x(tick):.1f}" y1="{top - 6}" x2="{x(tick):.1f}" y2="{height - 30}" stroke="#d1d5db"/>')
    out.append(f'<text x="{x(tick):.1f}" y="{height - 15}" text-anchor="middle">{tick}x</text>')
out.append(f'<line x1="{x(2):.1f}" y1="{top - 6}" x2="{x(2):.1f}" y2="{height - 30}" stroke="#b91c1c" stroke-dasharray="4 3"/>')
out.append(f'<text x="{x(2) + 4:.1f}" y="{top - 8}" fill="#b91c1c">goal: 2x</text>')
y = top
for name, effectum, apalis in rows:
    label = re.sub(r" \((jobs/s|ms)\)$", "", name).replace(", best settings", "").replace(", p50 / p99", "")
    out.append(f'<text x="{left - 8}" y="{y + bar + 4}" text-anchor="end">{label}</text>')
    for n, (ratio, colour) in enumerate(((effectum, "#1e40af"), (apalis, "#b45309"))):
        if ratio is None:
            continue
        top_y = y + n * bar
        out.append(f'<rect x="{left}" y="{top_y}" width="{x(max(ratio, lo)) - left:.1f}" height="{bar - 2}" fill="{colour}"/>')
        out.append(f'<text x="{x(max(ratio, lo)) + 4:.1f}" y="{top_y + bar - 3}">{ratio:g}x</text>')
    y += 2 * bar + gap
out.append("</svg>")
(root / "docs/peers.svg").write_text("\n".join(out) + "\n")
print(f"docs/peers.svg: {len(rows)} workloads")
