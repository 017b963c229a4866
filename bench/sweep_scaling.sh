#!/usr/bin/env bash
# Sweep scaling and equality (issue 4's done-when): a 6-point grid (kernels 5.6 and 5.7 x enable
# latencies 100us, 1ms, 10ms over the AWS c5.12xlarge case):
#   1. at TRIALS trials per point (default 300), --jobs 1, --jobs 2, two shards and a run killed
#      with SIGKILL then --resume'd must all merge to the same bytes (checked with cmp);
#   2. hyperfine times --jobs 1 against --jobs 2 at TRIALS and at HEAVY_TRIALS (default 20000)
#      trials per point, each run into a fresh folder.
#   3. the same as interleaved pairs (--jobs 1 then --jobs 2, PAIRS times): median speedup per pair.
# Usage: bench/sweep_scaling.sh [--help]   (env: NVMESIM, TRIALS, HEAVY_TRIALS, RUNS, PAIRS, OUT)
# Record the printed figures in bench/sweep-scaling.md. Needs hyperfine.
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
here="$(cd "$(dirname "$0")/.." && pwd)"
nvmesim="${NVMESIM:-$here/build/nvmesim}"
trials="${TRIALS:-300}"
heavy="${HEAVY_TRIALS:-20000}"
runs="${RUNS:-10}"
work="${OUT:-$(mktemp -d /tmp/nvmesim-sweep-bench.XXXXXX)}"
mkdir -p "$work"
cd "$work"
echo "nvmesim: $nvmesim ($("$nvmesim" --version)); $(nproc) CPUs; work folder $work"

grid() {  # grid FILE TRIALS
  cat > "$1" <<JSON
{"schema": "nvmesim.sweep/1", "name": "grid6-$2",
 "base": "$here/scenarios/aws-c5.12xlarge.json", "trials": $2,
 "set": {"/variants": []},
 "grid": {"/host/kernel": ["5.6", "5.7"],
          "/controllers/0/enable_latency": ["100us", "1ms", "10ms"]}}
JSON
}
grid g.json "$trials"
grid heavy.json "$heavy"

echo "== equality at $trials trials per point"
rm -rf j1 j2 s0 s1 killed
"$nvmesim" sweep g.json --out j1 --jobs 1 -q
"$nvmesim" sweep g.json --out j2 --jobs 2 -q
"$nvmesim" sweep g.json --out s0 --shard 0/2 -q
"$nvmesim" sweep g.json --out s1 --shard 1/2 -q
echo "points: $(ls j1/points | wc -l) files in j1/points"
# Killed: SIGKILL once the first point is complete (at this size the sweep is quick, so the
# heavy grid's trials are not used; the kill lands mid-sweep only if points take a while, so
# this uses 10x the trials and its own reference).
grid k.json $((trials * 10))
rm -rf kref killed
"$nvmesim" sweep k.json --out kref -q
"$nvmesim" sweep k.json --out killed --jobs 1 -q &
pid=$!
while ! ls killed/points/*.jsonl >/dev/null 2>&1; do sleep 0.01; done
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
echo "killed after $(ls killed/points/*.jsonl | wc -l) complete point(s); manifest present: $([ -e killed/manifest.json ] && echo yes || echo no)"
"$nvmesim" sweep k.json --out killed --resume -q
"$nvmesim" merge j1 --out m-j1.json
"$nvmesim" merge j2 --out m-j2.json
"$nvmesim" merge s1 s0 --out m-shards.json
"$nvmesim" merge kref --out m-kref.json
"$nvmesim" merge killed --out m-killed.json
cmp m-j1.json m-j2.json && cmp m-j1.csv m-j2.csv && echo "--jobs 1 == --jobs 2: same bytes"
cmp m-j1.json m-shards.json && cmp m-j1.csv m-shards.csv && echo "--jobs 1 == shards 0/2 + 1/2: same bytes"
cmp m-kref.json m-killed.json && cmp m-kref.csv m-killed.csv && echo "uninterrupted == SIGKILL + --resume: same bytes"
sha256sum m-j1.json m-j1.csv

echo "== timing (hyperfine, $runs runs each)"
for f in g.json heavy.json; do
  hyperfine -N --warmup 1 --runs "$runs" --export-markdown "time-$f.md" \
    --prepare "rm -rf t1" "$nvmesim sweep $f --out t1 --jobs 1 -q" \
    --prepare "rm -rf t2" "$nvmesim sweep $f --out t2 --jobs 2 -q"
  cat "time-$f.md"
done

# Interleaved pairs: on a shared machine the load drifts between hyperfine's blocks of runs, so
# also time --jobs 1 and --jobs 2 back to back, R times, and report the median of the per-pair
# ratios with the load average seen.
echo "== interleaved pairs (${PAIRS:-8} pairs each)"
for f in g.json heavy.json; do
  /usr/bin/python3 - "$nvmesim" "$f" "${PAIRS:-8}" <<'PY'
import os, shutil, statistics, subprocess, sys, time
exe, sweep, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def once(jobs):
    shutil.rmtree("p", ignore_errors=True)
    t = time.monotonic()
    subprocess.run([exe, "sweep", sweep, "--out", "p", "--jobs", str(jobs), "-q"], check=True)
    return time.monotonic() - t
once(2)  # warm-up
t1, t2, ratios, loads = [], [], [], []
for _ in range(pairs):
    a, b = once(1), once(2)
    t1.append(a); t2.append(b); ratios.append(a / b); loads.append(os.getloadavg()[0])
print(f"{sweep}: --jobs 1 median {statistics.median(t1):.3f} s, --jobs 2 median {statistics.median(t2):.3f} s, "
      f"speedup per pair: median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}); "
      f"load average during: {min(loads):.1f}-{max(loads):.1f}")
PY
done
