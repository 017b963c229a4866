#!/usr/bin/python3
"""A sweep axis against the p50 probe time, with a p5-p95 band, from a merged sweep summary.

Input: `nvmesim merge DIR... --out MERGED.json` (schema nvmesim.sweep-summary/1, docs/sweeps.md):

  {"schema": "nvmesim.sweep-summary/1", "sweep": {"name": ...},
   "points": [ {"id": "...", "parameters": {"/host/kernel": "5.6", "/controllers/0/enable_latency": "1ms"},
                "variants": [ {"name": "...",
                               "summary": {"probe_ms": {"p5": 216.0, "p50": 217.0, "p95": 218.4, ...}}} ] } ] }

--x names the axis by its JSON pointer. The other dimensions (the other axes, and "variant" when
the points have several) are shown by colour (--color), line style (--style) and one panel per
value (--facet); those not given take the free ones in that order, and any left over are named in
the legend. Values that are all durations ("100us", "1ms") are plotted in ms, numbers as numbers,
anything else as categories; legends and categories are sorted by value (numbers and durations
numerically, releases such as 5.10 after 5.9). Legends sit beside the axes, never over the data.
Axis labels come from the parameter's name and unit. --real draws a measured value or band.
The x axis is logarithmic when its values are positive and span two decades or more (a logspace
axis), linear otherwise; --logx and --linx choose. A line whose p50 equals an earlier line's at
every x, or whose p5, p50 and p95 lie within half a percent of the panel's height of it (as drawn:
in decades under --logy), is drawn hollow and dashed, and its legend entry says "(same as ...)" or
"(within D ms of ...)". Points without statistics (no successful trial) are named on stderr and
counted in the title.

Examples:
  /usr/bin/python3 scripts/plot_sweep.py merged.json --x /controllers/0/enable_latency -o sweep.png
  /usr/bin/python3 scripts/plot_sweep.py merged.json --x /controllers/0/enable_latency --facet /host/hz \\
      --color /host/kernel --real "AWS 5.6=217.2" --real "AWS 5.7=6.4" --logy -o sweep.png
"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402

DESCRIPTION = ("A sweep axis (JSON pointer) against p50 with a p5-p95 band, from a merged sweep summary "
               "(nvmesim merge --out); other axes by colour, line style and panels (--facet).")
STYLES = ["-", "--", ":", "-."]
VARIANT = "variant"
# Names of parameters for axis labels and legends (the last token of the pointer otherwise).
NAMES = {"hz": "HZ", "kernel": "kernel", "enable_latency": "enable latency", "disable_latency": "disable latency",
         "shutdown_latency": "shutdown latency", "count": "controllers", "io_queues": "I/O queues",
         "init_to_probe": "init to probe", "wakeup_latency": "wake-up latency", "trials": "trials", "seed": "seed"}
METRICS = {"probe_ms": "probe time", "critical_path_ms": "critical path"}


def add_args(ap):
    ap.add_argument("merged", metavar="MERGED.json", help="merged sweep summary (schema nvmesim.sweep-summary/1)")
    ap.add_argument("--x", required=True, metavar="PTR", help="the axis: a JSON pointer of the sweep, e.g. /host/hz")
    for opt, what in (("--color", "colour"), ("--style", "line style"), ("--facet", "one panel per value")):
        ap.add_argument(opt, metavar="DIM", help=f"{what} by this dimension: an axis pointer, or 'variant'")
    ap.add_argument("--metric", choices=sorted(METRICS), default="probe_ms")
    ap.add_argument("--real", action="append", default=[], metavar="[LABEL=]VALUE",
                    help="a measured value in ms (217.2), a band (216.5:218), or an nvmesim dmesg output "
                         "(its median and p5-p95 band); repeatable")
    scale = ap.add_mutually_exclusive_group()
    scale.add_argument("--logx", action="store_true",
                       help="logarithmic x axis (numeric axes; the default when the values are positive and "
                            "span at least two decades, as a logspace axis does)")
    scale.add_argument("--linx", action="store_true", help="linear x axis even for values over two decades")
    ap.add_argument("--logy", action="store_true", help="logarithmic y axis")


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


def name_of(dim):
    """"/controllers/0/enable_latency" -> "enable latency", "/host/hz" -> "HZ"."""
    if dim == VARIANT:
        return "variant"
    last = dim.rstrip("/").split("/")[-1]
    return NAMES.get(last, last.replace("_", " "))


def sort_key(value):
    """Durations by their time, numbers by value, text naturally ("5.9" before "5.10")."""
    d = plotlib.duration_ms(value) if isinstance(value, str) else None
    if d is not None:
        return (0, d, "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value), "")
    text = str(value)
    return (1, 0.0, tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", text)))


def json_text(value):
    """A value as the sweep file spells it: true / false / null, not Python's True / False / None."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def shown(dim, value):
    return json_text(value) if dim == VARIANT else f"{name_of(dim)} {json_text(value)}"


def collect_rows(doc, a):
    """[(dims {dim: value}, x, p5, p50, p95)] and the dimensions besides x, in file order."""
    rows, dims, axes_seen, skipped = [], [], set(), []
    for i, pt in enumerate(doc["points"]):
        params = pt.get("parameters")
        if not isinstance(params, dict):
            raise plotlib.InputProblem(f"{a.merged}: /points/{i}: no \"parameters\" object")
        axes_seen.update(params)
        if a.x not in params:
            continue
        for v in pt.get("variants", []):
            s = v.get(a.metric) or v.get("summary", {}).get(a.metric)
            if not s or any(not isinstance(s.get(q), (int, float)) or isinstance(s.get(q), bool) or
                            not math.isfinite(s.get(q)) for q in ("p5", "p50", "p95")):
                # A failed point, or no successful trial: nothing to draw, but said (stderr and
                # the figure), never dropped without a word.
                skipped.append(f"{pt.get('id', i)} {v.get('name', '?')}")
                continue
            d = {k: val for k, val in params.items() if k != a.x}
            d[VARIANT] = v.get("name", "?")
            rows.append((d, params[a.x], s["p5"], s["p50"], s["p95"]))
    if not any(a.x in pt.get("parameters", {}) for pt in doc["points"] if isinstance(pt.get("parameters"), dict)):
        raise plotlib.InputProblem(f"--x {a.x}: not an axis of {a.merged}; axes: {', '.join(sorted(axes_seen)) or 'none'}")
    if not rows:
        raise plotlib.InputProblem(f"{a.merged}: no point has finite {a.metric} p5/p50/p95 statistics (a point "
                                   f"with no successful trial has none); {len(skipped)} point-variants without")
    if skipped:
        print(f"plot_sweep.py: {len(skipped)} point-variant(s) not drawn, without {a.metric} statistics (no "
              f"successful trial, or a failed point): {', '.join(skipped[:10])}"
              + (" ..." if len(skipped) > 10 else ""), file=sys.stderr)
    for d, *_ in rows:
        for k in d:
            if k not in dims and len({str(r[0].get(k)) for r in rows}) > 1:
                dims.append(k)
    return rows, dims, skipped


def assign(dims, a):
    """{"color": dim, "style": dim, "facet": dim} and the dimensions left for the labels."""
    roles = {"color": a.color, "style": a.style, "facet": a.facet}
    for role, dim in roles.items():
        if dim is not None and dim not in dims:
            raise plotlib.InputProblem(f"--{role} {dim}: not a dimension that varies; dimensions: "
                                       + (", ".join(dims) or "none besides --x"))
    free = [d for d in dims if d not in roles.values()]
    for role in ("color", "style", "facet"):
        if roles[role] is None and free:
            roles[role] = free.pop(0)
    return roles, free


def x_axis(raw_x, ptr):
    """(kind "num" or "cat", value -> x, label, categories sorted by value)."""
    if all(isinstance(x, str) and plotlib.duration_ms(x) is not None for x in raw_x):
        return "num", plotlib.duration_ms, f"{name_of(ptr)} (ms)", []
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in raw_x):
        return "num", float, name_of(ptr), []
    cats = sorted({str(x) for x in raw_x}, key=sort_key)
    return "cat", lambda v: cats.index(str(v)), name_of(ptr), cats


def overlapped(series, drawn, near, f):
    """' (same as L)' when an earlier line L has this (x, p5, p50, p95) series; ' (within D ms of
    L)' when it has the same x values and its p5, p50 and p95 all lie within `near` of L's as
    drawn (f: the y axis' scale; D the largest difference in ms): it would hide L or be hidden by
    it. Else ''."""
    if series in drawn:
        return f" (same as {drawn[series]})"
    for other, label in drawn.items():
        if [p[0] for p in other] == [p[0] for p in series]:
            pairs = [(a, b) for po, ps in zip(other, series) for a, b in zip(po[1:], ps[1:])]
            if all(abs(f(a) - f(b)) <= near for a, b in pairs):
                return f" (within {max(abs(a - b) for a, b in pairs):.3g} ms of {label})"
    return ""


def use_logx(a, xs):
    """--logx, --linx, or by default log when every x is > 0 and max/min >= 100 (two decades)."""
    if a.logx or a.linx:
        return a.logx
    return bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= 100


def parse_real(spec):
    """(label, lo, hi) in ms: a value (lo == hi), a band, or an nvmesim dmesg output."""
    label, sep, value = spec.rpartition("=")
    if not sep:
        label = ""
    if value.endswith(".json"):
        vals = sorted(x for _l, _v, xs in plotlib.load_dmesg(value) for x in xs)
        return (label or os.path.basename(value)), plotlib.quantile(vals, 0.05), plotlib.quantile(vals, 0.95), \
            plotlib.quantile(vals, 0.5)
    try:
        parts = [float(p) for p in value.split(":")]
    except ValueError:
        parts = []
    if len(parts) not in (1, 2):
        raise plotlib.InputProblem(f"--real {spec!r}: must be [LABEL=]MS, [LABEL=]LO:HI or an nvmesim dmesg .json")
    lo, hi = min(parts), max(parts)
    return label, lo, hi, (lo if len(parts) == 1 else None)


def draw_reals(ax, reals):
    for label, lo, hi, mid in reals:
        name = "measured" + (f" {label}" if label else "")
        if hi > lo:
            ax.axhspan(lo, hi, color="grey", alpha=0.15, label=f"{name}: {lo:.4g}-{hi:.4g} ms", gid="real")
        if mid is not None:
            ax.axhline(mid, color="black", linestyle=(0, (1, 2)), linewidth=1, label=f"{name}: {mid:.4g} ms",
                       gid="real")


def draw_facet(ax, rows, roles, rest, conv, colours, styles, logy=False):
    """One panel: a line per combination of colour, style and the other dimensions, sorted."""
    lines = {}
    for d, x, p5, p50, p95 in rows:
        key = tuple(d.get(r) for r in (roles["color"], roles["style"])) + tuple(d.get(k) for k in rest)
        lines.setdefault(key, []).append((conv(x), p5, p50, p95))
    dims = [roles["color"], roles["style"]] + rest
    drawn = {}  # (x, p5, p50, p95) series -> label of the first line drawn with it
    # Closeness on the panel as drawn: in decades under --logy (values <= 0 are not drawn there).
    f = (lambda y: math.log10(y) if y > 0 else float("-inf")) if logy else (lambda y: y)
    ys = [f(v) for r in rows for v in r[2:5] if math.isfinite(f(v))]
    near = 0.005 * (max(ys) - min(ys)) if ys else 0.0  # half a percent of the panel's height
    for key in sorted(lines, key=lambda k: [sort_key(v) for v in k]):
        pts = sorted(lines[key])
        cval, sval = key[0], key[1]
        label = ", ".join(shown(dim, v) for dim, v in zip(dims, key) if dim is not None) or "p50"
        c = colours.get(cval, "C0")
        series = tuple(pts)
        under = overlapped(series, drawn, near, f)
        ax.fill_between([p[0] for p in pts], [p[1] for p in pts], [p[3] for p in pts], color=c, alpha=0.15,
                        linewidth=0)
        if under:
            # A line on top of another hides it: say so in the legend, and draw it hollow and dashed
            # so that both stay visible.
            label += under
            ax.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", markersize=6, markerfacecolor="none",
                    color=c, linestyle=(0, (4, 3)), label=label)
            continue
        drawn[series] = label
        ax.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", markersize=3.5, color=c,
                linestyle=styles.get(sval, "-"), label=label)


def draw(a):
    doc = load_merged(a.merged)
    rows, dims, skipped = collect_rows(doc, a)
    roles, rest = assign(dims, a)
    kind, conv, xlabel, cats = x_axis([r[1] for r in rows], a.x)
    reals = [parse_real(r) for r in a.real]
    values = lambda dim: sorted({r[0].get(dim) for r in rows}, key=sort_key) if dim else [None]  # noqa: E731
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {v: palette[i % len(palette)] for i, v in enumerate(values(roles["color"]))}
    styles = {v: STYLES[i % len(STYLES)] for i, v in enumerate(values(roles["style"]))}
    facets = values(roles["facet"])
    fig, axes = plt.subplots(1, len(facets), figsize=(4.0 * len(facets) + 3.0, 4.2), squeeze=False, sharey=True)
    for ax, fv in zip(axes[0], facets):
        sub = [r for r in rows if roles["facet"] is None or r[0].get(roles["facet"]) == fv]
        draw_facet(ax, sub, roles, rest, conv, colours, styles, a.logy)
        draw_reals(ax, reals)
        if roles["facet"] is not None:
            ax.set_title(shown(roles["facet"], fv), fontsize=9)
        if kind == "cat":
            ax.set_xticks(range(len(cats)))
            ax.set_xticklabels(cats)
        elif use_logx(a, [conv(r[1]) for r in rows]):
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
        if a.logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel(f"{METRICS[a.metric]} p50 (ms), band p5-p95")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    # Beside the panels, never over the data.
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=7, frameon=False,
               handlelength=3.5)
    title = doc.get("name") or doc.get("sweep", {}).get("name") or os.path.basename(a.merged)
    if skipped:
        title += f"\n({len(skipped)} point-variant(s) not drawn: no successful trial)"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
