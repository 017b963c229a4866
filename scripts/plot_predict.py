#!/usr/bin/python3
"""Predictions of `nvmesim predict` with their uncertainty: per what-if, the one-run band (p5-p95,
thin), the 90% credible interval of the median (p50_ci90, thick) and the median (dot), for the
probe time and, when present, the time to `Run /sbin/init`; with --posterior, the observed
intervals of the fitted logs as crosses on the observed host's row.

Example:
  build/nvmesim fit scenarios/observations/aws-c5.12xlarge-5.6.json --out post.json
  build/nvmesim predict post.json --kernel 5.7 --kernel 6.6 --out pred.json
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


def observed(post):
    """{(from, to): [ms...]} of the posterior's observed runs, for driver init -> queues / run_init."""
    out = {"probe_ms": [], "init_ms": []}
    for r in post["observations"]["runs"]:
        lines = r["lines"]
        if "init" in lines and "queues" in lines:
            out["probe_ms"].append((lines["queues"]["ns"] - lines["init"]["ns"]) / 1e6)
        if "init" in lines and "run_init" in lines:
            out["init_ms"].append((lines["run_init"]["ns"] - lines["init"]["ns"]) / 1e6)
    return out


def draw(a):
    pred = load(a.prediction, "nvmesim.prediction/1")
    obs = observed(load(a.posterior, "nvmesim.posterior/1")) if a.posterior else None
    ws = pred["whatifs"]
    keys = [k for k in ("probe_ms", "init_ms") if k in ws[0]]
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 0.6 * len(ws) + 1.5), squeeze=False)
    for ax, key in zip(axes[0], keys):
        for i, w in enumerate(ws):
            s = w.get(key)
            if not s or s["p50"] is None:
                continue
            y = len(ws) - 1 - i
            ax.plot([s["p5"], s["p95"]], [y, y], color="0.6", lw=1.5)
            ax.plot(s["p50_ci90"], [y, y], color="C0", lw=6, solid_capstyle="butt")
            ax.plot([s["p50"]], [y], "o", color="k", ms=4)
        if obs and obs[key]:
            y = len(ws) - 1
            ax.plot(obs[key], [y + 0.25] * len(obs[key]), "x", color="C3", label="observed")
            ax.legend(loc="lower right", fontsize=7)
        ax.set_yticks(range(len(ws)))
        ax.set_yticklabels([w["name"] for w in reversed(ws)])
        ax.set_xscale("log")
        ax.set_xlabel(("probe (driver init -> queues line)" if key == "probe_ms" else "driver init -> Run /sbin/init") + ", ms")
        ax.grid(True, which="both", axis="x", alpha=0.3)
    fig.suptitle(f"{pred['draws']} posterior draws x {pred['trials']} trials: one-run p5-p95 (grey), "
                 "90% CI of the median (blue), median (dot)", fontsize=8)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    sys.exit(plotlib.main(DESCRIPTION, add_args, draw))
