#!/usr/bin/env bash
# build.sh — configure and build dlqd into BUILD_DIR (default ./build).
#   build.sh [BUILD_DIR] [extra cmake arguments...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:-$root/build}"
shift || true
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE="${DLQD_BUILD_TYPE:-RelWithDebInfo}" "$@" > "$dir.cmake.log" 2>&1 \
  || { cat "$dir.cmake.log"; exit 1; }
cmake --build "$dir" -j"$(nproc)"
