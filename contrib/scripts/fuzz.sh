#!/usr/bin/env bash
# fuzz.sh — run the libFuzzer harnesses of tests/fuzz: a long campaign, or
# (-r) the short regression run every ctest of label "fuzz" is.
#
#   fuzz.sh [-b BUILD_DIR] [-n RUNS | -t SECONDS] [-j JOBS] [-o OUT_DIR] [-r] [HARNESS...]
#
#   HARNESS     json, log_json, event, params, api, checkpoint, config, wire, libdlq,
#               mongo_wire, spool (default: all of them, one after the other)
#   -b DIR      the fuzz build (default build-fuzz in the repository);
#               configured (clang, -DDLQD_FUZZ=ON) and built when a
#               harness is missing from it
#   -n RUNS     new inputs each job tries (default 1000000)
#   -t SECONDS  time each harness runs instead (the first of -n, -t wins)
#   -j JOBS     libFuzzer jobs per harness, sharing one corpus (default 1)
#   -o DIR      where each harness's corpus, crashes and logs go (default
#               /tmp/dlqd-fuzz): OUT/HARNESS/{corpus,crashes,logs}; the
#               committed seed corpus (tests/fuzz/corpus/HARNESS) is only
#               read, and the corpus grown in OUT is used again next time
#   -r          regression: OUT/HARNESS is emptied first, the seed is fixed
#               (-seed=1), a harness runs at most 60 s
#
# Each harness's libFuzzer flags (max_len, timeout, ...) are in
# tests/fuzz/HARNESS.options, its dictionary in tests/fuzz/HARNESS.dict.
# Prints, per harness, the executions, coverage (libFuzzer's cov: and ft:
# at the end), exec/s and what it found; exits 1 when any harness crashed,
# leaked, timed out or ran out of memory (the inputs are in
# OUT/HARNESS/crashes, the report in OUT/HARNESS/logs). Run it nice'd on a
# shared machine: nice -n 10 contrib/scripts/fuzz.sh ...
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
fuzzdir="$root/tests/fuzz"
build="$root/build-fuzz"
runs=1000000
seconds=""
jobs=1
out="/tmp/dlqd-fuzz"
regression=0

usage () { sed -n '5,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 64; }
while getopts "b:n:t:j:o:r" opt; do
  case "$opt" in
    b) build="$OPTARG" ;;
    n) runs="$OPTARG" ;;
    t) seconds="$OPTARG" ;;
    j) jobs="$OPTARG" ;;
    o) out="$OPTARG" ;;
    r) regression=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
harnesses=("$@")
named=$(( $# > 0 ))
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in "$fuzzdir"/*.options; do harnesses+=("$(basename "$f" .options)"); done
fi
for h in "${harnesses[@]}"; do
  [ -f "$fuzzdir/$h.options" ] || { echo "fuzz.sh: no harness $h (no tests/fuzz/$h.options)" >&2; exit 64; }
done

missing=0
for h in "${harnesses[@]}"; do [ -x "$build/tests/fuzz/fuzz_$h" ] || missing=1; done
if [ $missing -eq 1 ]; then
  echo "== building the harnesses in $build (clang, DLQD_FUZZ=ON)"
  cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DDLQD_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    > "$build.cmake.log" 2>&1 || { cat "$build.cmake.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" > "$build.log" 2>&1 || { tail -50 "$build.log"; exit 1; }
fi
# A harness whose backend the build leaves out (DLQD_WITH_MONGO=OFF: no
# fuzz_mongo_wire) is passed by when all were asked for, an error when named.
kept=()
for h in "${harnesses[@]}"; do
  if [ -x "$build/tests/fuzz/fuzz_$h" ]; then kept+=("$h")
  elif [ $named -eq 1 ]; then echo "fuzz.sh: $build has no fuzz_$h (is its backend OFF?)" >&2; exit 64
  else echo "== fuzz_$h: not in $build (its backend is OFF there); passed by"
  fi
done
harnesses=("${kept[@]}")

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$fuzzdir/lsan.supp}"
# scratch files (configs, the wire harness's store) on tmpfs when there is one
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi

# The value of a "name: N" figure in libFuzzer's last status line of a log.
figure () { { grep -aoE "^#[0-9]+.* $2: [0-9]+" "$1" || true; } | tail -1 | sed -E "s|.* $2: ||"; }

status=0
report=()
for h in "${harnesses[@]}"; do
  dir="$out/$h"
  [ $regression -eq 1 ] && rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/crashes" "$dir/logs"
  rm -f "$dir"/logs/*.log
  flags=()
  while read -r line; do
    case "$line" in -*) flags+=("$line") ;; esac
  done < "$fuzzdir/$h.options"
  flags+=("-dict=$fuzzdir/$h.dict" "-artifact_prefix=$dir/crashes/" "-print_final_stats=1")
  if [ -n "$seconds" ]; then flags+=("-max_total_time=$seconds"); else flags+=("-runs=$runs"); fi
  [ $regression -eq 1 ] && flags+=("-seed=1" "-max_total_time=60")
  echo "== fuzz_$h: ${flags[*]}"
  touch "$dir/logs/started"
  started=$(date +%s)
  rc=0
  if [ "$jobs" -gt 1 ]; then
    (cd "$dir/logs" && "$build/tests/fuzz/fuzz_$h" "${flags[@]}" -jobs="$jobs" -workers="$jobs" \
       "$dir/corpus" "$fuzzdir/corpus/$h" > "$dir/logs/main.log" 2>&1) || rc=$?
  else
    "$build/tests/fuzz/fuzz_$h" "${flags[@]}" "$dir/corpus" "$fuzzdir/corpus/$h" \
      > "$dir/logs/fuzz-0.log" 2>&1 || rc=$?
  fi
  took=$(( $(date +%s) - started ))
  execs=0; cov=0; ft=0; rate=0
  for log in "$dir"/logs/fuzz-*.log; do
    [ -f "$log" ] || continue
    n=$({ grep -aoE "^stat::number_of_executed_units: [0-9]+" "$log" || true; } | tail -1 | sed 's/.*: //')
    [ -n "$n" ] || n=$({ grep -aoE "^#[0-9]+" "$log" || true; } | tail -1 | tr -d '#')
    execs=$((execs + ${n:-0}))
    c=$(figure "$log" cov); f=$(figure "$log" ft); r=$(figure "$log" exec/s)
    [ "${c:-0}" -gt "$cov" ] && cov=$c
    [ "${f:-0}" -gt "$ft" ] && ft=$f
    rate=$((rate + ${r:-0}))
  done
  found=$(find "$dir/crashes" -type f -newer "$dir/logs/started" | wc -l)
  verdict="ok"
  if [ $rc -ne 0 ] || [ "$found" -gt 0 ]; then
    verdict="FOUND $found input(s) in $dir/crashes (exit $rc; see $dir/logs)"
    status=1
    grep -ahE "ERROR: |SUMMARY: |fuzz oracle: |runtime error: " "$dir"/logs/*.log | head -5 | sed 's/^/   /' || true
  fi
  line=$(printf "%-11s %12s execs  cov %6s  ft %7s  %8s exec/s  %6ss  corpus %6s  %s" "$h" "$execs" "$cov" "$ft" \
         "$rate" "$took" "$(find "$dir/corpus" -type f | wc -l)" "$verdict")
  echo "$line"
  report+=("$line")
done
if [ ${#report[@]} -gt 1 ]; then
  echo "== summary"
  printf '%s\n' "${report[@]}"
fi
exit $status
