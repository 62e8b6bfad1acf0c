#!/usr/bin/env bash
# Runs every test: formatting, lints, unit, integration, multi-process and doc tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
