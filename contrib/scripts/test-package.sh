#!/usr/bin/env bash
# test-package.sh — the Debian packages as a user gets them
# (docs/operations.md, "Installing the package"): built with CPack from a
# build configured for /usr, installed with apt-get, checked from the
# outside with the installed programs, and purged.
#   test-package.sh [BUILD_DIR]      (default ./build-pkg, configured and built here)
# Needs root (apt-get, the system user); it changes this machine: it
# installs the packages and purges them at the end, and the system user
# dlqd stays, as Debian keeps the users packages make. The gateway it
# starts listens on the installed config's ports (5560, 9560).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build-pkg}"
work="$(mktemp -d /tmp/dlqd-package.XXXXXX)"
status=0
ok () { echo "ok: $*"; }
fail () { echo "FAIL: $*"; status=1; }
check () { local what="$1"; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }

echo "== configure and build $build (prefix /usr)"
cmake -S "$root" -B "$build" -DCMAKE_INSTALL_PREFIX=/usr -DDLQD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" > "$work/build.log" 2>&1 || { tail -50 "$work/build.log"; exit 1; }
echo "== cpack -G DEB"
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
ls -1 "$build"/*.deb

debs=("$build"/dlqd_*.deb "$build"/dlqd-dev_*.deb "$build"/dlqd-sink-*.deb)
depends () { dpkg-deb -f "$1" Depends; }
check "dlqd depends on libzmq5 and libsqlite3-0 (shlibdeps)" \
  grep -q "libzmq5.*libsqlite3-0\|libsqlite3-0.*libzmq5" <<< "$(depends "$build"/dlqd_*.deb)"
check "dlqd does not pull librdkafka, libpq, librabbitmq or libmongoc" \
  bash -c "! grep -qE 'librdkafka|libpq|librabbitmq|libmongoc' <<< '$(depends "$build"/dlqd_*.deb)'"
check "dlqd-sink-kafka depends on librdkafka1 and dlqd" \
  bash -c "grep -q librdkafka1 <<< '$(depends "$build"/dlqd-sink-kafka_*.deb)' && grep -q 'dlqd (=' <<< '$(depends "$build"/dlqd-sink-kafka_*.deb)'"
check "dlqd-sink-postgres depends on libpq5" grep -q libpq5 <<< "$(depends "$build"/dlqd-sink-postgres_*.deb)"

echo "== apt-get install ${debs[*]##*/}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debs[@]}" > "$work/apt.log" 2>&1 \
  || { cat "$work/apt.log"; exit 1; }
files="$(dpkg -L dlqd)"
for f in /usr/bin/dlqd /usr/bin/dlqctl /etc/dlqd/dlqd.conf /usr/lib/systemd/system/dlqd.service \
         /usr/lib/sysusers.d/dlqd.conf /usr/share/man/man8/dlqd.8.gz /usr/share/man/man1/dlqctl.1.gz \
         /usr/share/man/man5/dlqd.conf.5.gz; do
  check "dlqd installs $f" grep -qx "$f" <<< "$files"
done
check "the embedded store and noop sinks are dlqd's" grep -q "dlqd/sinks/libdlq_sink_embedded.so" <<< "$files"
check "the kafka sink is dlqd-sink-kafka's" grep -q "dlqd/sinks/libdlq_sink_kafka.so" <<< "$(dpkg -L dlqd-sink-kafka)"
check "dlqd-dev has dlq_client.h, dlqd/dlq_sink.h, libdlq.pc and dlqd-sink.pc" \
  bash -c "dpkg -L dlqd-dev | grep -q dlq_client.h && dpkg -L dlqd-dev | grep -q dlqd/dlq_sink.h && dpkg -L dlqd-dev | grep -q libdlq.pc && dpkg -L dlqd-dev | grep -q dlqd-sink.pc"
check "/etc/dlqd/dlqd.conf is a conffile" grep -q /etc/dlqd/dlqd.conf <<< "$(dpkg-query -W -f='${Conffiles}' dlqd)"
check "its data_dir is /var/lib/dlqd" grep -q 'data_dir = "/var/lib/dlqd"' /etc/dlqd/dlqd.conf
check "the system user dlqd exists" getent passwd dlqd
check "/var/lib/dlqd belongs to dlqd, mode 750" test "$(stat -c '%U %a' /var/lib/dlqd)" = "dlqd 750"
if command -v systemd-analyze > /dev/null; then
  check "systemd-analyze verify dlqd.service" systemd-analyze verify /usr/lib/systemd/system/dlqd.service
else
  fail "systemd-analyze is missing (install-deps.sh --test installs systemd)"
fi
check "the installed dlqd --check-config /etc/dlqd/dlqd.conf" /usr/bin/dlqd --check-config /etc/dlqd/dlqd.conf
check "dlqd(8) is made from dlqd --help" bash -c "zcat /usr/share/man/man8/dlqd.8.gz | grep -q -- 'check\\\\-config\\|check-config'"
check "dlqd.conf(5) lists every setting (gateway.listen, http.listen, log_level)" \
  bash -c "zcat /usr/share/man/man5/dlqd.conf.5.gz | grep -q 'gateway.listen' && zcat /usr/share/man/man5/dlqd.conf.5.gz | grep -q 'http.listen' && zcat /usr/share/man/man5/dlqd.conf.5.gz | grep -q 'log_level'"

echo "== the installed dlqd, as user dlqd, on its default config (/etc/dlqd/dlqd.conf)"
setpriv --reuid dlqd --regid dlqd --init-groups /usr/bin/dlqd > "$work/dlqd.log" 2>&1 &
pid=$!
for _ in $(seq 100); do /usr/bin/dlqctl stats > /dev/null 2>&1 && break; sleep 0.1; done
id="$(cat /proc/sys/kernel/random/uuid)"
check "the installed dlqctl PUTs an event" bash -c "/usr/bin/dlqctl put <<< '{\"id\":\"$id\",\"streamName\":\"orders\",\"error\":{\"type\":\"Timeout\",\"message\":\"slow\"}}' | grep -q '^1 stored'"
check "and GETs it back" bash -c "/usr/bin/dlqctl --json get '$id' | grep -q '\"streamName\":\"orders\"'"
check "the store is in /var/lib/dlqd" bash -c "ls /var/lib/dlqd | grep -q ."
echo "== the example client and the example plugin, built against the installed dlqd-dev"
cc "$root/contrib/libdlq/examples/send_failures.c" $(pkg-config --cflags --libs libdlq) -o "$work/send_failures" \
  > "$work/client.log" 2>&1 || cat "$work/client.log"
check "send_failures built with pkg-config libdlq stores 3 events" \
  bash -c "'$work/send_failures' | grep -c 'stored as' | grep -qx 3"
cmake -S "$root/contrib/sinks/jsonl" -B "$work/jsonl" -DJSONL_TESTS=OFF > "$work/jsonl.log" 2>&1 \
  && cmake --build "$work/jsonl" >> "$work/jsonl.log" 2>&1 || cat "$work/jsonl.log"
check "the jsonl plugin builds with pkg-config dlqd-sink" test -f "$work/jsonl/libdlq_sink_jsonl.so"
kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
check "the installed dlqd stops on SIGTERM with status 0" test "$rc" = 0
echo "== the installed dlqd under NOTIFY_SOCKET (tests/packaging/notify_test.py)"
/usr/bin/python3 "$root/tests/packaging/notify_test.py" /usr/bin/dlqd || fail "notify_test.py /usr/bin/dlqd"

echo "== apt-get purge"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq dlqd dlqd-dev dlqd-sink-amqp dlqd-sink-kafka \
  dlqd-sink-mongo dlqd-sink-postgres > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; status=1; }
check "no dlqd package is left, not even its config (dpkg -l)" bash -c "! dpkg -l | grep -E '^(ii|rc) +dlqd'"
for d in /etc/dlqd /var/lib/dlqd /usr/lib/x86_64-linux-gnu/dlqd /usr/share/doc/dlqd /usr/bin/dlqd; do
  check "purged: $d is gone" test ! -e "$d"
done
[ $status -eq 0 ] && rm -rf "$work" || echo "test-package: its files are in $work"
exit $status
