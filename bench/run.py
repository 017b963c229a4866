#!/usr/bin/python3
"""Benchmarks of nvmesim (issue 7): builds in Release, measures, writes bench/results.md.

Usage: bench/run.py [--quick] [--label TEXT] [-o bench/results.md]

Every figure is measured with /usr/bin/time (wall and CPU seconds, peak RSS); rates use CPU time
(user + system), which is steadier than wall time on a shared machine. Nothing here asserts a speed.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build-release")
NVMESIM = os.path.join(BUILD, "nvmesim")
FLOOR = os.path.join(BUILD, "bench", "nvmesim_floor")
AWS = os.path.join(ROOT, "scenarios", "aws-c5.12xlarge.json")
AWS57 = ["--set", "/variants=[]", "--set", '/host/kernel="5.7"']


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def timed(cmd, repeat=3):
    """Runs cmd `repeat` times; returns the run with the median CPU time: (wall_s, cpu_s, max_rss_kb)."""
    runs = []
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
            subprocess.run(["/usr/bin/time", "-o", tf.name, "-f", "%e %U %S %M"] + cmd, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall, user, system, rss = tf.read().split()[-4:]
        runs.append((float(wall), float(user) + float(system), int(rss)))
    runs.sort(key=lambda r: r[1])
    return runs[len(runs) // 2]


def summary_of(jsonl_path):
    with open(jsonl_path) as f:
        for line in f:
            pass
    return json.loads(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller counts (for trying the script)")
    ap.add_argument("--label", default="", help="a label for this measurement (e.g. before/after)")
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "bench", "results.md"))
    args = ap.parse_args()
    scale = 10 if args.quick else 1

    sh(["cmake", "--preset", "release"], cwd=ROOT)
    sh(["cmake", "--build", "--preset", "release", "-j", str(os.cpu_count() or 2)], cwd=ROOT)
    tmp = tempfile.mkdtemp(prefix="nvmesim-bench-")
    rows = []

    # 1. SystemC floor and nvmesim in jsonl mode, AWS case under 5.7.
    n = 200000 // scale
    _, floor_cpu, _ = timed([FLOOR, str(n)])
    out = os.path.join(tmp, "aws57.jsonl")
    wall, cpu, rss = timed([NVMESIM, "run", AWS, *AWS57, "-n", str(n), "-q", "-o", out])
    size = os.path.getsize(out)
    rows.append(("SystemC floor (36 timed waits per trial, 6 device events)", f"{n / floor_cpu:,.0f} trials/s", ""))
    rows.append(("nvmesim AWS 5.7, --format jsonl", f"{n / cpu:,.0f} trials/s",
                 f"{n / cpu / (n / floor_cpu):.2f} of the floor; {size / n:.0f} bytes/trial"))

    # 2. Full timelines (every trial detailed).
    n_full = 20000 // scale
    out = os.path.join(tmp, "aws57.json")
    wall, cpu, rss = timed([NVMESIM, "run", AWS, *AWS57, "-n", str(n_full), "-q", "--detail-trials", str(n_full),
                            "-o", out])
    size = os.path.getsize(out)
    rows.append(("nvmesim AWS 5.7, full timelines (json, every trial detailed)", f"{n_full / cpu:,.0f} trials/s",
                 f"{size / cpu / 1e6:.1f} MB/s of output ({size / n_full / 1e3:.1f} kB/trial)"))

    # 3. Cost per CSTS poll against the simulated timeout: never ready, CAP.TO 1, 16, 255.
    # Process start-up and elaboration (a one-trial run) is subtracted from every poll row: the
    # msleep(100) CAP.TO 1 rows run for a tenth of a second, where start-up is a visible share.
    _, startup_cpu, _ = timed([NVMESIM, "run", AWS, *AWS57, "-n", "1", "-q", "-o", os.path.join(tmp, "one.jsonl")],
                              repeat=5)
    poll_rows = []
    for policy, kernel, polls_target in (("usleep_range(1000, 2000)", "5.7", 1_000_000),
                                         ("msleep(100)", "5.6", 1_000_000)):
        for to in (1, 16, 255):
            deadline_s = (to + 1) / 2
            per_sleep_s = 0.002 if kernel == "5.7" else 0.106
            trials = max(2, int(polls_target / scale / (deadline_s / per_sleep_s)))
            out = os.path.join(tmp, f"poll-{kernel}-{to}.jsonl")
            cmd = [NVMESIM, "run", AWS, "--set", "/variants=[]", "--set", f'/host/kernel="{kernel}"',
                   "--set", '/controllers/0/faults={"never_ready":true}', "--set", f"/controllers/0/cap/to={to}",
                   "--set", "/controllers/0/handoff=\"disabled\"", "-n", str(trials), "-q", "-o", out]
            wall, cpu, rss = timed(cmd)
            s = summary_of(out)["variants"][0]["summary"]
            polls = trials * (s["phases"]["disable"]["polls"]["mean"] + s["phases"]["enable"]["polls"]["mean"])
            poll_rows.append((policy, to, trials, polls, cpu / polls * 1e9,
                              max(cpu - startup_cpu, 0.0) / polls * 1e9, max(cpu - startup_cpu, 0.0) / trials * 1e6))
    # Per policy, fit CPU per trial = a + b * polls per trial over the three CAP.TO rows (least
    # squares): `a` is the per-trial work besides polling (probe set-up, the disable phase, the
    # failure, the JSON line), `b` the cost of a poll. The net column, (CPU per trial - a) / polls
    # per trial, would be flat when no cost grows with simulated time, but with three noisy points
    # the fit is only a hint, so it is printed as a note rather than a column.
    fits = {}
    for policy in {r[0] for r in poll_rows}:
        pts = [(r[3] / r[2], r[6] * 1e3) for r in poll_rows if r[0] == policy]  # (polls/trial, ns/trial)
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
        fits[policy] = (my - b * mx, b)
    # 4. Peak memory against the trial count (jsonl).
    mem_rows = []
    for n_mem in (100_000 // scale, 1_000_000 // scale):
        out = os.path.join(tmp, f"mem-{n_mem}.jsonl")
        wall, cpu, rss = timed([NVMESIM, "run", AWS, *AWS57, "-n", str(n_mem), "-q", "-o", out], repeat=1)
        mem_rows.append((n_mem, rss / 1024, cpu))
        os.remove(out)

    cpu_model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    commit = sh(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT).stdout.strip()
    dirty = sh(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT).stdout.strip()
    lines = [f"## {args.label or 'Measurement'}: commit {commit}{' (with uncommitted changes)' if dirty else ''}",
             "",
             f"Machine: {os.cpu_count()} cores, {cpu_model}, {platform.system()} {platform.release()}. "
             f"Rates are per CPU second (user + system, median of 3 runs){'; --quick counts' if args.quick else ''}.",
             "",
             "| what | figure | note |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += ["", "Cost per CSTS poll, never-ready controller (disable handed over disabled; the enable wait runs to its deadline):",
              f"(CPU time less the start-up of one process, {startup_cpu * 1e3:.0f} ms, divided by the polls; the"
              " per-trial work besides polling is included, which weighs on rows with few polls per trial)",
              "", "| poll | CAP.TO | trials | polls | polls/trial | ns per poll | us per trial |",
              "|---|---|---|---|---|---|---|"]
    lines += [f"| {p} | {to} | {t} | {polls:,.0f} | {polls / t:,.0f} | {net:,.0f} | {us:,.1f} |"
              for p, to, t, polls, ns, net, us in poll_rows]
    lines += ["", "Per-trial work besides polling (least-squares fit over the three CAP.TO rows): " +
              "; ".join(f"{p}: {a / 1e3:,.1f} us per trial + {b:,.0f} ns per poll" for p, (a, b) in sorted(fits.items()))]
    lines += ["", "Peak memory, AWS 5.7, --format jsonl:", "", "| trials | peak RSS | CPU s |", "|---|---|---|"]
    lines += [f"| {n:,} | {mb:.1f} MiB | {c:.1f} |" for n, mb, c in mem_rows]
    # Place for the sweep row (issue 4's bench/sweep_scaling.sh): trials/s with --jobs 1 and --jobs 2.
    lines += ["", "Sweep throughput, `--jobs 1` vs `--jobs 2`: not measured by this script yet (bench/sweep_scaling.sh"
              " from the sweeps branch).", ""]
    lines += ["Rerun: `bench/run.py --label NAME` (builds the `release` preset; about 3 minutes).", ""]
    text = "\n".join(lines)
    print(text)
    header = "# nvmesim benchmarks\n\nNewest measurement first. Produced by `bench/run.py`.\n\n"
    old = ""
    if os.path.exists(args.output):
        with open(args.output) as f:
            old = f.read()
        if old.startswith(header):
            old = old[len(header):]
    with open(args.output, "w") as f:
        f.write(header + text + "\n" + old)


if __name__ == "__main__":
    sys.exit(main())
