#!/usr/bin/env bash
# run.sh — the quick start: install what is missing, build, and run dlqd in
# the foreground on the shipped config (embedded store in ./var, listening on
# tcp://127.0.0.1:5560). Ctrl-C stops it cleanly. Extra arguments go to dlqd.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
contrib/scripts/install-deps.sh
contrib/scripts/build.sh "$root/build" > /dev/null
exec "$root/build/router/dlqd" -c "$root/config/dlqd.conf" "$@"
