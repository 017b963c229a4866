#!/usr/bin/env bash
# Builds the libFuzzer targets (the asan preset: clang-14, ASan + UBSan) and runs each for SECONDS
# (default 60), two at a time. Fails when a target crashes, leaks, trips a sanitizer, times out
# on one input or runs out of memory; the input that did it is kept as
# build-asan/fuzz-out/<target>/crash-*, to be added to tests/data/bad/ or tests/data/fuzz/ as a
# regression test. Prints executions and coverage per target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]      targets: scenario duration sweep dmesg manifest set observations
#   NVMESIM_FUZZ_NO_BUILD=1 skips the build (CI builds the preset once for tests and fuzzing).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) sed -n 2,9p "$0"; exit 0;; esac
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario duration sweep dmesg manifest set observations)
if [ -z "${NVMESIM_FUZZ_NO_BUILD:-}" ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j2 --target $(printf 'fuzz_%s ' "${targets[@]}")
fi
out=build-asan/fuzz-out
mkdir -p "$out"
run_one() {
  local t=$1 dir="$out/$1"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  local dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  # New inputs go to the scratch corpus; the seeds in the source tree are only read. Inputs up to
  # 128 KiB reach the nesting limit (64 levels: 65 bytes), a dmesg line's 1024 bytes and a marker
  # line's 64 KiB (kDmesgMaxMarkerBytes); the size limits (16 MiB per file, 2^22 values per
  # document, 64 MiB per point-file line, 256 MiB per log) are reached by the process tests only.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build-asan/tests/fuzz/fuzz_$t" "$dir/corpus" "tests/fuzz/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
    -artifact_prefix="$dir/" -print_final_stats=1 >"$dir/log" 2>&1 && echo 0 >"$dir/rc" || echo $? >"$dir/rc"
}
pids=()
names=()
status=0
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  if [ ${#pids[@]} -eq 2 ]; then
    for i in 0 1; do wait "${pids[$i]}" || status=1; done
    pids=()
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
printf '%-10s %12s %10s %8s %s\n' target executions exec/s cov result
for t in "${names[@]}"; do
  log="$out/$t/log"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
  result=ok
  artifacts=$(find "$out/$t" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | tr '\n' ' ')
  rc=$(cat "$out/$t/rc" 2>/dev/null || echo '?')
  if [ -n "$artifacts" ] || [ "$rc" != 0 ]; then
    result="FAILED (exit $rc): ${artifacts:-no artifact, see $log}"
    status=1
    grep -m1 -A12 'ERROR\|deadly signal' "$log" || true
  fi
  printf '%-10s %12s %10s %8s %s\n' "$t" "$runs" "$rate" "$cov" "$result"
done
exit $status
