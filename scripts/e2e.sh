#!/usr/bin/env bash
# End-to-end tests of the example app in a real webview: Xvfb, tauri-driver,
# WebKitWebDriver and webdriverio (scripts/webdriver.sh). Installs tauri-driver when
# missing. Bounded in time and cleans up after itself.
# SCREENSHOT_PATH=$PWD/docs/screenshot.png and
# INSPECTOR_SCREENSHOT_PATH=$PWD/docs/inspector.png refresh the README's screenshots;
# HISTORY_SCREENSHOT_PATH=$PWD/docs/history.png and
# WORKFLOW_SCREENSHOT_PATH=$PWD/docs/workflow.png the guide's History tab and workflow graph.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/webdriver.sh

[ -d node_modules ] || npm ci --no-audit --no-fund --ignore-scripts
# webdriverio: the example app's own package (examples/tauri-app/package.json).
[ -d examples/tauri-app/node_modules ] ||
  npm ci --prefix examples/tauri-app --no-audit --no-fund --ignore-scripts
npm run build >/dev/null
npm run build:example >/dev/null
cargo build -p jobs-demo --locked

work=$(mktemp -d)
cleanup() {
  stop_webdriver
  rm -rf "$work"
}
trap cleanup EXIT

# Exported before tauri-driver starts: the app it launches inherits its environment,
# so the run gets a raw.db of its own instead of the app's data directory.
export JOBS_DEMO_BIN="$PWD/target/debug/jobs-demo"
export JOBS_DEMO_DB="$work/raw.db"
# Absent at first (the built-in settings); one test writes a broken one.
export JOBS_DEMO_CONFIG="$work/config.toml"
start_webdriver "$work"

export E2E_ARTIFACTS="$PWD/target/e2e"
if ! timeout 420 node examples/tauri-app/e2e/e2e.mjs; then
  driver_log
  exit 1
fi
