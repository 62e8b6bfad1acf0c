#!/usr/bin/env bash
# Runs the whole benchmark suite (release builds) and prints one Markdown table: the
# raw SQLite ceilings measured first, every figure of ours as a share of them, and the
# published queue in bench-compare/ measured in the same run. Takes about ten
# minutes; knobs are documented at the top of benches/suite/main.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The comparison crate lives outside the workspace with its own Cargo.lock, so its
# SQLite never meets ours; the suite runs its binary as a child process.
cargo build --locked --release --manifest-path bench-compare/Cargo.toml
echo "# $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# command: scripts/bench.sh"
cargo bench --locked --bench suite
