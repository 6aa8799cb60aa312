#!/usr/bin/env bash
# test.sh — install what is missing, build, and run every test: all suites
# in a normal build, then all of them again under ASan + UBSan.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
contrib/scripts/install-deps.sh

echo "== build (RelWithDebInfo)"
contrib/scripts/build.sh "$root/build" > "$root/build.log" 2>&1 || { tail -50 "$root/build.log"; exit 1; }
echo "== build (ASan + UBSan)"
DLQD_BUILD_TYPE=Debug contrib/scripts/build.sh "$root/build-asan" -DDLQD_SANITIZE=ON \
  > "$root/build-asan.log" 2>&1 || { tail -50 "$root/build-asan.log"; exit 1; }

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
echo "== unit + integration tests"
(cd "$root/build" && ctest --output-on-failure -j2) || status=1
echo "== the out-of-tree example plugin, built against the installed headers"
contrib/scripts/test-plugins.sh "$root/build" || status=1
echo "== every test again under ASan + UBSan"
(cd "$root/build-asan" && ctest --output-on-failure -j2) || status=1
exit $status
