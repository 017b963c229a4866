#!/usr/bin/python3
"""CTest driver for the plot scripts (tests/CMakeLists.txt registers one test per script):
each script runs on an output of a shipped scenario (made here with the nvmesim binary) and must
write a non-empty PNG and SVG; wrong input must give a clear error and exit status 2.

  test_plots.py SCRIPT --nvmesim BIN --source DIR --shared DIR --work DIR
"""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import types

PY = "/usr/bin/python3"
_modules = {}


def run(cmd, expect=0):
    """Runs a command; a plot script (cmd[0] == PY) runs in this process (matplotlib is imported
    once, which keeps the test fast), the nvmesim binary as a process."""
    if cmd[0] == PY:
        script, argv = cmd[1], cmd[2:]
        if script not in _modules:
            spec = importlib.util.spec_from_file_location(os.path.basename(script)[:-3], script)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            _modules[script] = mod
        out, err = io.StringIO(), io.StringIO()
        code = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = _modules[script].main(argv) or 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        p = types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())
    else:
        p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != expect:
        sys.stderr.write(f"FAILED (exit {p.returncode}, wanted {expect}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}\n")
        sys.exit(1)
    return p


def check_image(path):
    with open(path, "rb") as f:
        data = f.read()
    ok = data.startswith(b"\x89PNG\r\n\x1a\n") if path.endswith(".png") else b"<svg" in data[:2000]
    if not ok or len(data) < 1000:
        sys.stderr.write(f"FAILED: {path} is not a non-empty image ({len(data)} bytes)\n")
        sys.exit(1)
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script", choices=["probe", "deltas", "timeline", "sweep"])
    ap.add_argument("--nvmesim", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    w = lambda name: os.path.join(a.work, name)  # noqa: E731
    script = os.path.join(a.source, "scripts", f"plot_{a.script}.py")
    aws = os.path.join(a.source, "scenarios", "aws-c5.12xlarge.json")

    # Once as a real process, as a user runs it; then in-process (run()).
    h = subprocess.run([PY, script, "--help"], capture_output=True, text=True)
    assert h.returncode == 0 and "-o OUT" in h.stdout, h.stdout + h.stderr
    e = subprocess.run([PY, script], capture_output=True, text=True)
    assert e.returncode == 2 and "error" in e.stderr, e.stderr
    bad = w("bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "something else"}')

    if a.script in ("probe", "deltas", "timeline"):
        run([a.nvmesim, "run", aws, "--trials", "50", "-q", "--detail-trials", "2", "--out", w("aws.json")])
    if a.script == "probe":
        run([a.nvmesim, "run", os.path.join(a.source, "scenarios", "reload-32q.json"), "--trials", "50", "-q",
             "--out", w("reload.jsonl")])
        cases = os.path.join(a.shared, "cases")
        run([a.nvmesim, "dmesg", os.path.join(cases, "aws-c5.12xlarge-msleep100.dmesg"),
             os.path.join(cases, "aws-c5.12xlarge-usleep_range.dmesg"), "-o", w("real.json")])
        run([a.nvmesim, "dmesg", os.path.join(cases, "reload-32q-msleep100.dmesg"),
             os.path.join(cases, "reload-32q-usleep_range.dmesg"), "-o", w("real32.json")])
        for ext in ("png", "svg"):
            run([PY, script, w("aws.json"), "--real", w("real.json"), "-o", w(f"p.{ext}")])
            check_image(w(f"p.{ext}"))
        run([PY, script, w("reload.jsonl"), "--real", w("real32.json"), "-o", w("r.png")])
        check_image(w("r.png"))
        e = run([PY, script, bad, "-o", w("x.png")], expect=2)
        assert "nvmesim.timeline/1" in e.stderr, e.stderr
        e = run([PY, script, w("aws.json"), "--real", w("aws.json"), "-o", w("x.png")], expect=2)
        assert "nvmesim.dmesg/2" in e.stderr, e.stderr
        e = run([PY, script, w("aws.json"), "-o", w("x.pdf")], expect=2)
        assert ".png or .svg" in e.stderr, e.stderr
        # Same input, same bytes.
        run([PY, script, w("aws.json"), "--real", w("real.json"), "-o", w("p2.svg")])
        assert check_image(w("p.svg")) == check_image(w("p2.svg")), "SVG differs between two runs"
    elif a.script == "deltas":
        for ext in ("png", "svg"):
            run([PY, script, w("aws.json"), "-o", w(f"d.{ext}")])
            check_image(w(f"d.{ext}"))
        e = run([PY, script, w("aws.json"), "--baseline", "6.6", "-o", w("x.png")], expect=2)
        assert "no such variant" in e.stderr, e.stderr
        e = run([PY, script, bad, "-o", w("x.png")], expect=2)
        assert "not an nvmesim run" in e.stderr, e.stderr
    elif a.script == "timeline":
        for ext in ("png", "svg"):
            run([PY, script, w("aws.json"), "--trial", "1", "--variant", "5.7 usleep_range(1000, 2000)",
                 "-o", w(f"t.{ext}")])
            check_image(w(f"t.{ext}"))
        e = run([PY, script, w("aws.json"), "--trial", "5", "-o", w("x.png")], expect=2)
        assert "--detail-trials" in e.stderr, e.stderr
        e = run([PY, script, w("aws.json"), "--trial", "0", "--variant", "9", "-o", w("x.png")], expect=2)
        assert "no such variant" in e.stderr, e.stderr
    else:
        # A real merged summary: a 2 x 3 sweep of the AWS controller, run and merged by nvmesim.
        with open(w("s.sweep.json"), "w") as f:
            json.dump({"schema": "nvmesim.sweep/1", "name": "enable latency x kernel",
                       "base": os.path.join(a.source, "scenarios", "aws-c5.12xlarge.json"), "trials": 20,
                       "set": {"/variants": []},
                       "grid": {"/host/kernel": ["5.6", "5.7"],
                                "/controllers/0/enable_latency": ["100us", "1ms", "10ms"]}}, f)
        run([a.nvmesim, "sweep", w("s.sweep.json"), "--out", w("sweep-dir"), "--jobs", "2", "-q"])
        run([a.nvmesim, "merge", w("sweep-dir"), "--out", w("merged.json")])
        for ext in ("png", "svg"):
            run([PY, script, w("merged.json"), "--x", "/controllers/0/enable_latency", "--logx", "-o",
                 w(f"s.{ext}")])
            check_image(w(f"s.{ext}"))
        run([PY, script, w("merged.json"), "--x", "/host/kernel", "-o", w("k.png")])
        check_image(w("k.png"))
        e = run([PY, script, w("merged.json"), "--x", "/host/hz", "-o", w("x.png")], expect=2)
        assert "not an axis" in e.stderr and "/host/kernel" in e.stderr, e.stderr
        e = run([PY, script, bad, "--x", "/host/hz", "-o", w("x.png")], expect=2)
        assert "merged sweep summary" in e.stderr, e.stderr
    print(f"plot_{a.script}.py: ok")


if __name__ == "__main__":
    main()
