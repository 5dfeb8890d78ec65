#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
echo
echo "== collsim goal stats goal/examples/loggopsim2_binomialtreebcast_128_1024.goal"
./build/release/collsim goal stats goal/examples/loggopsim2_binomialtreebcast_128_1024.goal
