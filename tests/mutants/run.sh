#!/usr/bin/env bash
# Single-line mutants of the device, link and host timing (issue 12, review section 4): each one
# must make at least one test fail other than the golden byte comparison. A tool for the lead, not
# part of the CTest suite.
#
# For each mutant: copy the tree (tracked and untracked, not ignored, files of the working tree)
# into a scratch folder, apply the one-line substitution, build it with ccache, run ctest without
# the golden test, put the file back, and print a table mutant -> the tests that failed, or
# SURVIVED. A substitution is anchored on a code fragment, not on a line number, so it survives
# file moves: when the file is not at its old path the fragment is looked up in the tree; a
# fragment that is not found (or found in several files), or a substitution that does not change
# exactly one line, is an error, never a pass.
#
# Usage: tests/mutants/run.sh [--check] [M1 M2 ...]      (default: all seven; run in the order given)
#   --check   only show that each mutant still applies as one line (no build, no tests)
# Environment:
#   MUTANTS_DIR   scratch folder (default: <repo>/build-mutants, ignored by git). The copy keeps
#                 the repository's layout (tree/ with tree/build/) so that ccache, whose base_dir
#                 covers /work, finds the objects of an ordinary build of the same sources.
#   JOBS          parallel build and test jobs (default 2)
#   KEEP=1        keep the scratch folder afterwards
# Exit status: 0 every mutant killed; 1 some survived; 2 a mutant could not be applied or built,
# or the unmutated suite does not pass.
set -uo pipefail

top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 2
work=${MUTANTS_DIR:-$top/build-mutants}
jobs=${JOBS:-2}
tree=$work/tree
build=$tree/build
# The golden comparison (tests/test_outputs.cpp): excluded by its exact CTest name.
golden='^golden trace - VCD - dmesg of a small fixed scenario$'

ids=() descs=() files=() frags=() seds=()
# mutant ID DESCRIPTION FILE FRAGMENT SED: FRAGMENT (a fixed string) locates the file and the line;
# SED is the one-line substitution (GNU sed).
mutant() { ids+=("$1"); descs+=("$2"); files+=("$3"); frags+=("$4"); seds+=("$5"); }

mutant M1 "link: no in-order arrival (a TLP may pass an earlier one of its direction)" \
  models/pcie_link.cpp \
  'std::max(add_ps(dir.tx_free_ps, params_->one_way.sample_ps(one_way_stream_)), dir.last_arrival_ps);' \
  's/std::max(add_ps(dir\.tx_free_ps, params_->one_way\.sample_ps(one_way_stream_)), dir\.last_arrival_ps);/add_ps(dir.tx_free_ps, params_->one_way.sample_ps(one_way_stream_));/'
mutant M2 "controller: reads overtake writes (sampled at their own edge)" \
  models/nvme_controller.cpp \
  'const int64_t sample = std::max(edge, last_write_effect_ps_);' \
  's/const int64_t sample = std::max(edge, last_write_effect_ps_);/const int64_t sample = edge;/'
mutant M3 "controller: no clock edges (edge_at_or_after returns its argument)" \
  models/nvme_controller.cpp \
  'return add_ps(t0_ps_, ((d + p - 1) / p) * p);' \
  's|return add_ps(t0_ps_, ((d + p - 1) / p) \* p);|return t_ps;|'
mutant M4 "host: time_after(jiffies, deadline) as jiffies >= deadline (the readiness loop's deadline rule)" \
  host/readiness.cpp \
  'case Deadline::Rule::time_after: return time_after(clock.jiffies_at(now_rel), start_tick + d.amount);' \
  's/return time_after(clock\.jiffies_at(now_rel), start_tick + d\.amount);/return clock.jiffies_at(now_rel) >= start_tick + d.amount;/'
mutant M5 "host: no scheduler wakeup latency after a sleep (the draw is still taken)" \
  host/nvme_host.cpp \
  'if (p.schedules()) end = add_ps(end, h.wakeup_latency.sample_ps(wakeup_stream_));' \
  's/end = add_ps(end, h\.wakeup_latency\.sample_ps(wakeup_stream_));/(void)h.wakeup_latency.sample_ps(wakeup_stream_);/'
mutant M6 "link: width ignored in the TLP serialisation (every link x1)" \
  models/pcie_link.cpp \
  'den_ = 1024 * static_cast<int64_t>(width);' \
  's/den_ = 1024 \* static_cast<int64_t>(width);/den_ = 1024;/'
mutant M7 "controller: write_cycles ignored (a BAR0 write takes effect on its arrival edge)" \
  models/nvme_controller.cpp \
  'add_ps(std::max(edge, last_write_effect_ps_), mul_ps(p_->write_cycles, p_->clock_period_ps));' \
  '/add_ps(std::max(edge, last_write_effect_ps_), mul_ps(p_->write_cycles, p_->clock_period_ps));/s/mul_ps(p_->write_cycles, p_->clock_period_ps)/int64_t{0}/'

check_only=0
if [ "${1:-}" = --check ]; then check_only=1; shift; fi
selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=("${ids[@]}")
for s in "${selected[@]}"; do
  [[ " ${ids[*]} " == *" $s "* ]] || { echo "run.sh: unknown mutant $s (known: ${ids[*]})" >&2; exit 2; }
done

say() { printf '%s\n' "$*" >&2; }
die() { say "run.sh: $*"; exit 2; }

# ---- the copy and its unmutated build ---------------------------------------------------------
say "copying $top into $tree"
rm -rf "$tree" && mkdir -p "$tree" || die "cannot create $tree"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
   while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
   tar --null -T - -cf -) | tar -xf - -C "$tree" || die "copy failed"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tree"' EXIT

log=$work/log
mkdir -p "$log"

# run_tests NAME: ctest without the golden test; prints the failed tests' names, one a line.
run_tests() {
  rm -f "$build/Testing/Temporary/LastTestsFailed.log"
  (cd "$build" && ctest -j"$jobs" -E "$golden" --timeout 300 >"$log/ctest-$1.txt" 2>&1)
  local rc=$?
  if [ -s "$build/Testing/Temporary/LastTestsFailed.log" ]; then
    sed 's/^[0-9]*://' "$build/Testing/Temporary/LastTestsFailed.log"
  elif [ $rc -ne 0 ]; then
    echo "(ctest exit status $rc, no failed test named: see $log/ctest-$1.txt)"
  fi
}

if [ $check_only = 0 ]; then
  say "configuring and building (log: $log/build-base.txt)"
  (cd "$tree" && cmake --preset default -G Ninja -DCMAKE_CXX_COMPILER_LAUNCHER=ccache &&
     cmake --build --preset default -j"$jobs") >"$log/build-base.txt" 2>&1 ||
    die "the unmutated tree does not build (see $log/build-base.txt)"
  n_golden=$(cd "$build" && ctest -N -R "$golden" | grep -c 'Test *#')
  [ "$n_golden" = 1 ] || die "the golden test pattern '$golden' matches $n_golden tests, not 1 (renamed? update run.sh)"
  n_tests=$(cd "$build" && ctest -N -E "$golden" | grep -c 'Test *#')
  say "running the $n_tests tests without the golden comparison on the unmutated tree"
  base_failed=$(run_tests base)
  [ -z "$base_failed" ] || die "the unmutated tree fails tests (see $log/ctest-base.txt):
$base_failed"
fi

# ---- the mutants ------------------------------------------------------------------------------
rows=() status=0
for id in "${selected[@]}"; do  # in the order given
  for i in "${!ids[@]}"; do [ "${ids[$i]}" = "$id" ] && break; done
  frag=${frags[$i]} file=${files[$i]}
  if [ ! -f "$tree/$file" ] || ! grep -qF -- "$frag" "$tree/$file"; then
    # The file moved: find the one file holding the fragment.
    mapfile -t hits < <(cd "$tree" && grep -rlF --include='*.cpp' --include='*.hpp' --exclude-dir=build -- "$frag" .)
    if [ ${#hits[@]} -ne 1 ]; then
      say "$id: fragment not found in exactly one file (found in ${#hits[@]}): $frag"
      rows+=("$id|$file|-|NOT APPLIED: fragment not found (${#hits[@]} files)|${descs[$i]}"); status=2; continue
    fi
    file=${hits[0]#./}
  fi
  f=$tree/$file
  cp -p "$f" "$work/original"
  sed -i -e "${seds[$i]}" "$f"
  changed=$(diff "$work/original" "$f" | grep -c '^[<>]')
  line=$(diff "$work/original" "$f" | sed -n 's/^\([0-9]*\)c[0-9]*$/\1/p' | head -1)
  if [ "$changed" != 2 ]; then
    say "$id: the substitution changed $((changed / 2)) lines of $file, not exactly one"
    cp -p "$work/original" "$f"; touch "$f"
    rows+=("$id|$file|-|NOT APPLIED: changed $((changed / 2)) lines|${descs[$i]}"); status=2; continue
  fi
  say "$id ($file:$line):"
  diff "$work/original" "$f" | grep '^[<>]' | sed 's/^/    /' >&2
  touch "$f"  # newer than its object, so that ninja rebuilds it (and again when restored)
  if [ $check_only = 1 ]; then
    rows+=("$id|$file:$line|-|applies (not built: --check)|${descs[$i]}")
  elif ! (cd "$tree" && cmake --build --preset default -j"$jobs") >"$log/build-$id.txt" 2>&1; then
    rows+=("$id|$file:$line|-|BUILD FAILED (see $log/build-$id.txt)|${descs[$i]}"); status=2
  else
    failed=$(run_tests "$id")
    if [ -z "$failed" ]; then
      rows+=("$id|$file:$line|0|SURVIVED|${descs[$i]}"); [ $status = 0 ] && status=1
    else
      n=$(printf '%s\n' "$failed" | wc -l)
      rows+=("$id|$file:$line|$n|$(printf '%s\n' "$failed" | paste -sd';' | sed 's/;/; /g')|${descs[$i]}")
    fi
    say "$id: ${rows[-1]}"  # as it comes: a run stopped early still shows the mutants done
  fi
  cp -p "$work/original" "$f"; touch "$f"
done
# Leave the copy built as it was (only matters with KEEP=1).
[ $check_only = 1 ] || (cd "$tree" && cmake --build --preset default -j"$jobs") >"$log/build-restore.txt" 2>&1

echo
[ $check_only = 1 ] || echo "$n_tests tests run per mutant (all but the golden comparison)"
echo
echo "| mutant | what | file:line | failing tests | killed by |"
echo "|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r id file n killed desc <<<"$r"
  echo "| $id | $desc | $file | $n | $killed |"
done
exit $status
