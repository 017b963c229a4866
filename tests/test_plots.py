#!/usr/bin/python3
"""CTest driver for the plot scripts (tests/CMakeLists.txt registers one test per script):
each script runs on an output of a shipped scenario (made here with the nvmesim binary) and must
write a non-empty PNG and SVG; wrong input must give a clear error and exit status 2. What is
drawn is checked on the figure itself (plotlib.last_figure): each line's data against values read
here from the run's own records, legend entries and their order, marker colours against their
variant, legends and titles clear of the data and of each other.

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
import re
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


def figure():
    """The figure the last in-process plot drew (plotlib.last_figure), drawn once for extents."""
    import plotlib
    fig = plotlib.last_figure
    fig.canvas.draw()
    return fig


def check(cond, msg):
    if not cond:
        sys.stderr.write(f"FAILED: {msg}\n")
        sys.exit(1)


def overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def check_clear(fig):
    """Legends sit outside every axes; the texts (titles, axis labels, legends) do not overlap."""
    r = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    check(legends, "no legend")
    for lg in legends:
        for ax in fig.axes:
            check(not overlaps(lg.get_window_extent(r), ax.get_window_extent(r)), "a legend covers an axes")
    texts = [fig._suptitle] if fig._suptitle else []
    for ax in fig.axes:
        texts += [t for t in (ax.title, ax.xaxis.label, ax.yaxis.label) if t.get_text()]
    boxes = [t.get_window_extent(r) for t in texts] + [lg.get_window_extent(r) for lg in legends]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            check(not overlaps(boxes[i], boxes[j]), f"labels overlap: {i} and {j}")


def legend_texts(fig):
    return [t.get_text() for lg in fig.legends for t in lg.get_texts()]


def trial_values(path, metric="probe_ns"):
    """{variant: [value in ms of each ok trial]} read here from the run's own .json timeline."""
    with open(path) as f:
        doc = json.load(f)
    return {v["name"]: [t[metric] / 1e6 for t in v["trials"] if t["status"] == "ok"] for v in doc["variants"]}


def check_probe(w, script, real):
    """The AWS ECDF: one panel per variant (6 ms beside 217 ms), each line the run's own trials."""
    run([PY, script, w("aws.json"), "--real", real, "--real-variant", "aws-c5.12xlarge-msleep100.dmesg=5.6",
         "--real-variant", "aws-c5.12xlarge-usleep_range.dmesg=5.7", "-o", w("p.png")])
    fig = figure()
    vals = trial_values(w("aws.json"))
    names = list(vals)
    check(len(fig.axes) == 2, f"{len(fig.axes)} panels, wanted one per variant")
    for ax, name in zip(fig.axes, names):
        steps = [l for l in ax.get_lines() if l.get_gid() is None]
        check(len(steps) == 1, f"panel {name}: {len(steps)} ECDF lines")
        want = sorted(vals[name])
        check(list(steps[0].get_xdata()) == want, f"panel {name}: the ECDF is not the run's trials")
        n = len(want)
        check(list(steps[0].get_ydata()) == [(i + 1) / n for i in range(n)], f"panel {name}: ECDF heights")
        reals = [l for l in ax.get_lines() if l.get_gid() == "real"]
        check(len(reals) == 1, f"panel {name}: {len(reals)} real-log series")
        check(reals[0].get_color() == steps[0].get_color(), f"panel {name}: the real log is not in its variant's colour")
    # cases/README.md: 217.242 ms (5.6) and 6.369 ms (5.7), drawn at (1 - 0.5) / 1.
    check(list(fig.axes[0].get_lines()[-1].get_xdata()) == [217.242], "5.6 real-log point")
    check(list(fig.axes[1].get_lines()[-1].get_xdata()) == [6.369], "5.7 real-log point")
    texts = legend_texts(fig)
    order = [names[0], "real log aws-c5.12xlarge-msleep100.dmesg", names[1], "real log aws-c5.12xlarge-usleep_range"]
    check(len(texts) == 4 and all(t.startswith(o) for t, o in zip(texts, order)), f"legend entries {texts}")
    # The p50 in the legend is the type-7 median of the trials (50 trials: mean of the 25th and 26th).
    w0 = sorted(vals[names[0]])
    check(f"p50 {(w0[24] + w0[25]) / 2:.4g}" in texts[0], f"legend p50 of {texts[0]}")
    with open(w("aws.json")) as f:
        pd = json.load(f)["paired"][0]["delta_ms"]["p50"]
    title = fig._suptitle.get_text()
    check(title == f"5.6 -> 5.7: probe {pd:+.4g} ms (paired p50)", f"title {title!r}")
    check_clear(fig)
    # --layout single: one axes; a log not tied to a variant is drawn in its own colour.
    run([PY, script, w("aws.json"), "--real", real, "--layout", "single", "-o", w("p1.png")])
    fig = figure()
    check(len(fig.axes) == 1, "single layout")
    reals = [l for l in fig.axes[0].get_lines() if l.get_gid() == "real"]
    check(len(reals) == 2 and all(l.get_color() == "#333333" for l in reals), "untied real logs' colour")
    check_clear(fig)
    check_probe_same(w, script)


def check_probe_same(w, script):
    """Two variants with the same trials (a kernel change that changes nothing, as reload-32q's
    5.6 and 5.7): the second curve would lie exactly on the first; it is dashed and its legend
    entry says "(same ECDF as a)"."""
    with open(w("same.jsonl"), "w") as f:
        f.write('{"record":"header","schema":"nvmesim.trials/1","scenario":{"name":"same"}}\n')
        for name in ("a", "b"):
            for k in range(20):
                f.write('{"record":"trial","variant":"%s","trial":%d,"status":"ok","probe_ns":%d,'
                        '"critical_path_ns":%d,"phases":[]}\n' % (name, k, (77 + k) * 1000000, (77 + k) * 1000000))
    run([PY, script, w("same.jsonl"), "--layout", "single", "-o", w("same.png")])
    steps = [l for l in figure().axes[0].get_lines() if l.get_gid() is None]
    labels = [l.get_label() for l in steps]
    check(len(steps) == 2 and "same ECDF" not in labels[0] and labels[1].endswith("(same ECDF as a)"),
          f"identical ECDFs {labels}")
    check(steps[0].get_linestyle() != steps[1].get_linestyle(), "the second identical ECDF is not dashed")


def check_deltas(w, script):
    """The histogram holds every paired trial; the median line is the median of the deltas."""
    run([PY, script, w("aws.json"), "-o", w("d.png")])
    fig = figure()
    vals = {}
    with open(w("aws.json")) as f:
        for v in json.load(f)["variants"]:
            vals[v["name"]] = {t["trial"]: t for t in v["trials"]}
    a, b = list(vals)
    d = sorted((vals[b][k]["probe_ns"] - vals[a][k]["probe_ns"]) / 1e6 for k in vals[a]
               if vals[a][k]["status"] == "ok" and vals[b].get(k, {}).get("status") == "ok")
    ax = fig.axes[0]
    bars = [p for p in ax.patches if type(p).__name__ == "StepPatch"]
    check(len(bars) == 1 and sum(bars[0].get_data().values) == len(d), "histogram counts != paired trials")
    med = (d[len(d) // 2 - 1] + d[len(d) // 2]) / 2 if len(d) % 2 == 0 else d[len(d) // 2]
    lines = [l for l in ax.get_lines() if l.get_label().startswith("median")]
    check(len(lines) == 1 and abs(lines[0].get_xdata()[0] - med) < 1e-9, "median line")
    check_clear(fig)


def synthetic_jsonl(path, n):
    """A nvmesim.trials/1 file of n trials x 2 variants: baseline k ms + 100, other k ms / 2 + 7."""
    with open(path, "w") as f:
        f.write('{"record":"header","schema":"nvmesim.trials/1","scenario":{"name":"synthetic"}}\n')
        for name, fn in (("a", lambda k: (100 + k) * 1000000), ("b", lambda k: (k * 500000) + 7000000)):
            for k in range(n):
                f.write('{"record":"trial","variant":"%s","trial":%d,"status":"ok","probe_ns":%d,'
                        '"critical_path_ns":%d,"phases":[]}\n' % (name, k, fn(k), fn(k)))


def check_streamed(w, script):
    """Above plotlib.Dist.EXACT paired trials the deltas are binned, not kept: the median is still
    the deltas' within a bin. Deltas b - a = (k/2 + 7) - (100 + k) = -93 - k/2 ms, k = 0..9999:
    median -93 - 4999.5/2 = -2592.75 ms, span 4999.5 ms over 8192 bins (0.61 ms a bin)."""
    synthetic_jsonl(w("syn.jsonl"), 10000)
    run([PY, script, w("syn.jsonl"), "-o", w("syn.png")])
    fig = figure()
    lines = [l for l in fig.axes[0].get_lines() if l.get_label().startswith("median")]
    check(abs(lines[0].get_xdata()[0] - (-2592.75)) < 0.62, f"binned median {lines[0].get_xdata()[0]}")
    bars = [p for p in fig.axes[0].patches if type(p).__name__ == "StepPatch"]
    check(sum(bars[0].get_data().values) == 10000, "binned histogram counts")


def check_sweep(w, script):
    """kernel x HZ x enable latency: --facet HZ gives one panel per HZ, colour by kernel; the
    legend is sorted; each line is the merged summary's p50 at each enable latency, in ms."""
    with open(w("merged.json")) as f:
        doc = json.load(f)
    run([PY, script, w("merged.json"), "--x", "/controllers/0/enable_latency", "--facet", "/host/hz",
         "--real", "AWS 5.6=217.2", "--real", "5.7=6.2:6.6", "--logx", "-o", w("f.png")])
    fig = figure()
    check([ax.get_title() for ax in fig.axes] == ["HZ 100", "HZ 1000"], "facets sorted by value")
    check(fig.axes[0].get_xlabel() == "enable latency (ms)", f"x label {fig.axes[0].get_xlabel()!r}")
    texts = legend_texts(fig)
    check(texts[:2] == ["kernel 5.6", "kernel 5.7"], f"legend {texts}")
    check("measured AWS 5.6: 217.2 ms" in texts and "measured 5.7: 6.2-6.6 ms" in texts, f"--real in {texts}")
    for ax, hz in zip(fig.axes, (100, 1000)):
        for line, kernel in zip([l for l in ax.get_lines() if l.get_gid() is None], ("5.6", "5.7")):
            want = sorted((plotlib_ms(p["parameters"]["/controllers/0/enable_latency"]),
                           p["variants"][0]["summary"]["probe_ms"]["p50"]) for p in doc["points"]
                          if p["parameters"]["/host/hz"] == hz and p["parameters"]["/host/kernel"] == kernel)
            check(list(zip(line.get_xdata(), line.get_ydata())) == want, f"HZ {hz} kernel {kernel}: line data")
    check_clear(fig)
    # Without --facet: colour by kernel, line style by HZ; entries sorted numerically (100 < 1000).
    run([PY, script, w("merged.json"), "--x", "/controllers/0/enable_latency", "-o", w("c.png")])
    fig = figure()
    lines = [l for l in fig.axes[0].get_lines() if l.get_gid() is None]
    # A line whose p5, p50 and p95 equal an earlier line's at every x says so in its legend. Whether
    # 5.7's HZ 1000 line equals its HZ 100 line is read here from the merged file itself (not
    # assumed): the label must follow the data either way.
    def stats(kernel, hz):
        return sorted((plotlib_ms(p["parameters"]["/controllers/0/enable_latency"]),
                       tuple(p["variants"][0]["summary"]["probe_ms"][q] for q in ("p5", "p50", "p95")))
                      for p in doc["points"]
                      if p["parameters"]["/host/kernel"] == kernel and p["parameters"]["/host/hz"] == hz)
    same57 = " (same as kernel 5.7, HZ 100)" if stats("5.7", 1000) == stats("5.7", 100) else ""
    check(stats("5.6", 1000) != stats("5.6", 100), "the fixture's 5.6 lines differ by HZ (msleep rounds to jiffies)")
    check([l.get_label() for l in lines] == ["kernel 5.6, HZ 100", "kernel 5.6, HZ 1000", "kernel 5.7, HZ 100",
                                             "kernel 5.7, HZ 1000" + same57],
          f"lines {[l.get_label() for l in lines]}")
    check(lines[0].get_color() == lines[1].get_color() != lines[2].get_color(), "colour by kernel")
    check(lines[0].get_linestyle() != lines[1].get_linestyle() and
          lines[0].get_linestyle() == lines[2].get_linestyle(), "line style by HZ")
    # The enable latency is a logspace axis (100 us to 1 s: four decades): log x by default,
    # linear only when asked.
    check(fig.axes[0].get_xscale() == "log", f"default x scale {fig.axes[0].get_xscale()}")
    check_clear(fig)
    run([PY, script, w("merged.json"), "--x", "/controllers/0/enable_latency", "--linx", "-o", w("l.png")])
    check(figure().axes[0].get_xscale() == "linear", "--linx")
    # HZ 100 and 1000 span one decade: linear by default.
    run([PY, script, w("merged.json"), "--x", "/host/hz", "-o", w("h.png")])
    check(figure().axes[0].get_xscale() == "linear", "HZ axis linear")
    # A boolean or null parameter is labelled as the sweep file spells it (new user of stop 29:
    # "async shutdown False").
    import importlib.util
    spec = importlib.util.spec_from_file_location("plot_sweep_labels", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = [mod.json_text(v) for v in (True, False, None, 4, "6.1")]
    check(got == ["true", "false", "null", "4", "6.1"], f"labels of true/false/null/4/6.1: {got}")
    check_same_curves(w, script)


def check_same_curves(w, script):
    """Two lines with the same p50 at every x: the second says so in its legend entry and is
    drawn hollow and dashed, so that neither hides the other without a word."""
    with open(w("merged.json")) as f:
        base = json.load(f)
    doc = dict(base)
    pts = []
    for p in base["points"]:
        q = json.loads(json.dumps(p))
        if q["parameters"].get("/host/kernel") == "5.7":
            twin = [r for r in base["points"] if r["parameters"].get("/host/kernel") == "5.6" and
                    all(r["parameters"][k] == v for k, v in q["parameters"].items() if k != "/host/kernel")]
            q["variants"] = json.loads(json.dumps(twin[0]["variants"]))
        pts.append(q)
    doc["points"] = pts
    with open(w("same.json"), "w") as f:
        json.dump(doc, f)
    run([PY, script, w("same.json"), "--x", "/controllers/0/enable_latency", "--facet", "/host/hz",
         "-o", w("s.png")])
    labels = [l.get_label() for l in figure().axes[0].get_lines() if l.get_gid() is None]
    check(labels == ["kernel 5.6", "kernel 5.7 (same as kernel 5.6)"], f"identical curves {labels}")
    # One panel, 5.6 and 5.7 at HZ 100 and 1000 (p50s from about 6 to 217 ms). 5.7's HZ 1000 line,
    # equal to its HZ 100 line in the real sweep, moved 0.5 ms up: below half a percent of the
    # panel's height (0.005 x ~211 = ~1.05 ms), so still drawn on top of it, and said.
    near = json.loads(json.dumps(base))
    for q in near["points"]:
        if q["parameters"]["/host/kernel"] == "5.7" and q["parameters"]["/host/hz"] == 1000:
            q["variants"][0]["summary"]["probe_ms"]["p50"] += 0.5
    with open(w("near.json"), "w") as f:
        json.dump(near, f)
    run([PY, script, w("near.json"), "--x", "/controllers/0/enable_latency", "-o", w("n.png")])
    labels = [l.get_label() for l in figure().axes[0].get_lines() if l.get_gid() is None]
    check(labels == ["kernel 5.6, HZ 100", "kernel 5.6, HZ 1000", "kernel 5.7, HZ 100",
                     "kernel 5.7, HZ 1000 (within 0.5 ms of kernel 5.7, HZ 100)"], f"near curves {labels}")
    # Under --logy closeness is in decades: the panel spans log10(217/6) = ~1.56 decades, half a
    # percent of it is ~0.0078 decades (a factor of 1.018); 0.5 ms over ~6 ms is a factor of ~1.08,
    # clearly apart on a log axis: no "within".
    run([PY, script, w("near.json"), "--x", "/controllers/0/enable_latency", "--logy", "-o", w("nl.png")])
    labels = [l.get_label() for l in figure().axes[0].get_lines() if l.get_gid() is None]
    check(labels[3] == "kernel 5.7, HZ 1000", f"near curves under --logy {labels}")
    # A point without statistics (no successful trial) is not drawn, and is said: on stderr by its
    # id and in the title's count.
    gone = json.loads(json.dumps(base))
    gone["points"][0]["variants"][0]["summary"]["probe_ms"] = None
    with open(w("gone.json"), "w") as f:
        json.dump(gone, f)
    e = run([PY, script, w("gone.json"), "--x", "/controllers/0/enable_latency", "-o", w("g.png")])
    check("1 point-variant(s) not drawn" in e.stderr and str(gone["points"][0]["id"]) in e.stderr,
          f"skipped point on stderr: {e.stderr!r}")
    check("1 point-variant(s) not drawn" in figure()._suptitle.get_text(), "skipped point in the title")


def check_predict(w, script):
    """Each what-if row: the grey band is p5-p95, the thick bar p50_ci90 and the dot p50, read here
    from the prediction's JSON; the crosses are the logs' own intervals (cases/README.md: driver
    init -> queues 0.764178 - 0.546936 = 217.242 ms and 0.543457 - 0.537088 = 6.369 ms; -> Run
    /sbin/init 0.788141 - 0.546936 = 241.205 ms and 0.567931 - 0.537088 = 30.843 ms); one legend,
    below the panels, clear of the data."""
    with open(w("pred.json")) as f:
        pred = json.load(f)
    run([PY, script, w("pred.json"), "--posterior", w("post.json"), "-o", w("pp.png")])
    fig = figure()
    check(len(fig.axes) == 2, f"{len(fig.axes)} panels, wanted probe_ms and init_ms")
    ws = pred["whatifs"]
    for ax, key in zip(fig.axes, ("probe_ms", "init_ms")):
        def by(gid):
            return [l for l in ax.get_lines() if l.get_gid() == gid]
        check(len(by("band")) == len(ws) and len(by("ci")) == len(ws) and len(by("median")) == len(ws),
              f"{key}: one band, bar and dot per what-if")
        for i, wi in enumerate(ws):
            s, y = wi[key], len(ws) - 1 - i
            check(list(by("band")[i].get_xdata()) == [s["p5"], s["p95"]] and list(by("band")[i].get_ydata()) == [y, y],
                  f"{key} {wi['name']}: band")
            check(list(by("ci")[i].get_xdata()) == s["p50_ci90"], f"{key} {wi['name']}: p50_ci90 bar")
            check(list(by("median")[i].get_xdata()) == [s["p50"]], f"{key} {wi['name']}: median dot")
        # The 5.6 boot on the reference row (top, y = 2), the 5.7 boot on the 5.7 what-if's (y = 1).
        want = [(217.242, 2.25), (6.369, 1.25)] if key == "probe_ms" else [(241.205, 2.25), (30.843, 1.25)]
        got = [(round(l.get_xdata()[0], 6), l.get_ydata()[0]) for l in by("observed")]
        check(got == want, f"{key}: observed points {got}, wanted {want}")
    check(len(fig.legends) == 1 and not any(ax.get_legend() for ax in fig.axes), "one figure legend")
    check(legend_texts(fig) == ["one run: p5-p95", "90% credible interval of the median (p50_ci90)",
                                "median (p50)", "observed runs (on the row of their host)"], f"legend {legend_texts(fig)}")
    check_clear(fig)


def plotlib_ms(text):
    units = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    m = re.fullmatch(r"([0-9.]+)(us|ms|s)", text)
    return float(m.group(1)) * units[m.group(2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script", choices=["probe", "deltas", "timeline", "sweep", "predict"])
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
        check_probe(w, script, w("real.json"))
    elif a.script == "deltas":
        for ext in ("png", "svg"):
            run([PY, script, w("aws.json"), "-o", w(f"d.{ext}")])
            check_image(w(f"d.{ext}"))
        e = run([PY, script, w("aws.json"), "--baseline", "6.6", "-o", w("x.png")], expect=2)
        assert "no such variant" in e.stderr, e.stderr
        e = run([PY, script, bad, "-o", w("x.png")], expect=2)
        assert "not an nvmesim run" in e.stderr, e.stderr
        check_deltas(w, script)
        check_streamed(w, script)
    elif a.script == "timeline":
        for ext in ("png", "svg"):
            run([PY, script, w("aws.json"), "--trial", "1", "--variant", "5.7 usleep_range(1000, 2000)",
                 "-o", w(f"t.{ext}")])
            check_image(w(f"t.{ext}"))
        e = run([PY, script, w("aws.json"), "--trial", "5", "-o", w("x.png")], expect=2)
        assert "--detail-trials" in e.stderr, e.stderr
        e = run([PY, script, w("aws.json"), "--trial", "0", "--variant", "9", "-o", w("x.png")], expect=2)
        assert "no such variant" in e.stderr, e.stderr
        # A unique prefix names the variant, as plot_probe.py's --real-variant takes it (stop 30's new
        # user): the same plot, byte for byte, as the full name; a prefix of both is refused.
        run([PY, script, w("aws.json"), "--trial", "1", "--variant", "5.7", "-o", w("t57.svg")])
        assert check_image(w("t57.svg")) == check_image(w("t.svg")), "--variant 5.7 drew another plot than the full name"
        e = run([PY, script, w("aws.json"), "--trial", "0", "--variant", "5.", "-o", w("x.png")], expect=2)
        assert "names 2 variants" in e.stderr, e.stderr
        # A prefix, not a part: "usleep" is inside "5.7 usleep_range(...)", at no start. Not a
        # digit either: "²" passes str.isdigit() (the attack of stop 31: int() raised).
        for not_one in ("usleep", "\u00b2"):
            e = run([PY, script, w("aws.json"), "--trial", "0", "--variant", not_one, "-o", w("x.png")], expect=2)
            assert "no such variant" in e.stderr, e.stderr
    elif a.script == "predict":
        # A shipped posterior (tests/data/fit/README.md: a small real fit of both AWS boots), read
        # by today's predict, and its prediction.
        shutil.copy(os.path.join(a.source, "tests", "data", "fit", "aws-c5.12xlarge.posterior.json"), w("post.json"))
        run([a.nvmesim, "predict", w("post.json"), "--kernel", "5.7", "--kernel", "6.6", "--draws", "10", "--trials", "5",
             "--out", w("pred.json")])
        for ext in ("png", "svg"):
            run([PY, script, w("pred.json"), "--posterior", w("post.json"), "-o", w(f"pp.{ext}")])
            check_image(w(f"pp.{ext}"))
        run([PY, script, w("pred.json"), "-o", w("p0.png")])
        check_image(w("p0.png"))
        e = run([PY, script, bad, "-o", w("x.png")], expect=2)
        assert "nvmesim.prediction/1" in e.stderr, e.stderr
        e = run([PY, script, w("pred.json"), "--posterior", w("pred.json"), "-o", w("x.png")], expect=2)
        assert "nvmesim.posterior/1" in e.stderr, e.stderr
        run([PY, script, w("pred.json"), "--posterior", w("post.json"), "-o", w("pp2.svg")])
        assert check_image(w("pp.svg")) == check_image(w("pp2.svg")), "SVG differs between two runs"
        check_predict(w, script)
    else:
        # A real merged summary: a 2 x 3 sweep of the AWS controller, run and merged by nvmesim.
        with open(w("s.sweep.json"), "w") as f:
            json.dump({"schema": "nvmesim.sweep/1", "name": "enable latency x kernel",
                       "base": os.path.join(a.source, "scenarios", "aws-c5.12xlarge.json"), "trials": 20,
                       "set": {"/variants": []},
                       "grid": {"/host/kernel": ["5.6", "5.7"], "/host/hz": [1000, 100],
                                "/controllers/0/enable_latency": ["10ms", "100us", "1ms"]}}, f)
        run([a.nvmesim, "sweep", w("s.sweep.json"), "--out", w("sweep-dir"), "--jobs", "2", "-q"])
        run([a.nvmesim, "merge", w("sweep-dir"), "--out", w("merged.json")])
        for ext in ("png", "svg"):
            run([PY, script, w("merged.json"), "--x", "/controllers/0/enable_latency", "--logx", "-o",
                 w(f"s.{ext}")])
            check_image(w(f"s.{ext}"))
        run([PY, script, w("merged.json"), "--x", "/host/kernel", "-o", w("k.png")])
        check_image(w("k.png"))
        e = run([PY, script, w("merged.json"), "--x", "/host/tick", "-o", w("x.png")], expect=2)
        assert "not an axis" in e.stderr and "/host/kernel" in e.stderr, e.stderr
        check_sweep(w, script)
        e = run([PY, script, bad, "--x", "/host/tick", "-o", w("x.png")], expect=2)
        assert "merged sweep summary" in e.stderr, e.stderr
    print(f"plot_{a.script}.py: ok")


if __name__ == "__main__":
    main()
