#!/usr/bin/env bash
# Runs an nvmesim sweep as N shards with GNU parallel (apt-get install parallel; scripts/setup.sh --tests
# installs it), then merges the shard folders. On one machine, or on several with -S (GNU
# parallel's ssh logins; the machines need nvmesim at the same path and OUTDIR on a shared file
# system). Every shard runs with --resume, so running the script again after a kill, a lost host
# or failed points continues where it stopped. See docs/sweeps.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/sweep-parallel.sh [options] SWEEP.json OUTDIR

Runs `nvmesim sweep SWEEP.json --shard K/N --out OUTDIR/shard-K-of-N --resume` for K = 0..N-1
through GNU parallel, then `nvmesim merge OUTDIR/shard-* --out OUTDIR/summary.json` (and
summary.csv). Exit status: that of the merge (0 all points done, 1 some failed or missing).

Options:
  -n N          number of shards (default: the number of CPUs)
  -P P          shards running at once (default: N; GNU parallel's --jobs)
  -j J          worker processes per shard (default: 1)
  -S LOGINS     run shards on these ssh logins (GNU parallel -S, e.g. ":,host1,host2"; ":" is this machine)
  --nvmesim B   the nvmesim binary (default: $NVMESIM, else build/nvmesim beside this script, else nvmesim)
  -h, --help    this help
USAGE
}

here="$(cd "$(dirname "$0")/.." && pwd)"
nvmesim="${NVMESIM:-}"
if [ -z "$nvmesim" ]; then
  if [ -x "$here/build/nvmesim" ]; then nvmesim="$here/build/nvmesim"; else nvmesim="nvmesim"; fi
fi
shards="$(nproc)"
at_once=""
jobs=1
logins=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) shards="$2"; shift 2 ;;
    -P) at_once="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -S) logins="$2"; shift 2 ;;
    --nvmesim) nvmesim="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "sweep-parallel.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ ${#args[@]} -ne 2 ]; then usage >&2; exit 2; fi
sweep="$(realpath "${args[0]}")"
out="${args[1]}"
command -v parallel >/dev/null || { echo "sweep-parallel.sh: GNU parallel is missing (apt-get install parallel)" >&2; exit 2; }
mkdir -p "$out"
out="$(realpath "$out")"
case "$nvmesim" in */*) nvmesim="$(realpath "$nvmesim")" ;; esac

# Check the sweep once before starting N shards (a bad file fails here with its error).
"$nvmesim" sweep "$sweep" --list >/dev/null

popts=(--jobs "${at_once:-$shards}" --halt never --line-buffer --tagstring "shard {}/$shards")
[ -n "$logins" ] && popts+=(-S "$logins" --workdir .)
set +e
parallel "${popts[@]}" \
  "$nvmesim" sweep "$sweep" --shard "{}/$shards" --out "$out/shard-{}-of-$shards" --jobs "$jobs" --resume \
  ::: $(seq 0 $((shards - 1)))
failed_shards=$?
set -e
# GNU parallel's status: the number of shards that exited non-zero (1: some points failed).
[ "$failed_shards" -ne 0 ] && echo "sweep-parallel.sh: $failed_shards shard(s) reported failures; merging what is there" >&2
dirs=()
for k in $(seq 0 $((shards - 1))); do dirs+=("$out/shard-$k-of-$shards"); done
"$nvmesim" merge "${dirs[@]}" --out "$out/summary.json"
