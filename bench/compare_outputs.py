#!/usr/bin/python3
"""Compares the outputs of two nvmesim binaries for the same scenarios and seeds.

Used to check that an optimisation changes no output: the JSON timeline and JSON Lines trial
records, --trace, --vcd and --dmesg must be byte-identical. Summaries are compared field by field:
count, mean, stddev, min and max must agree (mean and stddev to the last printed digit, allowing
one unit of rounding), percentiles within the quantile sketch's bound (0.05 % of the value, plus
one unit of the 6th decimal for rounding), since summaries now come from a constant-memory sketch
instead of sorting every trial. Exit status 0 when everything matches, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PERCENTILES = ("p5", "p10", "p50", "p90", "p95", "p99")
EXACT = ("count", "min", "max")
ROUNDED = ("mean", "stddev")


def run(binary, scenario, trials, folder, tag):
    """Runs one binary; returns the paths of its outputs by kind."""
    paths = {
        "json": os.path.join(folder, tag + ".json"),
        "jsonl": os.path.join(folder, tag + ".jsonl"),
        "trace": os.path.join(folder, tag + ".trace.json"),
        "vcd": os.path.join(folder, tag + ".vcd"),
        "dmesg": os.path.join(folder, tag + ".dmesg"),
    }
    base = [binary, "run", scenario, "-n", str(trials), "-q"]
    subprocess.run(base + ["-o", paths["json"], "--trace", paths["trace"], "--trace-trials", "0-2",
                           "--vcd", paths["vcd"], "--dmesg", paths["dmesg"]], check=True)
    subprocess.run(base + ["-o", paths["jsonl"], "--format", "jsonl"], check=True)
    return paths


def compare_summary(where, a, b, problems):
    if isinstance(a, dict) and isinstance(b, dict) and "count" in a and "p50" in a:
        for k in EXACT:
            if a[k] != b[k]:
                problems.append(f"{where}.{k}: {a[k]} != {b[k]}")
        for k in ROUNDED:
            if abs(a[k] - b[k]) > 1.5e-6:
                problems.append(f"{where}.{k}: {a[k]} != {b[k]}")
        for k in PERCENTILES:
            if abs(a[k] - b[k]) > 5e-4 * abs(a[k]) + 1.5e-6:
                problems.append(f"{where}.{k}: {a[k]} vs {b[k]} beyond the sketch bound")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            problems.append(f"{where}: keys {list(a)} != {list(b)}")
            return
        for k in a:
            compare_summary(f"{where}.{k}", a[k], b[k], problems)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{where}: lengths {len(a)} != {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare_summary(f"{where}[{i}]", x, y, problems)
    elif a != b:
        problems.append(f"{where}: {a!r} != {b!r}")


def compare(before, after, problems, name):
    for kind in ("trace", "vcd", "dmesg"):
        with open(before[kind], "rb") as f, open(after[kind], "rb") as g:
            if f.read() != g.read():
                problems.append(f"{name}: --{kind} output differs")
    # JSON timeline: everything but the summaries and paired deltas byte-identical (compared as
    # re-serialised trial records, which keep the program's own byte order of keys).
    with open(before["json"]) as f, open(after["json"]) as g:
        a, b = json.load(f), json.load(g)
    for va, vb in zip(a["variants"], b["variants"]):
        if json.dumps(va["trials"]) != json.dumps(vb["trials"]):
            problems.append(f"{name}: json trials of {va['name']} differ")
        compare_summary(f"{name}: json {va['name']}.summary", va["summary"], vb["summary"], problems)
    if len(a["variants"]) != len(b["variants"]):
        problems.append(f"{name}: json variant counts differ")
    compare_summary(f"{name}: json paired", a["paired"], b["paired"], problems)
    if a["scenario"] != b["scenario"] or a["schema"] != b["schema"]:
        problems.append(f"{name}: json header differs")
    # JSON Lines: the header and trial lines byte-identical as sets keyed by (variant, trial)
    # (a runner may order trials differently), the summary line within the sketch bounds.
    def lines(path):
        with open(path, "rb") as f:
            out = f.read().split(b"\n")
        assert out[-1] == b""
        return out[:-1]
    la, lb = lines(before["jsonl"]), lines(after["jsonl"])
    if la[0] != lb[0]:
        problems.append(f"{name}: jsonl header differs")
    def keyed(ls):
        d = {}
        for line in ls[1:-1]:
            r = json.loads(line)
            d[(r["variant"], r["trial"])] = line
        return d
    if keyed(la) != keyed(lb):
        problems.append(f"{name}: jsonl trial lines differ")
    if la[1:-1] != lb[1:-1]:
        print(f"{name}: jsonl trial lines are the same set in a different order")
    compare_summary(f"{name}: jsonl summary", json.loads(la[-1]), json.loads(lb[-1]), problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="nvmesim binary before the change")
    ap.add_argument("after", help="nvmesim binary after the change")
    ap.add_argument("scenarios", nargs="+", help="scenario files")
    ap.add_argument("-n", "--trials", type=int, default=200, help="trials per variant (default 200)")
    args = ap.parse_args()
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        for sc in args.scenarios:
            name = os.path.basename(sc)
            before = run(args.before, sc, args.trials, folder, "before")
            after = run(args.after, sc, args.trials, folder, "after")
            n = len(problems)
            compare(before, after, problems, name)
            print(f"{name}: {'same' if len(problems) == n else 'DIFFERENT'}")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
