#!/usr/bin/env bash
# The webview package installed the way the README says, from a fresh clone: the
# repository's tracked files (no node_modules, no build) copied beside a new app
# named as in the README, the README's own `npm install` line run there, then the
# git URL form (`npm install git+file://...`). Each must give a package that loads
# under Node and resolves `@tauri-apps/api` from the app (one copy of it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "A fresh clone": what git tracks, as the working tree has it (uncommitted edits
# included, so a check before a commit sees them), nothing else.
mkdir "$work/tauri-plugin-jobs"
git ls-files -z --cached --others --exclude-standard |
  (cd "$root" && xargs -0 cp --parents -t "$work/tauri-plugin-jobs" 2>/dev/null || true)
[ -f "$work/tauri-plugin-jobs/dist-js/index.js" ] || {
  echo "npm-install: dist-js/ is not in the repository: a checkout has no package to install" >&2
  exit 1
}
(cd "$work/tauri-plugin-jobs" && git init -q && git add -A && git -c user.name=ci -c user.email=ci@localhost commit -qm fresh)

# The README's line, word for word.
line=$(grep -m1 -E '^\s*npm install .*\.\./tauri-plugin-jobs' README.md | sed -E 's/#.*$//; s/^\s+//; s/\s+$//')
[ -n "$line" ] || { echo "npm-install: no npm install line in the README" >&2; exit 1; }

check() {
  local app=$1
  local installed="$app/node_modules/tauri-plugin-jobs-api"
  [ -f "$installed/dist-js/index.js" ] || { echo "npm-install: $2: no dist-js/index.js" >&2; exit 1; }
  if [ -L "$installed" ]; then
    echo "npm-install: $2: linked, not installed: the checkout's own modules would be used" >&2
    exit 1
  fi
  [ -d "$app/node_modules/@tauri-apps/api" ] || { echo "npm-install: $2: @tauri-apps/api not installed beside it" >&2; exit 1; }
  [ ! -e "$installed/node_modules/@tauri-apps/api" ] || { echo "npm-install: $2: a second @tauri-apps/api" >&2; exit 1; }
  (cd "$app" && node --input-type=module -e '
    const jobs = await import("tauri-plugin-jobs-api");
    const inspector = await import("tauri-plugin-jobs-api/inspector");
    if (typeof jobs.enqueue !== "function" || typeof inspector.mountInspector !== "function") {
      console.error("npm-install: the package loaded without its API"); process.exit(1);
    }') || { echo "npm-install: $2: the package does not load" >&2; exit 1; }
  echo "npm-install: $2: installed and loads"
}

new_app() {
  mkdir -p "$1"
  printf '{ "name": "%s", "private": true, "type": "module", "dependencies": { "@tauri-apps/api": "^2" } }\n' "$(basename "$1")" >"$1/package.json"
}

new_app "$work/app"
(cd "$work/app" && eval "$line --no-audit --no-fund") >"$work/readme.log" 2>&1 ||
  { cat "$work/readme.log" >&2; echo "npm-install: the README's line failed: $line" >&2; exit 1; }
check "$work/app" "the README's line ($line)"

new_app "$work/from-git"
(cd "$work/from-git" && npm install --no-audit --no-fund "git+file://$work/tauri-plugin-jobs") >"$work/git.log" 2>&1 ||
  { cat "$work/git.log" >&2; echo "npm-install: npm install git+file:// failed" >&2; exit 1; }
check "$work/from-git" "npm install git+<repository>"
