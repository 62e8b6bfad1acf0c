#!/usr/bin/env bash
# A C compiler for the Apple targets on Linux: zig's clang from PyPI's `ziglang`, for
# the C that build scripts compile (SQLite's). The target comes from ZIG_TARGET
# (`aarch64-macos`, `x86_64-macos`); the flags cc passes to name one its own way
# (`--target=...`, `-arch X`) are dropped. Enough to compile and lint, not to link an
# app: no macOS SDK can be had here. Used by scripts/test-platforms.sh.
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
    *) args+=("$arg") ;;
  esac
done
exec python3 -m ziglang cc -target "${ZIG_TARGET:?}" "${args[@]}"
