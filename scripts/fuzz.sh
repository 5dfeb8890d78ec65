#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time
# (default 60 s each; --seconds N to change). Exits non-zero on the first crash.
# Seeds: the example schedules, and the same converted to both binary forms; the nccl-tests
# logs of validation/ and the NCCL debug logs of the replay tests.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
if [ "${1:-}" = "--seconds" ]; then seconds="$2"; fi
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target collsim
cmake --preset fuzz -DCOLLSIM_WERROR=ON >/dev/null
cmake --build --preset fuzz --target fuzz_goal_text fuzz_loggopsim_binary fuzz_goalb fuzz_nccl_tests_log fuzz_nccl_debug_log

seeds=build/fuzz/seeds
mkdir -p "$seeds/fuzz_goal_text" "$seeds/fuzz_loggopsim_binary" "$seeds/fuzz_goalb" "$seeds/fuzz_nccl_tests_log" \
  "$seeds/fuzz_nccl_debug_log"
cp validation/logs/*.log "$seeds/fuzz_nccl_tests_log/"
cp tests/data/traces/nccl/*.log validation/logs/12_*.log validation/logs/25_*.log "$seeds/fuzz_nccl_debug_log/"
cp goal/examples/*.goal tests/data/goal/invalid/*.goal "$seeds/fuzz_goal_text/"
for f in goal/examples/*.goal; do
  name=$(basename "$f" .goal)
  ./build/release/collsim goal convert "$f" "$seeds/fuzz_loggopsim_binary/$name.bin" 2>/dev/null
  ./build/release/collsim goal convert "$f" "$seeds/fuzz_goalb/$name.goalb" 2>/dev/null
done

for target in fuzz_goal_text fuzz_loggopsim_binary fuzz_goalb fuzz_nccl_tests_log fuzz_nccl_debug_log; do
  corpus="build/fuzz/corpus/$target"
  mkdir -p "$corpus"
  echo "== $target for ${seconds}s"
  # The log seeds run to 46 KB, and a log is read line by line: 4 KB inputs keep a header and
  # a dozen rows, and run ~7x as many inputs per second (730 against 110 for the nccl-tests reader).
  max_len=()
  case "$target" in fuzz_nccl_*) max_len=(-max_len=4096) ;; esac
  if ! "build/fuzz/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 "${max_len[@]}" \
      -print_final_stats=1 -artifact_prefix="build/fuzz/$target-" "$corpus" "$seeds/$target" > "build/fuzz/$target.log" 2>&1; then
    tail -n 60 "build/fuzz/$target.log"
    echo "fuzz: $target failed" >&2
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)" "build/fuzz/$target.log" || true
done
