#!/usr/bin/env python3
"""docs/github-actions-sweep.yml, checked without GitHub (Debian 12 has no actionlint).

1. The workflow's structure, as GitHub reads it: the jobs build -> shard (a matrix over
   0..SHARDS-1, fail-fast off) -> merge (runs always, after both); every step is either `uses` of
   a known action at a pinned major version with inputs that action takes, or `run`; every
   `${{ }}` expression is one this test knows how to evaluate; needs name existing jobs.
2. Its steps, run here in order as the runner would: the `run` steps of each job in a fresh
   workspace (a copy of the files the steps use), the artifact actions as copies between
   workspaces, the build step replaced by the binary already built, on a small sweep given as the
   workflow_dispatch input. The merged summary must equal an unsharded `--jobs 1` run's bytes.

Usage: test_workflow.py --nvmesim BIN --source DIR --work DIR
"""
import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys

import yaml  # python3-yaml (scripts/setup.sh --tests)

# The actions the workflow may use, and the inputs each takes (from their action.yml).
ACTIONS = {
    "actions/checkout@v4": set(),
    "actions/upload-artifact@v4": {"name", "path", "retention-days", "if-no-files-found", "compression-level",
                                   "overwrite", "include-hidden-files"},
    "actions/download-artifact@v4": {"name", "path", "pattern", "merge-multiple", "github-token", "repository",
                                     "run-id"},
}
JOB_KEYS = {"runs-on", "container", "needs", "if", "strategy", "steps", "env", "timeout-minutes"}
STEP_KEYS = {"name", "uses", "run", "with", "if", "env", "shell"}
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def fail(msg):
    print(f"test_workflow: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check_structure(wf):
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    if not isinstance(on, dict) or "workflow_dispatch" not in on:
        fail("the workflow is not started by workflow_dispatch")
    inputs = on["workflow_dispatch"].get("inputs", {})
    if set(inputs) != {"sweep"}:
        fail(f"workflow_dispatch inputs are {sorted(inputs)}, expected ['sweep']")
    env = wf.get("env", {})
    if "SWEEP" not in env or "SHARDS" not in env:
        fail("the workflow's env needs SWEEP and SHARDS")
    jobs = wf.get("jobs", {})
    if list(jobs) != ["build", "shard", "merge"]:
        fail(f"jobs are {list(jobs)}, expected build, shard, merge")
    for name, job in jobs.items():
        if set(job) - JOB_KEYS:
            fail(f"job {name}: unknown keys {sorted(set(job) - JOB_KEYS)}")
        if "runs-on" not in job or not job.get("steps"):
            fail(f"job {name}: needs runs-on and steps")
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        for n in needs:
            if n not in jobs or list(jobs).index(n) >= list(jobs).index(name):
                fail(f"job {name}: needs '{n}', which is not an earlier job")
        for i, step in enumerate(job["steps"]):
            where = f"job {name}, step {i + 1}"
            if set(step) - STEP_KEYS:
                fail(f"{where}: unknown keys {sorted(set(step) - STEP_KEYS)}")
            if ("uses" in step) == ("run" in step):
                fail(f"{where}: needs exactly one of uses and run")
            if "uses" in step:
                if step["uses"] not in ACTIONS:
                    fail(f"{where}: uses {step['uses']}, not one of {sorted(ACTIONS)}")
                extra = set(step.get("with", {})) - ACTIONS[step["uses"]]
                if extra:
                    fail(f"{where}: {step['uses']} takes no input {sorted(extra)}")
    shards = int(env["SHARDS"])
    strategy = jobs["shard"].get("strategy", {})
    if strategy.get("fail-fast") is not False:
        fail("job shard: fail-fast must be false (a shard with failed points must not cancel the others)")
    if strategy.get("matrix", {}).get("shard") != list(range(shards)):
        fail(f"job shard: matrix.shard must be 0..SHARDS-1 = {list(range(shards))}")
    if "always()" not in str(jobs["merge"].get("if", "")):
        fail("job merge: must run always() (it reports the shards that failed)")
    return jobs, shards


def evaluate(text, values, where):
    """Replaces each ${{ }} with its value; an expression not in `values` is a failure."""
    def one(m):
        if m.group(1) not in values:
            fail(f"{where}: the test cannot evaluate '${{{{ {m.group(1)} }}}}'")
        return str(values[m.group(1)])
    return EXPR.sub(one, str(text))


def copy_tree(src, dst):
    if os.path.isdir(src):
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        shutil.copy2(src, dst)


def run_job(name, job, matrix, ctx):
    """Runs the job's steps in a fresh workspace; artifacts live in ctx['artifacts']/NAME."""
    ws = os.path.join(ctx["work"], f"ws-{name}" + (f"-{matrix['shard']}" if matrix else ""))
    os.makedirs(ws)
    for f in ("scripts",):  # what actions/checkout brings that the steps use
        shutil.copytree(os.path.join(ctx["source"], f), os.path.join(ws, f))
    values = {"env.SHARDS": ctx["env"]["SHARDS"], "matrix.shard": matrix.get("shard", ""),
              "inputs.sweep || 'scenarios/sweeps/enable-latency-vs-kernel-hz.json'": ctx["sweep"]}
    env = dict(os.environ, SWEEP=ctx["sweep"], SHARDS=str(ctx["env"]["SHARDS"]))
    for i, step in enumerate(job["steps"]):
        where = f"job {name}, step {i + 1}"
        if "uses" in step:
            w = {k: evaluate(v, values, where) for k, v in step.get("with", {}).items()}
            action = step["uses"].split("@")[0]
            if action == "actions/upload-artifact":
                # As upload-artifact stores paths: relative to their deepest common folder, so
                # one folder's contents are at the artifact's root, and so is a single file.
                dst = os.path.join(ctx["artifacts"], w["name"])
                paths = [os.path.join(ws, p.strip()) for p in w["path"].split("\n") if p.strip()]
                if len(paths) == 1 and os.path.isdir(paths[0]):
                    copy_tree(paths[0], dst)
                else:
                    root = os.path.commonpath([os.path.dirname(p) for p in paths])
                    for p in paths:
                        copy_tree(p, os.path.join(dst, os.path.relpath(p, root)))
            elif action == "actions/download-artifact":
                names = [w["name"]] if "name" in w else sorted(
                    n for n in os.listdir(ctx["artifacts"]) if re.fullmatch(w["pattern"].replace("*", ".*"), n))
                for n in names:  # one artifact: into path; a pattern: path/NAME each
                    dst = os.path.join(ws, w.get("path", "."), n if "pattern" in w else "")
                    copy_tree(os.path.join(ctx["artifacts"], n), dst)
            continue
        script = evaluate(step["run"], values, where)
        if script.strip() == "scripts/setup.sh":
            continue  # the packages are here already
        if "cmake --preset release" in script:
            os.makedirs(os.path.join(ws, "build-release"))
            shutil.copy2(ctx["nvmesim"], os.path.join(ws, "build-release", "nvmesim"))
            continue
        r = subprocess.run(["bash", "-e", "-c", script], cwd=ws, env=env, capture_output=True, text=True)
        print(f"  {where}: {script.strip().splitlines()[0]} -> {r.returncode}")
        if r.returncode != 0:
            fail(f"{where} exited {r.returncode}:\n{script}\n{r.stdout}{r.stderr}")
    return ws


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvmesim", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    src = os.path.abspath(a.source)
    with open(os.path.join(src, "docs", "github-actions-sweep.yml")) as f:
        wf = yaml.safe_load(f)
    jobs, shards = check_structure(wf)
    print(f"test_workflow: structure ok: build -> shard x{shards} -> merge")

    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "artifacts"))
    sweep = os.path.join(work, "grid6.sweep.json")
    with open(sweep, "w") as f:  # 2 kernels x 3 enable latencies over the AWS case, 30 trials
        f.write('{"schema": "nvmesim.sweep/1", "name": "grid6", "base": "%s/scenarios/aws-c5.12xlarge.json",'
                ' "trials": 30, "set": {"/variants": []}, "grid": {"/host/kernel": ["5.6", "5.7"],'
                ' "/controllers/0/enable_latency": ["100us", "1ms", "10ms"]}}' % src)
    ctx = {"work": work, "source": src, "artifacts": os.path.join(work, "artifacts"), "sweep": sweep,
           "env": wf["env"], "nvmesim": os.path.abspath(a.nvmesim)}
    run_job("build", jobs["build"], {}, ctx)
    for k in jobs["shard"]["strategy"]["matrix"]["shard"]:
        run_job("shard", jobs["shard"], {"shard": k}, ctx)
    ws = run_job("merge", jobs["merge"], {}, ctx)
    got = os.path.join(ctx["artifacts"], "sweep-summary")

    ref = os.path.join(work, "ref")
    subprocess.run([a.nvmesim, "sweep", sweep, "--out", ref, "--jobs", "1", "-q"], check=True)
    subprocess.run([a.nvmesim, "merge", ref, "--out", ref + ".json"], check=True)
    for ext in ("json", "csv"):
        if not filecmp.cmp(os.path.join(got, "summary." + ext), ref + "." + ext, shallow=False):
            fail(f"the workflow's summary.{ext} differs from an unsharded --jobs 1 run's")
    if sorted(os.listdir(os.path.join(ws, "shards"))) != [f"shard-{k}" for k in range(shards)]:
        fail("the merge job did not get one folder per shard")
    print(f"test_workflow: ok: {shards} shards through the workflow's steps merge to the bytes of --jobs 1")


if __name__ == "__main__":
    main()
