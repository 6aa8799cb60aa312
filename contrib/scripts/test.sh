#!/usr/bin/env bash
# test.sh — install what is missing, build, and run every test: all suites
# in a normal build, then the build with every backend OFF (build-min/:
# the embedded store only, whose suites need no server), then all of them
# again under ASan + UBSan, then the fuzz harnesses (a clang build, build-fuzz/) over their seed corpora plus
# a bounded number of new inputs (ctest -L fuzz: about a minute); between
# them, the Debian packages are built, installed, used and purged
# (test-package.sh: this changes the machine, as root). One throwaway
# PostgreSQL server (contrib/scripts/pg-server.sh) serves the postgres sink's
# tests of both runs (DLQD_TEST_PG_CONNINFO), one throwaway RabbitMQ node
# (contrib/scripts/rabbitmq-server.sh) the amqp sink's (DLQD_TEST_AMQP_URL,
# and for its AMQPS listener DLQD_TEST_AMQP_TLS_PORT and
# DLQD_TEST_AMQP_TLS_DIR, the directory of its PEM files); both are removed
# on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
contrib/scripts/install-deps.sh --test

echo "== build (RelWithDebInfo)"
contrib/scripts/build.sh "$root/build" > "$root/build.log" 2>&1 || { tail -50 "$root/build.log"; exit 1; }
echo "== build (ASan + UBSan)"
DLQD_BUILD_TYPE=Debug contrib/scripts/build.sh "$root/build-asan" -DDLQD_SANITIZE=ON \
  > "$root/build-asan.log" 2>&1 || { tail -50 "$root/build-asan.log"; exit 1; }
echo "== build (clang, the libFuzzer harnesses of tests/fuzz)"
contrib/scripts/build.sh "$root/build-fuzz" -DCMAKE_C_COMPILER=clang -DDLQD_FUZZ=ON \
  > "$root/build-fuzz.log" 2>&1 || { tail -50 "$root/build-fuzz.log"; exit 1; }

pgdir="$(mktemp -d /tmp/dlqd-pg.XXXXXX)"
amqpdir="$(mktemp -d /tmp/dlqd-rabbitmq.XXXXXX)"
stop_servers () {
  "$root/contrib/scripts/pg-server.sh" stop "$pgdir" || true
  "$root/contrib/scripts/rabbitmq-server.sh" stop "$amqpdir" || true
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

echo "== a PostgreSQL server for the postgres sink's tests (both runs share it)"
pgport="$(contrib/scripts/pg-server.sh free-port 55432)"
pgconninfo="$(contrib/scripts/pg-server.sh start "$pgdir" "$pgport")"
export DLQD_TEST_PG_CONNINFO="$pgconninfo"
echo "   $DLQD_TEST_PG_CONNINFO"

echo "== a RabbitMQ node for the amqp sink's tests (both runs share it)"
amqpport="$(contrib/scripts/rabbitmq-server.sh free-port 55672)"
amqpurl="$(contrib/scripts/rabbitmq-server.sh start "$amqpdir" "$amqpport")"
read -r amqpsurl amqptlsdir < <(contrib/scripts/rabbitmq-server.sh tls "$amqpdir")
amqpsurl="${amqpsurl%/}"
export DLQD_TEST_AMQP_URL="$amqpurl"
export DLQD_TEST_AMQP_TLS_PORT="${amqpsurl##*:}"
export DLQD_TEST_AMQP_TLS_DIR="$amqptlsdir"
echo "   $DLQD_TEST_AMQP_URL, AMQPS on port $DLQD_TEST_AMQP_TLS_PORT (PEM files in $DLQD_TEST_AMQP_TLS_DIR)"

echo "== Kafka: librdkafka's mock cluster, inside the tests"
if [ -n "${DLQD_TEST_MONGO_URI:-}" ]; then
  echo "== MongoDB: the mongo sink's tests run against a real MongoDB, $DLQD_TEST_MONGO_URI"
else
  echo "== MongoDB: the mongo sink's tests run against the wire-protocol test server (tests/mongo);"
  echo "   set DLQD_TEST_MONGO_URI=mongodb://... to run them against a real MongoDB"
fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
echo "== unit + integration tests"
(cd "$root/build" && ctest --output-on-failure -j2) || status=1
echo "== build and test with every backend OFF (the embedded store only, build-min/)"
# (no postgres, amqp, kafka nor mongo sink, nor their suites: no server needed)
if contrib/scripts/build.sh "$root/build-min" -DDLQD_WITH_POSTGRES=OFF -DDLQD_WITH_AMQP=OFF \
     -DDLQD_WITH_KAFKA=OFF -DDLQD_WITH_MONGO=OFF > "$root/build-min.log" 2>&1; then
  (cd "$root/build-min" && ctest --output-on-failure -j2) || status=1
else
  tail -50 "$root/build-min.log"; status=1
fi
echo "== the out-of-tree example plugin, built against the installed headers"
contrib/scripts/test-plugins.sh "$root/build" || status=1
echo "== the Debian packages: built (cpack), installed with apt-get, used, purged (build-pkg/)"
contrib/scripts/test-package.sh "$root/build-pkg" || status=1
echo "== every test again under ASan + UBSan"
# (not the "resource" suites: their RSS bounds are not the sanitizer's)
(cd "$root/build-asan" && ctest --output-on-failure -j2 -LE resource) || status=1
echo "== the fuzz harnesses, each over its corpus plus new inputs (contrib/scripts/fuzz.sh -r)"
(cd "$root/build-fuzz" && ctest -L fuzz --output-on-failure -j2) || status=1
exit $status
