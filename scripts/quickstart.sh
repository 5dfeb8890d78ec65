#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build the program (only it: the tests
# and benchmarks are scripts/test.sh's, which reuses this build), run the default scenario.
# Installation and compiler output go to build/quickstart.log; the last lines are shown if a
# step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
log=build/quickstart.log
: >"$log"
step() {
  local what=$1
  shift
  local start=$SECONDS
  printf '%s ... ' "$what"
  if ! "$@" >>"$log" 2>&1; then
    echo "failed; the end of $log:"
    tail -n 40 "$log"
    exit 1
  fi
  echo "done ($((SECONDS - start)) s)"
}
step "installing the Debian packages collsim needs" bash scripts/setup.sh
step "configuring" cmake --preset release
step "building collsim" cmake --build --preset release --target collsim
echo
echo "== collsim workload resnet50   (one training step, packet by packet, on 8 DGX A100 servers)"
./build/release/collsim workload resnet50
echo
echo "Each line is explained in README.md, \"Worked example\". Next, try for instance:"
echo "  ./build/release/collsim workload gpt3_1.3b --json            # a GPT-3 1.3B step, results as JSON"
echo "  ./build/release/collsim run --topology fat_tree_k8 --coll allreduce --bytes 64MiB"
echo "  bash scripts/test.sh                                          # every test, reusing this build"
