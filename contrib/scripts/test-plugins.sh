#!/usr/bin/env bash
# test-plugins.sh — check the sink plugin ABI as a third party meets it:
# install a dlqd build into a staging prefix, build the out-of-tree example
# sink contrib/sinks/jsonl against that install only (pkg-config dlqd-sink),
# run its tests, and check that every staged and built plugin exports
# dlq_sink_entry and nothing else. Also build the libdlq example client
# against the staged install only (pkg-config libdlq), check libdlq's
# binary compatibility (it exports every symbol of soname 0 as first
# released, contrib/libdlq/abi/so0.symbols, and the example built against
# that release's header, contrib/libdlq/abi/so0/, runs on it against a
# dlqd of this build) and that dlq.h's version macros are the library's
# and the .pc file's.
#   test-plugins.sh [BUILD_DIR]      (default ./build, already built)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
stage="$build/stage"
jsonl="$build/jsonl"

echo "== install $build into $stage"
rm -rf "$stage"
cmake --install "$build" --prefix "$stage" > "$build/stage.log" 2>&1 || { cat "$build/stage.log"; exit 1; }

# GNUInstallDirs picks lib, lib64 or lib/<multiarch>: find where the .pc went.
pc="$(find "$stage" -path '*/pkgconfig/dlqd-sink.pc' -print -quit)"
[ -n "$pc" ] || { echo "test-plugins: no dlqd-sink.pc under $stage" >&2; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
echo "== dlqd-sink: $(pkg-config --cflags dlqd-sink) (plugindir $(pkg-config --variable=plugindir dlqd-sink))"

echo "== build contrib/sinks/jsonl into $jsonl"
cmake -S "$root/contrib/sinks/jsonl" -B "$jsonl" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJSONL_WERROR=ON \
  > "$jsonl.cmake.log" 2>&1 || { cat "$jsonl.cmake.log"; exit 1; }
cmake --build "$jsonl" -j"$(nproc)"

# A plugin's only dynamic symbol is its entry (_init/_fini aside).
status=0
plugindir="$(pkg-config --variable=plugindir dlqd-sink)"
for so in "$plugindir"/libdlq_sink_*.so "$jsonl"/libdlq_sink_jsonl.so; do
  extra="$(nm -D --defined-only "$so" | awk '{print $NF}' | grep -vxE 'dlq_sink_entry|_init|_fini' || true)"
  if [ -n "$extra" ]; then
    echo "test-plugins: $so exports more than dlq_sink_entry: $extra" >&2
    status=1
  else
    echo "== $(basename "$so"): exports dlq_sink_entry only"
  fi
done

echo "== build contrib/libdlq/examples/send_failures.c against $stage only (pkg-config libdlq)"
client="$build/send_failures-staged"
cc -Wall -Wextra -Werror "$root/contrib/libdlq/examples/send_failures.c" $(pkg-config --cflags --libs libdlq) \
  -Wl,-rpath,"$(pkg-config --variable=libdir libdlq)" -o "$client" || status=1
loaded="$(ldd "$client" 2> /dev/null | awk '/libdlq\.so/ { print $3 }')"
staged="$(pkg-config --variable=libdir libdlq)/libdlq.so.0"
if [ "$(readlink -f "$loaded")" != "$(readlink -f "$staged")" ]; then
  echo "test-plugins: $client loads '$loaded', not the staged $staged" >&2
  status=1
else
  echo "== $(basename "$client"): links the staged libdlq"
fi

echo "== libdlq exports every symbol of soname 0 as first released"
exported="$build/libdlq.symbols"
nm -D --defined-only "$staged" | awk '{print $NF}' | sort > "$exported"
missing="$(comm -23 "$root/contrib/libdlq/abi/so0.symbols" "$exported")"
if [ -n "$missing" ]; then
  echo "test-plugins: libdlq no longer exports: $missing" >&2
  status=1
fi

echo "== the example built against the first soname 0 header, on the staged libdlq"
old_client="$build/send_failures-so0"
cc -Wall -Wextra -Werror -I"$root/contrib/libdlq/abi/so0" "$root/contrib/libdlq/examples/send_failures.c" \
  "$staged" -Wl,-rpath,"$(pkg-config --variable=libdir libdlq)" -o "$old_client" || status=1

echo "== dlq.h: its version macros are the library's and libdlq.pc's"
version_check="$build/libdlq-version"
cat > "$version_check.c" <<'C'
#include <dlq.h>
#include <stdio.h>
#include <string.h>
int main (int argc, char **argv)
{
    int major = -1, minor = -1, patch = -1;
    char text [64];
    dlq_version (&major, &minor, &patch);
    snprintf (text, sizeof text, "%d.%d.%d", DLQ_VERSION_MAJOR, DLQ_VERSION_MINOR, DLQ_VERSION_PATCH);
    if (major != DLQ_VERSION_MAJOR || minor != DLQ_VERSION_MINOR || patch != DLQ_VERSION_PATCH
    ||  strcmp (text, DLQ_VERSION_STRING) != 0 || strcmp (text, argv [1]) != 0
    ||  DLQ_VERSION != DLQ_MAKE_VERSION (major, minor, patch)) {
        fprintf (stderr, "headers %s, library %d.%d.%d, libdlq.pc %s\n", DLQ_VERSION_STRING, major, minor, patch,
                 argv [1]);
        return 1;
    }
    printf ("libdlq %s\n", text);
    return argc == 2 ? 0 : 1;
}
C
if cc -Wall -Wextra -Werror "$version_check.c" $(pkg-config --cflags --libs libdlq) \
     -Wl,-rpath,"$(pkg-config --variable=libdir libdlq)" -o "$version_check"; then
  "$version_check" "$(pkg-config --modversion libdlq)" || status=1
else
  status=1
fi

echo "== both examples against a dlqd of this build"
gw="$(mktemp -d /tmp/dlqd-plugins.XXXXXX)"
cat > "$gw/dlqd.conf" <<CONF
gateway: { listen = [ "ipc://$gw/gw" ]; data_dir = "$gw/data"; };
defaults: { chain = []; };
CONF
"$build/router/dlqd" -c "$gw/dlqd.conf" > "$gw/dlqd.log" 2>&1 &
dlqd_pid=$!
for _ in $(seq 100); do
  "$build/contrib/dlqctl/dlqctl" --endpoint "ipc://$gw/gw" --timeout 200 ping > /dev/null 2>&1 && break
  sleep 0.1
done
for c in "$client" "$old_client"; do
  if out="$("$c" "ipc://$gw/gw" 2>&1)" && [ "$(grep -c 'stored as' <<< "$out")" = 3 ] \
     && grep -q '^last event: {' <<< "$out"; then
    echo "== $(basename "$c"): stored 3 events and read one back"
  else
    echo "test-plugins: $(basename "$c") failed against dlqd: $out" >&2
    status=1
  fi
done
kill "$dlqd_pid"
wait "$dlqd_pid" || { echo "test-plugins: dlqd did not stop cleanly:" >&2; cat "$gw/dlqd.log" >&2; status=1; }
rm -rf "$gw"

echo "== jsonl tests"
(cd "$jsonl" && ctest --output-on-failure) || status=1
exit $status
