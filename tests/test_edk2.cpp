// The EDK2 host driver (host/edk2/, NvmExpressDxe): a 1 ms Stall before every CSTS read,
// max(CAP.TO, 1) x 500 iterations, CC.EN=0 written without a short cut, a PassThru whose CQE has
// SCT or SC set is EFI_DEVICE_ERROR. Facts: the EDK2 section of the host facts (brief), cases
// E1, E2.
// Notation: R = one CSTS read round trip = 0.944-0.946 us (2 x 450 ns + 2 x 6.094 ns + 32 ns +
// 0..2 ns); w = a posted write, ~7 ns for the host. Stall(1000) is exact (udelay: no lateness).
// Exact times (ps, trial 0 from simulation time 0) follow tests/test_uboot.cpp's rules.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "host_bench.hpp"

using namespace nvmesim;

namespace {
std::vector<test::BenchTrial> edk2(const std::string& controller, int trials = 3) {
  return test::run_bench(test::bench_scenario("edk2", controller, trials));
}

double dur_ns(const Phase& p) { return static_cast<double>(p.end_ps - p.start_ps) / 1000.0; }

constexpr double kRMin = 944.0, kRMax = 946.0, kWMax = 10.0;  // ns
}  // namespace

TEST_CASE("edk2: a stall before every read, even on an instant device (case E1)", "[edk2][systemc]") {
  // Disabled at hand-over, instant: disable = CC read + CC write (EN=0 written anyway) + Stall
  // 1 ms + 1 read = 1 ms + 2R + w; enable = CC write + Stall 1 ms + 1 read = 1 ms + R + w.
  // Trial 0 to the picosecond: CAP, CAP+4 from 0 end at 1892094 (disable opens); CC read back
  // at 2838094; CC write back at 2845204 (effect at 3304000); Stall to 1002845204; the read
  // arrives 1003301298, is sampled at the edge 1003302000, back at 1003790094. Five queue
  // registers (5 x 7110) to 1003825644 (enable opens); CC.EN=1 back at 1003832754, its effect
  // (RDY=1) queued behind the five writes' (tests/test_uboot.cpp) at 1004296000; Stall to
  // 2003832754; the read arrives 2004288848, sampled 2004290000, back at 2004778094.
  const auto trials = edk2(R"({"handoff": "disabled"})");
  CHECK(trials[0].phase("disable").start_ps == 1892094);
  CHECK(trials[0].phase("disable").end_ps == 1003790094);
  CHECK(trials[0].phase("enable").start_ps == 1003825644);
  CHECK(trials[0].phase("enable").end_ps == 2004778094);
  for (const auto& t : trials) {
    CHECK(t.status == ProbeStatus::ok);
    const Phase& dis = t.phase("disable");
    CHECK(dis.polls == 1);
    CHECK(dis.sleeps == 1);
    CHECK(dur_ns(dis) >= 1e6 + 2 * kRMin);
    CHECK(dur_ns(dis) <= 1e6 + 2 * kRMax + kWMax);
    const Phase& en = t.phase("enable");
    CHECK(en.polls == 1);
    CHECK(en.sleeps == 1);
    CHECK(dur_ns(en) >= 1e6 + kRMin);
    CHECK(dur_ns(en) <= 1e6 + kRMax + kWMax);
    CHECK(t.has_line("NVMe controller is enabled with status [Success]."));
    CHECK(t.has_line("NvmExpressDriverBindingStart: end successfully"));
  }
}

TEST_CASE("edk2: CAP.TO=0 counts as 1: 500 x (1 ms + R) = 500.5 ms, then [Time out] (case E2)", "[edk2][systemc]") {
  // N = max(0, 1) x 500 = 500 iterations, each Stall 1 ms + a read that sees RDY=0:
  // enable = w + 500 x (1 ms + R) = 500 ms + 500R + w = 500.472-500.473 ms (+ w).
  for (const auto& t : edk2(R"({"handoff": "disabled", "cap": {"to": 0}, "enable_latency": "10s"})")) {
    CHECK(t.status == ProbeStatus::enodev);
    const Phase& en = t.phase("enable");
    CHECK(en.polls == 500);
    CHECK(en.sleeps == 500);
    CHECK(dur_ns(en) >= 500e6 + 500 * kRMin);
    CHECK(dur_ns(en) <= 500e6 + 500 * kRMax + kWMax);
    CHECK(t.has_line("NVMe controller is enabled with status [Time out]."));
    CHECK(t.has_line("NvmExpressDriverBindingStart: end with Time out"));
  }
}

TEST_CASE("edk2: an Identify with an error status ends DriverBindingStart with Device Error", "[edk2][systemc]") {
  // NvmExpressPassThru: SCT or SC not 0 is EFI_DEVICE_ERROR; NvmeControllerInit returns it at
  // Identify Controller, before any I/O queue is created.
  for (const auto& t : edk2(R"({"faults": {"identify_status": 6}})", 1)) {
    CHECK(t.status == ProbeStatus::eio);
    CHECK(t.has_line("NvmExpressDriverBindingStart: end with Device Error"));
    CHECK(!t.has_line("end successfully"));
  }
}
