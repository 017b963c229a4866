#!/usr/bin/env bash
# The test command: installs what is missing (scripts/setup.sh --tests: the packages of the main job
# and those only the tests use), builds (build/), and runs the whole suite with CTest.
# Each Catch2 test case runs in its own process (SystemC allows one elaboration per process).
# Under CI=true, warnings in our code are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake --preset default -DNVMESIM_WERROR=$werror >/dev/null
cmake --build --preset default -j"$(nproc)"
ctest --preset default -j"$(nproc)" --timeout 600
