#!/usr/bin/env bash
# Runs the whole benchmark suite (release builds) and prints one Markdown table: the
# raw SQLite ceilings measured first, every figure of ours as a share of them, the
# published queues in bench-compare/ (effectum, apalis-sqlite) measured in the same
# run, and what the plugin adds to a release app beside tauri-plugin-sql. Takes
# about 30 minutes (apalis-sqlite's runs at 20,000 jobs take a third of it); knobs are
# documented at the top of benches/suite/main.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Each comparison crate lives outside the workspace with its own Cargo.lock, so its
# SQLite never meets ours; the suite runs their binaries as child processes.
cargo build --locked --release --manifest-path bench-compare/Cargo.toml
cargo build --locked --release --manifest-path bench-compare/apalis-sqlite/Cargo.toml
# The size rows (their names start "size: ") unless BENCH_ONLY leaves them out.
if [[ "size: " == *"${BENCH_ONLY:-}"* || "${BENCH_ONLY:-}" == size* ]]; then
  export BENCH_SIZE_ROWS="$PWD/bench-compare/size/target/size-rows.tsv"
  bash scripts/size.sh "$BENCH_SIZE_ROWS" >&2
fi
echo "# $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# command: scripts/bench.sh"
cargo bench --locked --bench suite
