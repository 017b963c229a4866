#!/usr/bin/python3
"""Paired per-trial deltas of each variant against the baseline (the first variant, or --baseline):
histogram with the median and its bootstrap 95% interval.

Trials are paired by index: every variant of a run uses the same device draws for trial k
(common random numbers, DESIGN section 6), so the per-trial difference is the effect of the
change alone. Only trials that succeeded under both variants are used.

Example:
  build/nvmesim run scenarios/aws-c5.12xlarge.json --trials 1000 -q --out aws.json
  /usr/bin/python3 scripts/plot_deltas.py aws.json -o deltas.png
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402

SEED = 20200303  # fixed: the same run gives the same interval and the same image
RESAMPLES = 2000  # bootstrap resamples by default

DESCRIPTION = ("Paired per-trial deltas against the baseline variant: histogram, median and a bootstrap 95%% "
               "interval of the median (%d resamples by default, fixed seed %d)." % (RESAMPLES, SEED))


def bootstrap_median_ci(deltas, resamples, seed):
    """Percentile bootstrap 95% interval of the median (numpy Generator PCG64 with a fixed seed)."""
    rng = np.random.default_rng(seed)
    d = np.asarray(deltas, dtype=float)
    idx = rng.integers(0, len(d), size=(resamples, len(d)))
    meds = np.median(d[idx], axis=1)
    return float(np.percentile(meds, 2.5)), float(np.percentile(meds, 97.5))


def add_args(ap):
    ap.add_argument("run", metavar="RUN.json", help="nvmesim run output (.json timeline or .jsonl)")
    ap.add_argument("--baseline", help="baseline variant name (default: the first)")
    ap.add_argument("--metric", choices=["probe_ms", "critical_path_ms"], default="probe_ms")
    ap.add_argument("--bins", type=int, default=40, help="histogram bins (default 40)")
    ap.add_argument("--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples (default {RESAMPLES})")


def paired_deltas(v, base, metric):
    """Per-trial deltas of variant v against the baseline trials `base` (by index), where both succeeded."""
    deltas = []
    for t in v["trials"]:
        b = base.get(t["trial"])
        if b is not None and t.get("status") == "ok" and b.get("status") == "ok":
            deltas.append(plotlib.trial_value_ms(t, metric) - plotlib.trial_value_ms(b, metric))
    return deltas


def draw_panel(ax, deltas, a, title):
    """One variant's histogram, median, interval of the median and the zero line."""
    med = float(np.median(deltas))
    lo, hi = bootstrap_median_ci(deltas, a.resamples, SEED)
    ax.hist(deltas, bins=a.bins, color="#4477aa", alpha=0.8)
    ax.axvspan(lo, hi, color="#ee6677", alpha=0.25, label=f"95% interval of the median [{lo:.3f}, {hi:.3f}]")
    ax.axvline(med, color="#ee6677", linewidth=2, label=f"median {med:+.3f} ms")
    span = max(deltas) - min(deltas)
    if min(deltas) - 0.2 * span <= 0 <= max(deltas) + 0.2 * span:
        ax.axvline(0, color="black", linewidth=0.8, linestyle=":", label="no change")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(f"per-trial delta of {a.metric} (ms)")
    ax.set_ylabel("trials")
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)


def draw(a):
    run = plotlib.load_run(a.run)
    if a.bins < 1 or a.resamples < 100:
        raise plotlib.InputProblem("--bins must be >= 1 and --resamples >= 100")
    variants = run["variants"]
    names = [v["name"] for v in variants]
    if len(variants) < 2:
        raise plotlib.InputProblem(f"{a.run}: needs at least two variants to pair, found {len(variants)}")
    base_name = a.baseline if a.baseline is not None else names[0]
    if base_name not in names:
        raise plotlib.InputProblem(f"--baseline {base_name!r}: no such variant; variants: {', '.join(names)}")
    base = {t["trial"]: t for t in variants[names.index(base_name)]["trials"]}
    others = [v for v in variants if v["name"] != base_name]

    fig, axes = plt.subplots(len(others), 1, figsize=(7.5, 3.2 * len(others)), squeeze=False)
    for ax, v in zip(axes[:, 0], others):
        deltas = paired_deltas(v, base, a.metric)
        if not deltas:
            raise plotlib.InputProblem(f"{a.run}: no trial succeeded under both {v['name']!r} and {base_name!r}")
        draw_panel(ax, deltas, a, f"{v['name']}  minus  {base_name}  (paired, n={len(deltas)})")
    fig.suptitle(run["scenario"])
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
