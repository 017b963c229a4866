// The SeaBIOS host driver (host/seabios/, src/hw/nvme.c): a cooperative yield (1 us, our
// choice) between CSTS reads, the deadline 500 ms x CAP.TO on a fine clock checked after the
// yield, CSTS.CFS tested after the yield, CC = 0 written without a short cut, a thread per
// controller. Facts: other-hosts.md, the SeaBIOS row.
// Exact times (ps, trial 0 from simulation time 0) follow tests/test_uboot.cpp's rules: a read
// issued at 94 (mod 2000) ps takes kR = 946000 and returns at 94 (mod 2000); a posted write
// returns after kW = 7110 and takes effect 8000 after the edge at or after its arrival (450000
// + 7110 after its issue), queued behind the previous write's effect; a read is sampled at the
// first edge at or after its arrival (456094 after its issue), not before an earlier write's
// effect. A yield is 1000000 ps, a multiple of the 2000 ps clock, so reads after a yield keep
// the 94 phase and take kR each.
// The probe of a controller disabled at hand-over, from 0: VS (946094), CAP, CAP+4 (2 kR, to
// 2838094: the disable phase opens); CC = 0 written at 2838094, back at 2845204, effect
// 2845204 + 450000 = 3295204 -> edge 3296000 -> 3304000; the wait's CAP read (issued 2845204,
// arriving 3301298) is sampled at the write's effect 3304000, back at 3792094; CAP+4 to
// 4738094 (the deadline starts here: timer_calc after the CAP read); the CSTS read to 5684094
// (RDY=0: the disable ends). CAP, CAP+4 (doorbell stride) to 7576094 = P; AQA, ASQ, ASQ+4, ACQ,
// ACQ+4 (5 kW) to X = 7611644 (the enable phase opens); their effects: P + 457110 = 8033204 ->
// edge 8034000 -> 8042000, then 8000 apart (each arrives 7110 after the one before, before its
// effect): 8050000, 8058000, 8066000, 8074000, and CC.EN=1's F = 8082000. The wait's CAP read
// (issued X + kW = 7618754) is sampled at F, back at 8570094; CAP+4 to S = 9516094 (the enable
// deadline's start); CSTS read 0 (issued S, sampled S + 457906 = 9974000 >= F) back at
// S + kR = 10462094.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "host_bench.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kY = 1'000'000;  // ps
constexpr int64_t kS = 9516094;                 // the enable wait's start (see above)

std::vector<test::BenchTrial> seabios(const std::string& controllers) {
  return test::run_bench(test::bench_scenario("seabios", controllers, 1));
}
}  // namespace

TEST_CASE("seabios: ready at the first read of each wait: no yield, and NN = 0 drops the controller after Identify",
          "[seabios][systemc]") {
  // The model's Identify Controller reports NN = 0: SeaBIOS gives up on a controller without
  // namespaces (silently, then the setup's failure line), status enodev, no I/O queue created.
  const auto trials = seabios(R"({"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == 2838094);
  CHECK(dis.end_ps == 5684094);
  CHECK(dis.polls == 1);
  CHECK(dis.sleeps == 0);
  const Phase& en = t.phase("enable");
  CHECK(en.start_ps == 7611644);
  CHECK(en.end_ps == kS + kR);  // 10462094
  CHECK(en.polls == 1);
  CHECK(en.sleeps == 0);
  CHECK(t.reads_of("VS") == 1);
  CHECK(t.reads_of("CAP") == 4);  // the CSS check, both waits, the doorbell stride
  // A debug-level-2 build prints nothing for the waits; the failure line is the setup's.
  CHECK(t.lines == std::vector<std::string>{"Failed to enable NVMe controller."});
  size_t identify = 0, create = 0;
  for (const Event& e : t.events) {
    if (e.kind != EventKind::admin_cmd || !e.reg) continue;
    identify += std::string(e.reg) == "identify";
    create += std::string(e.reg).find("create") != std::string::npos;
  }
  CHECK(identify == 1);
  CHECK(create == 0);
}

TEST_CASE("seabios: never ready with CAP.TO=1 fails at the first yield past 500 ms", "[seabios][systemc]") {
  // Read k (k = 0 ...) is issued at S + k (R + Y) and back at S + (k + 1) R + k Y; the yield
  // after it ends at S + (k + 1)(R + Y), and the check fails once (k + 1)(R + Y) > 500 ms:
  // m = floor(500e9 / 1946000) + 1 = 256937 + 1 = 256938 reads and yields,
  // at S + 256938 x 1946000 = 9516094 + 500001348000 = 500010864094.
  const auto trials = seabios(R"({"handoff": "disabled", "cap": {"to": 1}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 256938);
  CHECK(en.sleeps == 256938);
  CHECK(en.end_ps == 500010864094);
  CHECK(en.end_ps == kS + 256938 * (kR + kY));
  CHECK(t.lines == std::vector<std::string>{"WARNING - Timeout at nvme_wait_csts_rdy:572!",
                                            "NVMe fatal error while enabling controller",
                                            "Failed to enable NVMe controller."});
  CHECK(!t.has_phase("admin"));
}

TEST_CASE("seabios: CAP.TO=0 fails after one read and one yield", "[seabios][systemc]") {
  // max_to = 0: the first yield ends at S + R + Y = 9516094 + 1946000 = 11462094, past the
  // deadline S. The disable wait (RDY=0 at its first read) never reaches its check.
  const auto trials = seabios(R"({"handoff": "disabled", "cap": {"to": 0}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  CHECK(t.phase("disable").polls == 1);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 1);
  CHECK(en.sleeps == 1);
  CHECK(en.end_ps == 11462094);
  CHECK(t.has_line("WARNING - Timeout at nvme_wait_csts_rdy:572!"));
}

TEST_CASE("seabios: CSTS.CFS read before the yield fails the wait after it, without the timeout warning",
          "[seabios][systemc]") {
  // cfs_on_enable 1: the enable ends in CFS at F; read 0 (sampled 9974000 >= F) sees CFS=1, RDY=0:
  // yield, then the CFS test fails at S + R + Y = 11462094 (CAP.TO 30: far from the deadline).
  const auto trials = seabios(R"({"handoff": "disabled", "faults": {"cfs_on_enable": 1}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 1);
  CHECK(en.sleeps == 1);
  CHECK(en.end_ps == 11462094);
  CHECK(t.lines == std::vector<std::string>{"NVMe fatal error while enabling controller",
                                            "Failed to enable NVMe controller."});
}

TEST_CASE("seabios: all ones has RDY and CFS set: the disable wait fails at its first yield", "[seabios][systemc]") {
  // No all-ones test: CAP reads all ones (CSS bit 0 set, TO 255), CSTS all ones has RDY=1 != 0:
  // yield, then CFS: "during controller shutdown", one read, one yield.
  const auto trials = seabios(R"({"faults": {"all_ones": {}}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& dis = t.phase("disable");
  CHECK(dis.polls == 1);
  CHECK(dis.sleeps == 1);
  CHECK(t.lines == std::vector<std::string>{"NVMe fatal error during controller shutdown",
                                            "Failed to enable NVMe controller."});
  CHECK(!t.has_phase("enable"));
}

TEST_CASE("seabios: a yield between reads, the controllers' threads run side by side", "[seabios][systemc]") {
  // nvme0: enable latency 10 us: RDY=1 at F + 10 us = 18082000 (an edge). Read k of the enable
  // wait is sampled at 9974000 + k x 1946000: the first >= 18082000 is k = 5 (8108000 / 1946000
  // = 4.17), sampled 19704000, back 20192094: 6 reads, 5 yields. nvme1 (instant) is set up by its
  // own thread at the same time: its disable phase opens at 2838094 too.
  const auto trials = seabios(R"({"handoff": "disabled", "enable_latency": "10us"}, {"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);  // NN = 0 after Identify (see the first case)
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 6);
  CHECK(en.sleeps == 5);
  CHECK(en.end_ps == 20192094);
  CHECK(en.end_ps == kS + 6 * kR + 5 * kY);
  CHECK(t.phase("disable", 1).start_ps == 2838094);
  CHECK(t.phase("enable", 1).end_ps == kS + kR);
}
