#!/usr/bin/env bash
# Writes every output nvmesim gives for the shipped inputs into OUTDIR, so that two builds can be
# compared byte for byte with `diff -r` (a redesign must change none of them):
#   - each scenario in scenarios/: the table (stdout, stderr), the timeline JSON with --trace,
#     --vcd and --dmesg, and JSON Lines, at the scenario's own trial count capped to 200;
#   - each sweep in scenarios/sweeps/ with 20 trials per point, --jobs 1, and its merged summary;
#   - every input in tests/data/bad/: validate's and run's stderr and exit status;
#   - `profiles` (text and JSON), `dmesg` on the shipped case logs, and every --help text.
# Usage: tests/snapshot/snapshot.sh BUILD/nvmesim OUTDIR     then: diff -r OLD NEW
set -uo pipefail
bin=$(realpath "$1"); out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"; mkdir -p "$out"/{run,sweep,bad,tools,help}
out=$(realpath "$out")
cd "$top"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 LC_ALL=C TZ=UTC
rec() { # rec NAME CMD...: stdout, stderr and exit status of CMD into NAME.{out,err,rc}
  local name=$1; shift
  "$@" >"$name.out" 2>"$name.err"; echo $? >"$name.rc"
}
for s in scenarios/*.json; do
  n=$(basename "$s" .json); o=$out/run/$n
  t=$(SNAPDIR=$top/tests/snapshot python3 -c 'import json, os, sys
sys.path.insert(0, os.environ["SNAPDIR"])
from strip_comments import strip
print(min(200, json.loads(strip(open(sys.argv[1]).read())).get("trials", 1)))' "$s")
  rec "$o.table" "$bin" run "$s" -n "$t"
  rec "$o.files" "$bin" run "$s" -n "$t" -q -o "$o.json" --trace "$o.trace.json" --trace-trials 0-2 \
      --vcd "$o.vcd" --dmesg "$o.dmesg"
  rec "$o.lines" "$bin" run "$s" -n "$t" -q -o "$o.jsonl" --format jsonl
done
for s in scenarios/sweeps/*.json; do
  n=$(basename "$s" .json); o=$out/sweep/$n
  SNAPDIR=$top/tests/snapshot python3 - "$s" "$o.sweep.json" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["SNAPDIR"])
from strip_comments import strip
src, dst = sys.argv[1], sys.argv[2]
d = json.loads(strip(open(src).read()))
d["trials"] = 20
if "base" in d:  # inline the base, so that no path (which differs between checkouts) is involved
    d["scenario"] = json.loads(strip(open(os.path.join(os.path.dirname(src), d.pop("base"))).read()))
json.dump(d, open(dst, "w"), indent=1)
PY
  rec "$o.run" "$bin" sweep "$o.sweep.json" --out "$o.dir" --jobs 1 -q
  rec "$o.merge" "$bin" merge "$o.dir" --out "$o.summary.json"
  find "$o.dir" -type f | sort | sed "s|$out/||" >"$o.files"
  cp "$o.dir/manifest.json" "$o.manifest.json" 2>/dev/null
  for p in "$o.dir"/points/*.jsonl; do cat "$p"; done >"$o.points.jsonl" 2>/dev/null
  rm -rf "$o.dir"
done
# The sweep's manifest and errors name the sweep file by path: make those paths relative.
sed -i "s|$out/||g" "$out"/sweep/* 2>/dev/null
for f in tests/data/bad/*.json; do
  n=$(basename "$f" .json)
  rec "$out/bad/$n.validate" "$bin" validate "$f"
  rec "$out/bad/$n.run" "$bin" run "$f" -q -o "$out/bad/$n.never.json"
done
rec "$out/tools/profiles" "$bin" profiles
rec "$out/tools/profiles-json" "$bin" profiles --json
for l in tests/data/shared/cases/*.dmesg; do
  rec "$out/tools/dmesg-$(basename "$l" .dmesg)" "$bin" dmesg "$l"
done
rec "$out/tools/dmesg-reload-from-to" "$bin" dmesg tests/data/shared/cases/reload-32q-msleep100.dmesg --from nvme_init --to queues
rec "$out/tools/dmesg-empirical" "$bin" dmesg tests/data/shared/cases/reload-32q-msleep100.dmesg --from nvme_init --to queues --empirical
rec "$out/tools/default-run" "$bin" run --trials 300
for c in "" run validate dmesg profiles sweep merge; do
  rec "$out/help/${c:-top}" "$bin" $c --help
done
echo "snapshot: $(find "$out" -type f | wc -l) files in $out"
