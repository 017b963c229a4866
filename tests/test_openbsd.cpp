// The OpenBSD host driver (host/openbsd/, nvme(4)): nvme_ready reads CSTS with a 1 ms busy
// delay(1000) between reads and fails once its count, before the increment, passes CAP.TO x 500:
// CAP.TO x 500 + 1 delays and CAP.TO x 500 + 2 reads (the reference's "(+1)"); nvme_disable first
// waits RDY=1 when EN=1 and CSTS.CFS is clear; nvme_shutdown polls SHST 4000 times with a 1 ms
// delay, then disables. Facts: shared/reference/other-hosts.md (the OpenBSD / NetBSD row).
// Times are picoseconds of the simulation (trial 0 starts at 0) by tests/test_uboot.cpp's rules:
// a read issued at t arrives at t + 456094, is sampled at the first edge (a multiple of 2000) at
// or after that and not before the effect of an earlier write, and is back 488094 after the
// sample; from t = 94 (mod 2000) it takes kR = 946000. A posted write returns after kW = 7110,
// arrives 450000 later and takes effect 8000 after the edge at or after its arrival (or after the
// previous write's effect, when that is later). A read issued right after a write is sampled at
// the write's effect: edge(t + 456094) <= edge(t + 450000) + 8000.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "host_bench.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kW = 7110, kMs = 1'000'000'000;

std::vector<test::BenchTrial> openbsd(const std::string& controllers, const std::string& workload = "") {
  std::string text = test::bench_scenario("openbsd", controllers, 1);
  if (!workload.empty()) text.insert(text.size() - 1, R"(, "workload": ")" + workload + "\"");
  return test::run_bench(text);
}

int64_t edge(int64_t t) { return (t + 1999) / 2000 * 2000; }
// The end of a read issued at `t`, right after a lone write that returned at `t`.
int64_t read_after_write(int64_t t) { return edge(t + 450000) + 8000 + 488094; }

// The end of the first write of `reg` by controller `ctrl` at or after `from_ps`.
int64_t write_end(const test::BenchTrial& t, const std::string& reg, int64_t from_ps, int ctrl = 0) {
  for (const Event& e : t.events)
    if (e.kind == EventKind::mmio_write && e.ctrl == ctrl && e.reg && reg == e.reg && e.t_ps >= from_ps)
      return e.t_ps + e.dur_ps;
  FAIL("no write of " << reg);
  return 0;
}
}  // namespace

// Disabled at hand-over, instant. CAP, CAP+4 from 0: 946094 + kR = 1892094 (disable opens).
// disable: CC read (EN=0: no CSTS read, no RDY=1 wait) to 2838094; CC written, back at 2845204,
//   effect edge(3295204) + 8000 = 3304000; the RDY=0 read is sampled there, back at 3792094.
// enable: CC read to 4738094; ASQ, ASQ+4, ACQ, ACQ+4, AQA, CC back at 4745204 ... 4780754;
//   arrivals 5195204, 5202314, 5209424, 5216534, 5223644, 5230754 -> effects 5204000, 5212000,
//   5220000, 5228000, 5236000 and (edge 5232000, behind 5236000) 5244000; the RDY=1 read
//   (arriving 5236848) is sampled at the CC effect 5244000, back at 5732094.
TEST_CASE("openbsd: ready at the first read, no delay before it", "[openbsd][systemc]") {
  const auto trials = openbsd(R"({"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  CHECK(t.phase("disable").start_ps == 1892094);
  CHECK(t.phase("disable").end_ps == 3792094);
  CHECK(t.phase("disable").polls == 1);
  CHECK(t.phase("disable").sleeps == 0);
  CHECK(t.phase("enable").start_ps == 3792094);
  CHECK(t.phase("enable").end_ps == 5732094);
  CHECK(t.phase("enable").polls == 1);
  CHECK(t.phase("enable").sleeps == 0);
  CHECK(t.reads_of("CSTS") == 2);
  CHECK(t.lines.empty());
}

// Never ready, CAP.TO = 1: rdy_to = 1 x 500 = 500. Read k (k = 0, 1, ...) follows k delays of
// 1 ms; "k > 500" fails read 501: 502 reads and 501 delays, (500 + 1) ms of delay: the "(+1)".
// Read 0 ends at 5732094 (the first test); each later read is a delay and kR (from 94 mod 2000):
// 5732094 + 501 x (1 ms + kR) = 5732094 + 501473946000 = 501479678094.
TEST_CASE("openbsd: never ready with CAP.TO=1 fails after 501 delays and 502 reads, at 501479678094 ps",
          "[openbsd][systemc]") {
  const auto trials = openbsd(R"({"handoff": "disabled", "cap": {"to": 1}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.end_ps == 5732094 + 501 * (kMs + kR));
  CHECK(en.end_ps == 501'479'678'094);
  CHECK(en.polls == 502);
  CHECK(en.sleeps == 501);
  CHECK(t.lines == std::vector<std::string>{"nvme0: unable to enable controller"});
  CHECK(!t.has_phase("admin"));
}

// Handed over enabled (EN=1, RDY=1), instant: CC read (EN=1) to 2838094, CSTS read (no CFS) to
// 3784094, the RDY=1 wait's read to 4730094 (RDY=1: done), CC.EN=0 written, back at 4737204,
// effect edge(5187204) + 8000 = 5196000; the RDY=0 read is sampled there, back at 5684094.
TEST_CASE("openbsd: the disable first waits RDY=1 when EN=1 and CFS is clear", "[openbsd][systemc]") {
  const auto trials = openbsd(R"({"handoff": "enabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& dis = t.phase("disable");
  CHECK(dis.end_ps == 5684094);
  CHECK(dis.end_ps == read_after_write(1892094 + 3 * kR + kW));
  CHECK(dis.polls == 2);  // the RDY=1 wait's read and the RDY=0 wait's (the CFS check is not a wait read)
}

// All ones from 1.9 us (after CAP+4, sampled at 1.40 us: CAP.TO = 1 as given): CC reads all ones
// (EN set), CSTS all ones has CFS set: no RDY=1 wait; the CC write is dropped; the RDY=0 wait
// sees RDY=1 in every read and fails after 501 delays: 502 wait reads, 1 + 502 CSTS reads in all.
TEST_CASE("openbsd: CSTS.CFS set skips the RDY=1 wait of the disable", "[openbsd][systemc]") {
  const auto trials = openbsd(R"({"handoff": "disabled", "cap": {"to": 1}, "faults": {"all_ones": {"from": "1900ns"}}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& dis = t.phase("disable");
  CHECK(dis.polls == 502);
  CHECK(dis.sleeps == 501);
  CHECK(t.reads_of("CSTS") == 1 + 502);
  CHECK(dis.end_ps - dis.start_ps > 501 * kMs);
  CHECK(t.lines == std::vector<std::string>{"nvme0: unable to disable controller"});
}

// Shutdown: Delete I/O SQ 1 and CQ 1, CC read, CC.SHN=01b written (back at s0), then 4000 x
// (read, delay): the first read after the write ends at read_after_write(s0), the 3999 others
// take kR each (94 mod 2000 after a delay), and the 4000th delay ends the loop:
//   w = read_after_write(s0) + 3999 kR + 4000 ms.
// Then `unable to shutdown, disabling` and nvme_disable: CC read, CSTS read, the RDY=1 read
// (3 kR), CC.EN=0 written (kW), the RDY=0 read sampled at its effect: the phase ends at
// read_after_write(w + 3 kR + kW). nvme1 (shutdown latency 5 ms) completes: the read after
// 5 delays sees SHST = complete (5 ms + 5 kR after the effect): 6 reads. One after the other.
TEST_CASE("openbsd: shutdown polls SHST 4000 times every 1 ms, then disables", "[openbsd][systemc]") {
  const auto trials = openbsd(R"({"shutdown_latency": "30s"}, {"shutdown_latency": "5ms"})", "shutdown");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& s0 = t.phase("shutdown", 0);
  const int64_t w = read_after_write(write_end(t, "CC", s0.start_ps)) + 3999 * kR + 4000 * kMs;
  CHECK(s0.end_ps == read_after_write(w + 3 * kR + kW));
  CHECK(s0.polls == 4000 + 2);
  CHECK(s0.sleeps == 4000);
  const Phase& s1 = t.phase("shutdown", 1);
  CHECK(s1.start_ps >= s0.end_ps);
  CHECK(s1.polls == 6);
  CHECK(t.lines == std::vector<std::string>{"nvme0: unable to shutdown, disabling"});
}

// A reboot (workload "reboot": probe, shutdown, platform reset, probe): the second boot's attach
// is recorded as reboot_disable, reboot_enable and reboot_admin, so the summary keeps the two
// boots apart. The first boot meets the controller enabled (handoff enabled, RDY follows EN at
// once): nvme_disable's RDY=1 wait ends at its first read and the RDY=0 wait after CC.EN=0 at
// its first read: 2 polls, 0 delays. Folded with the second boot's disable (at least one more
// read) "disable" would count 3 or more polls.
TEST_CASE("openbsd: a reboot's second boot is recorded in reboot_* phases, apart in the summary",
          "[openbsd][systemc]") {
  const nlohmann::json j = test::run_to_json(
      R"({"schema": "nvmesim.scenario/1", "trials": 2, "workload": "reboot", "host": {"driver": "openbsd"},
          "controllers": [{"handoff": "enabled"}]})",
      "openbsd_reboot.json");
  const auto& v = j["variants"][0];
  for (const auto& t : v["trials"]) {
    CHECK(t["status"] == "ok");
    std::vector<std::string> names;
    for (const auto& p : t["phases"]) names.push_back(p["name"].get<std::string>());
    CHECK(names == std::vector<std::string>{"disable", "enable", "admin", "shutdown", "reboot_disable",
                                            "reboot_enable", "reboot_admin"});
    CHECK(t["phases"][4]["start_ns"].get<int64_t>() >= t["phases"][3]["end_ns"].get<int64_t>());
  }
  const auto& ph = v["summary"]["phases"];
  for (const char* name : {"disable", "enable", "admin", "shutdown", "reboot_disable", "reboot_enable", "reboot_admin"})
    CHECK(ph.contains(name));
  CHECK(ph["disable"]["polls"]["max"].get<double>() == 2);
  CHECK(ph["disable"]["sleeps"]["max"].get<double>() == 0);
}
