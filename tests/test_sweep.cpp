// Sweeps (DESIGN section 10): the nvmesim.sweep/1 format, expansion order, ids, shards, and the
// sweep folder: --jobs, shards, kill + --resume and failures all give the same merged bytes.
// The process tests run the nvmesim binary; none of them elaborates SystemC in this process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.hpp"
#include "core/atomic_file.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"
#include "sweep/run.hpp"
#include "sweep/sweep.hpp"

using nvmesim::InputError;
using nvmesim::test::run_nvmesim;
using nvmesim::test::cwd;
using nvmesim::test::entries;
using nvmesim::test::remove_tree;
using nvmesim::test::spit;
using nvmesim::test::slurp;
using nvmesim::load_sweep_text;
using nvmesim::Sweep;
using ojson = nlohmann::ordered_json;

namespace {

// A small valid scenario: one controller, no variants.
const char* kScenario = R"({"schema": "nvmesim.scenario/1", "name": "t", "seed": 3, "trials": 5,
  "host": {"kernel": "5.7", "hz": 250},
  "controllers": [{"handoff": "enabled", "enable_latency": "1ms", "disable_latency": "500us"}]})";

Sweep sweep_of(const std::string& rest) {
  return load_sweep_text(std::string(R"({"schema": "nvmesim.sweep/1", "scenario": )") + kScenario + ", " + rest + "}",
                         "s.json");
}







// The sweep of the done-when check, smaller: 2 kernels x 3 enable latencies over the AWS case.
std::string write_grid6(const std::string& name, int trials) {
  const std::string path = name + ".sweep.json";
  spit(path, std::string(R"({"schema": "nvmesim.sweep/1", "name": "grid6",
    "base": ")") + NVMESIM_SOURCE_DIR + R"(/scenarios/aws-c5.12xlarge.json",
    "trials": )" + std::to_string(trials) + R"(,
    "set": {"/variants": []},
    "grid": {"/host/kernel": ["5.6", "5.7"],
             "/controllers/0/enable_latency": {"logspace": ["100us", "10ms"], "count": 3}}})");
  return path;
}

}  // namespace

TEST_CASE("sweep points are numbered with the first grid axis slowest and zip fastest", "[sweep]") {
  const Sweep sw = sweep_of(R"("grid": {"/host/kernel": ["5.6", "5.7"], "/host/hz": [100, 1000]},
                               "zip": {"/controllers/0/enable_latency": ["1ms", "2ms", "3ms"],
                                       "/controllers/0/disable_latency": ["10us", "20us", "30us"]})");
  // 2 kernels x 2 HZ x 3 zip positions = 12 points; index = (kernel * 2 + hz) * 3 + zip.
  REQUIRE(sw.points.size() == 12);
  REQUIRE(sw.axes.size() == 4);
  for (size_t i = 0; i < 12; ++i) {
    const ojson& p = sw.points[i].parameters;
    CHECK(sw.points[i].index == i);
    CHECK(p["/host/kernel"] == (i / 6 == 0 ? "5.6" : "5.7"));
    CHECK(p["/host/hz"] == (i / 3 % 2 == 0 ? 100 : 1000));
    const char* en[] = {"1ms", "2ms", "3ms"};
    const char* dis[] = {"10us", "20us", "30us"};
    CHECK(p["/controllers/0/enable_latency"] == en[i % 3]);
    CHECK(p["/controllers/0/disable_latency"] == dis[i % 3]);
    // Parameters are listed grid axes first, then zip axes.
    auto it = p.begin();
    CHECK(it.key() == "/host/kernel");
  }
  // The point's scenario is the base with the parameters set; trials come from the base (5).
  const ojson sc = nvmesim::point_scenario(sw, sw.points[7]);  // kernel 5.7 (7/6=1), hz 100 (7/3%2=0), zip 1
  CHECK(sc["host"]["kernel"] == "5.7");
  CHECK(sc["host"]["hz"] == 100);
  CHECK(sc["controllers"][0]["enable_latency"] == "2ms");
  CHECK(sc["trials"] == 5);
  CHECK(sweep_of(R"("trials": 40, "grid": {"/host/hz": [100]})").base["trials"] == 40);
}

TEST_CASE("linspace and logspace expand durations and numbers", "[sweep]") {
  const Sweep a = sweep_of(R"("grid": {"/controllers/0/enable_latency": {"logspace": ["100us", "1s"], "count": 5}})");
  // 100 us * 10^(4 i / 4): 100us, 1ms, 10ms, 100ms, 1s
  std::vector<std::string> got;
  for (const auto& v : a.axes[0].values) got.push_back(v.get<std::string>());
  CHECK(got == std::vector<std::string>{"100us", "1ms", "10ms", "100ms", "1s"});
  const Sweep b = sweep_of(R"("grid": {"/controllers/0/enable_latency": {"linspace": ["1ms", "2ms"], "count": 5}})");
  got.clear();
  for (const auto& v : b.axes[0].values) got.push_back(v.get<std::string>());
  CHECK(got == std::vector<std::string>{"1ms", "1.25ms", "1.5ms", "1.75ms", "2ms"});  // steps of 0.25 ms
  const Sweep c = sweep_of(R"("grid": {"/controllers/0/enable_latency": {"logspace": ["100us", "1ms"], "count": 3}})");
  // 100 us * sqrt(10) = 316.2277... us, rounded to 6 significant digits
  CHECK(c.axes[0].values[1] == "316.228us");
  const Sweep d = sweep_of(R"("grid": {"/host/cpus": {"linspace": [2, 8], "count": 4}}, "zip": {"/seed": {"logspace": [1, 1000], "count": 4}})");
  // integers stay integers: 2, 4, 6, 8 and 1, 10, 100, 1000
  CHECK(d.axes[0].values == std::vector<ojson>{2, 4, 6, 8});
  CHECK(d.axes[1].values == std::vector<ojson>{1, 10, 100, 1000});
  CHECK(d.axes[0].values[1].is_number_integer());
  CHECK(d.points.size() == 16);
}

TEST_CASE("point ids come from the parameter values and not from the file's order", "[sweep]") {
  const Sweep a = sweep_of(R"("grid": {"/host/kernel": ["5.6", "5.7"], "/host/hz": [250, 1000]})");
  const Sweep b = sweep_of(R"("grid": {"/host/hz": [1000, 250], "/host/kernel": ["5.7", "5.6"]})");
  // FNV-1a 64 of the compact, key-sorted parameters, computed independently in Python:
  //   s = '{"/host/hz":250,"/host/kernel":"5.6"}'; h = 0xcbf29ce484222325
  //   for c in s.encode(): h = ((h ^ c) * 0x100000001b3) % 2**64      -> a66b67b1eef7357a
  // slug: last pointer tokens in pointer order (/host/hz < /host/kernel) with the values.
  CHECK(a.points[0].id == "hz_250-kernel_5.6-a66b67b1eef7357a");
  std::set<std::string> ids_a, ids_b;
  for (const auto& p : a.points) ids_a.insert(p.id);
  for (const auto& p : b.points) ids_b.insert(p.id);
  CHECK(ids_a.size() == 4);
  CHECK(ids_a == ids_b);
  CHECK(a.points[0].id != b.points[0].id);  // b lists the values in another order: other point first
  CHECK(a.id != b.id);                      // and so it is another sweep
  CHECK(a.id == sweep_of(R"("grid": {"/host/kernel": ["5.6", "5.7"], "/host/hz": [250, 1000]})").id);
}

TEST_CASE("shards partition the points", "[sweep]") {
  const Sweep sw = sweep_of(R"("grid": {"/host/hz": [100, 250, 300, 1000], "/controllers/0/enable_latency": {"linspace": ["1ms", "3ms"], "count": 5}})");
  REQUIRE(sw.points.size() == 20);
  for (uint64_t n = 1; n <= 7; ++n) {
    std::vector<int> hits(sw.points.size(), 0);
    for (uint64_t k = 0; k < n; ++k)
      for (const auto& p : sw.points)
        if (nvmesim::in_shard(p.index, nvmesim::Shard{k, n})) {
          ++hits[p.index];
          CHECK(p.index % n == k);
        }
    for (int h : hits) CHECK(h == 1);
  }
  CHECK(nvmesim::parse_shard("2/3").index == 2);
  CHECK(nvmesim::parse_shard("2/3").count == 3);
  for (const char* bad : {"3/3", "1", "/2", "a/2", "0/0", "-1/2", "1/2/3"})
    CHECK_THROWS_AS(nvmesim::parse_shard(bad), InputError);
}

TEST_CASE("sweep file errors name the file and the place", "[sweep]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(sweep_of(R"("grdi": {})"), Contains("s.json: /grdi: unknown key") && Contains("did you mean \"grid\""));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/host/hz": [100, 250, 333]})"),
                    Contains("s.json: /grid/~1host~1hz/2: must be one of 100, 250, 300, 1000"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/host/hz": [100, 250, 100]})"), Contains("/grid/~1host~1hz/2: the value 100 repeats"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/hosts/hz": [100]})"), Contains("/grid/~1hosts~1hz: the parent /hosts does not exist"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"host/hz": [100]})"), Contains("is not a JSON pointer"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/controllers/1": [{}]})"), Contains("array /controllers has 1 element"));
  CHECK_THROWS_WITH(sweep_of(R"("zip": {"/host/hz": [100, 250], "/host/kernel": ["5.6"]})"),
                    Contains("/zip/~1host~1kernel: has 1 values but /host/hz has 2"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/host": [{}], "/host/hz": [100]})"), Contains("overlaps the axis /host"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/controllers/0/enable_latency": {"logspace": ["100us", 1], "count": 3}})"),
                    Contains("/logspace: the ends must be two durations"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/controllers/0/enable_latency": {"linspace": ["0ns", "1ps"], "count": 3}})"),
                    Contains("twice after rounding"));
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/controllers/0/enable_latency": ["1ms", {"dist": "uniform", "min": "1ms", "mx": "2ms"}]})"),
                    Contains("/grid/~1controllers~10~1enable_latency/1/mx: unknown key \"mx\""));
  CHECK_THROWS_WITH(sweep_of(R"("set": {"/host/hz": 77})"), Contains("s.json: /set/~1host~1hz: must be one of"));
  CHECK_THROWS_WITH(sweep_of(R"("trials": 0)"), Contains("/trials: must be an integer from 1"));
  CHECK_THROWS_WITH(load_sweep_text(R"({"schema": "nvmesim.sweep/1"})", "s.json"), Contains("needs exactly one of \"base\""));
  CHECK_THROWS_WITH(load_sweep_text(R"({"schema": "nvmesim.sweep/1", "base": "none.json"})", "s.json", "/nonexistent"),
                    Contains("s.json: /base: cannot read the base scenario"));
  CHECK_THROWS_WITH(load_sweep_text("{\"schema\": \"nvmesim.sweep/1\",\n \"grid\": }", "s.json"), Contains("s.json:2:"));
  // An axis that every variant of the base overrides would change nothing.
  CHECK_THROWS_WITH(load_sweep_text(std::string(R"({"schema": "nvmesim.sweep/1", "base": ")") + NVMESIM_SOURCE_DIR +
                                        R"(/scenarios/aws-c5.12xlarge.json", "grid": {"/host/kernel": ["5.6"]}})",
                                    "s.json"),
                    Contains("/grid/~1host~1kernel: every variant of the base scenario patches or sets /host/kernel"));
  // The same through the variants' "set" (a pointer at or above the axis), alone or mixed with a
  // patch: the axis was run as two identical points before (issue 10 item 3's rule for sweeps).
  const std::string set_variants =
      R"({"schema": "nvmesim.sweep/1", "scenario": {"schema": "nvmesim.scenario/1", "host": {"kernel": "5.6"},
          "controllers": [{}], "variants": [{"name": "a", "set": {"/host/kernel": "5.7"}},
                                           {"name": "b", "set": {"/host": {"kernel": "6.1"}}},
                                           {"name": "c", "patch": {"host": {"kernel": "6.6"}}}]},
          "grid": {"/host/kernel": ["5.4", "5.10"]}})";
  CHECK_THROWS_WITH(load_sweep_text(set_variants, "s.json"),
                    Contains("/grid/~1host~1kernel: every variant of the base scenario patches or sets /host/kernel"));
  // One variant that leaves the kernel alone: the axis reaches it, no error.
  std::string one_free = set_variants;
  one_free.replace(one_free.find(R"("set": {"/host/kernel": "5.7"})"), 30, R"("set": {"/controllers/0/pci_id": "1c58:9999"})");
  CHECK(load_sweep_text(one_free, "s.json").points.size() == 2);
  // 1001 x 1000 points is above the limit of 100000.
  CHECK_THROWS_WITH(sweep_of(R"("grid": {"/seed": {"linspace": [0, 1000], "count": 1001}, "/trials": {"linspace": [1, 1000], "count": 1000}})"),
                    Contains("more than 100000 points"));
  // A caller (a fuzz target) may set a lower limit: 4 x 5 = 20 points is above 10.
  CHECK_THROWS_WITH(load_sweep_text(std::string(R"({"schema": "nvmesim.sweep/1", "scenario": )") + kScenario +
                                        R"(, "grid": {"/host/hz": [100, 250, 300, 1000], "/seed": {"linspace": [1, 5], "count": 5}}})",
                                    "s.json", ".", 10),
                    Contains("more than 10 points"));
}

TEST_CASE("sweep --jobs 2 equals --jobs 1 and sharded merges equal the unsharded one", "[sweep][process]") {
  const std::string sweep = write_grid6("tj", 40);
  for (const char* d : {"tj-1", "tj-2", "tj-s0", "tj-s1", "tj-t0", "tj-t1", "tj-t2"}) remove_tree(d);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tj-1 --jobs 1") == 0);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tj-2 --jobs 2") == 0);
  const auto files = entries("tj-1/points");
  REQUIRE(files.size() == 6);
  CHECK(entries("tj-2/points") == files);
  for (const auto& f : files) CHECK(slurp("tj-1/points/" + f) == slurp("tj-2/points/" + f));
  CHECK(slurp("tj-1/manifest.json") == slurp("tj-2/manifest.json"));
  CHECK(entries("tj-1") == std::vector<std::string>{"manifest.json", "points"});  // no scratch files left

  REQUIRE(run_nvmesim("sweep " + sweep + " --out tj-s0 --shard 0/2") == 0);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tj-s1 --shard 1/2 --jobs 2") == 0);
  CHECK(entries("tj-s0/points").size() == 3);
  for (int k = 0; k < 3; ++k) REQUIRE(run_nvmesim("sweep " + sweep + " --out tj-t" + std::to_string(k) + " --shard " + std::to_string(k) + "/3") == 0);
  REQUIRE(run_nvmesim("merge tj-1 --out tj-m1.json") == 0);
  const auto merged2 = nvmesim::test::run_capture("merge tj-s1 tj-s0 --out tj-m2.json");
  REQUIRE(merged2.status == 0);
  CHECK(merged2.err == "nvmesim merge: 6 points, all done, from 2 folders: wrote tj-m2.json and tj-m2.csv\n");
  REQUIRE(run_nvmesim("merge tj-t2 tj-t0 tj-t1 --out tj-m3.json") == 0);
  const std::string m1 = slurp("tj-m1.json"), c1 = slurp("tj-m1.csv");
  CHECK(slurp("tj-m2.json") == m1);
  CHECK(slurp("tj-m3.json") == m1);
  CHECK(slurp("tj-m2.csv") == c1);
  CHECK(slurp("tj-m3.csv") == c1);
  // The summary lists the 6 points in index order with their parameters and statistics.
  const ojson m = ojson::parse(m1);
  REQUIRE(m["points"].size() == 6);
  CHECK(m["points"][4]["parameters"]["/host/kernel"] == "5.7");          // index 4 = kernel 1, latency 1
  CHECK(m["points"][4]["parameters"]["/controllers/0/enable_latency"] == "1ms");
  CHECK(m["points"][4]["variants"][0]["summary"]["trials"] == 40);
  // 5.6 sleeps msleep(100) in both waits: ~216 ms; 5.7 usleep_range: ~6 ms (shared/cases/README.md).
  CHECK(m["points"][0]["variants"][0]["summary"]["probe_ms"]["p50"].get<double>() > 200);
  CHECK(m["points"][3]["variants"][0]["summary"]["probe_ms"]["p50"].get<double>() < 10);
  // CSV: header plus one row per point (one variant each).
  CHECK(std::count(c1.begin(), c1.end(), '\n') == 7);
  CHECK(c1.rfind("index,id,/host/kernel,/controllers/0/enable_latency,status,variant,trials,", 0) == 0);
  // A folder of another sweep does not merge with these.
  const std::string other = write_grid6("tj-other", 41);
  remove_tree("tj-o");
  REQUIRE(run_nvmesim("sweep " + other + " --out tj-o --shard 1/2") == 0);
  CHECK(run_nvmesim("merge tj-s0 tj-o --out tj-bad.json") == 2);
  // Results are not overwritten without --resume; a resume of a complete folder changes nothing.
  CHECK(run_nvmesim("sweep " + sweep + " --out tj-1") == 2);
  CHECK(run_nvmesim("sweep " + other + " --out tj-1 --resume") == 2);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tj-1 --resume") == 0);
  CHECK(slurp("tj-1/manifest.json") == slurp("tj-2/manifest.json"));
  for (const char* d : {"tj-1", "tj-2", "tj-s0", "tj-s1", "tj-t0", "tj-t1", "tj-t2", "tj-o"}) remove_tree(d);
  for (const char* f : {"tj-m1.json", "tj-m1.csv", "tj-m2.json", "tj-m2.csv", "tj-m3.json", "tj-m3.csv",
                        "tj.sweep.json", "tj-other.sweep.json"})
    std::remove(f);
}

TEST_CASE("a sweep killed with SIGKILL and resumed equals an uninterrupted one", "[sweep][process]") {
  const std::string sweep = write_grid6("tk", 3000);
  for (const char* d : {"tk-ref", "tk-kill", "tk-crash"}) remove_tree(d);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tk-ref --jobs 2") == 0);
  REQUIRE(run_nvmesim("merge tk-ref --out tk-ref.json") == 0);

  // A real kill: SIGKILL to the sweep once its first point is written; its workers die with it.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    execl(NVMESIM_BINARY, "nvmesim", "sweep", sweep.c_str(), "--out", "tk-kill", "--jobs", "1", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 20000; ++i) {
    bool any = false;
    for (const auto& f : entries("tk-kill/points")) any = any || f[0] != '.';
    if (any) break;
    usleep(1000);
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  // The kill must have interrupted the sweep: some but not all points complete (each point takes
  // tens of ms, the kill comes within ~1 ms of the first point file).
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
  size_t complete_before_resume = 0;
  for (const auto& f : entries("tk-kill/points")) complete_before_resume += f[0] != '.';
  REQUIRE(complete_before_resume >= 1);
  REQUIRE(complete_before_resume < 6);
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tk-kill --jobs 2 --resume") == 0);
  REQUIRE(run_nvmesim("merge tk-kill --out tk-kill.json") == 0);
  CHECK(slurp("tk-kill.json") == slurp("tk-ref.json"));
  CHECK(slurp("tk-kill.csv") == slurp("tk-ref.csv"));
  CHECK(slurp("tk-kill/manifest.json") == slurp("tk-ref/manifest.json"));

  // What a kill can leave, made on purpose: some complete points, a half-written temporary, a
  // worker's scratch files, a truncated point file, no manifest.
  REQUIRE(std::system("cp -r tk-ref tk-crash") == 0);
  const auto files = entries("tk-crash/points");
  REQUIRE(files.size() == 6);
  std::remove("tk-crash/manifest.json");
  std::remove(("tk-crash/points/" + files[1]).c_str());
  spit("tk-crash/points/." + files[2] + ".tmp.12345.0", "{\"record\":\"header\"");  // AtomicFile's name
  const std::string whole = slurp("tk-crash/points/" + files[3]);
  spit("tk-crash/points/" + files[3], whole.substr(0, whole.size() / 2));
  mkdir("tk-crash/.work", 0777);
  spit("tk-crash/.work/" + files[4].substr(0, files[4].size() - 1), "{}");
  CHECK(run_nvmesim("merge tk-crash --out tk-crash.json") == 2);  // no manifest: resume first
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tk-crash --resume") == 0);
  REQUIRE(run_nvmesim("merge tk-crash --out tk-crash.json") == 0);
  CHECK(slurp("tk-crash.json") == slurp("tk-ref.json"));
  CHECK(entries("tk-crash/points") == files);
  CHECK(entries("tk-crash") == std::vector<std::string>{"manifest.json", "points"});
  for (const char* d : {"tk-ref", "tk-kill", "tk-crash"}) remove_tree(d);
  for (const char* f : {"tk-ref.json", "tk-ref.csv", "tk-kill.json", "tk-kill.csv", "tk-crash.json", "tk-crash.csv",
                        "tk.sweep.json"})
    std::remove(f);
}

TEST_CASE("SIGTERM stops a sweep cleanly with status 143 and --resume completes it", "[sweep][process]") {
  const std::string sweep = write_grid6("tt", 20000);
  remove_tree("tt-d");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, 2);
    execl(NVMESIM_BINARY, "nvmesim", "sweep", sweep.c_str(), "--out", "tt-d", "--jobs", "1", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 20000 && entries("tt-d/points").empty(); ++i) usleep(1000);  // the first worker started
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  const int rc = WEXITSTATUS(status);
  if (rc == 143) {
    // Only complete points are left, and the manifest lists the rest as pending.
    for (const auto& f : entries("tt-d/points")) CHECK(f[0] != '.');
    const ojson m = ojson::parse(slurp("tt-d/manifest.json"));
    size_t pending = 0;
    for (const auto& p : m["points"]) pending += p["status"] == "pending";
    CHECK(pending == 6 - entries("tt-d/points").size());
    CHECK(pending > 0);
    CHECK(entries("tt-d") == std::vector<std::string>{"manifest.json", "points"});
    CHECK(run_nvmesim("merge tt-d --out tt-m.json") == 1);  // missing points
  } else {
    FAIL("the sweep ended with status " << rc << " instead of being stopped by SIGTERM (143)");
  }
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tt-d --resume") == 0);
  CHECK(entries("tt-d/points").size() == 6);
  remove_tree("tt-d");
  for (const char* f : {"tt-m.json", "tt-m.csv", "tt.sweep.json"}) std::remove(f);
}

TEST_CASE("a failing point is recorded and the others go on", "[sweep][process]") {
  // usleep_range(1000, 2000) on an idle NOHZ CPU sleeps ~2 ms a poll: a 50 ms enable latency takes
  // ~25 CSTS reads, above the limit of 10 set here, so that point's worker stops with an error;
  // 1 ms and 2 ms are ready within the first sleep (2 reads).
  spit("tf.sweep.json", std::string(R"({"schema": "nvmesim.sweep/1", "base": ")") + NVMESIM_SOURCE_DIR +
                            R"(/scenarios/aws-c5.12xlarge.json", "trials": 20,
    "set": {"/variants": [], "/host/max_polls_per_wait": 10},
    "grid": {"/controllers/0/enable_latency": ["1ms", "50ms", "2ms"]}})");
  remove_tree("tf-d");
  CHECK(run_nvmesim("sweep tf.sweep.json --out tf-d --jobs 2") == 1);
  const ojson m = ojson::parse(slurp("tf-d/manifest.json"));
  REQUIRE(m["points"].size() == 3);
  CHECK(m["points"][0]["status"] == "done");
  CHECK(m["points"][1]["status"] == "failed");
  CHECK(m["points"][2]["status"] == "done");
  CHECK(m["points"][1]["error"].get<std::string>().find("max_polls_per_wait") != std::string::npos);
  CHECK(m["points"][1]["error"].get<std::string>().find("tf-d") == std::string::npos);  // no paths in outputs
  CHECK(entries("tf-d/points").size() == 2);
  CHECK(run_nvmesim("merge tf-d --out tf-m.json") == 1);
  const std::string csv = slurp("tf-m.csv");
  CHECK(csv.find(",50ms,failed,") != std::string::npos);
  // A resume runs the failed point again (and it fails again: the result is deterministic).
  CHECK(run_nvmesim("sweep tf.sweep.json --out tf-d --resume") == 1);
  remove_tree("tf-d");
  for (const char* f : {"tf-m.json", "tf-m.csv", "tf.sweep.json"}) std::remove(f);
}

TEST_CASE("point_cost_estimate counts start-up, elaboration, trials and expected polls", "[sweep]") {
  // One controller, Linux 5.7 (poll sleep usleep_range(1000, 2000): 1 ms between CSTS reads),
  // 5 trials of the probe workload, enable latency 10 ms, disable latency 500 us (kScenario).
  // By hand, in ns: start-up 5,000,000 + elaboration 200,000 x 1 controller
  //   + 5 trials x (3,500 per controller-trial + 250 per poll x polls),
  //   polls = enable (1 + 10 ms / 1 ms = 11) + disable (1 + 0.5 ms / 1 ms = 1.5) = 12.5,
  //   so 5 x (3,500 + 3,125) = 33,125; total 5,233,125.
  const std::string text = std::string(kScenario);
  nvmesim::LoadOptions lo;
  lo.sets.push_back(nvmesim::parse_set("/controllers/0/enable_latency=\"10ms\""));
  const nvmesim::Scenario sc = nvmesim::load_scenario_text(text, "t.json", lo);
  CHECK(nvmesim::point_cost_estimate(sc) == 5'233'125.0);
  // 5.6 polls every msleep(100): enable 1 + 0.1 = 1.1 polls, disable 1 + 0.005 = 1.005, so
  // 5 x (3,500 + 250 x 2.105) = 5 x 4,026.25 = 20,131.25; total 5,220,131.25.
  lo.sets.push_back(nvmesim::parse_set("/host/kernel=\"5.6\""));
  CHECK(nvmesim::point_cost_estimate(nvmesim::load_scenario_text(text, "t.json", lo)) == Approx(5'220'131.25).epsilon(1e-12));
  // The loader's points carry it: 4 controllers cost more than 1 (elaboration and trials).
  const Sweep sw = sweep_of(R"("grid": {"/controllers/0/count": [1, 4]})");
  REQUIRE(sw.points.size() == 2);
  CHECK(sw.points[0].cost_estimate == 5'233'125.0 - 5 * 250 * 9.0);  // enable_latency 1 ms: 2 + 1.5 polls
  CHECK(sw.points[1].cost_estimate > sw.points[0].cost_estimate);
}

TEST_CASE("a sweep hands out its points largest estimate first, and the order changes no output", "[sweep][process]") {
  // The worker is a script that logs the scenario it was given, then runs nvmesim: with one
  // worker the log is the order of the points. Grid: 1, 4, 2 controllers (indices 0, 1, 2) x
  // enable latency 1 ms and 50 ms under 5.7 (1 + 1 and 1 + 50 polls): the estimate orders them
  // by controllers first (each adds elaboration and 5 trials' work), then by latency.
  const std::string sweep = "to.sweep.json";
  spit(sweep, std::string(R"({"schema": "nvmesim.sweep/1", "trials": 5, "scenario": )") + kScenario +
                  R"(, "grid": {"/controllers/0/count": [1, 4, 2], "/controllers/0/enable_latency": ["1ms", "50ms"]}})");
  const std::string log = "to.log", exe = "to-worker.sh";
  spit(exe, "#!/bin/sh\necho \"$2\" >> \"" + cwd() + "/" + log + "\"\nexec \"" +
                NVMESIM_BINARY + "\" \"$@\"\n");
  ::chmod(exe.c_str(), 0755);
  for (const char* d : {"to-1", "to-2"}) remove_tree(d);
  std::remove(log.c_str());
  const Sweep sw = nvmesim::load_sweep_file(sweep);
  REQUIRE(sw.points.size() == 6);
  nvmesim::SweepRunOptions o;
  o.out_dir = "to-1";
  o.jobs = 1;
  o.quiet = true;
  o.exe = cwd() + "/" + exe;
  std::ostringstream err;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  // Expected order of indices: 4 controllers (3: 50 ms, 2: 1 ms), 2 controllers (5, 4), 1 (1, 0).
  std::string expected;
  for (const size_t i : {3, 2, 5, 4, 1, 0}) expected += sw.points[i].id + ".json\n";
  CHECK(slurp(log) == expected);
  // The same sweep in index order (every estimate equal: the stable sort keeps the index order),
  // so that an output depending on the order would show (review: both runs below order alike).
  Sweep by_index = sw;
  for (auto& p : by_index.points) p.cost_estimate = 0;
  std::remove(log.c_str());
  o.out_dir = "to-0";
  remove_tree("to-0");
  REQUIRE(nvmesim::run_sweep(by_index, o, err) == 0);
  std::string in_order;
  for (const size_t i : {0, 1, 2, 3, 4, 5}) in_order += sw.points[i].id + ".json\n";
  CHECK(slurp(log) == in_order);
  // The same files as two workers, whose order differs (the manifest goes by index).
  REQUIRE(run_nvmesim("sweep " + sweep + " --out to-2 --jobs 2 -q") == 0);
  const auto files = entries("to-1/points");
  REQUIRE(files.size() == 6);
  CHECK(entries("to-2/points") == files);
  CHECK(entries("to-0/points") == files);
  for (const auto& f : files) {
    CHECK(slurp("to-1/points/" + f) == slurp("to-2/points/" + f));
    CHECK(slurp("to-1/points/" + f) == slurp("to-0/points/" + f));
  }
  // The manifests differ only in "run" (the CLI records the sweep file's path): points by index.
  CHECK(ojson::parse(slurp("to-1/manifest.json"))["points"] == ojson::parse(slurp("to-2/manifest.json"))["points"]);
  for (const char* d : {"to-0", "to-1", "to-2"}) remove_tree(d);
  for (const std::string& f : {sweep, log, exe}) std::remove(f.c_str());
}

TEST_CASE("sweep workers are forks that run the point without executing a binary", "[sweep][process]") {
  // With worker_main set (as nvmesim sweep sets it), no program is executed: an `exe` that does
  // not exist still gives every point, with the same files as the CLI's sweep.
  const std::string sweep = write_grid6("tf", 20);
  for (const char* d : {"tf-1", "tf-2"}) remove_tree(d);
  const Sweep sw = nvmesim::load_sweep_file(sweep);
  nvmesim::SweepRunOptions o;
  o.out_dir = "tf-1";
  o.jobs = 2;
  o.quiet = true;
  o.exe = "/nonexistent/nvmesim";
  o.worker_main = nvmesim::test::run_cli_in_process;
  std::ostringstream err;
  CHECK(nvmesim::run_sweep(sw, o, err) == 0);
  INFO(err.str());
  REQUIRE(run_nvmesim("sweep " + sweep + " --out tf-2 --jobs 1 -q") == 0);
  const auto files = entries("tf-2/points");
  REQUIRE(files.size() == 6);
  CHECK(entries("tf-1/points") == files);
  for (const auto& f : files) CHECK(slurp("tf-1/points/" + f) == slurp("tf-2/points/" + f));
  CHECK(entries("tf-1") == std::vector<std::string>{"manifest.json", "points"});  // .work removed, nothing left
  for (const char* d : {"tf-1", "tf-2"}) remove_tree(d);
  std::remove(sweep.c_str());
}

// Issue 15 item 5 (stop 27): a forked worker writes its point's scenario and checks its own outputs
// (DIR/.work/<id>.check.json), so that the sweep process, which every worker waits for, only reads
// that check back. The manifest must be the one a sweep that checks every file itself writes: an
// executed worker (no worker_main) has no check, so the sweep checks its files (the old path).
TEST_CASE("a forked worker's own check gives the manifest of a sweep that checks the files itself", "[sweep][process]") {
  const std::string sweep = write_grid6("tc", 20);
  for (const char* d : {"tc-exec", "tc-fork", "tc-nocheck", "tc-link"}) remove_tree(d);
  const Sweep sw = nvmesim::load_sweep_file(sweep);
  nvmesim::SweepRunOptions o;
  o.jobs = 2;
  o.quiet = true;
  std::ostringstream err;
  o.out_dir = "tc-exec";
  o.exe = NVMESIM_BINARY;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  const auto run_point = nvmesim::test::run_cli_in_process;
  o.out_dir = "tc-fork";
  o.exe = "/nonexistent/nvmesim";
  o.worker_main = run_point;
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  INFO(err.str());
  // A worker whose check cannot be written (a folder holds its name, in its working folder
  // DIR/.work): the sweep checks that point's files itself. Mutant: a point without a check
  // counted as failed: this fails.
  o.out_dir = "tc-nocheck";
  o.worker_main = [&](const std::vector<std::string>& argv) {
    const std::string scenario = argv.at(2);  // {"nvmesim", "run", "<id>.json", ...}
    const std::string id = scenario.substr(0, scenario.size() - 5);
    if (::mkdir((id + ".check.json").c_str(), 0755) != 0) return 99;  // (no REQUIRE in a forked child)
    return run_point(argv);
  };
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  // A link planted where the worker leaves its check (attack of stop 27): the check is not
  // written through it (the file it names stays as it was), and the sweep checks the files.
  spit("tc-victim.txt", "precious");
  const std::string victim = cwd() + "/tc-victim.txt";  // (the worker runs in DIR/.work)
  o.out_dir = "tc-link";
  o.worker_main = [&](const std::vector<std::string>& argv) {
    const std::string scenario = argv.at(2);
    const std::string id = scenario.substr(0, scenario.size() - 5);
    if (::symlink(victim.c_str(), (id + ".check.json").c_str()) != 0) return 99;
    return run_point(argv);
  };
  REQUIRE(nvmesim::run_sweep(sw, o, err) == 0);
  CHECK(slurp("tc-victim.txt") == "precious");
  std::remove("tc-victim.txt");
  const ojson m_exec = ojson::parse(slurp("tc-exec/manifest.json"));
  REQUIRE(m_exec["points"].size() == 6);
  for (const auto& p : m_exec["points"]) {
    CHECK(p["status"] == "done");
    CHECK(p["jsonl"]["bytes"].get<uint64_t>() > 0);
    CHECK(p["variants"].size() == 1);
  }
  CHECK(ojson::parse(slurp("tc-fork/manifest.json")) == m_exec);
  CHECK(slurp("tc-fork/manifest.json") == slurp("tc-exec/manifest.json"));
  CHECK(slurp("tc-nocheck/manifest.json") == slurp("tc-exec/manifest.json"));
  CHECK(slurp("tc-link/manifest.json") == slurp("tc-exec/manifest.json"));
  // The check files and the folders in their place are gone with DIR/.work.
  CHECK(entries("tc-fork") == std::vector<std::string>{"manifest.json", "points"});
  for (const char* d : {"tc-exec", "tc-fork", "tc-nocheck", "tc-link"}) remove_tree(d);
  std::remove(sweep.c_str());
}

// A forked worker that exits 0 but leaves a point file cut short is checked as before: the point
// fails with the message of an incomplete file (its check says so; the sweep does not trust the
// exit status). Mutant: a check that returns complete without reading the file: this fails.
TEST_CASE("a forked worker's check fails a point whose file it cut short", "[sweep][process]") {
  const std::string sweep = write_grid6("tcut", 20);
  remove_tree("tcut-1");
  const Sweep sw = nvmesim::load_sweep_file(sweep);
  nvmesim::SweepRunOptions o;
  o.out_dir = "tcut-1";
  o.jobs = 1;
  o.quiet = true;
  o.exe = "/nonexistent/nvmesim";
  o.worker_main = [](const std::vector<std::string>& argv) {
    std::vector<const char*> a;
    for (const auto& x : argv) a.push_back(x.c_str());
    a.push_back(nullptr);
    const int rc = nvmesim::cli_process_main(static_cast<int>(argv.size()), a.data());
    const std::string out = argv.at(argv.size() - 1);  // "../points/<id>.jsonl", the last argument
    struct stat st;  // (no REQUIRE in a forked child: a failed step fails the point another way)
    if (out.rfind("../points/", 0) != 0 || ::stat(out.c_str(), &st) != 0) return 99;
    if (::truncate(out.c_str(), st.st_size - 10) != 0) return 98;  // into the summary line
    return rc;
  };
  std::ostringstream err;
  CHECK(nvmesim::run_sweep(sw, o, err) == 1);  // points failed
  const ojson m = ojson::parse(slurp("tcut-1/manifest.json"));
  REQUIRE(m["points"].size() == 6);
  for (const auto& p : m["points"]) {
    CHECK(p["status"] == "failed");
    CHECK(p.value("error", std::string()).find("without a complete points/") != std::string::npos);
  }
  CHECK(entries("tcut-1/points").empty());  // a failed point's outputs are removed
  remove_tree("tcut-1");
  std::remove(sweep.c_str());
}

// Review of stop 24: a forked worker inherited the sweep's stream state, so after a failed write
// to the sweep's own stderr (badbit) the point's message never reached its .stderr file and the
// manifest's error had no text. Mutant: drop the std::cerr.clear() in the child: this fails.
TEST_CASE("a forked sweep worker writes its error although the sweep's std::cerr has failed", "[sweep][process]") {
  const std::string sweep = write_grid6("tb", 5);
  remove_tree("tb-1");
  const Sweep sw = nvmesim::load_sweep_file(sweep);
  nvmesim::SweepRunOptions o;
  o.out_dir = "tb-1";
  o.jobs = 1;
  o.quiet = true;
  o.exe = "/nonexistent/nvmesim";
  o.worker_main = [](const std::vector<std::string>&) {
    std::cerr << "nvmesim: error: the point failed on purpose\n" << std::flush;
    return 2;
  };
  std::ostringstream err;
  std::cerr.setstate(std::ios::badbit);  // as after a write to a full disk or a closed pipe
  const int status = nvmesim::run_sweep(sw, o, err);
  std::cerr.clear();
  CHECK(status == 1);  // points failed
  const ojson m = ojson::parse(slurp("tb-1/manifest.json"));
  REQUIRE(m["points"].size() == 6);
  for (const auto& p : m["points"]) CHECK(p.value("error", std::string()).find("the point failed on purpose") != std::string::npos);
  remove_tree("tb-1");
  std::remove(sweep.c_str());
}

TEST_CASE("AtomicFile numbers its temporaries from 0 in each process, a forked sweep worker too", "[sweep][process]") {
  // A killed worker's temporaries are removed by name, ".NAME.tmp.<pid>.<n>" for n below 5
  // (sweep/worker_pool.cpp): a worker forked from a sweep that had written files must start at 0.
  nvmesim::AtomicFile a("taf-a.txt"), b("taf-b.txt");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int rc = 1;
    {
      nvmesim::AtomicFile c("taf-c.txt");
      struct stat st;
      rc = ::stat((".taf-c.txt.tmp." + std::to_string(::getpid()) + ".0").c_str(), &st) == 0 ? 0 : 1;
    }
    _exit(rc);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

// Issue 13 (review of stop 24): a sweep axis over a host key that no boot.chain stage reads
// would give points that run alike under different labels; `run --set` refuses the same value.
// Here the Linux stage sets its own kernel, so /host/kernel is read by no stage.
TEST_CASE("sweep: an axis over a host key every chain stage overrides is refused at its value", "[sweep]") {
  using Catch::Matchers::Contains;
  // (The base gives no host.kernel: one that no stage reads is refused in the base itself.)
  const std::string chain =
      R"({"schema": "nvmesim.scenario/1", "trials": 2, "host": {}, "controllers": [{}],)"
      R"( "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux", "kernel": "5.7"}]}})";
  try {
    (void)load_sweep_text(R"({"schema": "nvmesim.sweep/1", "scenario": )" + chain +
                              R"(, "grid": {"/host/kernel": ["5.6", "6.1"]}})",
                          "s.json");
    FAIL("the sweep loaded");
  } catch (const nvmesim::InputError& e) {
    CHECK(e.source() == "s.json");
    CHECK(e.pointer() == "/grid/~1host~1kernel/0");
    CHECK_THAT(e.message(), Contains("the value at /host/kernel"));
  }
  // The same axis over a chain whose Linux stage leaves the kernel to host: accepted.
  const std::string reads =
      R"({"schema": "nvmesim.scenario/1", "trials": 2, "host": {"kernel": "5.6"}, "controllers": [{}],)"
      R"( "boot": {"chain": [{"driver": "edk2"}, {"driver": "linux"}]}})";
  CHECK(load_sweep_text(R"({"schema": "nvmesim.sweep/1", "scenario": )" + reads +
                            R"(, "grid": {"/host/kernel": ["5.6", "6.1"]}})",
                        "s.json")
            .points.size() == 2);
}
