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


def bootstrap_median_ci(dist, resamples, seed):
    """Percentile bootstrap 95% interval of the median (numpy Generator PCG64 with a fixed seed).
    Exact deltas (up to plotlib.Dist.EXACT) are resampled themselves; above, the counts of 2048
    equal bins are resampled (multinomial), each median read within a bin: memory by bins."""
    rng = np.random.default_rng(seed)
    if dist.values is not None:
        d = np.asarray(dist.values, dtype=float)
        idx = rng.integers(0, len(d), size=(resamples, len(d)))
        meds = np.median(d[idx], axis=1)
    else:
        counts, edges = dist.histogram(2048)
        centers = (edges[:-1] + edges[1:]) / 2
        draws = rng.multinomial(dist.n, counts / counts.sum(), size=resamples)
        cum = np.cumsum(draws, axis=1)
        meds = centers[np.argmax(cum >= (dist.n + 1) / 2, axis=1)]
    return float(np.percentile(meds, 2.5)), float(np.percentile(meds, 97.5))


def add_args(ap):
    ap.add_argument("run", metavar="RUN.json", help="nvmesim run output (.json timeline or .jsonl)")
    ap.add_argument("--baseline", help="baseline variant name (default: the first)")
    ap.add_argument("--metric", choices=["probe_ms", "critical_path_ms"], default="probe_ms")
    ap.add_argument("--bins", type=int, default=40, help="histogram bins (default 40)")
    ap.add_argument("--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples (default {RESAMPLES})")


def paired_deltas(path, base, others, metric):
    """{variant: plotlib.Dist of its per-trial deltas against `base`}, over the trials that
    succeeded under both; the trials are read side by side, never kept."""
    key = metric[:-3] + "_ns"

    def stream():
        for _k, b, recs in plotlib.paired(path, base, others):
            if b.get("status") != "ok":
                continue
            for v, t in zip(others, recs):
                if t.get("status") == "ok":
                    yield v, (t[key] - b[key]) / 1e6
    return plotlib.collect(stream)


def draw_panel(ax, dist, a, title):
    """One variant's histogram, median, interval of the median and the zero line."""
    med = dist.quantile(0.5)
    lo, hi = bootstrap_median_ci(dist, a.resamples, SEED)
    counts, edges = dist.histogram(a.bins)
    ax.stairs(counts, edges, fill=True, color="#4477aa", alpha=0.8, label="_nolegend_")
    ax.axvspan(lo, hi, color="#ee6677", alpha=0.25, label=f"95% interval of the median [{lo:.3f}, {hi:.3f}]")
    ax.axvline(med, color="#ee6677", linewidth=2, label=f"median {med:+.3f} ms")
    span = dist.hi - dist.lo
    if dist.lo - 0.2 * span <= 0 <= dist.hi + 0.2 * span:
        ax.axvline(0, color="black", linewidth=0.8, linestyle=":", label="no change")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(f"per-trial delta of {a.metric} (ms)")
    ax.set_ylabel("trials")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # beside, not over, the bars
    ax.grid(True, alpha=0.3)


def draw(a):
    if a.bins < 1 or a.resamples < 100:
        raise plotlib.InputProblem("--bins must be >= 1 and --resamples >= 100")
    info = plotlib.run_info(a.run)
    names = info["variants"]
    if len(names) < 2:
        raise plotlib.InputProblem(f"{a.run}: needs at least two variants to pair, found {len(names)}")
    base_name = a.baseline if a.baseline is not None else names[0]
    if base_name not in names:
        raise plotlib.InputProblem(f"--baseline {base_name!r}: no such variant; variants: {', '.join(names)}")
    others = [v for v in names if v != base_name]
    dists = paired_deltas(a.run, base_name, others, a.metric)

    fig, axes = plt.subplots(len(others), 1, figsize=(9.5, 3.2 * len(others)), squeeze=False)
    for ax, v in zip(axes[:, 0], others):
        if v not in dists:
            raise plotlib.InputProblem(f"{a.run}: no trial succeeded under both {v!r} and {base_name!r}")
        draw_panel(ax, dists[v], a, f"{v}  minus  {base_name}  (paired, n={dists[v].n})")
    fig.suptitle(info["scenario"])
    fig.tight_layout()
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
