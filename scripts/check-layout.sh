#!/usr/bin/env bash
# The folder layout's include rules (docs/architecture.md), checked by grep over every #include
# of the sources: each part may include only the parts below it, and the pure parts (no SystemC)
# never include SystemC or TLM headers. Run by CTest; exits 1 and lists the offending lines when
# a rule is broken.
#   scripts/check-layout.sh [SOURCE_DIR]          check
#   scripts/check-layout.sh --graph [SOURCE_DIR]   print the include graph of the parts (counts)
set -euo pipefail
graph=0
if [ "${1:-}" = "--graph" ]; then graph=1; shift; fi
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"

# The part of a file or include path. host/ and models/ each have a pure half that the pure
# parts may see: the timer arithmetic, the kernel profile table, the host's parameters and the
# list of host drivers; the register definitions and the identity checks. The device's parameters (models_params) are
# pure too, but host/ may not see them: a driver sees the PCI function, never the device's
# latencies and faults. The VCD writer is outputs/' SystemC half. models/sim_time.hpp, the one
# door from picosecond arithmetic to SystemC time (waits, notifications, delays), is shared by
# both sides of the socket and the engine.
part_of() {
  case "$1" in
    host/timers/*|host/linux/kernel_profile.*|host/host_params.hpp|host/registry.hpp) echo host_pure ;;
    models/nvme_regs.hpp|models/identity_checks.hpp) echo models_pure ;;
    models/controller_params.hpp) echo models_params ;;
    models/pcie_transport.hpp) echo models_socket ;;
    models/sim_time.hpp) echo sim_time ;;
    outputs/vcd.*) echo outputs_vcd ;;
    tests/fuzz/*) echo fuzz ;;
    */*) echo "${1%%/*}" ;;
    *) echo "?" ;;
  esac
}

# What each part may include (besides itself); SystemC parts are marked with "systemc".
declare -A allowed=(
  [core]=""
  [models_pure]="core"
  [models_params]="core models_pure"
  [models_socket]="systemc"
  [sim_time]="core systemc"
  [models]="core models_pure models_params models_socket sim_time systemc"
  [host_pure]="core"
  [host]="core models_pure models_socket sim_time host_pure systemc"
  [scenario]="core models_pure models_params host_pure"
  [outputs]="core models_pure models_params host_pure scenario"
  [outputs_vcd]="core outputs systemc"
  [engine]="core models_pure models_params models_socket sim_time models host_pure host scenario outputs outputs_vcd systemc"
  [sweep]="core models_pure models_params host_pure scenario"
  [tools]="core host_pure"
  [fit]="core models_pure models_params host_pure scenario tools"
  [cli]="core models_pure models_params host_pure scenario outputs engine sweep tools fit"
  [fuzz]="core models_pure models_params host_pure scenario sweep tools fit"
)

status=0
declare -A edges=()
files=$(find core models host scenario outputs engine sweep tools fit cli tests/fuzz -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
for f in $files; do
  from=$(part_of "$f")
  if [ -z "${allowed[$from]+x}" ]; then
    echo "check-layout: $f: in no part of the layout (add it to scripts/check-layout.sh)"; status=1; continue
  fi
  while IFS= read -r line; do
    inc=${line#*include }
    case "$inc" in
      '<systemc>'|'<systemc.h>'|'<tlm>'|'<tlm.h>'|'<tlm_utils/'*|'<sysc/'*) to=systemc ;;
      '"'*/*'"') p=${inc#\"}; p=${p%%\"*}; to=$(part_of "$p") ;;
      *) continue ;;  # the C++ and system libraries, and a test's own "support.hpp"
    esac
    if [ "$to" != "$from" ]; then
      edges["$from -> $to"]=$(( ${edges["$from -> $to"]:-0} + 1 ))
      case " ${allowed[$from]} " in
        *" $to "*) ;;
        *) echo "check-layout: $f: $from may not include $to: $line"; status=1 ;;
      esac
    fi
  done < <(grep -h '^[[:space:]]*#[[:space:]]*include' "$f" || true)
done

if [ "$graph" = 1 ]; then
  for e in "${!edges[@]}"; do echo "$e (${edges[$e]})"; done | sort
fi
[ "$status" = 0 ] && [ "$graph" = 0 ] && echo "check-layout: $(echo "$files" | wc -l) files, every include allowed"
exit $status
