#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build with warnings as errors (the
# release preset's, so that after scripts/quickstart.sh only the tests and benchmarks are left
# to build), run every test. --sanitize uses the AddressSanitizer + UndefinedBehaviorSanitizer
# build.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
if [ "${1:-}" = "--sanitize" ]; then preset=asan; fi
bash scripts/setup.sh
cmake --preset "$preset" -DCOLLSIM_WERROR=ON >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)"
