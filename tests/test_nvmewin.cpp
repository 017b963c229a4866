// The Windows community driver (host/nvmewin/): a 5 ms stall after each CSTS read that is not
// ready, PollMax = max(CAP.TO, 1) x 100 polls, so a never-ready controller fails after PollMax
// reads and PollMax stalls. Facts: other-hosts.md, the nvmewin row.
// Exact times (ps, trial 0 from simulation time 0) follow tests/test_uboot.cpp's rules (see
// tests/test_seabios.cpp's header); 5 ms is a multiple of the 2000 ps clock, so reads after a
// stall take kR each. The probe of a controller disabled at hand-over: CAP, CAP+4 from 0 (to
// 1892094: the disable phase opens); CC read to 2838094; CC with EN cleared back at 2845204
// (effect 3304000); the CSTS read is sampled at the effect, back at 3792094 = P (RDY=0). AQA ...
// ACQ+4 to X = P + 5 kW = 3827644 (the enable phase opens); CC.EN=1's effect F = 4298000 (as in
// tests/test_uboot.cpp); read 0 (issued 3834754) is sampled at F and back at t0 = 4786094; read
// k >= 1 is issued at t0 + k x 5 ms + (k - 1) R and sampled 457906 later.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "host_bench.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kStall = 5'000'000'000;  // ps
constexpr int64_t kT0 = 4786094;

std::vector<test::BenchTrial> nvmewin(const std::string& controllers) {
  return test::run_bench(test::bench_scenario("nvmewin", controllers, 1));
}
}  // namespace

TEST_CASE("nvmewin: ready at the first read of each wait: no stall", "[nvmewin][systemc]") {
  const auto trials = nvmewin(R"({"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == 1892094);
  CHECK(dis.end_ps == 3792094);
  CHECK(dis.polls == 1);
  CHECK(dis.sleeps == 0);
  const Phase& en = t.phase("enable");
  CHECK(en.start_ps == 3827644);
  CHECK(en.end_ps == kT0);
  CHECK(en.polls == 1);
  CHECK(en.sleeps == 0);
  CHECK(t.lines.empty());
}

TEST_CASE("nvmewin: CAP.TO=0 counts as 1: 100 reads and 100 stalls of 5 ms", "[nvmewin][systemc]") {
  // PollMax = max(0, 1) x 500 ms / 5 ms = 100: read 99 ends at t0 + 99 (5 ms + R), its stall (the
  // 100th) at t0 + 100 x 5 ms + 99 R = 4786094 + 500000000000 + 93654000 = 500098440094.
  const auto trials = nvmewin(R"({"handoff": "disabled", "cap": {"to": 0}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 100);
  CHECK(en.sleeps == 100);
  CHECK(en.end_ps == 500098440094);
  CHECK(en.end_ps == kT0 + 100 * kStall + 99 * kR);
  CHECK(t.lines == std::vector<std::string>{"nvme: NVMeWaitOnReady: CSTS.RDY did not become 1 after 100 polls of 5 ms"});
  CHECK(!t.has_phase("admin"));
}

TEST_CASE("nvmewin: a 12 ms enable is seen at the read after the third 5 ms stall", "[nvmewin][systemc]") {
  // RDY=1 at F + 12 ms = 12004298000. Read 2 is sampled at t0 + 10 ms + R + 457906 =
  // 10006190000 (not ready), read 3 at t0 + 15 ms + 2R + 457906 = 15007136000 (ready), back at
  // 15007624094: 4 reads, 3 stalls.
  const auto trials = nvmewin(R"({"handoff": "disabled", "enable_latency": "12ms"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 4);
  CHECK(en.sleeps == 3);
  CHECK(en.end_ps == 15007624094);
  CHECK(en.end_ps == kT0 + 3 * kStall + 3 * kR);
}

TEST_CASE("nvmewin: CAP.TO=2 allows 200 polls", "[nvmewin][systemc]") {
  // PollMax = 2 x 100 = 200: t0 + 200 x 5 ms + 199 R = 4786094 + 1000000000000 + 188254000 =
  // 1000193040094.
  const auto trials = nvmewin(R"({"handoff": "disabled", "cap": {"to": 2}, "faults": {"never_ready": true}})");
  const Phase& en = trials[0].phase("enable");
  CHECK(en.polls == 200);
  CHECK(en.sleeps == 200);
  CHECK(en.end_ps == 1000193040094);
  CHECK(trials[0].has_line("after 200 polls of 5 ms"));
}
