"""Shared helpers of the nvmesim plot scripts (scripts/plot_*.py): the scripts' common skeleton
(main), reading nvmesim outputs, durations, errors and writing figures. Run the scripts with
/usr/bin/python3 (Debian's python3-matplotlib and python3-numpy); they draw headless (Agg) and
write PNG or SVG by the output's extension. Output bytes are reproducible: no dates or random ids
in the files. Import plotlib before matplotlib.pyplot: it selects the Agg backend."""
import argparse
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "nvmesim"
plt.rcParams["font.size"] = 9


class InputProblem(Exception):
    """Bad input: the message says which file and what is wrong."""


def fail(prog, msg):
    sys.stderr.write(f"{prog}: error: {msg}\n")
    sys.exit(2)


def main(description, add_args, draw, argv=None):
    """The skeleton of every plot script: the command line (the script's own arguments from
    add_args(parser), then -o/--out), the output check, draw(args) -> matplotlib Figure, and the
    atomic save. An InputProblem raised by draw (or by the output check) is reported as
    "PROG: error: MESSAGE" with exit status 2; PROG is the file name of the script that defines
    draw. Returns 0."""
    prog = os.path.basename(draw.__code__.co_filename)
    ap = argparse.ArgumentParser(prog=prog, description=description)
    add_args(ap)
    ap.add_argument("-o", "--out", required=True, metavar="OUT", help="image to write: .png or .svg")
    a = ap.parse_args(argv)
    try:
        check_output(a.out)
        fig = draw(a)
    except InputProblem as e:
        fail(prog, str(e))
    save(fig, a.out)
    return 0


def check_output(path):
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".svg"):
        raise InputProblem(f"-o {path}: the output must end in .png or .svg")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise InputProblem(f"-o {path}: folder {folder} does not exist")


def save(fig, path):
    """Writes PNG or SVG by extension, without dates or software versions in the metadata."""
    ext = os.path.splitext(path)[1].lower()
    meta = {"Date": None} if ext == ".svg" else {"Software": None}
    tmp = os.path.join(os.path.dirname(path) or ".", "." + os.path.basename(path) + ".tmp" + ext)
    fig.savefig(tmp, format=ext[1:], metadata=meta, dpi=100, bbox_inches="tight")
    os.replace(tmp, path)
    plt.close(fig)


_UNITS = {"ps": 1e-9, "ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}


def duration_ms(text):
    """'250ns', '1.5us', '100ms', '2s' -> milliseconds (float); None when not a duration."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ps|ns|us|µs|ms|s)\s*", str(text))
    return float(m.group(1)) * _UNITS[m.group(2)] if m else None


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputProblem(f"{path}: cannot read ({e.strerror})")
    except json.JSONDecodeError as e:
        raise InputProblem(f"{path}: not JSON: {e.msg} at line {e.lineno} column {e.colno}")


def load_run(path):
    """A run output: nvmesim.timeline/1 (--out F.json) or nvmesim.trials/1 (--out F.jsonl).
    Returns {"scenario": name, "variants": [{"name", "trials": [trial dicts]}]}."""
    if path.endswith(".jsonl"):
        variants, order = {}, []
        try:
            with open(path, encoding="utf-8") as f:
                lines = [l for l in f if l.strip()]
        except OSError as e:
            raise InputProblem(f"{path}: cannot read ({e.strerror})")
        try:
            recs = [json.loads(l) for l in lines]
        except json.JSONDecodeError as e:
            raise InputProblem(f"{path}: not JSON Lines: {e.msg}")
        if not recs or recs[0].get("schema") != "nvmesim.trials/1":
            raise InputProblem(f"{path}: not an nvmesim run (schema nvmesim.trials/1 expected in the first line)")
        for r in recs:
            if r.get("record") == "trial":
                v = r.get("variant", "")
                if v not in variants:
                    variants[v] = []
                    order.append(v)
                variants[v].append(r)
        name = recs[0].get("scenario", {}).get("name", os.path.basename(path))
        return {"scenario": name, "variants": [{"name": v, "trials": variants[v]} for v in order]}
    doc = load_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != "nvmesim.timeline/1":
        raise InputProblem(f"{path}: not an nvmesim run (schema nvmesim.timeline/1 or a .jsonl of nvmesim.trials/1 "
                           f"expected; make one with nvmesim run --out FILE)")
    name = doc.get("scenario", {}).get("name", os.path.basename(path))
    return {"scenario": name, "variants": doc.get("variants", [])}


def load_dmesg(path):
    """nvmesim.dmesg/2 (nvmesim dmesg LOG -o F.json): [(label, variant, [duration_ms...])], one per
    log and variant of its boot markers (variant None for a real log), in their order."""
    doc = load_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != "nvmesim.dmesg/2":
        raise InputProblem(f"{path}: not nvmesim dmesg output (schema nvmesim.dmesg/2 expected; make one with "
                           f"nvmesim dmesg LOG -o FILE)")
    groups = {}
    for iv in doc.get("intervals", []):
        key = (iv.get("source", os.path.basename(path)), iv.get("variant"))
        groups.setdefault(key, []).append(float(iv["duration_ms"]))
    return [(src if v is None else f"{src}: {v}", v, vals) for (src, v), vals in groups.items()]


def trial_value_ms(trial, metric):
    """probe_ms / critical_path_ms of one trial record (records carry *_ns)."""
    key = metric[:-3] + "_ns"
    if key not in trial:
        raise InputProblem(f"trial records have no {key}")
    return trial[key] / 1e6


def quantile(sorted_values, q):
    """Type 7 (numpy's default, as nvmesim's summaries)."""
    n = len(sorted_values)
    h = (n - 1) * q
    lo = int(h)
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])
