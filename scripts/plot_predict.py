#!/usr/bin/python3
"""Predictions of `nvmesim predict` with their uncertainty: per what-if, the one-run band (p5-p95,
thin), the 90% credible interval of the median (p50_ci90, thick) and the median (dot), for the
probe time and, when present, the time to `Run /sbin/init`; with --posterior, the observed
intervals of the fitted logs as crosses on the row of the host that ran them (the reference, or a
what-if with the same kernel, HZ, tick, highres and cpus). One legend, below the panels.

Example:
  build/nvmesim fit scenarios/observations/aws-c5.12xlarge-5.6.json --out post.json
  build/nvmesim predict post.json --kernel 5.7 --kernel 6.6 --out pred.json  # see docs/plots.md
  /usr/bin/python3 scripts/plot_predict.py pred.json --posterior post.json -o pred.png
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402

DESCRIPTION = "Predicted probe and boot-to-init times per what-if host, with the observed intervals."


def add_args(ap):
    ap.add_argument("prediction", metavar="PRED.json", help="nvmesim predict --out file (nvmesim.prediction/1)")
    ap.add_argument("--posterior", metavar="POST.json", help="nvmesim fit --out file: draw its observed intervals")


def load(path, schema):
    import json
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise plotlib.InputProblem(f"{path}: cannot read: {e}")
    if doc.get("schema") != schema:
        raise plotlib.InputProblem(f"{path}: not {schema}")
    return doc


HOST_KEYS = ("kernel", "hz", "tick", "highres", "cpus")


def observed(post, ws):
    """{key: {row: [ms...]}}: each observed run's driver init -> queues (probe_ms) and -> Run
    /sbin/init (init_ms) interval, on the row of every what-if that is its host: the reference
    row "NAME (observed)", or a what-if with the same kernel, HZ, tick, highres and cpus."""
    hosts = post["observations"]["hosts"]
    out = {"probe_ms": {}, "init_ms": {}}
    for r in post["observations"]["runs"]:
        h = hosts.get(r["host"], {})
        rows = [i for i, w in enumerate(ws) if w["name"] == r["host"] + " (observed)" or
                all(w.get("host", {}).get(k) == h.get(k) for k in HOST_KEYS)]
        lines = r["lines"]
        for key, end in (("probe_ms", "queues"), ("init_ms", "run_init")):
            if "init" in lines and end in lines:
                for i in rows:
                    out[key].setdefault(i, []).append((lines[end]["ns"] - lines["init"]["ns"]) / 1e6)
    return out


def draw(a):
    pred = load(a.prediction, "nvmesim.prediction/1")
    ws = pred.get("whatifs")
    if not isinstance(ws, list) or not ws:
        raise plotlib.InputProblem(f"{a.prediction}: no what-ifs (\"whatifs\" is empty)")
    obs = observed(load(a.posterior, "nvmesim.posterior/1"), ws) if a.posterior else None
    keys = [k for k in ("probe_ms", "init_ms") if k in ws[0]]
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 0.6 * len(ws) + 2.2), squeeze=False)
    for ax, key in zip(axes[0], keys):
        for i, w in enumerate(ws):
            s = w.get(key)
            if not s or s["p50"] is None:
                continue
            y = len(ws) - 1 - i
            ax.plot([s["p5"], s["p95"]], [y, y], color="0.6", lw=1.5, gid="band", label="one run: p5-p95")
            ax.plot(s["p50_ci90"], [y, y], color="C0", lw=6, solid_capstyle="butt", gid="ci",
                    label="90% credible interval of the median (p50_ci90)")
            ax.plot([s["p50"]], [y], "o", color="k", ms=4, gid="median", label="median (p50)")
        for i, xs in sorted((obs or {}).get(key, {}).items()):
            y = len(ws) - 1 - i
            ax.plot(xs, [y + 0.25] * len(xs), "x", color="C3", gid="observed",
                    label="observed runs (on the row of their host)")
        ax.set_yticks(range(len(ws)))
        ax.set_yticklabels([w["name"] for w in reversed(ws)])
        ax.set_ylim(-0.6, len(ws) - 0.4)
        ax.set_xscale("log")
        ax.set_xlabel(("probe (driver init -> queues line)" if key == "probe_ms" else "driver init -> Run /sbin/init") + ", ms")
        ax.grid(True, which="both", axis="x", alpha=0.3)
    # One legend for all panels, below them: never over the bands or the observed points.
    handles, labels = [], []
    for ax in axes[0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=7, frameon=False)
    fig.suptitle(f"{pred['draws']} posterior draws x {pred['trials']} trials per draw and host", fontsize=8)
    fig.tight_layout()
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
