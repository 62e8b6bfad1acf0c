#!/usr/bin/env bash
# A C compiler for the Apple targets (and Android's) on Linux: zig's clang from PyPI's
# `ziglang`, for the C that build scripts compile (SQLite's). The target comes from
# ZIG_TARGET (`aarch64-macos`, `x86_64-macos`; for iOS `aarch64-macos`, for Android
# `aarch64-linux-musl`); the flags cc passes to name one its own way (`--target=...`,
# `-arch X`, an iOS SDK and version) are dropped. Enough to compile and lint, not to
# link an app: no macOS or iOS SDK, no Android NDK can be had here. Used by
# scripts/test-platforms.sh.
set -euo pipefail
args=()
skip=false
for arg in "$@"; do
  if $skip; then
    skip=false
    continue
  fi
  case "$arg" in
    --target=*) ;;
    -arch) skip=true ;;
    # iOS: cc names an SDK (SDKROOT, which none is here) and a least iOS version;
    # zig's macOS headers stand in for the SDK's, enough to compile SQLite's C.
    -isysroot) skip=true ;;
    -miphoneos-version-min=* | -mios-version-min=* | -mios-simulator-version-min=* | -mtargetos=*) ;;
    *) args+=("$arg") ;;
  esac
done
exec python3 -m ziglang cc -target "${ZIG_TARGET:?}" "${args[@]}"
