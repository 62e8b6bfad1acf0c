#!/usr/bin/env bash
# What the plugin adds to a release Tauri app, whole and feature by feature, against
# what tauri-plugin-sql (SQLite) adds to the same app: bench-compare/size/
# (create-tauri-app's app) built once per variant with one release profile, each binary
# stripped as a bundle ships it. Prints the rows as `ROW<TAB>name<TAB>value` and, for
# the rows with a goal, `<TAB>goal<TAB>yes|no` (the suite's size.rs reads them from
# $BENCH_SIZE_ROWS) and, for the plugin, the crates its bytes come from, read from the
# symbols of the unstripped binary.
set -euo pipefail
cd "$(dirname "$0")/../bench-compare/size"
out="${1:-target/size-rows.tsv}"
mkdir -p target/size
# base: no plugin; jobs: the plugin as the README adds it (default features);
# jobs-core: `default-features = false` (durable jobs and the runner); jobs-core-X:
# that and the feature X; sql: tauri-plugin-sql alone; sql-jobs: both plugins.
features_of() {
  case "$1" in
    base) echo "" ;;
    sql-jobs) echo "sql,jobs" ;;
    *) echo "$1" ;;
  esac
}
optional=(sync schedules local system-conditions)
variants=(base jobs jobs-core sql sql-jobs)
for feature in "${optional[@]}"; do variants+=("jobs-core-$feature"); done
for variant in "${variants[@]}"; do
  features=()
  [ -n "$(features_of "$variant")" ] && features=(--features "$(features_of "$variant")")
  cargo build --locked --release --quiet "${features[@]}"
  cp target/release/size-app "target/size/$variant"
  strip -o "target/size/$variant.stripped" "target/size/$variant"
done
# The same app with no plugin, with the plugin, and with none of its features, under
# the profile Tauri's guide to app size gives (Cargo.toml's `small`: lto,
# codegen-units = 1, opt-level "s", panic = "abort", strip).
small=(base jobs jobs-core)
for variant in "${small[@]}"; do
  features=()
  [ -n "$(features_of "$variant")" ] && features=(--features "$(features_of "$variant")")
  cargo build --locked --profile small --quiet "${features[@]}"
  cp target/small/size-app "target/size/$variant.small"
done
size_of() { stat -c %s "target/size/$1.stripped"; }
small_of() { stat -c %s "target/size/$1.small"; }
base=$(size_of base)
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
added() { echo $(($(size_of "$1") - $(size_of "${2:-base}"))); }
# `yes` when $1 bytes are at most $2 MiB.
within() { awk -v b="$1" -v m="$2" 'BEGIN { print (b <= m * 1048576) ? "yes" : "no" }'; }
added_jobs=$(added jobs)
added_core=$(added jobs-core)
added_sql=$(added sql)

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

# How much of what the plugin adds is SQLite's C library (its symbols: C functions,
# not Rust ones), which an app with tauri-plugin-sql already carries.
sqlite_c=$(python3 - target/size/jobs-core target/size/base <<'PY'
import re, subprocess, sys

def c_bytes(path):
    out = subprocess.run(["nm", "--print-size", "--demangle=rust", path],
                         capture_output=True, text=True, check=True).stdout
    total = 0
    for line in out.splitlines():
        parts = re.match(r"^[0-9a-f]+ ([0-9a-f]+) \S (.*)$", line)
        if parts and "::" not in parts.group(2):
            total += int(parts.group(1), 16)
    return total

print(c_bytes(sys.argv[1]) - c_bytes(sys.argv[2]))
PY
)

{
  printf 'ROW\tsize: create-tauri-app app, release, stripped, no plugin\t%s\n' "$(mib "$base")"
  printf 'ROW\tsize: what tauri-plugin-jobs adds\t%s\t<= 4.00 MiB\t%s\n' \
    "$(mib "$added_jobs")" "$(within "$added_jobs" 4)"
  printf 'ROW\tsize: what tauri-plugin-jobs adds, durable jobs and the runner only (default-features = false)\t%s\t<= 2.50 MiB\t%s\n' \
    "$(mib "$added_core")" "$(within "$added_core" 2.5)"
  printf 'ROW\tsize: of that, SQLite'"'"'s C library (symbols, before strip)\t%s\n' "$(mib "$sqlite_c")"
  printf 'ROW\tsize: the app under Tauri'"'"'s size profile (lto, codegen-units = 1, opt-level s, panic abort, strip), no plugin\t%s\n' \
    "$(mib "$(small_of base)")"
  small_jobs=$(($(small_of jobs) - $(small_of base)))
  small_core=$(($(small_of jobs-core) - $(small_of base)))
  printf 'ROW\tsize: what tauri-plugin-jobs adds under that profile\t%s\t<= 4.00 MiB\t%s\n' \
    "$(mib "$small_jobs")" "$(within "$small_jobs" 4)"
  printf 'ROW\tsize: what tauri-plugin-jobs adds under that profile, default-features = false\t%s\t<= 2.50 MiB\t%s\n' \
    "$(mib "$small_core")" "$(within "$small_core" 2.5)"
  for feature in "${optional[@]}"; do
    printf 'ROW\tsize: what the `%s` feature adds to durable jobs and the runner\t%s\n' \
      "$feature" "$(mib "$(added "jobs-core-$feature" jobs-core)")"
  done
  printf 'ROW\tsize: what tauri-plugin-sql (sqlite) adds\t%s\n' "$(mib "$added_sql")"
  printf 'ROW\tsize: what tauri-plugin-jobs adds to an app with tauri-plugin-sql\t%s\n' \
    "$(mib "$(added sql-jobs sql)")"
  printf 'ROW\tsize: tauri-plugin-jobs adds less than tauri-plugin-sql\t%s\n' \
    "$([ "$added_jobs" -lt "$added_sql" ] && echo yes || echo no)"
  printf 'ROW\tsize: the crates the plugin adds most (symbols, before strip)\t%s\n' "$top"
} | tee "$out"
