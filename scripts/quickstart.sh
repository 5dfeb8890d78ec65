#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
echo
echo "== collsim workload resnet50   (one training step, packet by packet, on 8 DGX A100 servers)"
./build/release/collsim workload resnet50
