#!/usr/bin/env bash
# Installs everything collsim needs from Debian 12 packages. Safe to run again:
# apt-get skips what is already installed, and nothing else is changed. --tests adds what only
# the tests need (a headless browser for the report page), which scripts/test.sh asks for.
set -euo pipefail

packages=(
  # tool chain
  build-essential cmake ninja-build git pkg-config ca-certificates
  clang libclang-rt-14-dev            # libFuzzer targets
  # libraries
  libopenmpi-dev openmpi-bin
  libboost-dev
  libprotobuf-dev protobuf-compiler
  libhdf5-dev libaec-dev  # libaec-dev: the szip archive that HDF5's archive needs
  libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev
  libcli11-dev
  libyaml-cpp-dev
  nlohmann-json3-dev
  libmetis-dev
  libbenchmark-dev
  libxxhash-dev
  zlib1g-dev
  # result plots
  python3 python3-h5py python3-matplotlib python3-numpy
)
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium)  # tests/report opens the report page in it
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
