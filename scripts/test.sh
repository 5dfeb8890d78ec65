#!/usr/bin/env bash
# From a fresh Debian 12 machine: install dependencies, build with warnings as errors (the
# release preset's, so that after scripts/quickstart.sh only the tests and benchmarks are left
# to build), run every test. --sanitize uses the AddressSanitizer + UndefinedBehaviorSanitizer
# build. --update-golden first rewrites tests/golden/expected from this build's outputs (after a
# deliberate change of results: review the diff before committing it).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
update_golden=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) preset=asan ;;
    --update-golden) update_golden=1 ;;
    *) echo "scripts/test.sh: unknown option $arg (--sanitize, --update-golden)" >&2; exit 64 ;;
  esac
done
bash scripts/setup.sh --tests
cmake --preset "$preset" -DCOLLSIM_WERROR=ON >/dev/null
cmake --build --preset "$preset"
if [ "$update_golden" = 1 ]; then
  COLLSIM_UPDATE_GOLDEN=1 ctest --test-dir "build/$preset" -R '^golden\.outputs$' --output-on-failure
  git --no-pager diff --stat -- tests/golden/expected || true
fi
ctest --preset "$preset" -j "$(nproc)"
