#!/usr/bin/env bash
# Runs the main job. Until the example Tauri app lands (examples/tauri-app), this is the
# headless queue demo: it enqueues jobs into raw.db, runs workers, and prints every
# state change. raw.db lives in target/demo/ and survives between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo run --locked --example queue_demo -- "$@"
