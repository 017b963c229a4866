#!/usr/bin/python3
"""ECDF of the probe time per variant of nvmesim runs, p50/p90/p99 marked, with real-log samples
(nvmesim dmesg output) overlaid as points.

Example (the README picture):
  build/nvmesim run scenarios/aws-c5.12xlarge.json --trials 1000 -q --detail-trials 0 --out aws.json
  build/nvmesim dmesg tests/data/shared/cases/aws-c5.12xlarge-*.dmesg -o aws-real.json
  /usr/bin/python3 scripts/plot_probe.py aws.json --real aws-real.json -o docs/img/aws-probe-ecdf.png
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402

DESCRIPTION = ("ECDF of probe time per variant (nvmesim run --out), p50/p90/p99 marked; real-log samples "
               "(nvmesim dmesg -o) as points at their own plotting positions (i - 0.5) / n.")


def add_args(ap):
    ap.add_argument("runs", nargs="+", metavar="RUN.json", help="nvmesim run outputs (.json timeline or .jsonl)")
    ap.add_argument("--real", nargs="+", default=[], metavar="DMESG.json", help="nvmesim dmesg outputs to overlay")
    ap.add_argument("--metric", choices=["probe_ms", "critical_path_ms"], default="probe_ms",
                    help="probe_ms: driver init to the first controller's queues line (default); critical_path_ms: "
                         "to the last controller's")
    ap.add_argument("--xscale", choices=["auto", "linear", "log"], default="auto",
                    help="auto: log when the values span more than a factor of 10")
    ap.add_argument("--title", help="figure title (default: the scenario name)")


def draw_runs(ax, runs, metric):
    """The ECDF of every variant of every run with its p50/p90/p99; returns all values drawn."""
    all_values = []
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    k = 0
    for path, run in runs:
        for v in run["variants"]:
            vals = sorted(plotlib.trial_value_ms(t, metric) for t in v["trials"] if t.get("status") == "ok")
            if not vals:
                continue
            all_values += vals
            n = len(vals)
            label = v["name"] if len(runs) == 1 else f"{os.path.basename(path)}: {v['name']}"
            c = colors[k % len(colors)]
            k += 1
            ax.step(vals, [(i + 1) / n for i in range(n)], where="post", color=c, label=f"{label} (n={n})")
            for q, mk in ((0.5, "o"), (0.9, "s"), (0.99, "^")):
                x = plotlib.quantile(vals, q)
                ax.plot([x], [q], mk, color=c, markersize=5, markerfacecolor="white")
                ax.annotate(f"p{int(q * 100)} {x:.3g}", (x, q), textcoords="offset points", xytext=(6, -10),
                            fontsize=7, color=c)
    return all_values


def draw_reals(ax, reals):
    """The real-log samples as points at (i - 0.5) / n; returns their values."""
    all_values = []
    for j, (src, _variant, vals) in enumerate(reals):
        vals = sorted(vals)
        all_values += vals
        n = len(vals)
        ax.plot(vals, [(i + 0.5) / n for i in range(n)], "D", color="black", markersize=6,
                markerfacecolor=["#ffcc00", "#ff6666", "#66ccff", "#99dd66"][j % 4], linestyle="none",
                label=f"real log {src} (n={n})", zorder=5)
    return all_values


def draw(a):
    runs = [(p, plotlib.load_run(p)) for p in a.runs]
    reals = [r for p in a.real for r in plotlib.load_dmesg(p)]
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    all_values = draw_runs(ax, runs, a.metric)
    if not all_values:
        raise plotlib.InputProblem("no successful trials in the run files")
    all_values += draw_reals(ax, reals)
    lo, hi = min(all_values), max(all_values)
    if a.xscale == "log" or (a.xscale == "auto" and lo > 0 and hi / lo > 10):
        ax.set_xscale("log")
        ticks = [m * 10 ** e for e in range(-3, 7) for m in (1, 2, 5) if lo / 2 <= m * 10 ** e <= hi * 2]
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel({"probe_ms": "probe time: driver init to queues line (ms)",
                   "critical_path_ms": "critical path: driver init to the last controller (ms)"}[a.metric])
    ax.set_ylabel("fraction of trials (ECDF)")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=7)
    ax.set_title(a.title if a.title else runs[0][1]["scenario"])
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
