#!/usr/bin/env bash
# Runs every benchmark (release builds) and prints their tables: the queue (with the
# raw SQLite ceiling measured in the same run), the runner and bus, process-local
# jobs. Takes a few minutes; knobs are documented at the top of each benches/*.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "# $(date -u +%Y-%m-%d) on $(nproc) cores, $(uname -sr)"
cargo bench --locked --bench queue
cargo bench --locked --bench runner
cargo bench --locked --bench local_jobs
