// --trace, --vcd and --dmesg (DESIGN section 8): golden files of a small fixed scenario, the trace
// event rules, and the round trip simulated dmesg -> `nvmesim dmesg` -> the simulated probe times.
// Runs the nvmesim binary, one process per run (SystemC allows one elaboration per process).
//
// The golden files were checked by hand (regenerate with
//   build/nvmesim run tests/golden/small.json -q --trace tests/golden/small.trace.json
//     --vcd tests/golden/small.vcd --dmesg tests/golden/small.dmesg
// and check them again when the model changes on purpose). What was checked, with the arithmetic
// from tests/golden/small.json (boot.probe_start_s 1.0, init_to_probe 1 ms, link one_way 450 ns,
// Gen3 x4, 500 MHz = 2 ns cycles, read 16 / write 4 cycles, enable_latency 1500 us, HZ 250):
// - dmesg: "[    1.000000]" driver init; "[    1.001000] ... pci function 0000:01:00.0" = 1.0 s +
//   init_to_probe 1 ms; the queues line at 1.0 s + the probe time (5.6: 109.068 ms, 5.7: 3.167 ms).
// - a CSTS read takes 946 ns: 2 x 450 ns one way + 16 cycles x 2 ns = 932 ns, plus the TLP
//   serialisation of a read request and a 4-byte completion at ~3.94 GB/s (~13 ns) and the wait for
//   the next controller clock edge; a posted write costs the host 7 ns.
// - the enable starts at 1004.773 us with the CAP re-read of 5.4+ (linux-readiness.md section 6):
//   CAP (951 ns) and CAP+4 (946 ns); the enabling CC write is issued at 1004.773 + 1.897 =
//   1006.670 us and takes effect 466 ns later (450 ns one way + the TLP + the next controller clock
//   edge + 4 cycles x 2 ns) at 1007.136 us ("state enabling", CC_EN 0->1 in the VCD at
//   #1007136000 ps); RDY=1 exactly 1500 us later at 2507.136 us (counter RDY 0->1, VCD CSTS_RDY).
// - the disable wait finds RDY=0 at its first read (handoff disabled): 1 poll, 0 sleeps.
// - 5.7: usleep_range(1000, 2000) on an idle NOHZ CPU wakes at its hard expiry: exactly 2000 us
//   (wakeup_latency 0), then the second read sees RDY=1 (3007.624 > 2507.136).
// - 5.6: msleep(100) at HZ=250 asks for 25+1 jiffies and sleeps 104-108 ms
//   (reference/linux-readiness.md section 4): 107901.239 us, ending on the same tick as before the
//   CAP re-read moved its start by 1.892 us (the probe stays 109.068 ms).
// - admin: identify 100 us, set_features 10 us, create_io_cq/sq 20 us each, each plus 928 ns of
//   SQE fetch, CQE post and clock edges; 1 I/O queue ("1/0/0 default/read/poll queues", cpus 1).
// - the VCD's host_state follows HostState: 1 init_to_probe, 2 pci_enable, 3 disable_wait,
//   5 admin_queue, 6 enable_wait, 4 sleep, 6, 7 admin_commands, then the next trial (variant 1)
//   starts at 109068332377 ps, where 5.6's probe ended; 8 (done) after the last trial.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support.hpp"
#include "tools/dmesg_reader.hpp"

using nvmesim::test::run_nvmesim;
using nvmesim::test::slurp;

namespace {
const std::string kSrc = NVMESIM_SOURCE_DIR;
const std::string kGolden = kSrc + "/tests/golden/";
const std::string kAws = kSrc + "/scenarios/aws-c5.12xlarge.json";

// The trace event rules (Chrome "Trace Event Format"), as Perfetto and chrome://tracing need them.
// Returns the problems found (empty when the trace is valid).
std::vector<std::string> trace_problems(const nlohmann::json& doc) {
  std::vector<std::string> p;
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    p.push_back("no traceEvents array");
    return p;
  }
  struct Span {
    double b, e;
  };
  std::map<std::pair<long, long>, std::vector<Span>> xs;         // complete events per track
  std::map<std::pair<long, long>, std::vector<std::string>> open; // B/E stacks per track
  std::map<std::pair<long, long>, bool> named;
  size_t i = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string at = "event " + std::to_string(i++);
    for (const char* k : {"ph", "ts", "pid", "tid"})
      if (!e.contains(k)) p.push_back(at + ": no " + k);
    if (!e.contains("ph") || !e["ph"].is_string() || !e.contains("pid") || !e.contains("tid")) continue;
    if (!e.contains("ts") || !e["ts"].is_number()) continue;
    const std::string ph = e["ph"];
    const auto track = std::make_pair(e["pid"].get<long>(), e["tid"].get<long>());
    const double ts = e["ts"].get<double>();
    if (ts < 0) p.push_back(at + ": negative ts");
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
        p.push_back(at + ": X event without a dur >= 0");
        continue;
      }
      xs[track].push_back({ts, ts + e["dur"].get<double>()});
    } else if (ph == "B") {
      open[track].push_back(e.value("name", ""));
    } else if (ph == "E") {
      if (open[track].empty()) p.push_back(at + ": E without B");
      else open[track].pop_back();
    } else if (ph == "M") {
      if (!e.contains("args") || !e["args"].is_object()) p.push_back(at + ": M event without args");
      if (e.value("name", "") == "thread_name") named[track] = true;
    } else if (ph == "C") {
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) p.push_back(at + ": C without args");
      else
        for (const auto& [k, v] : e["args"].items())
          if (!v.is_number()) p.push_back(at + ": counter " + k + " is not a number");
    } else if (ph == "i" || ph == "I") {
      if (e.contains("s") && e["s"] != "t" && e["s"] != "p" && e["s"] != "g") p.push_back(at + ": bad instant scope");
    } else {
      p.push_back(at + ": unexpected ph " + ph);
    }
  }
  for (const auto& [track, stack] : open)
    if (!stack.empty()) p.push_back("B without E on a track");
  // Complete events on one track must nest: each either inside or after the ones before it.
  for (auto& [track, spans] : xs) {
    if (!named[track]) p.push_back("track " + std::to_string(track.second) + " has slices but no thread_name");
    std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.b != b.b ? a.b < b.b : a.e > b.e;
    });
    std::vector<double> ends;
    for (const auto& s : spans) {
      while (!ends.empty() && s.b >= ends.back() - 1e-9) ends.pop_back();
      if (!ends.empty() && s.e > ends.back() + 1e-9)
        p.push_back("slices overlap without nesting on pid " + std::to_string(track.first) + " tid " +
                    std::to_string(track.second) + " at ts " + std::to_string(s.b));
      ends.push_back(s.e);
    }
  }
  return p;
}
}  // namespace

TEST_CASE("golden trace - VCD - dmesg of a small fixed scenario", "[outputs][golden]") {
  REQUIRE(run_nvmesim("run " + kGolden + "small.json -q --trace gold_t.json --vcd gold_w.vcd --dmesg gold_d.txt") == 0);
  CHECK(slurp("gold_d.txt") == slurp(kGolden + "small.dmesg"));
  CHECK(slurp("gold_t.json") == slurp(kGolden + "small.trace.json"));
  CHECK(slurp("gold_w.vcd") == slurp(kGolden + "small.vcd"));
  // Independent of the golden bytes: the hand-computed lines (see the comment at the top).
  const std::string d = slurp("gold_d.txt");
  // Each boot starts with its marker (variant and trial), then driver init at probe_start_s.
  CHECK(d.find("# nvmesim boot {\"variant\":") == 0);
  CHECK(d.find("}\n[    1.000000] initcall nvme_init") != std::string::npos);
  CHECK(d.find("[    1.001000] nvme nvme0: pci function 0000:01:00.0\n") != std::string::npos);
  CHECK(d.find("nvme nvme0: 1/0/0 default/read/poll queues") != std::string::npos);
  const std::string v = slurp("gold_w.vcd");
  CHECK(v.find("#1007136000\n1") != std::string::npos);  // CC.EN 0->1 at 1007.136 us
  CHECK(v.find("#2507136000\n1") != std::string::npos);  // RDY 0->1 1500 us later
  for (const char* f : {"gold_t.json", "gold_w.vcd", "gold_d.txt"}) std::remove(f);
}

TEST_CASE("the trace follows the trace event rules - one track per controller and host probe", "[outputs][trace]") {
  REQUIRE(run_nvmesim("run " + kAws + " --trials 3 -q --trace-trials all --trace rules_t.json") == 0);
  const auto doc = nlohmann::json::parse(slurp("rules_t.json"));
  const auto problems = trace_problems(doc);
  for (const auto& s : problems) INFO(s);
  CHECK(problems.empty());
  // Processes are the two variants; each has a host track and a device track for nvme0.
  std::map<long, std::string> procs;
  std::map<std::pair<long, long>, std::string> threads;
  size_t x = 0, c = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") procs[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "X") ++x;
    if (e["ph"] == "C") ++c;
  }
  CHECK(procs.size() == 2);
  CHECK(procs[1] == "5.6 msleep(100)");
  CHECK(threads.size() == 4);
  CHECK(threads[{1, 1}] == "host: nvme0 probe");
  CHECK(threads[{1, 2}] == "nvme0 device (ebs-root)");
  // Complete events per trial: host track 1 trial + 4 phases + 2 sleeps + 29 MMIO accesses (CSTS,
  // CAP, CAP+4, VS; CC + 2 CSTS; AQA, ASQ, ASQ+4, ACQ, ACQ+4; the enable's CAP re-read of 5.4+
  // (CAP, CAP+4), CC + 2 CSTS; 6 admin commands x 2 doorbells: identify, set features, 2 queue
  // pairs x create CQ/SQ) and 6 admin commands on the device track = 42; 3 trials x 2 variants.
  CHECK(x == 3 * 2 * 42);
  // Counters: one at each trial start plus one per state change (resetting, disabled, enabling,
  // ready) per trial and variant.
  CHECK(c == 3 * 2 * 5);
  // The bad-trace detector itself: an X without dur, and two overlapping slices, are caught.
  nlohmann::json bad = {{"traceEvents",
                         {{{"ph", "M"}, {"name", "thread_name"}, {"ts", 0}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "t"}}}},
                          {{"ph", "X"}, {"ts", 0}, {"dur", 10}, {"pid", 1}, {"tid", 1}},
                          {{"ph", "X"}, {"ts", 5}, {"dur", 10}, {"pid", 1}, {"tid", 1}},
                          {{"ph", "X"}, {"ts", 5}, {"pid", 1}, {"tid", 1}},
                          {{"ph", "B"}, {"ts", 5}, {"pid", 1}, {"tid", 2}}}}};
  CHECK(trace_problems(bad).size() == 3);
  std::remove("rules_t.json");
}

TEST_CASE("trace trial selection - slots line up across variants", "[outputs][trace]") {
  REQUIRE(run_nvmesim("run " + kAws + " --trials 4 -q --trace-trials 1,3 --trace sel_t.json") == 0);
  const auto doc = nlohmann::json::parse(slurp("sel_t.json"));
  std::map<long, std::vector<double>> starts;  // pid -> trial slice starts
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "trial") starts[e["pid"]].push_back(e["ts"]);
  REQUIRE(starts[1].size() == 2);
  CHECK(starts[1] == starts[2]);  // trial 1 and 3 begin at the same time in both variants
  CHECK(starts[1][0] == 0.0);
  // Slot 2 starts after the longest trial 1 (5.6: 215-218 ms) plus a tenth of it.
  CHECK(starts[1][1] > 215000 * 1.1);
  CHECK(starts[1][1] < 219000 * 1.1);
  CHECK(run_nvmesim("run " + kAws + " --trials 2 -q --trace-trials 3-1 --trace sel_t.json") == 2);
  std::remove("sel_t.json");
}

TEST_CASE("simulated dmesg read back by nvmesim dmesg gives the simulated probe times", "[outputs][dmesg]") {
  REQUIRE(run_nvmesim("run " + kAws + " --trials 20 -q --detail-trials 0 --out rt.json --dmesg rt.txt") == 0);
  const auto tl = nlohmann::json::parse(slurp("rt.json"));
  const auto parse = nvmesim::parse_dmesg_text(slurp("rt.txt"), "rt.txt");
  REQUIRE(parse.intervals.size() == 40);
  size_t i = 0;
  for (const auto& v : tl["variants"])
    for (const auto& t : v["trials"]) {
      // Driver init prints at 0.537088 s exactly; printk truncates the queues line to whole us:
      // the interval is the probe time truncated to microseconds.
      const int64_t probe_ns = t["probe_ns"];
      CHECK(parse.intervals[i].end_ns - parse.intervals[i].start_ns == probe_ns / 1000 * 1000);
      CHECK(parse.intervals[i].ctrl == "nvme0");
      ++i;
    }
  std::remove("rt.json");
  std::remove("rt.txt");
}

TEST_CASE("trace rules hold with three controllers probing in parallel", "[outputs][trace]") {
  const std::string reload = kSrc + "/scenarios/reload-32q.json";
  REQUIRE(run_nvmesim("run " + reload + " --trials 2 -q --set /controllers/0/count=3 --trace-trials all --trace par_t.json") == 0);
  const auto doc = nlohmann::json::parse(slurp("par_t.json"));
  const auto problems = trace_problems(doc);
  for (const auto& s : problems) INFO(s);
  CHECK(problems.empty());
  size_t threads = 0;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
  CHECK(threads == 2 * 3 * 2);  // 2 variants x 3 controllers x (host probe + device)
  std::remove("par_t.json");
}

TEST_CASE("nvmesim dmesg --empirical output drives a scenario parameter", "[outputs][dmesg]") {
  const std::string logs = std::string(NVMESIM_SHARED_DIR) + "/cases/reload-32q-msleep100.dmesg";
  REQUIRE(std::system((std::string(NVMESIM_BINARY) + " dmesg " + logs +
                       " --from nvme_init --to 'pci function' --empirical > emp.json 2>/dev/null").c_str()) == 0);
  const std::string emp = slurp("emp.json");
  // nvme_init -> pci function in the five reloads: 714.458501 - 714.456099 = 2.402 ms, ...
  CHECK(emp == "{\"dist\":\"empirical\",\"samples\":[\"2402000ns\",\"3267000ns\",\"2242000ns\",\"2320000ns\","
               "\"2586000ns\"]}\n");
  const std::string reload = kSrc + "/scenarios/reload-32q.json";
  CHECK(run_nvmesim("validate " + reload) == 0);
  CHECK(run_nvmesim("run " + reload + " --trials 3 -q --set '/host/init_to_probe=" + emp.substr(0, emp.size() - 1) + "'") == 0);
  std::remove("emp.json");
}

TEST_CASE("dmesg output prints the release's failure messages", "[outputs][dmesg]") {
  // A controller that never becomes ready, CAP.TO = 1 (500 ms): the enable wait gives up at its
  // deadline and the probe is removed with -ENODEV (-19). 5.6 prints the plain message, 5.7 adds
  // CSTS (reference/linux-readiness.md section 1).
  REQUIRE(run_nvmesim("run " + kAws + " --trials 1 -q --set '/controllers/0/faults={\"never_ready\":true}' "
              "--set /controllers/0/cap/to=1 --dmesg fail_d.txt") == 0);
  const std::string d = slurp("fail_d.txt");
  CHECK(d.find("] nvme nvme0: Device not ready; aborting initialisation\n") != std::string::npos);
  CHECK(d.find("] nvme nvme0: Device not ready; aborting initialisation, CSTS=0x0\n") != std::string::npos);
  CHECK(d.find("] nvme nvme0: Removing after probe failure status: -19\n") != std::string::npos);
  CHECK(d.find("default/read/poll queues") == std::string::npos);
  std::remove("fail_d.txt");
}
