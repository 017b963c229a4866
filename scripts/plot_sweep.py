#!/usr/bin/python3
"""A sweep axis against the p50 probe time, with a p5-p95 band, one line per variant.

Input: the merged sweep summary of `nvmesim merge DIR... --out MERGED.json` (DESIGN section 10).
It reads the points of that file (schema nvmesim.sweep-summary/1, docs/sweeps.md); extra keys
are ignored:

  {"schema": "nvmesim.sweep-summary/1", "sweep": {"name": ...},
   "points": [ {"id": "...", "parameters": {"/host/kernel": "5.6", "/controllers/0/enable_latency": "1ms"},
                "variants": [ {"name": "...",
                               "summary": {"probe_ms": {"p5": 216.0, "p50": 217.0, "p95": 218.4, ...},
                                           "critical_path_ms": {...}}} ] } ] }

Statistics may also sit directly in the variant. --x names the axis by its JSON pointer. Values that are all durations
("100us", "1ms") are plotted in ms, numbers as numbers, anything else as categories in file order.
When other parameters vary too, each combination gets its own line (named in the legend).

Example:
  /usr/bin/python3 scripts/plot_sweep.py merged.json --x /controllers/0/enable_latency --logx -o sweep.png
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402

DESCRIPTION = ("A sweep axis (JSON pointer) against p50 with a p5-p95 band, one line per variant, from a "
               "merged sweep summary (nvmesim merge --out).")


def add_args(ap):
    ap.add_argument("merged", metavar="MERGED.json", help="merged sweep summary (schema nvmesim.sweep-summary/1)")
    ap.add_argument("--x", required=True, metavar="PTR", help="the axis: a JSON pointer of the sweep, e.g. /host/hz")
    ap.add_argument("--metric", choices=["probe_ms", "critical_path_ms"], default="probe_ms")
    ap.add_argument("--logx", action="store_true", help="logarithmic x axis (numeric axes)")
    ap.add_argument("--logy", action="store_true", help="logarithmic y axis")


def stats_of(variant, metric):
    if metric in variant:
        return variant[metric]
    return variant.get("summary", {}).get(metric)


def load_merged(path):
    """The merged summary document; InputProblem when it is not one."""
    doc = plotlib.load_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("points"), list):
        raise plotlib.InputProblem(f"{path}: not a merged sweep summary: expected an object with \"points\" "
                                   f"(schema nvmesim.sweep-summary/1, written by nvmesim merge --out)")
    schema = doc.get("schema", "")
    if schema and not schema.startswith("nvmesim.sweep-summary/"):
        raise plotlib.InputProblem(f"{path}: schema {schema!r} is not a merged sweep summary "
                                   f"(nvmesim.sweep-summary/1, written by nvmesim merge --out)")
    return doc


def collect_lines(doc, a):
    """{(variant, other parameters): [(x, p5, p50, p95)]} and the axis values in file order."""
    axes_seen = set()
    lines = {}
    raw_x = []
    for i, pt in enumerate(doc["points"]):
        params = pt.get("parameters")
        if not isinstance(params, dict):
            raise plotlib.InputProblem(f"{a.merged}: /points/{i}: no \"parameters\" object")
        axes_seen.update(params)
        if a.x not in params:
            continue
        x = params[a.x]
        raw_x.append(x)
        other = tuple(sorted((k, str(v)) for k, v in params.items() if k != a.x))
        for v in pt.get("variants", []):
            s = stats_of(v, a.metric)
            if not s or any(q not in s for q in ("p5", "p50", "p95")):
                continue  # a failed point or a variant without successful trials
            lines.setdefault((v.get("name", "?"), other), []).append((x, s["p5"], s["p50"], s["p95"]))
    if not raw_x:
        raise plotlib.InputProblem(f"--x {a.x}: not an axis of {a.merged}; axes: {', '.join(sorted(axes_seen)) or 'none'}")
    if not lines:
        raise plotlib.InputProblem(f"{a.merged}: no point has {a.metric} p5/p50/p95 statistics")
    return lines, raw_x


def x_axis(raw_x, ptr):
    """(kind "num" or "cat", value -> x, label, categories): durations in ms, numbers, or categories."""
    durs = [plotlib.duration_ms(x) for x in raw_x]
    if all(d is not None for d in durs):
        return "num", plotlib.duration_ms, f"{ptr} (ms)", []
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in raw_x):
        return "num", float, ptr, []
    cats = []
    for x in raw_x:
        if str(x) not in cats:
            cats.append(str(x))
    return "cat", lambda v: cats.index(str(v)), ptr, cats


def draw(a):
    doc = load_merged(a.merged)
    lines, raw_x = collect_lines(doc, a)
    kind, conv, xlabel, cats = x_axis(raw_x, a.x)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, ((name, other), pts) in enumerate(sorted(lines.items(), key=lambda kv: (kv[0][1], kv[0][0]))):
        pts = sorted(((conv(x), p5, p50, p95) for x, p5, p50, p95 in pts))
        xs = [p[0] for p in pts]
        c = colors[k % len(colors)]
        label = name + ("" if not other else "  [" + ", ".join(f"{key}={val}" for key, val in other) + "]")
        ax.fill_between(xs, [p[1] for p in pts], [p[3] for p in pts], color=c, alpha=0.2, linewidth=0)
        ax.plot(xs, [p[2] for p in pts], "o-", color=c, markersize=4, label=label + " p50 (band p5-p95)")
    if kind == "cat":
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats)
    elif a.logx:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    if a.logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{a.metric} (ms)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(doc.get("name") or doc.get("sweep", {}).get("name") or os.path.basename(a.merged))
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
