#!/usr/bin/python3
"""ECDF of the probe time per variant of nvmesim runs, with real-log samples (nvmesim dmesg
output) overlaid as points in the colour of the variant they measure.

The curves' shape stays visible: when each variant's curve is narrow on the common axis (the
AWS case: 6 ms against 217 ms), each variant gets a panel of its own (--layout auto). The
percentiles are listed in the legend (below the axes, never over the data), and the title states
the result: the paired p50 delta of each variant against the first, e.g.
"5.6 -> 5.7: probe -210.1 ms (paired p50)". The runs are streamed: memory is bounded by the
number of bins (plotlib.Dist), not by the trials.

Example (the README picture, written into a scratch folder):
  mkdir -p /tmp/nvmesim-pics
  build/nvmesim run scenarios/aws-c5.12xlarge.json --trials 1000 -q --out /tmp/nvmesim-pics/aws.jsonl
  build/nvmesim dmesg tests/data/shared/cases/aws-c5.12xlarge-*.dmesg -o /tmp/nvmesim-pics/aws-real.json
  /usr/bin/python3 scripts/plot_probe.py /tmp/nvmesim-pics/aws.jsonl --real /tmp/nvmesim-pics/aws-real.json \
      --real-variant aws-c5.12xlarge-msleep100.dmesg=5.6 --real-variant aws-c5.12xlarge-usleep_range.dmesg=5.7 \
      -o /tmp/nvmesim-pics/aws-probe-ecdf.png
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402

DESCRIPTION = ("ECDF of probe time per variant (nvmesim run --out), percentiles in the legend; real-log samples "
               "(nvmesim dmesg -o) as points at their plotting positions (i - 0.5) / n, in their variant's colour.")
UNMATCHED = "#333333"  # real logs not tied to a variant
METRIC_LABEL = {"probe_ms": "probe time: driver init to queues line (ms)",
                "critical_path_ms": "critical path: driver init to the last controller (ms)"}


def add_args(ap):
    ap.add_argument("runs", nargs="+", metavar="RUN.json", help="nvmesim run outputs (.json timeline or .jsonl)")
    ap.add_argument("--real", nargs="+", default=[], metavar="DMESG.json", help="nvmesim dmesg outputs to overlay")
    ap.add_argument("--real-variant", action="append", default=[], metavar="LOG=VARIANT",
                    help="the variant a real log measures: LOG is its file name, VARIANT a variant name or a "
                         "unique prefix of one (a log read back from run --dmesg knows its variant)")
    ap.add_argument("--metric", choices=["probe_ms", "critical_path_ms"], default="probe_ms",
                    help="probe_ms: driver init to the first controller's queues line (default); critical_path_ms: "
                         "to the last controller's")
    ap.add_argument("--layout", choices=["auto", "single", "panels"], default="auto",
                    help="panels: one per variant; auto: panels when a variant's curve spans under 5%% of the "
                         "common axis")
    ap.add_argument("--xscale", choices=["auto", "linear", "log"], default="auto",
                    help="single layout: log when the values span more than a factor of 10 (auto)")
    ap.add_argument("--title", help="figure title (default: the result, from the paired p50 deltas)")


class Series:
    """One variant of one run: its label, colour, distribution of successful trials."""

    def __init__(self, label, name, color, dist):
        self.label, self.name, self.color, self.dist = label, name, color, dist


def load_series(paths, metric):
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    key = metric[:-3] + "_ns"
    series, paired = [], {}
    for path in paths:
        info = plotlib.run_info(path)

        def stream(path=path, info=info):
            for v in info["variants"]:
                for t in plotlib.iter_trials(path, v):
                    if t.get("status") == "ok":
                        yield v, t[key] / 1e6
        dists = plotlib.collect(stream)
        for v in info["variants"]:
            if v not in dists:
                continue  # no successful trial: nothing to draw (the legend of the run's table says why)
            label = v if len(paths) == 1 else f"{os.path.basename(path)}: {v}"
            series.append(Series(label, v, colors[len(series) % len(colors)], dists[v]))
        if path == paths[0]:
            paired = info["paired"]
    if not series:
        raise plotlib.InputProblem("no successful trials in the run files")
    return series, paired


def match_reals(reals, series, pairs):
    """[(label, series or None, values)]: each real log tied to the variant it measures."""
    by_log = {}
    for p in pairs:
        log, sep, var = p.partition("=")
        if not sep or not log or not var:
            raise plotlib.InputProblem(f"--real-variant {p!r}: must be LOG=VARIANT")
        hits = [s for s in series if s.name == var] or [s for s in series if s.name.startswith(var)]
        if len(hits) != 1:
            raise plotlib.InputProblem(f"--real-variant {p!r}: {var!r} names {len(hits)} variants; variants: "
                                       + ", ".join(repr(s.name) for s in series))
        by_log[log] = hits[0]
    logs = {label.split(": ")[0] for label, _v, _vals in reals}
    for log in by_log:
        if log not in logs:
            raise plotlib.InputProblem(f"--real-variant {log}=...: no such log in --real; logs: {', '.join(sorted(logs))}")
    out = []
    for label, variant, vals in reals:
        s = by_log.get(label.split(": ")[0])
        if s is None and variant is not None:
            s = next((x for x in series if x.name == variant), None)
        out.append((label, s, sorted(vals)))
    return out


def short(name, names):
    """The first word of a variant name when it tells the variants apart ("5.6 msleep(100)" -> "5.6")."""
    firsts = [n.split(" ")[0] for n in names]
    w = name.split(" ")[0]
    return w if firsts.count(w) == 1 else name


def result_title(series, paired, metric):
    """"5.6 -> 5.7: probe -210.1 ms (paired p50)": each variant against the first, from the run's
    paired deltas (trials that succeeded in both), else the difference of the p50s."""
    what = "probe" if metric == "probe_ms" else "critical path"
    base = series[0]
    if len(series) == 1:
        return f"{base.label}: {what} p50 {base.dist.quantile(0.5):.4g} ms"
    names = [s.name for s in series]
    parts, hows = [], set()
    for s in series[1:]:
        d = (paired.get(s.name) or {}).get("p50") if metric == "probe_ms" else None
        if d is None:
            d = s.dist.quantile(0.5) - base.dist.quantile(0.5)
            hows.add("p50 - p50")
        else:
            hows.add("paired p50")
        parts.append(f"{short(s.name, names)} {d:+.4g} ms")
    how = ", ".join(sorted(hows))
    if len(parts) == 1:
        return f"{short(base.name, names)} -> {parts[0].replace(' ', ': ' + what + ' ', 1)} ({how})"
    return f"{what} against {short(base.name, names)}: {', '.join(parts)} ({how})"


def draw_series(ax, s, drawn):
    """One variant's ECDF. `drawn` maps the ECDFs already on this panel to their labels: a curve
    that equals one of them would hide it, so it is drawn dashed and its legend entry says so."""
    xs, ys = s.dist.ecdf()
    q = [(p, s.dist.quantile(p)) for p in (0.5, 0.9, 0.99)]
    text = ", ".join(f"p{int(p * 100)} {x:.4g}" for p, x in q)
    key = (tuple(xs), tuple(ys))
    same = f" (same ECDF as {drawn[key]})" if key in drawn else ""
    drawn.setdefault(key, s.label)
    ax.step(xs, ys, where="post", color=s.color, label=f"{s.label} (n={s.dist.n}): {text} ms{same}",
            linestyle=(0, (4, 3)) if same else "-", linewidth=2.0 if same else 1.5)
    ax.plot([x for _p, x in q], [p for p, _x in q], "o", color=s.color, markersize=4, markerfacecolor="white",
            linestyle="none", label="_nolegend_", gid="percentiles")


def draw_real(ax, label, s, vals):
    n = len(vals)
    c = s.color if s is not None else UNMATCHED
    tied = f" = {s.label}" if s is not None else ""
    ax.plot(vals, [(i + 0.5) / n for i in range(n)], "D", color=c, markeredgecolor="black", markersize=6,
            linestyle="none", label=f"real log {label}{tied} (n={n})", zorder=5, gid="real")


def nearest(vals, series):
    """The variant whose p50 is nearest (by ratio) to a real log's median: the panel where a log
    not tied to a variant is drawn (in its own colour, UNMATCHED)."""
    import math
    m = plotlib.quantile(vals, 0.5)
    return min(series, key=lambda s: abs(math.log(max(m, 1e-9) / max(s.dist.quantile(0.5), 1e-9))))


def pick_layout(series, reals, a):
    if a.layout != "auto":
        return a.layout
    if len(series) < 2:
        return "single"
    lo = min(s.dist.lo for s in series)
    hi = max(s.dist.hi for s in series)
    widest = max(s.dist.quantile(0.99) - s.dist.quantile(0.01) for s in series)
    return "panels" if hi > lo and widest < 0.05 * (hi - lo) else "single"


def set_xscale(ax, values, a):
    lo, hi = min(values), max(values)
    if a.xscale == "log" or (a.xscale == "auto" and lo > 0 and hi / lo > 10):
        ax.set_xscale("log")
        ticks = [m * 10 ** e for e in range(-3, 7) for m in (1, 2, 5) if lo / 2 <= m * 10 ** e <= hi * 2]
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))


def draw(a):
    series, paired = load_series(a.runs, a.metric)
    reals = match_reals([r for p in a.real for r in plotlib.load_dmesg(p)], series, a.real_variant)
    layout = pick_layout(series, reals, a)
    groups = [[s] for s in series] if layout == "panels" else [series]
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups) if len(groups) > 1 else 7.5, 4.2),
                             squeeze=False, sharey=True)
    for ax, group in zip(axes[0], groups):
        drawn = {}
        for s in group:
            draw_series(ax, s, drawn)
        shown = [x for s in group for x in (s.dist.lo, s.dist.hi)]
        for label, s, vals in reals:
            if s in group or layout == "single" or (s is None and nearest(vals, series) in group):
                draw_real(ax, label, s, vals)
                shown += vals
        if layout == "single":
            set_xscale(ax, shown, a)
        else:
            span = max(shown) - min(shown) or 1.0
            ax.set_xlim(min(shown) - 0.05 * span, max(shown) + 0.05 * span)
            ax.set_title(group[0].label, fontsize=8, color=group[0].color)
        ax.set_xlabel(METRIC_LABEL[a.metric])
        ax.set_ylim(0, 1.02)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("fraction of trials (ECDF)")
    handles, labels = [], []
    for ax in axes[0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    # Below the axes, so that it never covers a curve.
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=1, fontsize=7, frameon=False)
    fig.suptitle(a.title if a.title else result_title(series, paired, a.metric), fontsize=10)
    fig.tight_layout()
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
