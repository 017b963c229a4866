#!/usr/bin/python3
"""Simulation-based calibration of `nvmesim fit`'s device block with nvmesim as the simulator
(issue 14, done-when: "20 devices drawn from the prior, their logs simulated by nvmesim, each
fitted: the 90% intervals contain the true parameter in 80-98% of the identifiable cases").

For each device: draw every device-block parameter from the fit's prior (docs/fit.md section 5;
the script checks its table against the priors the first fit writes), simulate BOOTS boots under
Linux 5.6 (msleep(100)) and BOOTS under 5.7 (usleep_range) with `nvmesim run --dmesg`, each host
with a seed of its own (real boots share no randomness), write the observation file, run
`nvmesim fit` with its default settings (500 particles, K = 32 trials per particle), and count,
for every parameter the fit reports as `fitted` (identified), whether the truth lies in its 90%
interval; a binary flag reported `fitted` (P < 0.05 or > 0.95) counts as covered when it is right.
A device whose simulated probe fails under the default CAP.TO (15 s) is drawn again: fit refuses
failed probes, so the calibration is over devices that probe (said in the output).

  bench/sbc_device.py --nvmesim build/nvmesim --devices 20 --jobs 2 --out sbc.json

Prints the coverage table (Markdown) and writes every device's truth and posterior summary.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

# The fit's prior of the device block (fit/problems.cpp block_specs, docs/fit.md section 5):
# name -> (lo, hi), log-uniform. Checked against the first posterior's `parameters`.
PRIOR = {
    "disable_latency.median": (1e-6, 10.0),
    "disable_latency.sigma": (0.05, 1.5),
    "enable_latency.median": (1e-6, 10.0),
    "enable_latency.sigma": (0.05, 1.5),
    "admin.identify.median": (1e-5, 0.02),
    "admin.sigma": (0.05, 1.5),
    "admin.set_features.median": (1e-6, 0.01),
    "admin.create_queue.median": (1e-6, 0.01),
    "admin.create_queue.sigma": (0.05, 1.5),
    "host.init_to_probe.median": (1e-5, 0.1),
    "host.init_to_probe.sigma": (0.05, 1.5),
}
FLAGS = ["handoff_enabled", "disable_immediate", "enable_immediate"]  # 1/2 each
IO_QUEUES = 2  # the scenario's io_queues (cpus 4): the queues line's count
# The fit's derived sums (fit/fit.cpp summarise): what the probe interval sees of the admin
# commands and of the two waits.
DERIVED = ["admin.sum", "ready_latency.sum"]


def derived_truth(t):
    """The truth of the derived sums (None: the device goes through neither wait)."""
    waits = ((t["disable_latency.median"] if t["handoff_enabled"] and not t["disable_immediate"] else 0.0)
             + (t["enable_latency.median"] if not t["enable_immediate"] else 0.0))
    return {"admin.sum": t["admin.identify.median"] + t["admin.set_features.median"]
            + 2 * IO_QUEUES * t["admin.create_queue.median"],
            "ready_latency.sum": waits if waits > 0 else None}


def draw(rng):
    t = {k: 10 ** rng.uniform(math.log10(lo), math.log10(hi)) for k, (lo, hi) in PRIOR.items()}
    for f in FLAGS:
        t[f] = rng.random() < 0.5
    return t


def lognormal(median_s, sigma):
    return {"dist": "lognormal", "median": "%.9gs" % median_s, "sigma": round(sigma, 9)}


def scenario(t, kernel, seed, boots):
    c = {"handoff": "enabled" if t["handoff_enabled"] else "disabled",
         "disable_latency": "0ns" if t["disable_immediate"] else lognormal(t["disable_latency.median"], t["disable_latency.sigma"]),
         "enable_latency": "0ns" if t["enable_immediate"] else lognormal(t["enable_latency.median"], t["enable_latency.sigma"]),
         "admin": {"identify": lognormal(t["admin.identify.median"], t["admin.sigma"]),
                   "set_features": lognormal(t["admin.set_features.median"], t["admin.sigma"]),
                   "create_queue": lognormal(t["admin.create_queue.median"], t["admin.create_queue.sigma"])},
         "io_queues": 2}
    return {"schema": "nvmesim.scenario/1", "name": "sbc", "seed": seed, "trials": boots,
            # wakeup_latency as the fit's forward model fixes it (fit/predict.cpp, docs/fit.md): the
            # truth must come from the model the fit assumes, or the test measures the mismatch.
            "host": {"kernel": kernel, "hz": 250, "tick": "nohz_idle", "highres": True, "cpus": 4,
                     "wakeup_latency": {"dist": "lognormal", "median": "20us", "sigma": 0.5},
                     "init_to_probe": lognormal(t["host.init_to_probe.median"], t["host.init_to_probe.sigma"])},
            "controllers": [c], "workload": "probe"}


def boots_of(dmesg_text):
    """The boots of a `run --dmesg` file: lists of lines, split at the `# nvmesim boot` headers."""
    out, cur = [], None
    for line in dmesg_text.splitlines():
        if line.startswith("# nvmesim boot"):
            cur = []
            out.append(cur)
        elif cur is not None and line.strip():
            cur.append(line)
    return out


def simulate(nvmesim, t, kernel, seed, boots, d):
    path = os.path.join(d, "dev-%s.json" % kernel)
    with open(path, "w") as f:
        json.dump(scenario(t, kernel, seed, boots), f)
    out = subprocess.run([nvmesim, "run", path, "-q", "--format", "jsonl", "--out", os.path.join(d, "t.jsonl"),
                          "--dmesg", os.path.join(d, "d-%s.txt" % kernel)], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    with open(os.path.join(d, "t.jsonl")) as f:
        if any('"status":"ok"' not in l for l in f if l.startswith('{"record":"trial"')):
            return None
    with open(os.path.join(d, "d-%s.txt" % kernel)) as f:
        b = boots_of(f.read())
    return b if len(b) == boots and all(any("default/read/poll queues" in l for l in x) for x in b) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nvmesim", default="build/nvmesim")
    ap.add_argument("--devices", type=int, default=20)
    ap.add_argument("--boots", type=int, default=3, help="boots per host (5.6 and 5.7)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--particles", type=int, default=0, help="fit --particles (0: the fit's default)")
    ap.add_argument("--keep", default="", help="also copy each device's observation file and fit log into this folder")
    ap.add_argument("--out", default="", help="write every device's truth and summary here (JSON)")
    ap.add_argument("--table", default="", help="only print the table of an --out file of an earlier run")
    a = ap.parse_args()
    if a.table:
        with open(a.table) as f:
            doc = json.load(f)
        table(doc["devices"], len(doc["devices"]), doc["redrawn"], doc["boots"])
        return
    rng = random.Random(a.seed)
    rows, redrawn = [], 0
    with tempfile.TemporaryDirectory(prefix="nvmesim-sbc-") as d:
        for dev in range(a.devices):
            while True:
                t = draw(rng)
                s1, s2 = rng.randrange(1, 2 ** 31), rng.randrange(1, 2 ** 31)
                b56 = simulate(a.nvmesim, t, "5.6", s1, a.boots, d)
                b57 = simulate(a.nvmesim, t, "5.7", s2, a.boots, d) if b56 else None
                if b56 and b57:
                    break
                redrawn += 1
            obs = {"schema": "nvmesim.observations/1", "name": "sbc-%d" % dev,
                   "hosts": {"h56": {"kernel": "5.6", "hz": 250, "tick": "nohz_idle", "highres": True, "cpus": 4},
                             "h57": {"kernel": "5.7", "hz": 250, "tick": "nohz_idle", "highres": True, "cpus": 4}},
                   "logs": [{"host": h, "kind": "boot", "text": x} for h, bs in (("h56", b56), ("h57", b57)) for x in bs]}
            op = os.path.join(d, "obs.json")
            with open(op, "w") as f:
                json.dump(obs, f)
            cmd = [a.nvmesim, "fit", op, "--out", os.path.join(d, "post.json"), "--seed", str(dev + 1), "--jobs", str(a.jobs)]
            if a.particles:
                cmd += ["--particles", str(a.particles)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                with open(os.path.join(a.keep, "obs-%d.json" % dev), "w") as f:
                    json.dump(obs, f, indent=1)
                with open(os.path.join(a.keep, "fit-%d.log" % dev), "w") as f:
                    f.write(r.stderr)
            if r.returncode != 0:
                print("device %d: fit failed (exit %d): %s" % (dev, r.returncode, r.stderr.strip()[-300:]), file=sys.stderr)
                rows.append({"device": dev, "truth": t, "error": r.stderr.strip()[-300:]})
                continue
            with open(os.path.join(d, "post.json")) as f:
                post = json.load(f)
            params = {p["name"]: p for p in post["parameters"]}
            for k, (lo, hi) in PRIOR.items():
                got = params[k]["prior"]["range"]
                if abs(got[0] - lo) > 1e-12 * lo or abs(got[1] - hi) > 1e-12 * hi:
                    sys.exit("the fit's prior of %s is %s, this script's %s: update PRIOR" % (k, got, (lo, hi)))
            res = {}
            dt = derived_truth(t)
            for k in list(PRIOR) + FLAGS + DERIVED:
                if k not in params:
                    continue
                p = params[k]
                if k in FLAGS:
                    covered = (p["probability"] > 0.5) == t[k]
                elif k in DERIVED:
                    covered = dt[k] is not None and p["ci90"][0] <= dt[k] <= p["ci90"][1]
                else:
                    covered = p["ci90"][0] <= t[k] <= p["ci90"][1]
                res[k] = {"status": p["status"], "why": p.get("why", ""), "covered": covered}
            rows.append({"device": dev, "truth": t, "result": res})
            if a.out:  # after every device: a long run that is stopped keeps what it did
                with open(a.out, "w") as f:
                    json.dump({"boots": a.boots, "redrawn": redrawn, "devices": rows}, f, indent=1)
            ok = sum(1 for v in res.values() if v["status"] == "fitted" and v["covered"])
            n = sum(1 for v in res.values() if v["status"] == "fitted")
            print("device %2d: %2d/%2d identified parameters covered" % (dev, ok, n), file=sys.stderr, flush=True)
    table(rows, a.devices, redrawn, a.boots)


def table(rows, devices, redrawn, boots):
    print("| parameter | identified | covered | rate | all devices: covered (any status) |\n|---|---|---|---|---|")
    tot_n = tot_c = 0
    for k in list(PRIOR) + FLAGS + DERIVED:
        got = [r["result"][k] for r in rows if "result" in r and k in r["result"]]
        n = sum(1 for x in got if x["status"] == "fitted")
        c = sum(1 for x in got if x["status"] == "fitted" and x["covered"])
        tot_n += n
        tot_c += c
        ca = sum(1 for x in got if x["covered"])
        print("| %s | %d | %d | %s | %d/%d |" % (k, n, c, "%.0f %%" % (100.0 * c / n) if n else "-", ca, len(got)))
    print("| **all** | %d | %d | %s | |" % (tot_n, tot_c, "%.1f %%" % (100.0 * tot_c / tot_n) if tot_n else "-"))
    print("\n%d devices fitted of %d (%d draws whose probe failed were drawn again); %d boots per host"
          % (sum(1 for r in rows if "result" in r), devices, redrawn, boots))


if __name__ == "__main__":
    main()
