#!/usr/bin/env bash
# install-deps.sh — install the Debian 12 packages dlqd needs to build and
# test, only those missing. Uses sudo when not run as root.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libzmq3-dev libconfig-dev libsqlite3-dev libpq-dev
  libcriterion-dev
  python3 python3-zmq    # the independent wire-protocol client used by the tests
  postgresql-15          # the real PostgreSQL the postgres sink's tests run against
  librabbitmq-dev        # the amqp sink (rabbitmq-c)
  rabbitmq-server        # the real RabbitMQ the amqp sink's tests run against
  librdkafka-dev         # the kafka sink, and the mock Kafka cluster its tests run against
  libmongoc-dev libbson-dev  # the mongo sink (mongo-c-driver), and the MongoDB wire-protocol test server (libbson)
)

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
