#!/usr/bin/env bash
# End-to-end tests of the example app in a real webview: Xvfb, tauri-driver,
# WebKitWebDriver and webdriverio. Installs tauri-driver when missing. Bounded in time
# and cleans up after itself. SCREENSHOT_PATH=$PWD/docs/screenshot.png and
# INSPECTOR_SCREENSHOT_PATH=$PWD/docs/inspector.png refresh the README's screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "e2e: installing tauri-driver"
  cargo install tauri-driver --version '^2' --locked --quiet
fi
[ -d node_modules ] || npm ci --no-audit --no-fund --ignore-scripts
npm run build >/dev/null
npm run build:example >/dev/null
cargo build -p jobs-demo --locked

work=$(mktemp -d)
display=$((100 + RANDOM % 800))
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

Xvfb ":$display" -screen 0 1280x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=":$display"
port=$((4500 + RANDOM % 400))
# Exported before tauri-driver starts: the app it launches inherits its environment,
# so the run gets a raw.db of its own instead of the app's data directory.
export JOBS_DEMO_BIN="$PWD/target/debug/jobs-demo"
export JOBS_DEMO_DB="$work/raw.db"
export TAURI_DRIVER_PORT="$port"
tauri-driver --port "$port" --native-driver /usr/bin/WebKitWebDriver >"$work/driver.log" 2>&1 &
pids+=($!)
sleep 1

export E2E_ARTIFACTS="$PWD/target/e2e"
if ! timeout 300 node examples/tauri-app/e2e/e2e.mjs; then
  echo "--- tauri-driver log"; tail -40 "$work/driver.log" || true
  exit 1
fi
