#!/usr/bin/env bash
# Runs every test: the webview API (type check, build, vitest), then formatting,
# lints and every Rust test (unit, integration, multi-process, mock-runtime, doc),
# then the example app end to end in a real webview.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# First: the example app embeds the page script built here. --ignore-scripts: no
# package needs an install script here, and some (browser drivers webdriverio pulls
# in) would try to download binaries this machine cannot fetch.
npm ci --no-audit --no-fund --ignore-scripts
npm run typecheck
npm run build
npm test

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked

# The example app in a real webview (Xvfb, tauri-driver, WebKitWebDriver).
bash scripts/e2e.sh
