// What a sweep folder records about the run that wrote it, and what merge says about the points
// it could not use (sweep/origin.hpp, docs/sweeps.md "When points fail or are missing"):
// the Slurm job and array task taken from the environment, the sweep file, the manifest written
// before the first worker, and merge's per-shard report with the command that resumes the shard.
// tests/slurm/sweep_on_slurm.sh runs the same through a real Slurm cluster.
#include <catch2/catch.hpp>

#include <climits>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "support.hpp"
#include "sweep/origin.hpp"
#include "sweep/sweep.hpp"

using nvmesim::shell_quote;
using nvmesim::test::slurp;
using ojson = nlohmann::ordered_json;

namespace {

/// Runs `nvmesim ARGS` through sh with `env` before it; stderr into `err_file`. Exit status.
int run_with(const std::string& env, const std::string& args, const std::string& err_file) {
  const std::string cmd = env + " " + NVMESIM_BINARY + " " + args + " >/dev/null 2>" + err_file;
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

using nvmesim::test::cwd;

// The failing-point sweep of test_sweep.cpp: 50 ms needs ~25 CSTS reads, above the limit of 10
// (usleep_range(1000, 2000) polls every ~2 ms); 1 ms, 2 ms and 3 ms are ready in 2 reads.
void write_failing_sweep(const std::string& path) {
  std::ofstream(path) << R"({"schema": "nvmesim.sweep/1", "base": ")" << NVMESIM_SOURCE_DIR
                      << R"(/scenarios/aws-c5.12xlarge.json", "trials": 20,
    "set": {"/variants": [], "/host/max_polls_per_wait": 10},
    "grid": {"/controllers/0/enable_latency": ["1ms", "50ms", "2ms", "3ms"]}})";
}

/// A sweep of 4 points (enable latency 1 to 4 ms over the AWS case), `trials` trials each.
void spit_grid(const std::string& path, int trials) {
  std::ofstream(path) << R"({"schema": "nvmesim.sweep/1", "base": ")" << NVMESIM_SOURCE_DIR
                      << R"(/scenarios/aws-c5.12xlarge.json", "trials": )" << trials << R"(,
    "set": {"/variants": []}, "grid": {"/controllers/0/enable_latency": ["1ms", "2ms", "3ms", "4ms"]}})";
}

const char* kSlurmEnv = "SLURM_JOB_ID=43 SLURM_ARRAY_JOB_ID=41 SLURM_ARRAY_TASK_ID=1";
const char* kNoSlurmEnv = "env -u SLURM_JOB_ID -u SLURM_ARRAY_JOB_ID -u SLURM_ARRAY_TASK_ID";

}  // namespace

TEST_CASE("shell_quote leaves plain words and quotes the rest for sh", "[sweep]") {
  CHECK(shell_quote("/tmp/a-b_c.json") == "/tmp/a-b_c.json");
  CHECK(shell_quote("my sweeps/s.json") == "'my sweeps/s.json'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_quote("") == "''");
}

TEST_CASE("a shard's manifest records the sweep file and the Slurm job and array task", "[sweep][process]") {
  write_failing_sweep("ts-slurm.sweep.json");
  (void)std::system("rm -rf ts-slurm-d");
  REQUIRE(run_with(kSlurmEnv, "sweep ts-slurm.sweep.json --shard 1/2 --out ts-slurm-d -q", "ts-slurm.err") == 1);
  const ojson m = ojson::parse(slurp("ts-slurm-d/manifest.json"));
  CHECK(m["run"]["sweep_file"] == cwd() + "/ts-slurm.sweep.json");
  CHECK(m["run"]["slurm"] == ojson::parse(R"({"job_id": "43", "array_job_id": "41", "array_task_id": "1"})"));
  // Outside Slurm: no "slurm" member (and nothing else changes).
  (void)std::system("rm -rf ts-slurm-d");
  REQUIRE(run_with(kNoSlurmEnv, "sweep ts-slurm.sweep.json --shard 1/2 --out ts-slurm-d -q", "ts-slurm.err") == 1);
  const ojson m2 = ojson::parse(slurp("ts-slurm-d/manifest.json"));
  CHECK(m2["run"] == ojson::parse("{\"sweep_file\": \"" + cwd() + "/ts-slurm.sweep.json\"}"));
  // The summary holds none of it: merged from a Slurm run or not, the same bytes.
  REQUIRE(run_with("", "merge ts-slurm-d --out ts-slurm-m2.json", "ts-slurm.err") == 1);
  (void)std::system("rm -rf ts-slurm-d");
  REQUIRE(run_with(kSlurmEnv, "sweep ts-slurm.sweep.json --shard 1/2 --out ts-slurm-d -q", "ts-slurm.err") == 1);
  REQUIRE(run_with("", "merge ts-slurm-d --out ts-slurm-m1.json", "ts-slurm.err") == 1);
  CHECK(slurp("ts-slurm-m1.json") == slurp("ts-slurm-m2.json"));
  CHECK(slurp("ts-slurm-m1.json").find("array_task") == std::string::npos);
  (void)std::system("rm -rf ts-slurm-d ts-slurm.sweep.json ts-slurm.err ts-slurm-m1.* ts-slurm-m2.*");
}

TEST_CASE("merge names each failed and missing point with its shard, Slurm task and resume command", "[sweep][process]") {
  write_failing_sweep("ts-rep.sweep.json");
  (void)std::system("rm -rf ts-rep-1");
  // Shard 1/2 holds points 1 (50 ms: fails) and 3; shard 0/2 (points 0 and 2) is not given.
  REQUIRE(run_with(kSlurmEnv, "sweep ts-rep.sweep.json --shard 1/2 --out ts-rep-1 -q", "ts-rep.err") == 1);
  REQUIRE(run_with("", "merge ts-rep-1 --out ts-rep.json", "ts-rep.err") == 1);
  const std::string here = cwd();
  auto id = [](const char* latency) { return nvmesim::point_id(ojson{{"/controllers/0/enable_latency", latency}}); };
  std::vector<std::string> lines;
  {
    std::istringstream in(slurp("ts-rep.err"));
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "nvmesim merge: 4 points: 1 done, 1 failed, 2 missing (listed in ts-rep.json)");
  // The failed point: its shard and folder, the Slurm array task of that folder's run, the error.
  const std::string failed = "nvmesim merge: point 1 (" + id("50ms") +
                             ") failed in shard 1/2 (ts-rep-1, Slurm array task 1 of job 41): worker exit status 2: trial stopped: ";
  CHECK(lines[1].substr(0, failed.size()) == failed);
  CHECK(lines[1].find("(limit host.max_polls_per_wait = 10)") != std::string::npos);
  CHECK(lines[2] == "nvmesim merge: resume shard 1/2 with: nvmesim sweep " + here + "/ts-rep.sweep.json --shard 1/2 --out " +
                        here + "/ts-rep-1 --resume");
  // Points of a shard no folder holds: 0 and 2 are 0 modulo 2.
  CHECK(lines[3] == "nvmesim merge: point 0 (" + id("1ms") + ") missing in shard 0/2 (no folder given holds it)");
  CHECK(lines[4] == "nvmesim merge: point 2 (" + id("2ms") + ") missing in shard 0/2 (no folder given holds it)");
  CHECK(lines[5] == "nvmesim merge: run shard 0/2 with: nvmesim sweep " + here +
                        "/ts-rep.sweep.json --shard 0/2 --out DIR, and merge DIR with the others");
  // The printed command is one that runs: it resumes that folder (the point fails again: the
  // result is deterministic), so it names the right sweep, shard and folder.
  const std::string err = slurp("ts-rep.err");
  const std::string tag = "resume shard 1/2 with: nvmesim ";
  const size_t at = err.find(tag);
  REQUIRE(at != std::string::npos);
  const std::string resume_args = err.substr(at + tag.size(), err.find('\n', at) - at - tag.size());
  CHECK(run_with(kNoSlurmEnv, resume_args + " -q", "ts-rep2.err") == 1);
  CHECK(slurp("ts-rep2.err").rfind("nvmesim: point 1 (" + id("50ms") + ") failed: worker exit status 2: ", 0) == 0);
  // That run was not under Slurm: the report no longer names a Slurm task.
  REQUIRE(run_with("", "merge ts-rep-1 --out ts-rep.json", "ts-rep.err") == 1);
  CHECK(slurp("ts-rep.err").find("failed in shard 1/2 (ts-rep-1): worker exit status 2") != std::string::npos);
  (void)std::system("rm -rf ts-rep-1 ts-rep.sweep.json ts-rep.err ts-rep2.err ts-rep.json ts-rep.csv");
}

TEST_CASE("a shard stopped before it finished is in merge's report as missing points", "[sweep][process]") {
  // The manifest is written before the first worker starts, so a shard that was killed (or is
  // still running) is known: its points are missing, with the Slurm task that has them.
  write_failing_sweep("ts-stop.sweep.json");
  (void)std::system("rm -rf ts-stop-d && mkdir -p ts-stop-d/points");
  // A manifest written at the start lists every point pending: SIGSTOP the sweep right after it
  // appears, read it, then let it finish.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("SLURM_ARRAY_JOB_ID", "7", 1);
    setenv("SLURM_ARRAY_TASK_ID", "0", 1);
    unsetenv("SLURM_JOB_ID");
    execl(NVMESIM_BINARY, "nvmesim", "sweep", "ts-stop.sweep.json", "--out", "ts-stop-d", "--resume", "-q", "--jobs", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    std::ifstream f("ts-stop-d/manifest.json");
    seen = f.good();
    if (!seen) usleep(500);
  }
  kill(pid, SIGSTOP);
  const std::string first = slurp("ts-stop-d/manifest.json");
  REQUIRE(run_with("", "merge ts-stop-d --out ts-stop.json", "ts-stop.err") == 1);
  kill(pid, SIGCONT);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(seen);
  const ojson m = ojson::parse(first);
  // Stopped within ~0.5 ms of the manifest's appearance: the first of 4 points, 20 trials each,
  // cannot be complete yet, so all 4 (or at worst 3) are pending.
  size_t pending = 0;
  for (const auto& p : m["points"]) pending += p["status"] == "pending";
  CHECK(pending >= 3);
  const std::string err = slurp("ts-stop.err");
  CHECK(err.find(" missing (listed in ts-stop.json)") != std::string::npos);
  CHECK(err.find("nvmesim merge: point 3 (" + nvmesim::point_id(ojson{{"/controllers/0/enable_latency", "3ms"}}) + ") missing") !=
        std::string::npos);
  CHECK(err.find(") missing in shard 0/1 (ts-stop-d, Slurm array task 0 of job 7)\n") != std::string::npos);
  CHECK(err.find("nvmesim merge: resume shard 0/1 with: nvmesim sweep " + cwd() + "/ts-stop.sweep.json --out " + cwd() +
                 "/ts-stop-d --resume\n") != std::string::npos);
  (void)std::system("rm -rf ts-stop-d ts-stop.sweep.json ts-stop.err ts-stop.json ts-stop.csv");
}

TEST_CASE("the merged summary and CSV are the same bytes whatever the paths of the sweep file and folders", "[sweep][process]") {
  // The manifest's run record holds the sweep file's absolute path (merge's resume command needs
  // it); the summary and the CSV must not: the same sweep from two checkouts, one unsharded and
  // outside Slurm, the other in two shards under Slurm with spaces in its paths, merges to the same
  // bytes (with a failed point, whose error is in both).
  (void)std::system("rm -rf ts-paths-a 'ts-paths b' && mkdir -p ts-paths-a 'ts-paths b/deep er'");
  const std::string a = "ts-paths-a/s.json", b = "ts-paths b/deep er/other name.json";
  write_failing_sweep(a);
  write_failing_sweep(b);
  const std::string bq = shell_quote(b), bdir = "'ts-paths b/deep er/'";
  REQUIRE(run_with(kNoSlurmEnv, "sweep " + a + " --out ts-paths-a/d -q", "ts-paths.err") == 1);
  REQUIRE(run_with("", "merge ts-paths-a/d --out ts-paths-a/m.json", "ts-paths.err") == 1);
  REQUIRE(run_with(kSlurmEnv, "sweep " + bq + " --shard 0/2 --out " + bdir + "'shard 0' -q", "ts-paths.err") == 0);
  REQUIRE(run_with(kSlurmEnv, "sweep " + bq + " --shard 1/2 --out " + bdir + "'shard 1' -q", "ts-paths.err") == 1);
  REQUIRE(run_with("", "merge " + bdir + "'shard 1' " + bdir + "'shard 0' --out " + bdir + "'m s.json'", "ts-paths.err") == 1);
  // The manifests do name the two paths (so the bytes below are equal despite them).
  CHECK(ojson::parse(slurp("ts-paths-a/d/manifest.json"))["run"]["sweep_file"] == cwd() + "/" + a);
  CHECK(ojson::parse(slurp("ts-paths b/deep er/shard 1/manifest.json"))["run"]["sweep_file"] == cwd() + "/" + b);
  const std::string json_a = slurp("ts-paths-a/m.json"), csv_a = slurp("ts-paths-a/m.csv");
  REQUIRE(json_a.find("\"failed\"") != std::string::npos);
  CHECK(json_a == slurp("ts-paths b/deep er/m s.json"));
  CHECK(csv_a == slurp("ts-paths b/deep er/m s.csv"));
  CHECK(json_a.find("ts-paths") == std::string::npos);
  CHECK(csv_a.find("ts-paths") == std::string::npos);
  (void)std::system("rm -rf ts-paths-a 'ts-paths b' ts-paths.err");
}

TEST_CASE("a worker stopped by SIGTERM before the sweep is a stop, not a failed point", "[sweep][process]") {
  // scancel and Slurm's time limit signal every process of the job, each on its own (the
  // workers too, not through the sweep): a worker can end of its SIGTERM before the sweep has
  // read its own. Its point must be pending (merge: "missing", resumable), not "failed".
  // Here the worker's SIGTERM comes 0.5 s before the sweep's: the worker (20000 trials, >1 s a
  // point) has stopped and been reaped by then.
  spit_grid("ts-term.sweep.json", 20000);
  (void)std::system("rm -rf ts-term-d");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl(NVMESIM_BINARY, "nvmesim", "sweep", "ts-term.sweep.json", "--out", "ts-term-d", "-q", "--jobs", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_t worker = 0;
  for (int i = 0; i < 20000 && worker == 0; ++i) {
    std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    if (!(children >> worker)) worker = 0, usleep(500);
  }
  REQUIRE(worker > 0);
  kill(worker, SIGTERM);
  usleep(500000);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);  // stopped (the worker's SIGTERM alone stops the sweep)
  const ojson m = ojson::parse(slurp("ts-term-d/manifest.json"));
  for (const auto& p : m["points"]) CHECK(p["status"] == "pending");
  REQUIRE(run_with("", "merge ts-term-d --out ts-term.json", "ts-term.err") == 1);
  CHECK(slurp("ts-term.err").find(" 0 failed, 4 missing ") != std::string::npos);
  (void)std::system("rm -rf ts-term-d ts-term.sweep.json ts-term.err ts-term.json ts-term.csv");
}

TEST_CASE("sweep-slurm.sbatch merge prints its Slurm resume line after a late-starting tee", "[sweep][process]") {
  // The script used to copy merge's report through `2> >(tee LOG >&2)` and read LOG for the
  // shards to resume: bash's `wait` does not wait for that process substitution, so under load
  // LOG could still be empty and the "to resume on Slurm" line was left out. A tee that starts
  // 1 s late on PATH makes that certain; the script must not depend on it.
  write_failing_sweep("ts-sb.sweep.json");
  (void)std::system("rm -rf ts-sb-d ts-sb-bin && mkdir ts-sb-bin ts-sb-d && "
                    "printf '#!/bin/sh\\nsleep 1\\nexec /usr/bin/tee \"$@\"\\n' >ts-sb-bin/tee && chmod +x ts-sb-bin/tee");
  REQUIRE(run_with(kNoSlurmEnv, "sweep ts-sb.sweep.json --out ts-sb-d/shard-0-of-1 -q", "ts-sb.err") == 1);
  const std::string cmd = std::string(kNoSlurmEnv) + " PATH=\"$PWD/ts-sb-bin:$PATH\" NVMESIM=" + NVMESIM_BINARY + " " +
                          NVMESIM_SOURCE_DIR + "/scripts/sweep-slurm.sbatch merge ts-sb.sweep.json ts-sb-d 1 2>ts-sb.err";
  const int rc = std::system(cmd.c_str());
  CHECK((WIFEXITED(rc) ? WEXITSTATUS(rc) : -1) == 1);  // a point failed
  const std::string err = slurp("ts-sb.err");
  CHECK(err.find("nvmesim merge: resume shard 0/1 with: ") != std::string::npos);
  CHECK(err.find("sweep-slurm.sbatch: to resume on Slurm (add the -- SBATCH-OPTIONs you gave): ") != std::string::npos);
  (void)std::system("rm -rf ts-sb-d ts-sb-bin ts-sb.sweep.json ts-sb.err ts-sb-d.json");
}
