#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
echo
echo "== collsim flows --topology topologies/fat_tree_k8.yaml --pattern permutation --bytes 1MiB"
./build/release/collsim flows --topology topologies/fat_tree_k8.yaml --pattern permutation --bytes 1MiB
