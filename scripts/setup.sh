#!/usr/bin/env bash
# Installs the Debian packages nvmesim needs (DESIGN section 2), only those that are missing.
#   scripts/setup.sh           what building and running nvmesim needs (the README's first command)
#   scripts/setup.sh --tests   that, plus what only the tests and CI use (scripts/test.sh runs this)
# Runs apt-get as root (through sudo when not root). Nothing else is downloaded.
set -euo pipefail
packages=(build-essential cmake pkg-config libsystemc-dev libboost-program-options-dev
          nlohmann-json3-dev libre2-dev catch2 python3 python3-matplotlib python3-numpy
          python3-ijson)   # python3-ijson: streams .json run outputs in scripts/plotlib.py
test_packages=(
  gtkwave                          # its vcd2fst checks that --vcd output loads (tests/CMakeLists.txt)
  clang-14 libclang-rt-14-dev      # the asan preset and the libFuzzer targets (scripts/fuzz.sh)
  parallel                         # GNU parallel: scripts/sweep-parallel.sh
  slurmctld slurmd slurm-client munge   # a real one-node Slurm cluster: scripts/slurm-local.sh,
                                        # tests/slurm/sweep_on_slurm.sh
  python3-yaml)                    # parses docs/github-actions-sweep.yml (tests/test_workflow.py)
case "${1:-}" in
  "") ;;
  --tests) packages+=("${test_packages[@]}") ;;
  -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup.sh: unknown option '$1' (allowed: --tests)" >&2; exit 2 ;;
esac
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
# The service packages (munge, slurmd, slurmctld) start their daemons when installed, through
# invoke-rc.d, and fail to install when that fails. The tests need none of them running
# (scripts/slurm-local.sh runs its own), so on a machine without systemd and without a
# policy-rc.d (a bare container), forbid service starts while installing.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ] && [ ! -d /run/systemd/system ]; then
  trap '$sudo rm -f "$policy"' EXIT
  printf '#!/bin/sh\n# scripts/setup.sh: no service starts while it installs packages\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
