#!/usr/bin/env bash
# Wall time of an 8-point sweep through the local one-node Slurm cluster (scripts/slurm-local.sh)
# against `nvmesim sweep --jobs 2` and `--jobs 1` on the same machine (issue 17's note). The sweep
# is the test's (tests/slurm/sweep_on_slurm.sh): kernels 5.6 and 5.7 x 4 enable latencies over
# the AWS case, TRIALS trials per point. Slurm: scripts/sweep-slurm.sbatch submit with SHARDS
# array tasks of 1 CPU, timed from submit to the end of the merge job (afterok). RUNS rounds,
# interleaved (--jobs 1, --jobs 2, then each shard count), each into a fresh folder; every merged
# summary is compared with cmp to the --jobs 1 one. Prints one line per run and the medians.
# Usage: bench/slurm_sweep.sh   (env: NVMESIM, TRIALS=6000, RUNS=5, SHARD_COUNTS="2 4 8", OUT)
# Record the figures in bench/slurm-sweep.md.
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
here="$(cd "$(dirname "$0")/.." && pwd)"
nvmesim="$(realpath "${NVMESIM:-$here/build/nvmesim}")"
trials="${TRIALS:-6000}" runs="${RUNS:-5}" counts="${SHARD_COUNTS:-2 4 8}"
work="${OUT:-$(mktemp -d /tmp/nvmesim-slurm-bench.XXXXXX)}"
mkdir -p "$work"
work="$(realpath "$work")"
cd "$work"
cat >s8.json <<JSON
{"schema": "nvmesim.sweep/1", "name": "slurm-8",
 "base": "$here/scenarios/aws-c5.12xlarge.json", "trials": $trials,
 "set": {"/variants": []},
 "grid": {"/host/kernel": ["5.6", "5.7"], "/controllers/0/enable_latency": {"logspace": ["100us", "1s"], "count": 4}}}
JSON
cluster_env="$("$here/scripts/slurm-local.sh" start)"
eval "$cluster_env"
trap '"$here/scripts/slurm-local.sh" stop "$NVMESIM_SLURM_DIR"' EXIT
export NVMESIM="$nvmesim"
echo "$("$nvmesim" --version); $(nproc) CPUs; $trials trials per point; load $(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }
declare -A times
record() { times[$1]+="$2 "; printf '%-16s %6.2f s\n' "$1" "$2"; }
check() { cmp -s "$1" ref.json || { echo "FAIL: $1 differs from the --jobs 1 summary" >&2; exit 1; }; }
wait_merge() { # wait_merge JOB: until it has ended, then require COMPLETED
  while scontrol -o show job "$1" | grep -qE 'JobState=(PENDING|RUNNING|CONFIGURING|COMPLETING)'; do sleep 0.05; done
  scontrol -o show job "$1" | grep -q 'JobState=COMPLETED' || { scontrol show job "$1"; exit 1; }
}

for _ in $(seq 1 "$runs"); do
  rm -rf j1 j2 j1.json j1.csv
  t="$(now)"; "$nvmesim" sweep s8.json --out j1 --jobs 1 -q; "$nvmesim" merge j1 --out j1.json; record "jobs1" "$(elapsed "$t")"
  [ -e ref.json ] || cp j1.json ref.json
  check j1.json
  t="$(now)"; "$nvmesim" sweep s8.json --out j2 --jobs 2 -q; "$nvmesim" merge j2 --out j2.json; record "jobs2" "$(elapsed "$t")"
  check j2.json
  for n in $counts; do
    rm -rf "slurm-$n"
    t="$(now)"
    ids="$("$here/scripts/sweep-slurm.sbatch" submit s8.json "slurm-$n" "$n" -- --cpus-per-task=1 2>/dev/null)"
    eval "$ids"
    # shellcheck disable=SC2154  # merge_job is set by the eval
    wait_merge "$merge_job"
    record "slurm-$n-tasks" "$(elapsed "$t")"
    check "slurm-$n/summary.json"
  done
done
echo "medians over $runs runs:"
for k in jobs1 jobs2 $(for n in $counts; do echo "slurm-$n-tasks"; done); do
  # shellcheck disable=SC2086
  printf '  %-16s %6.2f s\n' "$k" "$(printf '%s\n' ${times[$k]} | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')"
done
