// Issue 15 item 5: a sweep worker runs several points of the same controller count in one process
// and one SystemC elaboration (engine run_scenarios, cli cmd_run_batch, sweep batch_main). The
// oracle is the sweep's own contract: every output and the manifest are the bytes of one worker per
// point (max_batch_points = 1), and a point that fails or is stopped inside a batch ends as it does
// alone. Elaborations happen only in forked children: this process never elaborates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.hpp"
#include "cli/commands.hpp"
#include "support.hpp"
#include "sweep/run.hpp"
#include "sweep/sweep.hpp"

using nvmesim::test::cwd;
using nvmesim::test::entries;
using nvmesim::test::remove_tree;
using nvmesim::test::run_cli_in_process;
using nvmesim::test::run_nvmesim;
using nvmesim::test::spit;
using nvmesim::test::slurp;
using ojson = nlohmann::ordered_json;
using Committed = std::function<void(size_t)>;

namespace {

// Six points that differ in what a batch's later points could inherit from its first if the
// elaboration kept per-point state: the PCI address the driver's dmesg lines name (nvme_system
// builds each variant's functions once), HZ and the workload (shutdown after the probe), each with
// the base's two variants (5.6 and 5.7, paired deltas). One controller each: one elaboration.
std::string write_mixed_sweep(const std::string& name) {
  const std::string path = name + ".sweep.json";
  spit(path, std::string(R"({"schema": "nvmesim.sweep/1", "name": "mixed",
    "base": ")") + NVMESIM_SOURCE_DIR + R"(/scenarios/aws-c5.12xlarge.json",
    "trials": 12,
    "grid": {"/workload": ["probe", "shutdown"]},
    "zip": {"/controllers/0/pci_address": ["0000:00:04.0", "0000:00:1f.0", "0000:3b:00.0"],
            "/host/hz": [250, 1000, 100]}})");
  return path;
}

// A sweep's options as `nvmesim sweep` sets them (forked workers, no program executed), one
// worker, no progress; batching as `max_batch_points` says (1: one worker per point).
nvmesim::SweepRunOptions forked_options(const std::string& out_dir, size_t max_batch_points) {
  nvmesim::SweepRunOptions o;
  o.out_dir = out_dir;
  o.jobs = 1;
  o.quiet = true;
  o.exe = "/nonexistent/nvmesim";
  o.worker_main = run_cli_in_process;
  o.batch_main = [](const std::vector<std::vector<std::string>>& args, int& status, const Committed& committed) {
    return nvmesim::cmd_run_batch(args, std::cerr, status, committed);
  };
  o.max_batch_points = max_batch_points;
  return o;
}

// Every file of two sweep folders' points/ and their manifests, byte for byte.
void check_same_folders(const std::string& a, const std::string& b) {
  const auto files = entries(a + "/points");
  CHECK(entries(b + "/points") == files);
  for (const auto& f : files) {
    INFO(f);
    CHECK(slurp(a + "/points/" + f) == slurp(b + "/points/" + f));
  }
  CHECK(slurp(a + "/manifest.json") == slurp(b + "/manifest.json"));
}

// The batch sizes a sweep's workers ran, one line per batch, from a log the children append to.
std::vector<int> batch_sizes(const std::string& log) {
  std::vector<int> sizes;
  std::istringstream in(slurp(log));
  for (int n; in >> n;) sizes.push_back(n);
  return sizes;
}

}  // namespace

TEST_CASE("sweep batches: points run in one elaboration give the bytes of one worker per point", "[sweep][process][batch]") {
  const std::string sweep = write_mixed_sweep("tba");
  for (const char* d : {"tba-single", "tba-batch"}) remove_tree(d);
  const std::string log = cwd() + "/tba.log";
  std::remove(log.c_str());
  const nvmesim::Sweep sw = nvmesim::load_sweep_file(sweep);
  REQUIRE(sw.points.size() == 6);
  nvmesim::SweepRunOptions o = forked_options("tba-single", 1);  // one worker per point: the reference
  o.outputs.trace = true;   // the trace and dmesg of each point too: a batch writes them per point
  o.outputs.dmesg = true;
  o.batch_main = [&](const std::vector<std::vector<std::string>>& args, int& status, const Committed& committed) {
    std::ofstream(log, std::ios::app) << args.size() << "\n";
    return nvmesim::cmd_run_batch(args, std::cerr, status, committed);
  };
  std::ostringstream err;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  CHECK(batch_sizes(log).empty());
  o.out_dir = "tba-batch";
  o.max_batch_points = 256;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  INFO(err.str());
  // Six points of about 6 ms of estimated work each, one worker: the first batch takes its share
  // of the rest, 1/4 of it but at least 50 ms, so all six in one (mutant: batching off fails here).
  CHECK(batch_sizes(log) == std::vector<int>{6});
  check_same_folders("tba-single", "tba-batch");
  // Each point's dmesg names its own PCI address (mutant: the functions cached by variant index
  // alone, the later points of the batch logged the first one's address: the bytes differ above).
  const ojson m = ojson::parse(slurp("tba-batch/manifest.json"));
  REQUIRE(m["points"].size() == 6);
  for (const auto& p : m["points"]) {
    CHECK(p["status"] == "done");
    const std::string address = p["parameters"]["/controllers/0/pci_address"];
    CHECK(slurp("tba-batch/points/" + p["id"].get<std::string>() + ".dmesg").find("pci function " + address) != std::string::npos);
  }
  // The CLI's sweep batches too, with the same bytes (but the manifest's "run", which records the
  // sweep file for merge's resume hint).
  remove_tree("tba-cli");
  const nvmesim::test::CliResult cli = nvmesim::test::run_capture("sweep " + sweep + " --out tba-cli --jobs 2 --trace --dmesg");
  REQUIRE(cli.status == 0);
  // No batch ended early (each would say so: review of stop 28, a batch that always ended early
  // gave the same bytes, one point at a time).
  CHECK(cli.err.find("batch") == std::string::npos);
  for (const auto& f : entries("tba-single/points")) CHECK(slurp("tba-single/points/" + f) == slurp("tba-cli/points/" + f));
  CHECK(ojson::parse(slurp("tba-cli/manifest.json"))["points"] == m["points"]);
  CHECK(entries("tba-batch") == std::vector<std::string>{"manifest.json", "points"});  // .work removed, nothing left
  for (const char* d : {"tba-single", "tba-batch", "tba-cli"}) remove_tree(d);
  std::remove(sweep.c_str());
  std::remove(log.c_str());
}

TEST_CASE("sweep batches: a point a batch could not complete runs again alone", "[sweep][process][batch]") {
  const std::string sweep = write_mixed_sweep("tbr");
  for (const char* d : {"tbr-ref", "tbr-1", "tbr-2"}) remove_tree(d);
  const nvmesim::Sweep sw = nvmesim::load_sweep_file(sweep);
  nvmesim::SweepRunOptions o = forked_options("tbr-ref", 1);
  std::ostringstream err;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  o.max_batch_points = 256;
  // A batch's third command line names a scenario that is not there: the batch ends after two
  // points; the third runs in a worker of its own, the three after it in a new batch (which ends
  // at its own third, the sixth point, which then runs alone). Mutants: points without a check
  // left pending instead of run again: not all done; every point after the failure run alone:
  // the batch sizes are 6 only.
  const std::string log = cwd() + "/tbr.log";
  std::remove(log.c_str());
  o.out_dir = "tbr-1";
  o.quiet = false;  // the note of a batch that ended early
  o.batch_main = [&](std::vector<std::vector<std::string>> args, int& status, const Committed& committed) {
    std::ofstream(log, std::ios::app) << args.size() << "\n";
    if (args.size() >= 3) args[2][0] = "missing.json";
    return nvmesim::cmd_run_batch(args, std::cerr, status, committed);
  };
  std::ostringstream err1;
  REQUIRE(nvmesim::run_sweep(sw, o, err1) == 0);
  check_same_folders("tbr-ref", "tbr-1");
  CHECK(batch_sizes(log) == std::vector<int>{6, 3});
  INFO(err1.str());
  CHECK(err1.str().find("nvmesim: note: a worker's batch of 6 points ended after 2 (missing.json") != std::string::npos);
  CHECK(err1.str().find("runs again alone, the rest in new batches\n") != std::string::npos);
  o.quiet = true;
  // A batch that dies (a crash of ours) leaves no check: every point of it runs again alone.
  o.out_dir = "tbr-2";
  o.batch_main = [](const std::vector<std::vector<std::string>>& args, int&, const Committed&) -> size_t {
    if (args.size() > 1) std::abort();
    return 0;
  };
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  check_same_folders("tbr-ref", "tbr-2");
  // A batch that crashes after its second point: those two are done by the checks their worker
  // left as each was written, and only the four others run again (logged by the single workers).
  // Mutant: the checks written after the whole batch: the first two run again alone too.
  const std::string singles = cwd() + "/tbr-singles.log";
  std::remove(singles.c_str());
  o.out_dir = "tbr-3";
  o.worker_main = [&](const std::vector<std::string>& argv) {
    std::ofstream(singles, std::ios::app) << argv.at(2) << "\n";
    return run_cli_in_process(argv);
  };
  o.batch_main = [](const std::vector<std::vector<std::string>>& args, int& status, const Committed& committed) -> size_t {
    if (args.size() < 6) return 0;  // only the first batch, of all six
    nvmesim::cmd_run_batch({args.at(0), args.at(1)}, std::cerr, status, committed);
    std::abort();
  };
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  check_same_folders("tbr-ref", "tbr-3");
  std::istringstream ran(slurp(singles));
  std::vector<std::string> alone;
  for (std::string line; std::getline(ran, line);) alone.push_back(line);
  CHECK(alone.size() == 4);
  for (const char* d : {"tbr-ref", "tbr-1", "tbr-2", "tbr-3"}) remove_tree(d);
  std::remove(sweep.c_str());
  std::remove(log.c_str());
  std::remove(singles.c_str());
}

TEST_CASE("sweep batches: a SIGTERM in a batch stops the sweep, and --resume completes it", "[sweep][process][batch]") {
  const std::string sweep = write_mixed_sweep("tbs");
  for (const char* d : {"tbs-ref", "tbs-1"}) remove_tree(d);
  const nvmesim::Sweep sw = nvmesim::load_sweep_file(sweep);
  nvmesim::SweepRunOptions o = forked_options("tbs-ref", 1);
  std::ostringstream err;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  // The batch runs its first two points, then the worker gets a SIGTERM (as from scancel) and
  // returns as cmd_run_batch does then (the signal caught between trials, exit 143): the sweep
  // stops (143); the two points the batch completed are done, the others pending, none failed.
  // Mutant: a stopped batch's points all pending: done is 0.
  o.max_batch_points = 256;
  o.out_dir = "tbs-1";
  o.batch_main = [](const std::vector<std::vector<std::string>>& args, int& status, const Committed& committed) -> size_t {
    const size_t n = nvmesim::cmd_run_batch({args.at(0), args.at(1)}, std::cerr, status, committed);
    status = 128 + SIGTERM;
    return n;
  };
  CHECK(nvmesim::run_sweep(sw, o, err) == 128 + SIGTERM);
  const ojson m = ojson::parse(slurp("tbs-1/manifest.json"));
  size_t done = 0, pending = 0;
  for (const auto& p : m["points"]) {
    done += p["status"] == "done";
    pending += p["status"] == "pending";
  }
  CHECK(done == 2);
  CHECK(pending == 4);
  CHECK(entries("tbs-1/points").size() == 2);
  // --resume with batches that work: the same bytes as one worker per point.
  o.batch_main = forked_options("", 256).batch_main;
  o.resume = true;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  check_same_folders("tbs-ref", "tbs-1");
  for (const char* d : {"tbs-ref", "tbs-1"}) remove_tree(d);
  std::remove(sweep.c_str());
}

// cmd_run_batch alone, in a forked child (one elaboration): the second command line's output
// folder does not exist, so opening its outputs fails inside the simulation, after the first
// scenario's trials. The first is committed, with the bytes of `nvmesim run` alone; the second and
// third leave nothing, not even a temporary. Mutant: commit the first only after sc_start (and
// drop it on a later failure): the count and the file fail.
TEST_CASE("cmd_run_batch commits each scenario before the next and stops at the first failure", "[batch]") {
  const std::string dir = "tcb";
  remove_tree(dir);
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  const std::string scenario = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/aws-c5.12xlarge.json";
  const std::vector<std::vector<std::string>> args = {
      {scenario, "-n", "7", "--format", "jsonl", "-q", "--out", dir + "/a.jsonl"},
      {scenario, "-n", "7", "--format", "jsonl", "-q", "--out", dir + "/none/b.jsonl"},
      {scenario, "-n", "7", "--format", "jsonl", "-q", "--out", dir + "/c.jsonl"}};
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int status = -1;
    const size_t n = nvmesim::cmd_run_batch(args, std::cerr, status);
    _exit(status == 0 ? static_cast<int>(n) : 100 + status);
  }
  int wstatus = 0;
  REQUIRE(waitpid(pid, &wstatus, 0) == pid);
  REQUIRE(WIFEXITED(wstatus));
  CHECK(WEXITSTATUS(wstatus) == 1);  // one completed, exit status 0
  CHECK(entries(dir) == std::vector<std::string>{"a.jsonl"});
  REQUIRE(run_nvmesim("run " + scenario + " -n 7 --format jsonl -q --out " + dir + "/alone.jsonl") == 0);
  CHECK(slurp(dir + "/a.jsonl") == slurp(dir + "/alone.jsonl"));
  remove_tree(dir);
}

// Each scenario of a batch numbers its temporaries from 0, as a process of its own does: the sweep
// removes a killed worker's temporaries by name, n below 5, and a batch of many points with three
// outputs each would otherwise reach far beyond (review of stop 28: a .dmesg.tmp.<pid>.5 was left).
// A folder where the second scenario's temporary would be without the restart (.tmp.<pid>.1, after
// the first one's .0) makes that scenario fail; with the restart it uses .0 and both complete.
TEST_CASE("cmd_run_batch numbers each scenario's temporaries from 0", "[batch]") {
  const std::string dir = "tcn";
  remove_tree(dir);
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  const std::string scenario = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/aws-c5.12xlarge.json";
  const std::vector<std::vector<std::string>> args = {
      {scenario, "-n", "3", "--format", "jsonl", "-q", "--out", dir + "/a.jsonl"},
      {scenario, "-n", "3", "--format", "jsonl", "-q", "--out", dir + "/b.jsonl"}};
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::mkdir((dir + "/.b.jsonl.tmp." + std::to_string(::getpid()) + ".1").c_str(), 0755) != 0) _exit(99);
    int status = -1;
    const size_t n = nvmesim::cmd_run_batch(args, std::cerr, status);
    _exit(status == 0 ? static_cast<int>(n) : 100 + status);
  }
  int wstatus = 0;
  REQUIRE(waitpid(pid, &wstatus, 0) == pid);
  REQUIRE(WIFEXITED(wstatus));
  CHECK(WEXITSTATUS(wstatus) == 2);
  const auto files = entries(dir);
  CHECK(std::count(files.begin(), files.end(), "a.jsonl") == 1);
  CHECK(std::count(files.begin(), files.end(), "b.jsonl") == 1);
  remove_tree(dir);
}

// A SIGTERM to a batch's worker alone (Slurm signals every process of a job, each on its own):
// the worker stops between two trials, keeps the points it completed, and the sweep stops with
// 143, the other points pending (not failed, not run again). Mutant: cmd_run_batch not setting
// its exit status on a stop: the sweep runs the rest and exits 0.
TEST_CASE("sweep batches: a SIGTERM to a batch's worker stops the sweep", "[sweep][process][batch]") {
  const std::string sweep = "tbt.sweep.json";
  spit(sweep, std::string(R"({"schema": "nvmesim.sweep/1", "name": "t",
    "base": ")") + NVMESIM_SOURCE_DIR + R"(/scenarios/aws-c5.12xlarge.json",
    "trials": 20000, "set": {"/variants": []},
    "grid": {"/host/kernel": ["5.6", "5.7"], "/host/hz": [100, 250, 300, 1000]}})");
  remove_tree("tbt-d");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl(NVMESIM_BINARY, "nvmesim", "sweep", sweep.c_str(), "--out", "tbt-d", "-q", "--jobs", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // The first point of the first batch (of two or three: 1/4 of the estimated work) is written
  // (20000 trials, about 0.1-0.3 s a point): the worker is in its second point.
  const auto committed_points = [] {
    size_t n = 0;
    for (const auto& f : entries("tbt-d/points")) n += f[0] != '.';  // not a temporary
    return n;
  };
  for (int i = 0; i < 60000 && committed_points() == 0; ++i) usleep(500);
  pid_t worker = 0;
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  children >> worker;
  REQUIRE(worker > 0);
  kill(worker, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  const ojson m = ojson::parse(slurp("tbt-d/manifest.json"));
  size_t done = 0, pending = 0;
  for (const auto& p : m["points"]) {
    done += p["status"] == "done";
    pending += p["status"] == "pending";
  }
  CHECK(done >= 1);
  CHECK(pending >= 1);
  CHECK(done + pending == 8);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tbt-d --resume -q") == 0);
  CHECK(entries("tbt-d/points").size() == 8);
  remove_tree("tbt-d");
  std::remove(sweep.c_str());
}

// Attack of stop 28: a controller that a variant does not have kept the timed work of the trial
// before (here nvme1's enable, due 1.5 s after CC.EN, when Linux gave up after CAP.TO = 1, 500
// ms), and its "state ready" landed in the next variant's trial, which has only nvme0 (and waits
// 1 s before its probe, so the leftover comes due inside it). In a run
// it needed a variant with more controllers before one with fewer; a sweep's batch made it
// happen between points. Mutant: no leave_out() for the unused controllers: variant "one"'s first
// trial has an event of controller 1.
TEST_CASE("a controller a variant does not have records nothing in its trials", "[batch]") {
  const std::string dir = "tlo";
  remove_tree(dir);
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  const std::string ctrl = R"({"handoff": "disabled", "enable_latency": "1ms", "disable_latency": "1ms"})";
  spit(dir + "/s.json", R"({"schema": "nvmesim.scenario/1", "name": "leak", "trials": 2,
    "host": {"kernel": "6.6", "hz": 250, "wakeup_latency": "0ns", "init_to_probe": "1ms"},
    "controllers": [)" + ctrl + R"(, {"cap": {"to": 1}, "handoff": "disabled", "enable_latency": "1500ms"}],
    "variants": [{"name": "two", "patch": {}}, {"name": "one", "patch": {"host": {"init_to_probe": "1s"}, "controllers": [)" + ctrl + R"(]}}]})");
  REQUIRE(run_nvmesim("run " + dir + "/s.json -q --out " + dir + "/t.json --detail-trials 2") == 0);
  const ojson t = ojson::parse(slurp(dir + "/t.json"));
  REQUIRE(t["variants"].size() == 2);
  // Variant "two": nvme1 never gets ready within CAP.TO (its enable takes 1.5 s): its events are there.
  size_t two_ctrl1 = 0;
  for (const auto& e : t["variants"][0]["trials"][1]["events"]) two_ctrl1 += e["ctrl"] == 1;
  CHECK(two_ctrl1 > 0);
  for (const auto& trial : t["variants"][1]["trials"]) {
    REQUIRE(!trial["events"].empty());
    for (const auto& e : trial["events"]) CHECK(e["ctrl"] == 0);
  }
  remove_tree(dir);
}
