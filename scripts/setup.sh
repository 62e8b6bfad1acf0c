#!/usr/bin/env bash
# Installs what building and testing the plugin needs on Debian, only what is missing.
# Safe to run again; called by scripts/run.sh and scripts/test.sh.
set -euo pipefail

packages=(
  build-essential pkg-config libssl-dev libxdo-dev
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
  librsvg2-dev libayatana-appindicator3-dev xvfb xauth webkit2gtk-driver
  iproute2 # `ip`, for the network trigger test in a namespace of its own
  sqlite3  # the e2e run fills a raw.db with a million jobs for the inspector
  dbus-daemon # a private bus for the fake NetworkManager of tests/conditions_system.rs
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing nodejs and npm"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust from your distribution or rustup first" >&2
  exit 1
fi
