#!/usr/bin/env bash
# Runs the main job: the example app (examples/tauri-app), with raw.db in the app's
# data directory. Without a display it runs under Xvfb (xvfb-run), which is only
# useful to check that it starts. `scripts/run.sh --headless-demo` runs the
# terminal-only queue demo instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

if [ "${1:-}" = "--headless-demo" ]; then
  exec cargo run --locked --example queue_demo
fi

[ -d node_modules ] || npm ci --no-audit --no-fund --ignore-scripts
npm run build >/dev/null
npm run build:example >/dev/null
cargo build --locked -p jobs-demo
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "run: no display; starting the app under Xvfb"
  exec xvfb-run -a target/debug/jobs-demo
fi
exec target/debug/jobs-demo
