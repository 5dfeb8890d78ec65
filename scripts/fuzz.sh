#!/usr/bin/env bash
# Builds the libFuzzer targets (in the sanitizer build, clang's: scripts/test.sh --sanitize
# builds them too) and runs each for a bounded time (default 60 s each; --seconds N to change).
# Exits non-zero on the first crash.
# Seeds: the example schedules, and the same converted to both binary forms; the nccl-tests
# logs of validation/ and the NCCL debug logs of the replay tests; the topology presets, two
# system files, the calibrations and the workload presets, each behind its reader's byte; rank 0
# of each Chakra trace of the replay tests.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
if [ "${1:-}" = "--seconds" ]; then seconds="$2"; fi
bash scripts/setup.sh
cmake --preset asan -DCOLLSIM_WERROR=ON >/dev/null
cmake --build --preset asan --target collsim fuzz_goal_text fuzz_loggopsim_binary fuzz_goalb fuzz_nccl_tests_log \
  fuzz_nccl_debug_log fuzz_config_files fuzz_chakra_trace

build=build/asan
seeds=$build/fuzz/seeds
mkdir -p "$seeds/fuzz_goal_text" "$seeds/fuzz_loggopsim_binary" "$seeds/fuzz_goalb" "$seeds/fuzz_nccl_tests_log" \
  "$seeds/fuzz_nccl_debug_log" "$seeds/fuzz_config_files" "$seeds/fuzz_chakra_trace"
cp validation/logs/*.log "$seeds/fuzz_nccl_tests_log/"
cp tests/data/traces/nccl/*.log validation/logs/12_*.log validation/logs/25_*.log "$seeds/fuzz_nccl_debug_log/"
cp goal/examples/*.goal tests/data/goal/invalid/*.goal "$seeds/fuzz_goal_text/"
# fuzz_config_files: the first byte picks the reader (0 topology, 1 system file, 2
# calibration, 3 workload).
seed_config() { { printf "\\$(printf '%03o' "$1")"; cat "$2"; } > "$seeds/fuzz_config_files/$3"; }
for f in topologies/*.yaml; do seed_config 0 "$f" "topo-$(basename "$f")"; done
for f in validation/calibration/*.yaml; do seed_config 2 "$f" "cal-$(basename "$f")"; done
for f in workload/presets/*.yaml; do seed_config 3 "$f" "workload-$(basename "$f")"; done
printf 'base: dgx-h100\nname: h100-4nic\nnics_per_node: 4\nnic: 400Gbps\n' > "$seeds/system-base.yaml"
printf 'name: mine\ngpu: H100\narch: hopper\ngpus_per_node: 8\nintra_node: nvswitch\ngpu_link: 450GB/s\ngpu_link_latency: 700ns\nnvls: true\nnics_per_node: 8\nnic: 400Gbps\nnic_latency: 2us\nchannels: 24\n' > "$seeds/system-full.yaml"
seed_config 1 "$seeds/system-base.yaml" system-base.yaml
seed_config 1 "$seeds/system-full.yaml" system-full.yaml
for d in tests/data/traces/chakra/*/; do cp "$d"/*.0.et "$seeds/fuzz_chakra_trace/$(basename "$d").0.et"; done
for f in goal/examples/*.goal; do
  name=$(basename "$f" .goal)
  "$build/collsim" goal convert "$f" "$seeds/fuzz_loggopsim_binary/$name.bin" 2>/dev/null
  "$build/collsim" goal convert "$f" "$seeds/fuzz_goalb/$name.goalb" 2>/dev/null
done

for target in fuzz_goal_text fuzz_loggopsim_binary fuzz_goalb fuzz_nccl_tests_log fuzz_nccl_debug_log fuzz_config_files fuzz_chakra_trace; do
  corpus="$build/fuzz/corpus/$target"
  mkdir -p "$corpus"
  echo "== $target for ${seconds}s"
  # The log seeds run to 46 KB, and a log is read line by line: 4 KB inputs keep a header and
  # a dozen rows, and run ~7x as many inputs per second (730 against 110 for the nccl-tests reader).
  max_len=()
  case "$target" in fuzz_nccl_*) max_len=(-max_len=4096) ;; esac
  if ! "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 "${max_len[@]}" \
      -print_final_stats=1 -artifact_prefix="$build/fuzz/$target-" "$corpus" "$seeds/$target" > "$build/fuzz/$target.log" 2>&1; then
    tail -n 60 "$build/fuzz/$target.log"
    echo "fuzz: $target failed" >&2
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)" "$build/fuzz/$target.log" || true
done
rm -f /tmp/collsim-fuzz-*  # the scratch files of fuzz_config_files and fuzz_chakra_trace
