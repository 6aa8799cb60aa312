#!/usr/bin/env bash
# chaos.sh — build dlqd and its chaos tool (RelWithDebInfo) and run a chaos
# run (see docs/testing.md, "Chaos testing"):
#   contrib/chaos/chaos.sh [--build DIR] [dlqd_chaos options...]
# DIR defaults to ./build. Installs what is missing first
# (install-deps.sh --test: PostgreSQL 15 and RabbitMQ, of which the run
# starts throwaway instances). Run it as root (the data_dir is a tmpfs of
# its own, for the disk-full outages), or pass --disk-full 0. Exits with
# dlqd_chaos's status: 0 when every check passed, 1 when one failed, 77
# when it cannot run here.
#   contrib/chaos/chaos.sh                                   # the full run: 100 kills, 180 s
#   contrib/chaos/chaos.sh --kills 5 --seconds 40 --events 8000 --pg-outages 1 \
#     --amqp-outages 1 --kafka-outages 1 --disk-full 1      # about what CI runs
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
if [ "${1:-}" = "--build" ]; then
  [ $# -ge 2 ] || { echo "usage: chaos.sh [--build DIR] [dlqd_chaos options...]" >&2; exit 64; }
  build="$2"
  shift 2
fi
"$root/contrib/scripts/install-deps.sh" --test
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build.cmake.log" 2>&1 \
  || { cat "$build.cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target dlqd_chaos
exec "$build/contrib/chaos/dlqd_chaos" "$@"
