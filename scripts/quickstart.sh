#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
echo
echo "== collsim run --topology topologies/fat_tree_k8.yaml --coll allreduce --bytes 16MiB"
./build/release/collsim run --topology topologies/fat_tree_k8.yaml --coll allreduce --bytes 16MiB
