#!/usr/bin/env bash
# Installs the Debian packages nvmesim needs (DESIGN section 2), only those that are missing.
# Runs apt-get as root (through sudo when not root). Nothing else is downloaded.
set -euo pipefail
packages=(build-essential cmake pkg-config libsystemc-dev libboost-program-options-dev
          nlohmann-json3-dev catch2 python3 python3-matplotlib python3-numpy
          gtkwave   # gtkwave: its vcd2fst checks that --vcd output loads (tests/CMakeLists.txt)
          clang-14 libclang-rt-14-dev   # the asan preset and the libFuzzer targets (scripts/fuzz.sh)
          parallel)   # GNU parallel: scripts/sweep-parallel.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
