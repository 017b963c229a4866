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
    global last_figure
    try:
        check_output(a.out)
        fig = draw(a)
    except InputProblem as e:
        fail(prog, str(e))
    last_figure = fig  # what was drawn, for tests/test_plots.py to inspect
    save(fig, a.out)
    return 0


last_figure = None


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


# --- Run outputs, streamed: memory bounded by the number of bins, never by the trials ----------

_TRIAL_FIELDS = re.compile(rb'"trial":(\d+),"status":"([a-z_]+)","probe_ns":(-?\d+),"critical_path_ns":(-?\d+)')
_TRIAL_PREFIX = b'{"record":"trial","variant":'
_TRIAL_KEYS = ("trial", "status", "probe_ns", "critical_path_ns")


def _open(path):
    try:
        return open(path, "rb")
    except OSError as e:
        raise InputProblem(f"{path}: cannot read ({e.strerror})")


def run_format(path):
    """"jsonl" (nvmesim.trials/1) or "json" (nvmesim.timeline/1), from the file's first bytes."""
    with _open(path) as f:
        head = f.read(4096)
    m = re.search(rb'"schema"\s*:\s*"([^"]*)"', head)
    schema = m.group(1).decode("utf-8", "replace") if m else None
    if schema == "nvmesim.trials/1":
        return "jsonl"
    if schema == "nvmesim.timeline/1":
        return "json"
    raise InputProblem(f"{path}: not an nvmesim run (schema nvmesim.timeline/1 or a .jsonl of nvmesim.trials/1 "
                       f"expected; make one with nvmesim run --out FILE)")


def _jsonl_variant(line):
    """The variant name of a trial record line (bytes), or None for other records."""
    if not line.startswith(_TRIAL_PREFIX):
        return None
    name, _end = json.decoder.scanstring(line.decode("utf-8"), len(_TRIAL_PREFIX) + 1)
    return name


def run_info(path):
    """{"scenario": name, "variants": [names in file order], "summaries": {name: summary},
    "paired": {variant: paired delta_ms summary against its baseline}} in one streaming pass (the
    trials are not kept)."""
    fmt = run_format(path)
    info = {"scenario": os.path.basename(path), "variants": [], "summaries": {}, "paired": {}}
    with _open(path) as f:
        if fmt == "jsonl":
            last = None
            for i, line in enumerate(f):
                if i == 0:
                    try:
                        info["scenario"] = json.loads(line).get("scenario", {}).get("name", info["scenario"])
                    except json.JSONDecodeError as e:
                        raise InputProblem(f"{path}: line 1: not JSON ({e.msg})")
                    continue
                if line.startswith(_TRIAL_PREFIX):
                    if last is None or not line.startswith(last):
                        name = _jsonl_variant(line)
                        last = _TRIAL_PREFIX + json.dumps(name, ensure_ascii=False).encode("utf-8") + b","
                        if name not in info["variants"]:
                            info["variants"].append(name)
                elif line.startswith(b'{"record":"summary"'):
                    rec = json.loads(line)
                    for v in rec.get("variants", []):
                        info["summaries"][v.get("name")] = v.get("summary", {})
                    for p in rec.get("paired", []) or []:
                        info["paired"][p.get("variant")] = p.get("delta_ms")
        else:
            import ijson
            name = None
            try:
                for prefix, obj in _ijson_objects(f, ("scenario.name", "variants.item.name", "variants.item.summary",
                                                      "paired")):
                    if prefix == "paired":
                        for p in obj or []:
                            info["paired"][p.get("variant")] = p.get("delta_ms")
                    elif prefix == "scenario.name":
                        info["scenario"] = obj
                    elif prefix == "variants.item.name":
                        name = obj
                        info["variants"].append(obj)
                    else:
                        info["summaries"][name] = obj
            except ijson.JSONError as e:
                raise InputProblem(f"{path}: not JSON: {e}")
    return info


def _ijson_objects(f, prefixes):
    """(prefix, value) for every value at one of `prefixes` of the JSON stream f (ijson events)."""
    import ijson
    builder, at = None, None
    for prefix, event, value in ijson.parse(f, use_float=True):
        if builder is not None:
            builder.event(event, value)
            if prefix == at and event in ("end_map", "end_array"):
                yield at, builder.value
                builder = None
            continue
        if prefix in prefixes:
            if event in ("start_map", "start_array"):
                builder, at = ijson.ObjectBuilder(), prefix
                builder.event(event, value)
            else:
                yield prefix, value


def iter_trials(path, variant):
    """The trials of `variant` in file order as dicts with trial, status, probe_ns and
    critical_path_ns (and the rest of the record only when the fast path cannot read it)."""
    if run_format(path) == "jsonl":
        prefix = _TRIAL_PREFIX + json.dumps(variant, ensure_ascii=False).encode("utf-8") + b","
        with _open(path) as f:
            for line in f:
                if not line.startswith(prefix):
                    if line.startswith(_TRIAL_PREFIX) and _jsonl_variant(line) == variant:
                        yield json.loads(line)  # an escaping the fast prefix does not match
                    continue
                m = _TRIAL_FIELDS.search(line, len(prefix))
                if m:
                    yield {"trial": int(m.group(1)), "status": m.group(2).decode(), "probe_ns": int(m.group(3)),
                           "critical_path_ns": int(m.group(4))}
                else:
                    yield json.loads(line)
        return
    import ijson
    with _open(path) as f:
        name, cur = None, None
        for prefix, event, value in ijson.parse(f):
            if prefix == "variants.item.name":
                name = value
            elif prefix == "variants.item.trials.item":
                if event == "start_map":
                    cur = {}
                elif event == "end_map" and name == variant:
                    yield cur
            elif name == variant and prefix.startswith("variants.item.trials.item.") and event in ("number", "string"):
                key = prefix[len("variants.item.trials.item."):]
                if key in _TRIAL_KEYS:
                    cur[key] = int(value) if event == "number" else value


def paired(path, base, others):
    """(trial, base trial record, [record of each of `others`]) in trial order: the trials of
    every variant are read side by side (one open file each), so pairing keeps no trial."""
    streams = [iter_trials(path, base)] + [iter_trials(path, v) for v in others]
    for recs in zip(*streams):
        k = recs[0]["trial"]
        if any(r["trial"] != k for r in recs):
            raise InputProblem(f"{path}: the trials of the variants are not in the same order (trial {k} of {base!r} "
                               f"beside {[r['trial'] for r in recs[1:]]}); nvmesim run writes them in trial order")
        yield k, recs[0], list(recs[1:])


class Dist:
    """The distribution of one series of values: exact (sorted) up to EXACT values, else a
    histogram of BINS equal bins over [lo, hi] (quantiles within (hi - lo) / BINS)."""
    EXACT = 4096
    BINS = 8192

    def __init__(self, n, lo, hi, values=None, counts=None):
        self.n, self.lo, self.hi = n, lo, hi
        self.values = values  # sorted list, or None
        self.counts = counts  # numpy array of BINS, or None
        if counts is not None:
            import numpy as np
            self.edges = np.linspace(lo, hi, len(counts) + 1)

    def quantile(self, q):
        if self.values is not None:
            return quantile(self.values, q)
        import numpy as np
        cum = np.cumsum(self.counts)
        target = q * self.n
        i = int(np.searchsorted(cum, target, side="left"))
        i = min(i, len(self.counts) - 1)
        before = cum[i - 1] if i > 0 else 0
        frac = (target - before) / self.counts[i] if self.counts[i] else 0.0
        return float(self.edges[i] + frac * (self.edges[i + 1] - self.edges[i]))

    def ecdf(self):
        """(xs, ys) of the ECDF as a step curve (where='post')."""
        if self.values is not None:
            n = len(self.values)
            return list(self.values), [(i + 1) / n for i in range(n)]
        import numpy as np
        keep = self.counts > 0
        return list(self.edges[1:][keep]), list(np.cumsum(self.counts)[keep] / self.n)

    def histogram(self, bins):
        """(counts, edges) with `bins` equal bins over [lo, hi]."""
        import numpy as np
        lo, hi = (self.lo, self.hi) if self.hi > self.lo else (self.lo - 0.5, self.hi + 0.5)
        if self.values is not None:
            return np.histogram(self.values, bins=bins, range=(lo, hi))
        centers = (self.edges[:-1] + self.edges[1:]) / 2
        return np.histogram(centers, bins=bins, range=(lo, hi), weights=self.counts)


def collect(stream, keys=None):
    """{key: Dist} of the values of `stream()`, an iterable of (key, value) made anew for each of
    at most two passes (the second only for keys with more than Dist.EXACT values)."""
    import numpy as np
    stats = {}
    for key, v in stream():
        s = stats.get(key)
        if s is None:
            s = stats[key] = [0, v, v, []]
        s[0] += 1
        s[1] = min(s[1], v)
        s[2] = max(s[2], v)
        if s[0] <= Dist.EXACT:
            s[3].append(v)
    out = {k: Dist(s[0], s[1], s[2], values=sorted(s[3])) for k, s in stats.items() if s[0] <= Dist.EXACT}
    big = {k: s for k, s in stats.items() if s[0] > Dist.EXACT}
    if big:
        counts = {k: np.zeros(Dist.BINS) for k in big}
        chunks = {k: [] for k in big}

        def flush(k):
            lo, hi = big[k][1], big[k][2]
            c, _ = np.histogram(chunks[k], bins=Dist.BINS, range=(lo, hi if hi > lo else lo + 1e-9))
            counts[k] += c
            chunks[k] = []
        for key, v in stream():
            if key in chunks:
                chunks[key].append(v)
                if len(chunks[key]) >= 65536:
                    flush(key)
        for k in big:
            flush(k)
            out[k] = Dist(big[k][0], big[k][1], big[k][2], counts=counts[k])
    return out


def find_trial(path, variant, k):
    """The whole record (events included) of trial `k` of `variant`, or None; streamed, it
    stops at the trial (jsonl) and keeps no other trial."""
    if run_format(path) == "jsonl":
        prefix = _TRIAL_PREFIX + json.dumps(variant, ensure_ascii=False).encode("utf-8") + b","
        want = b'"trial":%d,' % k
        with _open(path) as f:
            for line in f:
                if want in line and line.startswith(_TRIAL_PREFIX) and (
                        line.startswith(prefix) or _jsonl_variant(line) == variant):
                    rec = json.loads(line)
                    if rec.get("trial") == k:
                        return rec
        return None
    name = None
    with _open(path) as f:
        for prefix, obj in _ijson_objects(f, ("variants.item.name", "variants.item.trials.item")):
            if prefix == "variants.item.name":
                name = obj
            elif name == variant and obj.get("trial") == k:
                return obj
    return None


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
