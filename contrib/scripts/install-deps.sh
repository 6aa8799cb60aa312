#!/usr/bin/env bash
# install-deps.sh [--test] — install the Debian 12 packages dlqd needs to
# build (and, with --test, to run its tests), only those missing. Uses sudo
# when not run as root.
#
# --test adds the servers the tests run against (PostgreSQL 15, RabbitMQ),
# the Python client, and clang with its libFuzzer runtime for the fuzz
# harnesses: the tests start throwaway instances of their own on other
# ports (pg-server.sh, rabbitmq-server.sh), but on a machine with systemd,
# Debian's packages also start their own system services.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libzmq3-dev libczmq-dev libconfig-dev libsqlite3-dev libpq-dev
  libsodium-dev          # the HTTP API's tokens (SHA-256, random bytes)
  libisal-dev            # CRC32C of the spool's records (ISA-L)
  libxxhash-dev          # the hash of the in-memory id index (XXH3)
  libmicrohttpd-dev      # the HTTP listener: /metrics, /healthz, /readyz
  libsystemd-dev         # sd_notify: the service manager hears when dlqd is ready, stopping, alive
  libcriterion-dev
  librabbitmq-dev        # the amqp sink (rabbitmq-c)
  librdkafka-dev         # the kafka sink, and the mock Kafka cluster its tests run against
  libmongoc-dev libbson-dev  # the mongo sink (mongo-c-driver), and the MongoDB wire-protocol test server (libbson)
)
if [ "${1:-}" = "--test" ]; then
  packages+=(
    python3 python3-zmq    # the independent wire-protocol client used by the tests
    python3-jsonschema python3-yaml    # the HTTP API's answers checked against docs/openapi.yaml
    chromium chromium-driver python3-selenium    # the console's tests, in a real headless browser
    postgresql-15          # the real PostgreSQL the postgres sink's tests run against
    rabbitmq-server        # the real RabbitMQ the amqp sink's tests run against
    clang libclang-rt-14-dev   # the libFuzzer harnesses of tests/fuzz (a DLQD_FUZZ=ON build)
    prometheus             # the real Prometheus server (and promtool) the metrics tests scrape with
    systemd file           # systemd-analyze verify of the unit; file, which cpack's shlibdeps needs
  )
elif [ $# -gt 0 ]; then
  echo "usage: install-deps.sh [--test]" >&2
  exit 64
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
