#!/usr/bin/env bash
# What the plugin adds to a release Tauri app, against what tauri-plugin-sql (SQLite)
# adds to the same app: bench-compare/size/ (create-tauri-app's app) built three times
# with one release profile, each binary stripped as a bundle ships it. Prints the
# rows as `ROW<TAB>name<TAB>value` (the suite's compare.rs reads them from
# $BENCH_SIZE_ROWS) and, for the plugin, the crates its bytes come from, read from
# the symbols of the unstripped binary.
set -euo pipefail
cd "$(dirname "$0")/../bench-compare/size"
out="${1:-target/size-rows.tsv}"
mkdir -p target/size
for variant in base jobs sql; do
  features=()
  [ "$variant" != base ] && features=(--features "$variant")
  cargo build --locked --release --quiet "${features[@]}"
  cp target/release/size-app "target/size/$variant"
  strip -o "target/size/$variant.stripped" "target/size/$variant"
done
size_of() { stat -c %s "target/size/$1.stripped"; }
base=$(size_of base)
jobs=$(size_of jobs)
sql=$(size_of sql)
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
added_jobs=$((jobs - base))
added_sql=$((sql - base))

# Which crates the plugin's bytes come from: the sizes of the symbols of the
# unstripped build with the plugin less those of the one without, summed by the
# crate that leads each demangled name (C functions: SQLite's own or other).
top=$(python3 - target/size/jobs target/size/base <<'PY'
import collections, re, subprocess, sys

def by_crate(path):
    out = subprocess.run(["nm", "--print-size", "--size-sort", "--demangle=rust", path],
                         capture_output=True, text=True, check=True).stdout
    total = collections.Counter()
    for line in out.splitlines():
        parts = re.match(r"^[0-9a-f]+ ([0-9a-f]+) \S (.*)$", line)
        if not parts:
            continue
        name = parts.group(2).lstrip("<_")
        if "::" not in name:
            crate = "SQLite (C)" if name.startswith("sqlite3") else "C, other"
        else:
            crate = re.split(r"[^A-Za-z0-9_]", name.split("::")[0])[0] or "other"
        total[crate] += int(parts.group(1), 16)
    return total

ours, base = by_crate(sys.argv[1]), by_crate(sys.argv[2])
added = sorted(((ours[c] - base.get(c, 0), c) for c in ours), reverse=True)
print(", ".join(f"{c} {size / 1024:.0f} KiB" for size, c in added[:8] if size > 16384))
PY
)

{
  printf 'ROW\tsize: create-tauri-app app, release, stripped, no plugin\t%s\n' "$(mib "$base")"
  printf 'ROW\tsize: what tauri-plugin-jobs adds\t%s\n' "$(mib "$added_jobs")"
  printf 'ROW\tsize: what tauri-plugin-sql (sqlite) adds\t%s\n' "$(mib "$added_sql")"
  printf 'ROW\tsize: tauri-plugin-jobs adds less than tauri-plugin-sql\t%s\n' \
    "$([ "$added_jobs" -lt "$added_sql" ] && echo yes || echo no)"
  printf 'ROW\tsize: the crates the plugin adds most (symbols, before strip)\t%s\n' "$top"
} | tee "$out"
