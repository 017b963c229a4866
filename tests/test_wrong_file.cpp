// A command given another command's file says what the file is and which command takes it
// (issue 10 item 8; issue 16 K4: `run SWEEP.json` said "unknown key base; did you mean name").
// Runs the binary (NVMESIM_BINARY).
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "support.hpp"

using nvmesim::test::slurp;

namespace {

const std::string kSrc = NVMESIM_SOURCE_DIR;
const std::string kScenario = kSrc + "/scenarios/aws-c5.12xlarge.json";
const std::string kSweep = kSrc + "/scenarios/sweeps/enable-latency-vs-kernel-hz.json";
const std::string kLog = std::string(NVMESIM_SHARED_DIR) + "/cases/reload-32q-msleep100.dmesg";

// Runs `nvmesim ARGS`; returns the exit status and stderr.
std::pair<int, std::string> run_err(const std::string& args) {
  static int n = 0;  // each test case is a process of its own, running beside the others
  const std::string e = "wrongfile." + std::to_string(::getpid()) + "." + std::to_string(n++) + ".err";
  const int rc = std::system((std::string(NVMESIM_BINARY) + " " + args + " >/dev/null 2>" + e).c_str());
  std::string err = slurp(e);
  std::remove(e.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, err};
}

void expect(const std::string& args, const std::string& says) {
  INFO("nvmesim " << args);
  const auto [rc, err] = run_err(args);
  CHECK(rc == 2);
  CHECK_THAT(err, Catch::Contains(says));
}

}  // namespace

TEST_CASE("run - sweep - validate - dmesg on another command's file say what it is and who takes it", "[cli][kinds]") {
  expect("run " + kSweep, "this is a sweep file (nvmesim.sweep/1), not a scenario; run it with 'nvmesim sweep " + kSweep);
  expect("sweep " + kScenario + " --out wrongfile_sw", "this is a scenario file (nvmesim.scenario/1), not a sweep file; "
                                                        "run it with 'nvmesim run " + kScenario + "'");
  expect("run " + kLog, "this is a kernel log, not a scenario; read it with 'nvmesim dmesg " + kLog + "'");
  expect("validate " + kLog, "this is a kernel log, not a scenario or sweep file");
  expect("sweep " + kLog + " --out wrongfile_sw", "this is a kernel log, not a sweep file");
  expect("dmesg " + kScenario, "this is a scenario file (nvmesim.scenario/1), not a kernel log; run it with");
  expect("dmesg " + kSweep, "this is a sweep file (nvmesim.sweep/1), not a kernel log");
  // Outputs given back as inputs.
  REQUIRE(nvmesim::test::run_nvmesim("run --trials 2 -q --out wrongfile_run.json") == 0);
  expect("run wrongfile_run.json", "this is a run's timeline (nvmesim.timeline/1, written by nvmesim run --out), not a "
                                   "scenario; plot it with scripts/plot_probe.py");
  expect("validate wrongfile_run.json", "this is a run's timeline");
  expect("merge wrongfile_run.json --out wrongfile_m.json", "this is a run's timeline");
  std::remove("wrongfile_run.json");
  struct stat st {};
  CHECK(::stat("wrongfile_sw", &st) != 0);  // nothing was created
}

TEST_CASE("merge on a folder that does not exist or is not a sweep folder says so", "[cli][kinds]") {
  expect("merge wrongfile_nonexistent --out wrongfile_m.json",
         "wrongfile_nonexistent: no such folder; merge takes the folders that 'nvmesim sweep SWEEP.json --out DIR' wrote");
  ::mkdir("wrongfile_plain", 0755);
  expect("merge wrongfile_plain --out wrongfile_m.json",
         "wrongfile_plain: not a sweep folder (it has neither manifest.json nor points/)");
  ::rmdir("wrongfile_plain");
  expect("merge " + kScenario + " --out wrongfile_m.json", "this is a scenario file (nvmesim.scenario/1), not a sweep folder");
}

TEST_CASE("the kind is the file's own top-level schema - not a nested scenario's", "[cli][kinds]") {
  // A sweep whose inline scenario (with its own schema) and a comment come before its schema.
  std::ofstream("wrongfile_nested.json")
      << "{\"scenario\": {\"schema\": \"nvmesim.scenario/1\", \"controllers\": [{}]},\n"
         " /* \"schema\": \"nvmesim.timeline/1\" */ \"schema\": \"nvmesim.sweep/1\", \"grid\": {\"/seed\": [1, 2]}}\n";
  const auto [rc, err] = run_err("validate wrongfile_nested.json");
  CHECK(rc == 0);
  CHECK(err.empty());
  expect("run wrongfile_nested.json", "this is a sweep file (nvmesim.sweep/1), not a scenario");
  std::remove("wrongfile_nested.json");
}

// Trial selections that select nothing (issue 10 item 8): on main each of these exits 0 and
// writes an empty trace/log, or nothing at all. 3 trials per variant: trials 0-2 exist.
TEST_CASE("run: trace and dmesg trial selections selecting no trial, or without their output, are errors", "[cli]") {
  const std::string run = "run " + kScenario + " --trials 3 -q ";
  const std::string p = "selno." + std::to_string(::getpid());
  expect(run + "--trace " + p + ".t.json --trace-trials 5-9", "--trace-trials 5-9: selects no trial of this run "
                                                             "(3 per variant: trials 0-2)");
  expect(run + "--trace " + p + ".t.json --trace-trials 3", "selects no trial");
  expect(run + "--trace " + p + ".t.json --trace-trials none", "--trace-trials none: selects no trial");
  expect(run + "--dmesg " + p + ".d.txt --dmesg-trials 3,4", "--dmesg-trials 3,4: selects no trial");
  expect(run + "--trace-trials 0", "--trace-trials 0: selects trials for --trace, which is not given");
  expect(run + "--dmesg-trials all", "--dmesg-trials all: selects trials for --dmesg, which is not given");
  struct stat st;
  CHECK(::stat((p + ".t.json").c_str(), &st) != 0);  // nothing half-written
  CHECK(::stat((p + ".d.txt").c_str(), &st) != 0);
  // The last trial is a selection (boundary: 2 < 3), and so is a list reaching past the end.
  CHECK(nvmesim::test::run_nvmesim(run + "--trace " + p + ".t.json --trace-trials 2") == 0);
  CHECK(nvmesim::test::run_nvmesim(run + "--dmesg " + p + ".d.txt --dmesg-trials 2-100") == 0);
  std::remove((p + ".t.json").c_str());
  std::remove((p + ".d.txt").c_str());
}

TEST_CASE("run: detail-trials N without a json timeline to keep them is an error", "[cli]") {
  const std::string run = "run " + kScenario + " --trials 2 -q ";
  const std::string p = "detno." + std::to_string(::getpid());
  expect(run + "--detail-trials 5", "--detail-trials 5: events and dmesg lines are kept only in a json timeline, "
                                    "and this run writes none (no --out)");
  expect(run + "--detail-trials 1 --out " + p + ".jsonl", "this run writes jsonl to " + p + ".jsonl");
  expect(run + "--detail-trials 1 --out " + p + ".json --format jsonl", "writes jsonl");
  struct stat st;
  CHECK(::stat((p + ".jsonl").c_str(), &st) != 0);
  // 0 asks for no events (allowed anywhere); N with --out F.json is what the option is for.
  CHECK(nvmesim::test::run_nvmesim(run + "--detail-trials 0") == 0);
  CHECK(nvmesim::test::run_nvmesim(run + "--detail-trials 1 --out " + p + ".json") == 0);
  std::remove((p + ".json").c_str());
}
