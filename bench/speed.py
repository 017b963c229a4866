"""Speed sections of bench/run.py: ratio, polls, controllers, outputs.

Each takes a benchlib.Context and returns (markdown lines, raw figures). Scenario throughout:
scenarios/aws-c5.12xlarge.json with its variants dropped and the kernel set (`--set /variants=[]
--set '/host/kernel="5.7"'`), "AWS 5.7". Counts follow issue 15 and
shared/reviews/perf-2026-12-01.md; --quick shrinks them for a smoke check.
"""
import os
import re

import benchlib as bl
from benchlib import MIB, med


# --- ratio -----------------------------------------------------------------------------------

def _ratio_cases(ctx, n_nv, n_sc, n_pf):
    out = ctx.path("ratio.jsonl")

    def nvmesim(exe):
        def go():
            argv = ctx.nv_run("--trials", n_nv, "--format", "jsonl", "--out", out, exe=exe)
            r = ctx.run(argv)
            bl.check_table(r.stdout, n_nv, argv)
            bl.consume(out, lambda: bl.check_jsonl(out, n_nv, argv))
            return r
        return go

    def sc_floor():
        argv = [ctx.tools["sc_floor"]["exe"], n_sc]
        r = ctx.run(argv)
        m = re.search(r"trials=(\d+) .*waits/trial=([\d.]+)", r.stdout)
        bl.check(m and int(m.group(1)) == n_sc, f"sc_floor printed {r.stdout.strip()!r}, expected trials={n_sc}", argv)
        r.info = float(m.group(2))
        return r

    def project_floor():
        argv = [ctx.args.project_floor, n_pf]
        r = ctx.run(argv)
        bl.check(r.stdout.startswith(f"{n_pf} trials in "), f"floor printed {r.stdout.strip()!r}", argv)
        return r

    cases = [{"key": "nvmesim", "run": nvmesim(None), "n": n_nv},
             {"key": "sc_floor", "run": sc_floor, "n": n_sc},
             {"key": "floor", "run": project_floor, "n": n_pf}]
    if ctx.args.baseline_nvmesim:
        cases.append({"key": "baseline", "run": nvmesim(os.path.abspath(ctx.args.baseline_nvmesim)), "n": n_nv})
    return cases


def ratio(ctx):
    """AWS 5.7 jsonl against sc_floor and bench/floor.cpp: trials per CPU second, ratios per round."""
    w = ctx.begin()
    n_nv, n_sc, n_pf = (5000, 15000, 5000) if ctx.args.quick else (100000, 300000, 100000)
    cases = _ratio_cases(ctx, n_nv, n_sc, n_pf)
    res = bl.interleave(cases, ctx.reps(5))
    rate = {c["key"]: [c["n"] / r.cpu_s for r in res[c["key"]]] for c in cases}
    names = {"nvmesim": "nvmesim AWS 5.7 jsonl (`run ... --format jsonl --out o.jsonl`)",
             "sc_floor": f"sc_floor ({res['sc_floor'][0].info:.1f} waits/trial)",
             "floor": "bench/floor.cpp (36 waits/trial, 6 device events)", "baseline": "baseline nvmesim (--baseline-nvmesim)"}
    lines = [f"### Throughput against the floors ({len(res['nvmesim'])} interleaved round(s) after a warm-up)", "",
             "| program | trials | CPU s median (min-max) [spread] | trials per CPU s, median | us per trial |",
             "|---|---|---|---|---|"]
    for c in cases:
        k = c["key"]
        lines.append(f"| {names[k]} | {c['n']:,} | {bl.cpu_col(res[k])} | {med(rate[k]):,.0f} | {1e6 / med(rate[k]):.2f} |")
    raw = {k: [[r.cpu_s, r.wall_s, r.rss_kib] for r in v] for k, v in res.items()}
    pairs = {}
    lines.append("")
    for other, label in (("sc_floor", "sc_floor"), ("floor", "the project floor (bench/floor.cpp)")):
        pr = [a / b for a, b in zip(rate["nvmesim"], rate[other])]
        pairs[other] = pr
        lines += [f"- **nvmesim / {label}** (nvmesim's trials per CPU second as a fraction of the floor's, round by "
                  f"round): median **{med(pr):.3f}** (range {min(pr):.3f}-{max(pr):.3f}; rounds "
                  f"{', '.join(f'{x:.3f}' for x in pr)}), i.e. {1 / med(pr):.1f}x the floor's CPU per trial"]
    if "baseline" in rate:
        sp = [a / b for a, b in zip(rate["nvmesim"], rate["baseline"])]
        pairs["baseline"] = sp
        lines.append(f"- **speedup over the baseline binary**, round by round: median **{med(sp):.2f}x** "
                     f"(range {min(sp):.2f}-{max(sp):.2f})")
    note, load = ctx.end(w)
    lines += ["", note]
    return lines, {"runs": raw, "ratios": pairs, "machine": load}


# --- polls -----------------------------------------------------------------------------------

POLL_ROWS = [("5.7", "usleep_range(1000, 2000)", to) for to in (1, 16, 255)] + \
            [("5.6", "msleep(100)", to) for to in (1, 16, 255)]


def _poll_argv(ctx, kernel, to, n, out):
    return ctx.nv_run("--set", '/controllers/0/faults={"never_ready":true}', "--set", f"/controllers/0/cap/to={to}",
                      "--set", '/controllers/0/handoff="disabled"', "-n", n, "-q", "-o", out, kernel=kernel)


def _poll_case(ctx, kernel, to, n):
    out = ctx.path(f"poll-{kernel}-{to}.jsonl")
    case = {"key": f"{kernel}/{to}", "n": n, "info": None}

    def go():
        argv = _poll_argv(ctx, kernel, to, n, out)
        r = ctx.run(argv)
        info = bl.check_jsonl(out, n, argv, detail=case["info"] is None)
        os.remove(out)
        if case["info"] is None:
            bl.check(info["ok"] == 0, f"never-ready run: {info['ok']} trials came up ok", argv)
            bl.check(info["polls"] > 0, "never-ready run: no polls recorded", argv)
            case["info"] = info
        return r
    case["run"] = go
    return case


def _poll_trials(ctx, kernel, to, target):
    """Trials for about `target` polls, from a 2-trial calibration run (deterministic: same seed)."""
    out = ctx.path("poll-cal.jsonl")
    argv = _poll_argv(ctx, kernel, to, 2, out)
    ctx.run(argv)
    info = bl.check_jsonl(out, 2, argv, detail=True)
    return max(2, round(target / (info["polls"] / 2)))


def polls(ctx):
    """Never-ready controller, CAP.TO 1/16/255 under 5.6 and 5.7: CPU ns per CSTS poll, and flatness."""
    w = ctx.begin()
    target = 100_000 if ctx.args.quick else 4_000_000
    cases = [_poll_case(ctx, k, to, _poll_trials(ctx, k, to, target)) for k, _, to in POLL_ROWS]
    cases.append(bl.startup_case(ctx))
    res = bl.interleave(cases, ctx.reps(3))
    start = med([r.cpu_s for r in res["startup"]])
    rows = []
    for (kernel, policy, to), c in zip(POLL_ROWS, cases):
        cpu = med([r.cpu_s for r in res[c["key"]]])
        ppt = c["info"]["polls"] / c["n"]
        us_trial = (cpu - start) / c["n"] * 1e6
        rows.append({"kernel": kernel, "policy": policy, "to": to, "trials": c["n"], "ppt": ppt, "cpu": cpu,
                     "sim_s": c["info"]["probe_ns_mean"] / 1e9, "us_trial": us_trial, "runs": res[c["key"]],
                     "gross_ns": us_trial * 1e3 / ppt})
    fits = {k: bl.lsq([(r["ppt"], r["us_trial"] * 1e3) for r in rows if r["kernel"] == k]) for k in ("5.6", "5.7")}
    a_ns = max(fits["5.6"][0], 0.0)
    for r in rows:
        r["net_ns"] = (r["us_trial"] * 1e3 - a_ns) / r["ppt"]
    return _poll_table(ctx, w, rows, fits, a_ns, start, target)


def _poll_table(ctx, w, rows, fits, a_ns, start, target):
    lines = [f"### Cost per CSTS poll (never-ready controller, handed over disabled; about {target:,} polls per row, "
             f"{len(rows[0]['runs'])} interleaved rounds)", "",
             "| kernel (poll) | CAP.TO | simulated s/trial | trials | polls/trial | CPU s median (min-max) [spread] | "
             "ns per poll, gross | ns per poll, net |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['kernel']} {r['policy']} | {r['to']} | {r['sim_s']:.2f} | {r['trials']:,} | {r['ppt']:,.0f} | "
                     f"{bl.cpu_col(r['runs'])} | {r['gross_ns']:,.0f} | {r['net_ns']:,.0f} |")
    lines += ["", f"Gross: (CPU - start-up of a 1-trial run, {start * 1e3:.1f} ms) / polls. Net: also less the per-trial "
              f"work besides polling (probe set-up, disable phase, the failure, the JSON line), {a_ns / 1e3:.2f} us per "
              "trial: the intercept of the least-squares line CPU/trial = a + b polls/trial over the three 5.6 rows (whose "
              "11 polls/trial row pins it), used for both kernels, which do the same per-trial work; "
              + "; ".join(f"{k} fit: a = {a / 1e3:.2f} us/trial, b = {b:.0f} ns/poll" for k, (a, b) in sorted(fits.items()))
              + ".", ""]
    out = {}
    for k in ("5.7", "5.6"):
        net = [r["net_ns"] for r in rows if r["kernel"] == k]
        gross = [r["gross_ns"] for r in rows if r["kernel"] == k]
        out[k] = {"net": bl.flat(net), "gross": bl.flat(gross)}
        lines.append(f"- **{k}: flat within {bl.flat(net) * 100:.1f}%** net (max/min - 1 from CAP.TO 1 to 255, "
                     f"{min(net):.0f}-{max(net):.0f} ns/poll; target <= 10%); gross {bl.flat(gross) * 100:.1f}%")
    note, load = ctx.end(w)
    lines += ["", note]
    raw = [{k: v for k, v in r.items() if k != "runs"} | {"cpu_s": [x.cpu_s for x in r["runs"]]} for r in rows]
    return lines, {"rows": raw, "fits": fits, "a_ns": a_ns, "startup_s": start, "flatness": out, "machine": load}


# --- controllers -----------------------------------------------------------------------------



def controllers(ctx):
    """1/16/256/1024 controllers, the same controller-trials per row: us per controller-trial, elaboration, RSS."""
    w = ctx.begin()
    ct = 2048 if ctx.args.quick else 32768
    counts = (1, 16, 256, 1024)
    cases = []
    def floor_case(key, hosts, n, spread=1):
        # bench/floor.cpp with HOSTS host/device pairs side by side, n trials each: what SystemC
        # itself costs per host-trial at that many threads. SPREAD 1: every wait 1 us, so all hosts
        # share each time step (SystemC's best case); SPREAD 100: waits of 1-100 us drawn per host,
        # so the hosts drift apart as controllers with their own latencies do.
        def go():
            argv = [ctx.args.project_floor, n, 36, 6, hosts, spread]
            r = ctx.run(argv)
            bl.check(r.stdout.startswith(f"{n * hosts} trials in "), f"floor printed {r.stdout.strip()!r}", argv)
            return r
        return {"key": key, "run": go, "n": n}

    for c in counts:
        cases.append(bl.table_case(ctx, f"n{c}", ct // c, "--set", f"/controllers/0/count={c}"))
        cases.append(bl.table_case(ctx, f"one{c}", 1, "--set", f"/controllers/0/count={c}"))
        cases.append(floor_case(f"fn{c}", c, ct // c))
        cases.append(floor_case(f"fone{c}", c, 1))
        cases.append(floor_case(f"dn{c}", c, ct // c, 100))
        cases.append(floor_case(f"done{c}", c, 1, 100))
    res = bl.interleave(cases, ctx.reps(3))
    rows = []
    for c in counts:
        n = ct // c
        net = [(a.cpu_s - b.cpu_s) / (c * (n - 1)) * 1e6 for a, b in zip(res[f"n{c}"], res[f"one{c}"])]
        fnet = [(a.cpu_s - b.cpu_s) / (c * (n - 1)) * 1e6 for a, b in zip(res[f"fn{c}"], res[f"fone{c}"])]
        dnet = [(a.cpu_s - b.cpu_s) / (c * (n - 1)) * 1e6 for a, b in zip(res[f"dn{c}"], res[f"done{c}"])]
        rows.append({"count": c, "trials": n, "runs": res[f"n{c}"], "net_us": net, "floor_net_us": fnet,
                     "drift_net_us": dnet,
                     "one_ms": med([r.cpu_s for r in res[f"one{c}"]]) * 1e3,
                     "rss": max(r.rss_kib for r in res[f"n{c}"]) / MIB,
                     "rss_one": max(r.rss_kib for r in res[f"one{c}"]) / MIB})
    base = med(rows[0]["net_us"])
    lines = [f"### Controllers (`--set /controllers/0/count=N`, AWS 5.7, table output only, {ct:,} controller-trials "
             f"per row, {len(res['n1'])} interleaved rounds)", "",
             "| controllers | trials | CPU s median (min-max) [spread] | us per controller-trial, net of the 1-trial run | "
             "vs 1 controller | 1-trial run (start-up + elaboration + 1 trial), CPU ms | its extra per controller, us | "
             "peak RSS MiB (run / 1-trial) | bench/floor.cpp with as many hosts: us per host-trial, net | floor vs 1 host | "
             "the floor with hosts apart (SPREAD 100): us per host-trial, net | vs 1 host |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    fbase = med(rows[0]["floor_net_us"])
    dbase = med(rows[0]["drift_net_us"])
    for r in rows:
        extra = "-" if r["count"] == 1 else f"{(r['one_ms'] - rows[0]['one_ms']) / (r['count'] - 1) * 1e3:.0f}"
        lines.append(f"| {r['count']} | {r['trials']:,} | {bl.cpu_col(r['runs'])} | {bl.rng(r['net_us'], '{:.2f}')} | "
                     f"{med(r['net_us']) / base:.2f}x | {r['one_ms']:.1f} | {extra} | {r['rss']:.1f} / {r['rss_one']:.1f} | "
                     f"{bl.rng(r['floor_net_us'], '{:.2f}')} | {med(r['floor_net_us']) / fbase:.2f}x | "
                     f"{bl.rng(r['drift_net_us'], '{:.2f}')} | {med(r['drift_net_us']) / dbase:.2f}x |")
    lines += ["", "Net: (CPU of the run - CPU of the 1-trial run with the same controllers) / (controllers x (trials - 1)), "
              "round by round. Target (issue 15): 1024 controllers within 1.3x of 1; elaboration linear (the extra per "
              "controller the same in every row). The floor columns run bench/floor.cpp (36 waits a trial, 6 answered by a "
              "device event) with HOSTS host/device pairs side by side, the same host-trials per row, net of its 1-trial "
              "run: how SystemC alone scales with as many threads. In the first floor every wait is 1 us, so all hosts share "
              "each time step and the timed queue holds equal keys (SystemC's best case); in the second (SPREAD 100) each "
              "wait is 1 to 100 us, drawn per host, so the hosts drift apart as nvmesim's controllers do."]
    note, load = ctx.end(w)
    lines += ["", note]
    raw = [{k: v for k, v in r.items() if k != "runs"} | {"cpu_s": [x.cpu_s for x in r["runs"]]} for r in rows]
    return lines, {"rows": raw, "machine": load}


# --- outputs ---------------------------------------------------------------------------------

def _file_case(ctx, key, label, n, path, checker, *extra):
    case = {"key": key, "label": label, "n": n, "bytes": None}

    def go():
        argv = ctx.nv_run("-n", n, "-q", *extra)
        r = ctx.run(argv)
        case["bytes"] = bl.consume(path, lambda: checker(argv))
        return r
    case["run"] = go
    return case


def _output_cases(ctx, n, n_trace):
    p = ctx.path
    return [
        bl.table_case(ctx, "none", n, label="none (no --out, no -q: the table only)"),
        _file_case(ctx, "jsonl", "jsonl (`--format jsonl -o o.jsonl`)", n, p("o.jsonl"),
                   lambda a: bl.check_jsonl(p("o.jsonl"), n, a), "--format", "jsonl", "-o", p("o.jsonl")),
        _file_case(ctx, "json", "json, default `--detail-trials 10`", n, p("o.json"),
                   lambda a: bl.check_json(p("o.json"), n, min(n, 10), a), "-o", p("o.json")),
        _file_case(ctx, "json-all", f"json, every trial detailed (`--detail-trials {n}`)", n, p("a.json"),
                   lambda a: bl.check_json(p("a.json"), n, n, a), "-o", p("a.json"), "--detail-trials", n),
        _file_case(ctx, "trace0", "trace, default `--trace-trials 0` (`--trace t.json`)", n, p("t0.json"),
                   lambda a: bl.check_trace(p("t0.json"), 1, a), "--trace", p("t0.json")),
        _file_case(ctx, "trace", "trace, every trial (`--trace t.json --trace-trials all`)", n_trace, p("t.json"),
                   lambda a: bl.check_trace(p("t.json"), n_trace, a), "--trace", p("t.json"), "--trace-trials", "all"),
        _file_case(ctx, "dmesg", "dmesg, every trial (`--dmesg d.txt`)", n, p("d.txt"),
                   lambda a: bl.check_dmesg(p("d.txt"), n, a), "--dmesg", p("d.txt")),
        bl.table_case(ctx, "startup", 1),
    ]


def outputs(ctx):
    """AWS 5.7 in each output mode: us per trial net of start-up, bytes per trial, peak RSS."""
    w = ctx.begin()
    n, n_trace = (2000, 200) if ctx.args.quick else (50000, 2000)
    cases = _output_cases(ctx, n, n_trace)
    res = bl.interleave(cases, ctx.reps(3))
    net = {c["key"]: [(a.cpu_s - b.cpu_s) / (c["n"] - 1) * 1e6 for a, b in zip(res[c["key"]], res["startup"])]
           for c in cases[:-1]}
    lines = [f"### Output modes (AWS 5.7, {len(res['none'])} interleaved rounds)", "",
             "| output | trials | CPU s median (min-max) [spread] | us per trial, net of start-up | vs none | bytes per trial | "
             "peak RSS MiB |", "|---|---|---|---|---|---|---|"]
    raw = {}
    for c in cases[:-1]:
        k = c["key"]
        b = "-" if c.get("bytes") is None else (f"{c['bytes'] / c['n']:,.0f}" if c["bytes"] >= 10 * c["n"]
                                                 else f"{c['bytes']:,} in all")
        lines.append(f"| {c['label']} | {c['n']:,} | {bl.cpu_col(res[k])} | {bl.rng(net[k], '{:.2f}')} | "
                     f"{med(net[k]) / med(net['none']):.2f}x | {b} | {max(r.rss_kib for r in res[k]) / MIB:.1f} |")
        raw[k] = {"trials": c["n"], "cpu_s": [r.cpu_s for r in res[k]], "net_us": net[k], "bytes": c.get("bytes"),
                  "rss_kib": max(r.rss_kib for r in res[k])}
    lines.append(f"| 1 trial, table only (the start-up subtracted above) | 1 | {bl.cpu_col(res['startup'])} | - | - | - | "
                 f"{max(r.rss_kib for r in res['startup']) / MIB:.1f} |")
    lines += ["", "The every-trial trace keeps its events in memory until the end (about 58 KiB per trial), so it runs "
              "fewer trials; its RSS grows with them."]
    note, load = ctx.end(w)
    lines += ["", note]
    return lines, {"rows": raw, "machine": load}
