#!/usr/bin/python3
"""Speed and memory of nvmesim (issues 7 and 15), measured by CPU time in one interleaved run.

Usage: bench/run.py [--only ratio,polls,controllers,outputs,rss,rss1024,sweep] [--quick]
                    [--no-build] [--sc-floor-src PATH] [--baseline-nvmesim PATH]
                    [--label TEXT] [-o FILE] [--record] [--json FILE]

Builds the `release` preset (tests off) unless --no-build, compiles the reference floor
sc_floor.cpp (outside the repository; default /work/shared/bench/sc_floor.cpp, see
bench/README.md), then runs the chosen sections. Within a section the commands run interleaved,
A B C, A B C, ... after one warm-up round, and every figure is CPU time (user + system of the
child, from wait4 in bench/rusage_exec.cpp), never wall time, except the sweep row, which measures
parallelism by wall time. Ratios are taken round by round (pairs), then their median and range. Peak RSS is the
child's ru_maxrss. Every command must exit 0 and write exactly the trials asked for, or the
script stops with a message and exit status 1: a broken build never yields a number.

Prints a markdown block for bench/results.md (--record prepends it there; -o writes it to a
file; --json writes the raw figures). Nothing here asserts a speed.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import benchlib as bl
import scale
import speed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = {"ratio": speed.ratio, "polls": speed.polls, "controllers": speed.controllers, "outputs": speed.outputs,
            "rss": scale.rss, "rss1024": scale.rss1024, "sweep": scale.sweep}
SC_FLOOR_DEFAULT = "/work/shared/bench/sc_floor.cpp"


def sh(argv, what):
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-20:])
        raise bl.BenchError(f"{what} failed (exit {r.returncode}): {' '.join(argv)}\n{tail}")
    return r.stdout


def build(args):
    """Configures and builds the release preset (ccache, Ninja) unless --no-build; checks Release."""
    if not args.no_build:
        sh(["cmake", "--preset", "release", "-G", "Ninja", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"], "configure")
        sh(["cmake", "--build", "--preset", "release", "-j2"], "build")
    cache = os.path.join(args.build_dir, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            m = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", f.read(), re.M)
        bl.check(m and m.group(1) == "Release", f"{args.build_dir} is a {m.group(1) if m else '?'} build, not Release")
    for exe in (args.nvmesim, args.project_floor):
        bl.check(os.access(exe, os.X_OK), f"{exe}: not built (drop --no-build, or pass --nvmesim/--project-floor)")


def compile_if_stale(src, exe, line, what):
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        sh(line, what)


def build_launcher(args, tmp):
    """Compiles bench/rusage_exec.cpp (the child-process timer) next to the build, or in tmp."""
    src = os.path.join(ROOT, "bench", "rusage_exec.cpp")
    out_dir = os.path.join(args.build_dir, "bench") if os.path.isdir(os.path.join(args.build_dir, "bench")) else tmp
    exe = os.path.join(out_dir, "rusage_exec")
    compile_if_stale(src, exe, ["g++", "-O2", "-std=c++17", src, "-o", exe], "compiling bench/rusage_exec.cpp")
    bl.LAUNCHER = exe


def build_sc_floor(args, tmp):
    """Compiles sc_floor.cpp with its README's line (g++ -O2) unless the binary is newer; returns facts."""
    src = args.sc_floor_src
    bl.check(os.path.isfile(src), f"{src}: sc_floor.cpp not found. It lives outside the repository (bench/README.md "
             "says where); pass --sc-floor-src PATH, or leave 'ratio' out of --only")
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    out_dir = os.path.join(args.build_dir, "bench") if os.path.isdir(os.path.join(args.build_dir, "bench")) else tmp
    exe = os.path.join(out_dir, "sc_floor")
    flags = sh(["pkg-config", "--cflags", "--libs", "systemc"], "pkg-config systemc").split()
    line = ["g++", "-O2", "-std=c++17", src, *flags, "-o", exe]
    compile_if_stale(src, exe, line, "compiling sc_floor")
    return {"exe": exe, "src": src, "sha256": digest, "line": " ".join(line[:3] + ["sc_floor.cpp"] + flags)}


def header(args, hw, tools, watch):
    head = bl.git(ROOT, "log", "-1", "--format=%h %s")
    model = bl.git(ROOT, "log", "-1", "--first-parent", "--format=%h", "--", ".", ":(exclude)bench")
    dirty = bl.git(ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench")
    lines = [f"## {args.label or 'Measurement'}: commit {model}{' with uncommitted changes' if dirty else ''}", "",
             f"- Measured: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; model and host code at commit "
             f"{model} (HEAD {head}); binary {os.path.relpath(args.nvmesim, ROOT)} "
             f"(`{tools['version']}`, Release preset)" + ("; **--quick counts, not for the record**" if args.quick else ""),
             f"- Machine: {hw['cpu_model']}, {hw['cores']} cores ({hw['usable']} usable), {hw['mem_gib']:.0f} GiB, "
             f"Linux {hw['kernel']}; shared with other sessions: load average {watch['load_min']:.1f}-"
             f"{watch['load_max']:.1f} over the run, CPUs {watch['busy'] * 100:.0f}% busy, steal "
             f"{watch['steal'] * 100:.1f}% (/proc/stat)"]
    if "sc_floor" in tools:
        s = tools["sc_floor"]
        lines.append(f"- sc_floor: `{s['src']}` (sha256 {s['sha256']}...), built with `{s['line']}`")
    lines.append(f"- Rerun: `bench/run.py{' --quick' if args.quick else ''}"
                 f"{' --only ' + ','.join(args.only) if args.only != list(SECTIONS) else ''}`")
    return lines


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help=f"comma-separated sections to run, of: {', '.join(SECTIONS)} (default: all)")
    ap.add_argument("--quick", action="store_true", help="small counts, one round: a smoke check of the harness")
    ap.add_argument("--reps", type=int, help="measured rounds per section (default 5 for ratio and sweep, 3 others)")
    ap.add_argument("--no-build", action="store_true", help="take the existing build-release as it is")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-release"))
    ap.add_argument("--nvmesim", help="the nvmesim binary (default BUILD_DIR/nvmesim)")
    ap.add_argument("--baseline-nvmesim", help="a second nvmesim binary, run interleaved in 'ratio' (speedup per pair)")
    ap.add_argument("--project-floor", help="bench/floor.cpp's binary (default BUILD_DIR/bench/nvmesim_floor)")
    ap.add_argument("--sc-floor-src", default=os.environ.get("NVMESIM_SC_FLOOR", SC_FLOOR_DEFAULT),
                    help=f"path of sc_floor.cpp (default $NVMESIM_SC_FLOOR or {SC_FLOOR_DEFAULT})")
    ap.add_argument("--sweep-scale", default="1",
                    help="trial multipliers for the sweep row, e.g. 1,10 (default 1: the shipped files)")
    ap.add_argument("--label", default="", help="title of the block, e.g. 'Before issue 15'")
    ap.add_argument("-o", "--output", help="also write the markdown block to this file")
    ap.add_argument("--record", action="store_true", help="prepend the block to bench/results.md")
    ap.add_argument("--json", help="write the raw figures (every run) to this JSON file")
    ap.add_argument("--keep-temp", action="store_true", help="keep the temporary folder of outputs")
    args = ap.parse_args()
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    bad = [s for s in args.only if s not in SECTIONS]
    if bad or not args.only:
        ap.error(f"--only: unknown section(s) {bad}; allowed: {', '.join(SECTIONS)}")
    if args.reps is not None and not 1 <= args.reps <= 100:
        ap.error("--reps: 1 to 100")
    try:
        args.sweep_scale = [int(x) for x in args.sweep_scale.split(",")]
        assert all(1 <= x <= 1000 for x in args.sweep_scale)
    except (ValueError, AssertionError):
        ap.error("--sweep-scale: comma-separated integers 1 to 1000")
    args.build_dir = os.path.abspath(args.build_dir)
    args.nvmesim = os.path.abspath(args.nvmesim or os.path.join(args.build_dir, "nvmesim"))
    args.project_floor = os.path.abspath(args.project_floor or os.path.join(args.build_dir, "bench", "nvmesim_floor"))
    return args


def record(text):
    path = os.path.join(ROOT, "bench", "results.md")
    with open(path) as f:
        old = f.read()
    first = old.find("\n## ")
    bl.check(first >= 0, f"{path}: no '## ' section to insert before")
    with open(path, "w") as f:
        f.write(old[:first + 1] + text + "\n" + old[first + 1:])


def main():
    args = parse_args()
    tmp = tempfile.mkdtemp(prefix="nvmesim-bench-")
    try:
        watch = bl.CpuWatch()
        build(args)
        build_launcher(args, tmp)
        tools = {"version": bl.run_child([args.nvmesim, "--version"]).stdout.strip()}
        if "ratio" in args.only:
            tools["sc_floor"] = build_sc_floor(args, tmp)
        ctx = bl.Context(args, ROOT, tmp, tools, watch)
        body, raw = [], {}
        for name, section in SECTIONS.items():
            if name in args.only:
                print(f"bench: {name} ...", file=sys.stderr, flush=True)
                t0 = time.monotonic()
                lines, raw[name] = section(ctx)
                body += [""] + lines
                print(f"bench: {name} done in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
        text = "\n".join(header(args, bl.machine(), tools, watch.result()) + body) + "\n"
    except bl.BenchError as e:
        print(f"bench/run.py: error: {e}\nbench/run.py: outputs kept in {tmp}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, AttributeError, TypeError) as e:  # an output that is not what was asked
        traceback.print_exc()
        print(f"bench/run.py: error: {type(e).__name__}: {e}\nbench/run.py: outputs kept in {tmp}", file=sys.stderr)
        return 1
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    if args.record:
        record(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": bl.machine(), "tools": tools, "sections": raw}, f, indent=1)
    if not args.keep_temp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
