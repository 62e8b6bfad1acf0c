#!/usr/bin/env bash
# The README's quick start as a user gets it: the crate as `cargo package` makes it
# (compiled from its own tarball), the webview API as `npm pack` makes it, and a fresh
# create-tauri-app vanilla-ts project (ci/quickstart: the template, the README's
# additions, tauri-plugin-sql beside them) built from the two in a directory outside
# this checkout, so nothing can come from the working tree. Then a smoke test in the
# real webview (examples/tauri-app/e2e/quickstart-smoke.mjs): every awaited call of the README's
# snippet settles, a durable job's result, a local job's progress, Refresh, the
# inspector, and the template's own greet command and SQL plugin.
#
# It fails when either package holds a file the allowed lists below do not name, or
# misses one the app needs.
#
# QUICKSTART_UPDATE_LOCK=1 refreshes ci/quickstart/src-tauri/Cargo.lock (after the
# crate's dependencies change) instead of building with --locked.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source scripts/webdriver.sh

work=$(mktemp -d)
cleanup() {
  stop_webdriver
  rm -rf "$work"
}
trap cleanup EXIT

# What each package may hold: a path matching none of these fails the run.
crate_allowed='^(Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|\.cargo_vcs_info\.json|README\.md|CHANGELOG\.md|LICENSE-MIT|LICENSE-APACHE|build\.rs|api-iife\.js|src/.+\.rs|permissions/.+\.(toml|json|md))$'
npm_allowed='^(package\.json|README\.md|LICENSE-MIT|LICENSE-APACHE|dist-js/.+\.(js|cjs|d\.ts))$'
# What the app needs from each: a missing one fails the run.
crate_needs=(src/lib.rs build.rs api-iife.js permissions/default.toml README.md LICENSE-MIT LICENSE-APACHE)
npm_needs=(dist-js/index.js dist-js/index.d.ts dist-js/inspector.js dist-js/inspector.d.ts README.md LICENSE-MIT LICENSE-APACHE)

check_contents() { # name allowed-pattern listing-file needed...
  local name=$1 allowed=$2 listing=$3
  shift 3
  local extra
  extra=$(grep -Ev "$allowed" "$listing" || true)
  if [ -n "$extra" ]; then
    echo "quickstart: the $name package holds files it should not:" >&2
    echo "$extra" >&2
    exit 1
  fi
  local need
  for need in "$@"; do
    if ! grep -qx "$need" "$listing"; then
      echo "quickstart: the $name package lacks $need" >&2
      exit 1
    fi
  done
  echo "quickstart: the $name package holds $(wc -l <"$listing") files, all allowed"
}

# The crate: listed, then packaged and compiled from its own tarball.
cargo package --list --locked --allow-dirty >"$work/crate-files"
check_contents crate "$crate_allowed" "$work/crate-files" "${crate_needs[@]}"
# (Cargo names each test and example it leaves out: they are not the crate's.)
# --no-verify: the app below compiles the crate from this tarball, which is the check
# `cargo package` would otherwise make with a build of its own.
cargo package --locked --allow-dirty --no-verify 2> >(grep -v '^warning: ignoring' >&2)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
tar -xzf "target/package/tauri-plugin-jobs-$version.crate" -C "$work"
mv "$work/tauri-plugin-jobs-$version" "$work/tauri-plugin-jobs"

# The npm package: built (dist-js/ is committed; this makes it from guest-js/ as it is
# now), packed, then listed.
[ -d node_modules ] || npm ci --no-audit --no-fund --ignore-scripts
npm run build
# The WebDriver client of the smoke test: the example app's own package, not the
# webview package's (an install of that pulls no browser driver).
[ -d examples/tauri-app/node_modules ] ||
  npm ci --prefix examples/tauri-app --no-audit --no-fund --ignore-scripts
npm pack --json --pack-destination "$work" >"$work/npm-pack.json"
python3 -c 'import json,sys; [print(f["path"]) for f in json.load(open(sys.argv[1]))[0]["files"]]' \
  "$work/npm-pack.json" >"$work/npm-files"
check_contents npm "$npm_allowed" "$work/npm-files" "${npm_needs[@]}"
tarball=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["filename"])' "$work/npm-pack.json")

# The app, next to the two packages, as the README's Install section lays it out.
cp -r ci/quickstart "$work/quickstart"
rm -rf "$work/quickstart/node_modules" "$work/quickstart/dist" "$work/quickstart/src-tauri/gen"
cd "$work/quickstart"
npm ci --no-audit --no-fund
npm install --no-audit --no-fund "../$tarball"
# `npm run build` runs the app's `jobs_kinds` test first (package.json's prebuild),
# which compiles the app: its cache lives in this checkout's target/ (outputs only, no
# sources), with this repository's debug-info settings so the cache stays small, and
# the lockfile is checked (or updated) before anything builds.
export CARGO_TARGET_DIR="$repo/target/quickstart"
# In the app's root, not src-tauri/: Cargo reads `.cargo/config.toml` from the
# directory it runs in and its parents, and the prebuild runs from the root (with
# `--manifest-path`), the build below from src-tauri/. One file both see, or the
# second compiles every crate again with other debug settings.
mkdir -p .cargo
printf '[profile.dev]\ndebug = "line-tables-only"\n[profile.dev.package."*"]\ndebug = false\n' >.cargo/config.toml
(
  cd src-tauri
  if [ "${QUICKSTART_UPDATE_LOCK:-}" = 1 ]; then
    if [ -f Cargo.lock ]; then cargo update --quiet -p tauri-plugin-jobs; else cargo generate-lockfile --quiet; fi
    cp Cargo.lock "$repo/ci/quickstart/src-tauri/Cargo.lock"
  else
    cargo metadata --locked --format-version 1 >/dev/null
  fi
)
# The kinds' declarations are written from the Rust code by that test: the committed
# file must be what it writes, or the page was type-checked against stale kinds.
rm src/jobs-kinds.d.ts
npm run build
if ! diff -u "$repo/ci/quickstart/src/jobs-kinds.d.ts" src/jobs-kinds.d.ts; then
  echo "quickstart: ci/quickstart/src/jobs-kinds.d.ts is not what the app's jobs_kinds test writes: copy it" >&2
  exit 1
fi
# The kinds' declarations (src/jobs-kinds.d.ts) are what type the page: a kind name
# with a typo, or a payload of the wrong shape, fails the build.
cp src/main.ts "$work/main.ts"
for wrong in 's/enqueueAndWait("thumbnail", { path: "a.png"/enqueueAndWait("thumbnial", { path: "a.png"/' \
  's/width: 256 }/width: "256" }/' 's/runLocal("export"/runLocal("exprot"/'; do
  sed "$wrong" "$work/main.ts" >src/main.ts
  if cmp -s src/main.ts "$work/main.ts"; then
    echo "quickstart: '$wrong' changed nothing in src/main.ts" >&2
    exit 1
  fi
  if npm run build >"$work/wrong-build.log" 2>&1; then
    echo "quickstart: npm run build passed with a wrong call ($wrong)" >&2
    exit 1
  fi
  grep -q "error TS" "$work/wrong-build.log"
done
cp "$work/main.ts" src/main.ts
# A field renamed in Rust (serde's name for `width` becomes `px`): the next `npm run
# build` writes the kinds again from the code, and the page's `width` fails tsc.
cp src-tauri/src/lib.rs "$work/lib.rs"
sed -i 's/^    width: u32,/    #[serde(rename = "px")]\n    width: u32,/' src-tauri/src/lib.rs
if cmp -s src-tauri/src/lib.rs "$work/lib.rs"; then
  echo "quickstart: the rename changed nothing in src-tauri/src/lib.rs" >&2
  exit 1
fi
if npm run build >"$work/wrong-build.log" 2>&1; then
  echo "quickstart: npm run build passed with a field renamed in Rust" >&2
  exit 1
fi
grep -q "error TS" "$work/wrong-build.log"
grep -q "px: number" src/jobs-kinds.d.ts
cp "$work/lib.rs" src-tauri/src/lib.rs
npm run build >/dev/null
echo "quickstart: a wrong kind name, payload or local kind, or a field renamed in Rust, each fails npm run build"

# The app as `tauri dev` runs it: a debug build (the dependencies are the ones the
# kinds test compiled, so only the app itself builds again) loading the page from
# devUrl, where `vite preview` serves the bundle `npm run build` just made. (A
# `--features tauri/custom-protocol` build embeds the same bundle, and costs a second
# compile of tauri and every crate above it.)
(cd src-tauri && cargo build --locked)
./node_modules/.bin/vite preview --port 1420 --strictPort >"$work/vite.log" 2>&1 &
vite_pid=$!
cleanup() {
  kill "$vite_pid" 2>/dev/null || true
  stop_webdriver
  rm -rf "$work"
}
for _ in $(seq 100); do
  (exec 3<>/dev/tcp/localhost/1420) 2>/dev/null && break
  kill -0 "$vite_pid" 2>/dev/null || { cat "$work/vite.log" >&2; exit 1; }
  sleep 0.1
done
cd "$repo"

# The smoke test, on a data and config directory of its own (the app inherits
# tauri-driver's environment).
export XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"
export QUICKSTART_BIN="$CARGO_TARGET_DIR/debug/quickstart"
start_webdriver "$work"
if ! timeout 120 node examples/tauri-app/e2e/quickstart-smoke.mjs; then
  driver_log
  exit 1
fi
# The debug build wrote the kinds' declarations at start (Builder::typescript): they
# must be the committed ones, or the page was type-checked against stale kinds.
if ! diff -u ci/quickstart/src/jobs-kinds.d.ts "$work/quickstart/src/jobs-kinds.d.ts"; then
  echo "quickstart: ci/quickstart/src/jobs-kinds.d.ts is not what the app writes: copy it from a run" >&2
  exit 1
fi
