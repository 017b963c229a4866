"""Helpers of bench/run.py: child processes timed by CPU time, output checks, machine facts, stats.

Every run is a child process started by bench/rusage_exec (a small fork/exec/wait4 program, so
that the child's peak RSS is not inflated by Python's, see its header), which reports the
child's user and system CPU time and peak RSS (ru_maxrss, KiB), including any children it waited
for (the workers of `nvmesim sweep`). A command that exits non-zero, or whose output does not
hold the expected number of trials, raises BenchError: a broken build never yields a figure.
"""
import json
import os
import re
import statistics
import subprocess
import tempfile


class BenchError(Exception):
    """A command failed or its output is not what the benchmark asked for."""


class Run:
    """One measured child process: cpu_s (user + system), wall_s, rss_kib (peak), stdout text."""

    def __init__(self, cpu_s, wall_s, rss_kib, stdout, load1):
        self.cpu_s, self.wall_s, self.rss_kib, self.stdout, self.load1 = cpu_s, wall_s, rss_kib, stdout, load1


LAUNCHER = None  # bench/rusage_exec.cpp's binary, set by bench/run.py before the first run


def run_child(argv, cwd=None, env=None):
    """Runs argv to completion through rusage_exec and returns a Run. Raises BenchError when it fails."""
    check(LAUNCHER is not None, "internal: rusage_exec not built")
    full_env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1", **(env or {}))
    fd, res = tempfile.mkstemp(prefix="rusage-", dir=cwd)
    os.close(fd)
    try:
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            load1 = os.getloadavg()[0]
            rc = subprocess.run([LAUNCHER, res, *argv], cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err).returncode
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if rc != 0:
            tail = "\n".join(stderr.strip().splitlines()[-15:])
            raise BenchError(f"command failed (exit {rc}): {' '.join(argv)}\n{tail}")
        with open(res) as f:
            fields = f.read().split()
    finally:
        os.remove(res)
    check(len(fields) == 4, f"rusage_exec wrote {fields!r}", argv)
    user_us, sys_us, wall_us, rss_kib = (int(x) for x in fields)
    return Run((user_us + sys_us) / 1e6, wall_us / 1e6, rss_kib, stdout, load1)


def check(cond, what, argv=None):
    """Raises BenchError(what) unless cond."""
    if not cond:
        raise BenchError(what + (f"\n  command: {' '.join(argv)}" if argv else ""))


TRIAL_PREFIX = b'{"record":"trial"'
POLLS_RE = re.compile(rb'"polls":(\d+)')
PROBE_RE = re.compile(rb'"probe_ns":(\d+)')
STATUS_OK = b'"status":"ok"'


def check_jsonl(path, trials, argv, detail=False, variants=1):
    """Checks an nvmesim.trials/1 file: header, `trials` trial records per variant, summaries of `trials`.

    With detail, also returns the sum of every phase's polls, the mean probe_ns and the number of
    trials with status ok, as a dict (the poll table needs them). Reads the file once, line by line.
    """
    n = polls = probe_sum = ok = 0
    first = last = b""
    with open(path, "rb") as f:
        for line in f:
            if not first:
                first = line
            if line.startswith(TRIAL_PREFIX):
                n += 1
                if detail:
                    polls += sum(int(x) for x in POLLS_RE.findall(line))
                    probe_sum += int(PROBE_RE.search(line).group(1))
                    ok += STATUS_OK in line
            last = line
    check(first.startswith(b'{"record":"header"'), f"{path}: no header record", argv)
    check(n == trials * variants, f"{path}: {n} trial records, expected {trials} x {variants} variant(s)", argv)
    summary = json.loads(last)
    check(summary.get("record") == "summary", f"{path}: the last line is not the summary record", argv)
    got = [v["summary"]["trials"] for v in summary["variants"]]
    check(got == [trials] * variants, f"{path}: summaries count {got} trials, expected {[trials] * variants}", argv)
    return {"polls": polls, "probe_ns_mean": probe_sum / max(n, 1), "ok": ok} if detail else {}


def check_table(stdout, trials, argv):
    """Checks the table `nvmesim run` prints without -q: its one variant row has ok + failed == trials."""
    lines = stdout.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("variant ") and " ok " in line]
    check(len(heads) == 1, "run table: no 'variant ... ok failed' header on stdout", argv)
    row = lines[heads[0] + 1].split()
    check(len(row) >= 3 and row[1].isdigit() and row[2].isdigit(), f"run table: unreadable row {row}", argv)
    check(int(row[1]) + int(row[2]) == trials, f"run table: {row[1]} ok + {row[2]} failed, expected {trials}", argv)


def check_json(path, trials, detailed, argv):
    """Checks an nvmesim.timeline/1 file by counting: `trials` trial objects, `detailed` event lists."""
    with open(path, "rb") as f:
        data = f.read()
    check(data.startswith(b'{"schema":"nvmesim.timeline/1"') and data.rstrip().endswith(b"}"),
          f"{path}: not a complete nvmesim.timeline/1 file", argv)
    n = data.count(b'{"trial":')
    ev = data.count(b'"events":')
    m = re.search(rb'"summary":\{"trials":(\d+)', data)
    check(n == trials, f"{path}: {n} trial objects, expected {trials}", argv)
    check(ev == detailed, f"{path}: {ev} detailed trials, expected {detailed}", argv)
    check(m is not None and int(m.group(1)) == trials, f"{path}: summary does not count {trials} trials", argv)


def check_trace(path, trials, argv):
    """Checks a Chrome trace: otherData.trial_slots lists trials 0..trials-1 (each traced)."""
    with open(path, "rb") as f:
        data = f.read()
    at = data.rfind(b'"otherData":')
    check(at >= 0, f"{path}: no otherData", argv)
    other = json.loads(data[at + len(b'"otherData":'):].rstrip()[:-1])
    slots = [s["trial"] for s in other.get("trial_slots", [])]
    check(slots == list(range(trials)), f"{path}: {len(slots)} traced trials, expected {trials}", argv)


def check_dmesg(path, trials, argv):
    """Checks a --dmesg log: one `initcall nvme_init` line (one boot) per trial."""
    with open(path, "rb") as f:
        n = f.read().count(b"initcall nvme_init")
    check(n == trials, f"{path}: {n} boots, expected {trials}", argv)


def interleave(cases, reps, warmup=True):
    """Runs cases (dicts with 'key' and 'run': a function returning a Run) as A B C, A B C, ...

    `reps` rounds after one warm-up round (discarded, but its checks still apply). Returns
    {key: [Run per round]}, so that round i of two keys forms a pair.
    """
    if warmup:
        for c in cases:
            c["run"]()
    out = {c["key"]: [] for c in cases}
    for _ in range(reps):
        for c in cases:
            out[c["key"]].append(c["run"]())
    return out


def med(xs):
    return statistics.median(xs)


def spread(xs):
    """(max - min) / median, the run-to-run noise of one case."""
    return (max(xs) - min(xs)) / med(xs) if med(xs) else 0.0


def cpu_stats(runs):
    xs = [r.cpu_s for r in runs]
    return min(xs), med(xs), max(xs)


def lsq(points):
    """Least-squares line y = a + b x through points [(x, y)]; returns (a, b)."""
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    return my - b * mx, b


class CpuWatch:
    """Machine-wide CPU use between start() and stop(), from /proc/stat: busy and steal fractions."""

    @staticmethod
    def _read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + v[4]
        steal = v[7] if len(v) > 7 else 0
        return sum(v[:8]), idle, steal

    def __init__(self):
        self.t0 = self._read()
        self.loads = [os.getloadavg()[0]]

    def sample(self):
        self.loads.append(os.getloadavg()[0])

    def result(self):
        t1 = self._read()
        total = max(t1[0] - self.t0[0], 1)
        self.sample()
        return {"busy": 1 - (t1[1] - self.t0[1]) / total, "steal": (t1[2] - self.t0[2]) / total,
                "load_min": min(self.loads), "load_max": max(self.loads)}


def machine():
    """CPU model (first 'model name' of /proc/cpuinfo), usable cores, kernel, memory."""
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    return {"cpu_model": model, "cores": os.cpu_count(), "usable": len(os.sched_getaffinity(0)),
            "kernel": os.uname().release, "mem_gib": mem_kib / 2 ** 20}


# --- the context every section of bench/run.py takes ----------------------------------------

MIB = 1024.0  # ru_maxrss is in KiB


class Context:
    """What every section needs: options, paths, the temporary folder, the run wrapper."""

    def __init__(self, args, root, tmp, tools, watch):
        self.args, self.root, self.tmp, self.tools = args, root, tmp, tools
        self.aws = os.path.join(root, "scenarios", "aws-c5.12xlarge.json")
        self.watches = [watch]

    def run(self, argv):
        r = run_child([str(a) for a in argv], cwd=self.tmp)
        for w in self.watches:
            w.sample()
        return r

    def reps(self, default):
        return self.args.reps or (1 if self.args.quick else default)

    def nv_run(self, *extra, kernel="5.7", exe=None):
        return [exe or self.args.nvmesim, "run", self.aws, "--set", "/variants=[]",
                "--set", f'/host/kernel="{kernel}"', *[str(x) for x in extra]]

    def path(self, name):
        return os.path.join(self.tmp, name)

    def begin(self):
        w = CpuWatch()
        self.watches.append(w)
        return w

    def end(self, w):
        self.watches.remove(w)
        r = w.result()
        return (f"Machine during this section: load average {r['load_min']:.1f}-{r['load_max']:.1f}, CPUs "
                f"{r['busy'] * 100:.0f}% busy, steal {r['steal'] * 100:.1f}%."), r


def rng(xs, f="{:.3f}"):
    """'median (min-max)' of xs."""
    return f"{f.format(med(xs))} ({f.format(min(xs))}-{f.format(max(xs))})"


def cpu_col(runs):
    xs = [r.cpu_s for r in runs]
    return f"{rng(xs)} [{spread(xs) * 100:.0f}%]"


def flat(xs):
    return max(xs) / min(xs) - 1 if min(xs) > 0 else float("inf")


def consume(path, check):
    """Runs check on path and removes it; returns its size in bytes."""
    check()
    size = os.path.getsize(path)
    os.remove(path)
    return size


def startup_case(ctx):
    out = ctx.path("one.jsonl")

    def go():
        argv = ctx.nv_run("-n", 1, "-q", "-o", out)
        r = ctx.run(argv)
        consume(out, lambda: check_jsonl(out, 1, argv))
        return r
    return {"key": "startup", "run": go, "n": 1}


def table_case(ctx, key, n, *extra, label=None):
    """A case without --out: the table `nvmesim run` prints on stdout is the output, and the check."""
    def go():
        argv = ctx.nv_run(*extra, "-n", n)
        r = ctx.run(argv)
        check_table(r.stdout, n, argv)
        return r
    return {"key": key, "run": go, "n": n, "label": label}


def git(root, *args):
    r = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""
