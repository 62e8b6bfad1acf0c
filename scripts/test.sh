#!/usr/bin/env bash
# Runs every test: formatting, lints, Rust unit, integration, multi-process, mock-runtime
# and doc tests, then the webview API's type check, build and unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked

npm ci --no-audit --no-fund
npm run typecheck
npm run build
npm test
