#!/usr/bin/python3
"""One trial of an nvmesim run as a Gantt chart per controller: the probe's phases, CSTS reads and
other MMIO accesses, sleeps, the device's states and admin commands.

The trial must have its events in the run file: trials below --detail-trials (default 10) of a
.json timeline keep them; .jsonl files do not.

Example:
  build/nvmesim run scenarios/aws-c5.12xlarge.json --trials 10 -q --out aws10.json
  /usr/bin/python3 scripts/plot_timeline.py aws10.json --trial 0 --variant 1 -o trial0.png
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402  (selects the Agg backend before pyplot)
import matplotlib.pyplot as plt  # noqa: E402

PHASE_COLORS = {"pre_probe": "#dddddd", "disable": "#aaccee", "enable": "#aaddaa", "admin": "#eeddaa"}
STATE_COLORS = {"disabled": "#bbbbbb", "enabling": "#ffdd88", "ready": "#66bb66", "resetting": "#ee9955",
                "shutdown_processing": "#cc99ee", "shutdown_complete": "#9966cc", "fatal": "#dd3333",
                "removed": "#000000"}
LANES = ["phases", "host: MMIO + sleeps", "device: state", "device: admin"]
H = 0.7  # bar height

DESCRIPTION = ("One trial as a Gantt chart per controller: phases, CSTS reads and other MMIO, sleeps, device "
               "states, admin commands, and the dmesg lines.")



def plural(n, word):
    """'1 sleep', '2 sleeps', '0 sleeps'."""
    return f"{n} {word}" + ("" if n == 1 else "s")

def add_args(ap):
    ap.add_argument("run", metavar="RUN.json", help="nvmesim run output (.json timeline with events)")
    ap.add_argument("--trial", type=int, required=True, metavar="K", help="trial index")
    ap.add_argument("--variant", default="0", help="variant name, index (before a prefix), or a unique prefix of a name (default 0, the baseline)")


def pick_trial(a):
    """The run's scenario name, the variant's name and the trial with its events (read by
    streaming: only that trial is kept), or InputProblem saying what to do."""
    info = plotlib.run_info(a.run)
    names = info["variants"]
    # An exact name, else an index (ASCII digits: str.isdigit() takes "²", which int() refuses),
    # else a unique prefix, as plot_probe.py's --real-variant takes it.
    prefixed = [n for n in names if n.startswith(a.variant)] if a.variant else []
    if a.variant in names:
        name = a.variant
    elif re.fullmatch(r"[0-9]+", a.variant) and int(a.variant) < len(names):
        name = names[int(a.variant)]
    elif len(prefixed) == 1:
        name = prefixed[0]
    else:
        raise plotlib.InputProblem(f"--variant {a.variant!r}: "
                                   + (f"names {len(prefixed)} variants" if prefixed else "no such variant")
                                   + "; variants: " + ", ".join(f"{i} {n!r}" for i, n in enumerate(names)))
    trial = plotlib.find_trial(a.run, name, a.trial)
    if trial is None:
        raise plotlib.InputProblem(f"--trial {a.trial}: {a.run} has no such trial in {name!r}")
    if "events" not in trial:
        raise plotlib.InputProblem(f"trial {a.trial} of {name!r} has no events in {a.run}: rerun nvmesim run "
                                   f"with --detail-trials {a.trial + 1} (or more) and --out FILE.json")
    return info["scenario"], name, trial


def draw_phases(ax, y, phases, end_ms):
    for p in phases:
        s, e = p["start_ns"] / 1e6, p["end_ns"] / 1e6
        ax.broken_barh([(s, max(e - s, end_ms * 1e-4))], (y[(p["ctrl"], "phases")] - H / 2, H),
                       facecolors=PHASE_COLORS.get(p["name"], "#cccccc"), edgecolor="grey", linewidth=0.5)
        if e - s > end_ms * 0.04:
            ax.text((s + e) / 2, y[(p["ctrl"], "phases")], f"{p['name']} ({plural(p['polls'], 'poll')}, {plural(p['sleeps'], 'sleep')})",
                    ha="center", va="center", fontsize=7)


def draw_events(ax, y, events, end_ms, states):
    """MMIO, sleeps, admin commands, warnings and dmesg lines; collects the state changes per
    controller into `states`. Returns the legend labels used."""
    labelled = set()
    for e in events:
        c, t = e["ctrl"], e["t_ns"] / 1e6
        d = e.get("dur_ns", 0) / 1e6
        k = e["kind"]
        if k in ("mmio_read", "mmio_write"):
            is_csts = k == "mmio_read" and e.get("reg") == "CSTS"
            color = "#cc3311" if is_csts else ("#0077bb" if k == "mmio_read" else "#009988")
            lab = "CSTS read" if is_csts else ("other MMIO read" if k == "mmio_read" else "MMIO write")
            ax.plot([t, t], [y[(c, LANES[1])] - H / 2, y[(c, LANES[1])] + H / 2], color=color, linewidth=1.2,
                    label=None if lab in labelled else lab)
            labelled.add(lab)
        elif k == "sleep":
            ax.broken_barh([(t, d)], (y[(c, LANES[1])] - H / 4, H / 2), facecolors="#ee7733", alpha=0.6,
                           label=None if "sleep" in labelled else "sleep")
            labelled.add("sleep")
            if d > end_ms * 0.04:
                ax.text(t + d / 2, y[(c, LANES[1])], e.get("detail", "sleep"), ha="center", va="center", fontsize=7)
        elif k == "state":
            states[c].append((t, e.get("detail", "?")))
        elif k == "admin_cmd":
            ax.broken_barh([(t, max(d, end_ms * 1e-4))], (y[(c, LANES[3])] - H / 2, H), facecolors="#aa3377",
                           alpha=0.7, edgecolor="white", linewidth=0.5)
        elif k == "warning":
            ax.plot([t], [y[(c, LANES[2])]], "x", color="red", markersize=8,
                    label=None if "warning" in labelled else "warning")
            labelled.add("warning")
        elif k == "message":
            ax.plot([t], [y[(c, LANES[0])] + H / 2], "v", color="black", markersize=5,
                    label=None if "dmesg line" in labelled else "dmesg line")
            labelled.add("dmesg line")
    return labelled


def draw_states(ax, y, states, end_ms):
    for c, st in states.items():
        for i, (t, name) in enumerate(st):
            e = st[i + 1][0] if i + 1 < len(st) else end_ms
            ax.broken_barh([(t, max(e - t, end_ms * 1e-4))], (y[(c, LANES[2])] - H / 2, H),
                           facecolors=STATE_COLORS.get(name, "#cccccc"), edgecolor="grey", linewidth=0.5)
            if e - t > end_ms * 0.04:
                ax.text((t + e) / 2, y[(c, LANES[2])], name, ha="center", va="center", fontsize=7)


def draw(a):
    scenario, var_name, trial = pick_trial(a)
    events, phases = trial["events"], trial.get("phases", [])
    ctrls = sorted({e["ctrl"] for e in events} | {p["ctrl"] for p in phases})
    end_ms = max([trial["critical_path_ns"] / 1e6] + [(e["t_ns"] + e.get("dur_ns", 0)) / 1e6 for e in events])

    rows = [(c, lane) for c in ctrls for lane in LANES]
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(rows) + 1.4))
    y = {r: len(rows) - 1 - i for i, r in enumerate(rows)}
    draw_phases(ax, y, phases, end_ms)
    states = {c: [] for c in ctrls}
    labelled = draw_events(ax, y, events, end_ms, states)
    draw_states(ax, y, states, end_ms)
    ax.set_yticks([y[r] for r in rows])
    ax.set_yticklabels([f"nvme{c} {lane}" for c, lane in rows])
    ax.set_xlim(0, end_ms * 1.01)
    ax.set_xlabel("time from driver init (ms)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(f"{scenario}: {var_name}, trial {a.trial} ({trial['status']}, probe "
                 f"{trial['probe_ns'] / 1e6:.3f} ms)", fontsize=9)
    if labelled:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=6, fontsize=7, frameon=False)
    return fig


def main(argv=None):
    return plotlib.main(DESCRIPTION, add_args, draw, argv)


if __name__ == "__main__":
    sys.exit(main())
