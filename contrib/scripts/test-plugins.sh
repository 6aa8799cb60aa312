#!/usr/bin/env bash
# test-plugins.sh — check the sink plugin ABI as a third party meets it:
# install a dlqd build into a staging prefix, build the out-of-tree example
# sink contrib/sinks/jsonl against that install only (pkg-config dlqd-sink),
# run its tests, and check that every staged and built plugin exports
# dlq_sink_entry and nothing else. Also build the libdlq example client
# against the staged install only (pkg-config libdlq).
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

echo "== jsonl tests"
(cd "$jsonl" && ctest --output-on-failure) || status=1
exit $status
