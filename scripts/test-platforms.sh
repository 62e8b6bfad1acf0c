#!/usr/bin/env bash
# The crate on the systems Tauri apps ship to first, from this Debian machine:
#
# - macOS: clippy (every target: the crate, its tests and benches, and the crate
#   without its default features) for aarch64-apple-darwin, the crate for x86_64-apple-darwin,
#   SQLite's C compiled by zig (PyPI's `ziglang`, scripts/macos/zig-cc.sh). Compiled, not run: no
#   macOS SDK or machine can be had here.
# - Android and iOS: clippy for the crate as a mobile app builds it
#   (aarch64-linux-android, aarch64-apple-ios), with its default features and without
#   them, the C compiled by the same zig. Compiled, not run: no NDK, Android SDK or
#   Xcode here (docs/mobile.md).
# - Windows, last: the crate's whole test suite built for x86_64-pc-windows-gnu
#   (mingw-w64), linted by clippy as it builds, and run under Wine. Not WebView2: the
#   example app's end-to-end run needs a real Windows.
#
# Installs what it needs (Debian's mingw-w64 and Wine, the rustup targets, ziglang).
# Called by scripts/test.sh; runs alone too.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for package in gcc-mingw-w64-x86-64 wine wine64; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "platforms: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
targets=(x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin aarch64-linux-android aarch64-apple-ios)
rustup target add "${targets[@]}" >/dev/null 2>&1 || rustup target add "${targets[@]}"
if ! python3 -m ziglang version >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check ziglang
fi

# ===== macOS (compiled, not run) =====

# Apple silicon: every target, and the crate without its default features. Intel:
# the crate as apps build it (no code of ours differs by the CPU; this checks the
# dependencies build for it).
export CC_aarch64_apple_darwin="$PWD/scripts/macos/zig-cc.sh" CC_x86_64_apple_darwin="$PWD/scripts/macos/zig-cc.sh"
ZIG_TARGET=aarch64-macos cargo clippy --locked --target aarch64-apple-darwin \
  -p tauri-plugin-jobs --all-targets --features metrics -- -D warnings
ZIG_TARGET=aarch64-macos cargo clippy --locked --target aarch64-apple-darwin --lib \
  --no-default-features -- -D warnings
ZIG_TARGET=x86_64-macos cargo clippy --locked --target x86_64-apple-darwin --lib -- -D warnings

# ===== Android and iOS (compiled, not run) =====

# zig's musl libc headers stand in for the NDK's, its macOS headers for the iOS SDK's
# (SDKROOT names an empty directory: cc wants one; zig-cc.sh drops it); llvm-ar, or
# zig's own, archives.
ar="$(command -v llvm-ar || true)"
if [ -z "$ar" ]; then
  ar="$PWD/target/zig-ar.sh"
  printf '#!/bin/sh\nexec python3 -m ziglang ar "$@"\n' >"$ar"
  chmod +x "$ar"
fi
mkdir -p target/no-ios-sdk
export CC_aarch64_linux_android="$PWD/scripts/macos/zig-cc.sh" AR_aarch64_linux_android="$ar"
export CC_aarch64_apple_ios="$PWD/scripts/macos/zig-cc.sh"
for features in "" --no-default-features; do
  # shellcheck disable=SC2086 # no features is no word
  ZIG_TARGET=aarch64-linux-musl cargo clippy --locked --target aarch64-linux-android --lib \
    $features -- -D warnings
  # shellcheck disable=SC2086
  ZIG_TARGET=aarch64-macos SDKROOT="$PWD/target/no-ios-sdk" cargo clippy --locked \
    --target aarch64-apple-ios --lib $features -- -D warnings
done

# ===== Windows =====

# Last: the Wine run has its wall-clock bounds, and scripts/test.sh runs Linux's soak
# in the background beside the compiling above.

win=x86_64-pc-windows-gnu
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
# A prefix of our own, quiet; debug info off for the Windows build only (it halves
# the link time of the ~20 test binaries, and a backtrace under Wine names no lines
# anyway).
export WINEPREFIX="$PWD/target/wine"
export WINEDEBUG=-all
export CARGO_PROFILE_DEV_DEBUG=0
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wineboot -i >/dev/null 2>&1 || true
fi
# Wine 8 lacks bcryptprimitives.dll, which Rust's std imports: a stand-in built here.
x86_64-w64-mingw32-gcc -shared -O2 -o target/bcryptprimitives.dll \
  scripts/windows/processprng.c -ladvapi32
cp target/bcryptprimitives.dll "$WINEPREFIX/drive_c/windows/system32/"

# Clippy for this target lints the crate while the test build compiles it: clippy-driver
# as the workspace's compiler, as `cargo clippy` runs it, but building (every target,
# -D warnings), so the dependencies are compiled once rather than checked and then
# compiled (about a minute on a fresh machine).
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export RUSTC_WORKSPACE_WRAPPER
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
cargo test --locked --target "$win" -p tauri-plugin-jobs --all-targets --features metrics --no-run
# The Tauri layer is tested through the mock runtime, as on Linux. Tests that need a
# facility Windows lacks say so and why in their output ("skipped: ..."). The unit and
# integration tests, not the doc tests (Linux runs those: the same examples, and under
# Wine each is a binary of its own, two minutes in all); the soak for 5 s (its full
# minute runs on Linux).
SOAK_SECS=5 cargo test --locked --target "$win" -p tauri-plugin-jobs --features metrics --lib --tests
unset CARGO_PROFILE_DEV_DEBUG RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS

echo "platforms: Windows built and tested under Wine; macOS, Android and iOS compiled (not run)"
