#!/usr/bin/env bash
# with-mongo-server.sh SERVER -- CMD...: run CMD with DLQD_TEST_MONGO_URI set:
# the one in the environment (a real MongoDB), else that of SERVER (the
# mongo_test_server program) started for CMD alone on a free port and
# stopped after it. Every @MONGO_URI@ in CMD's arguments and in
# $DLQ_CONTRACT_SETTINGS is replaced by the URI. Exits with CMD's status.
set -euo pipefail
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: $0 SERVER -- CMD..." >&2; exit 64; }
server=$1
shift 2

pid=""
out=""
cleanup () {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  [ -z "$pid" ] || wait "$pid" 2>/dev/null || true
  [ -z "$out" ] || rm -f "$out"
}
trap cleanup EXIT

if [ -z "${DLQD_TEST_MONGO_URI:-}" ]; then
  out=$(mktemp /tmp/dlqd-mongo-uri.XXXXXX)
  "$server" > "$out" &
  pid=$!
  for _ in $(seq 1 100); do
    [ -s "$out" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "$0: $server did not start" >&2; exit 1; }
    sleep 0.05
  done
  DLQD_TEST_MONGO_URI=$(head -1 "$out")
  [ -n "$DLQD_TEST_MONGO_URI" ] || { echo "$0: $server printed no URI" >&2; exit 1; }
  export DLQD_TEST_MONGO_URI
fi

args=()
for a in "$@"; do args+=("${a//@MONGO_URI@/$DLQD_TEST_MONGO_URI}"); done
if [ -n "${DLQ_CONTRACT_SETTINGS:-}" ]; then
  DLQ_CONTRACT_SETTINGS=${DLQ_CONTRACT_SETTINGS//@MONGO_URI@/$DLQD_TEST_MONGO_URI}
  export DLQ_CONTRACT_SETTINGS
fi
status=0
"${args[@]}" || status=$?
exit $status
