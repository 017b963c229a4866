// The OpenVMM / OpenHCL host driver (host/openvmm/): user_driver's Backoff between CSTS reads
// (250 yields, then 250 sleeps of 1 ms, then 15 ms sleeps), release "new": the ready timeout
// CAP.TO x 500 ms with a 3 s floor when TO = 0 (Instant::now() >= deadline, checked before the
// back-off, the clock read before the CAP read); release "old": no timeout. Facts:
// other-hosts.md, the OpenVMM row.
// Exact times (ps, trial 0 from simulation time 0) follow tests/test_uboot.cpp's rules (see
// tests/test_seabios.cpp's header for them in short); a yield is 1000000 ps (our choice), 1 ms
// and 15 ms are multiples of the 2000 ps clock, so reads after a back-off take kR each. The
// probe of a controller disabled at hand-over: CAP, CAP+4 from 0 (to 1892094: the disable phase
// opens); CC read to 2838094; CC with EN cleared back at 2845204 (effect 3304000); CAP (sampled
// at the effect, back 3792094), CAP+4 (4738094); CSTS to 5684094 = P (RDY=0). AQA ... ACQ+4 to
// X = P + 5 kW = 5719644 (the enable phase opens); effects from P + 457110 = 6141204 -> edge
// 6142000 -> 6150000, then 8000 apart to CC.EN=1's F = 6190000. CC.EN=1 back at S = 5726754 (the
// clock read: the deadline's start); CAP (issued S, sampled at F, back 6678094), CAP+4 (7624094);
// read 0 issued 7624094, sampled 8082000, back at t0 = 8570094; read k >= 1 is issued at the end
// of back-off k - 1 and sampled 457906 later.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "host/timers/sleep_policy.hpp"
#include "host_bench.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kY = 1'000'000, kMs = 1'000'000'000;  // ps
constexpr int64_t kT0 = 8570094;

std::vector<test::BenchTrial> openvmm(const std::string& controllers, const std::string& release = "new") {
  return test::run_bench(test::bench_scenario("openvmm", controllers, 1, R"("release": ")" + release + "\""));
}
}  // namespace

TEST_CASE("openvmm: the back-off is 250 yields, 250 sleeps of 1 ms, then 15 ms sleeps", "[openvmm]") {
  SleepPolicy b = SleepPolicy::openvmm_backoff(0, 1000);
  int64_t sum = 0;
  for (int n = 0; n < 600; ++n) {
    const int64_t want = n < 250 ? 1'000'000 : n < 500 ? 1'000'000'000 : 15'000'000'000;
    CHECK(b.requested_ps() == want);
    CHECK(b.end_ps(TickClock(1000, 0, 0), TimerSettings{}, TimerRules{}, 7, 0.5) == 7 + want);
    sum += b.requested_ps();
    b = b.next_in_wait(1);
  }
  // 250 x 1 us + 250 x 1 ms + 100 x 15 ms = 0.25 ms + 250 ms + 1500 ms = 1750.25 ms.
  CHECK(sum == 1'750'250'000'000);
  CHECK(!b.schedules());
  CHECK(SleepPolicy::openvmm_backoff(UINT32_MAX, 1000).next_in_wait(1).a() == UINT32_MAX);
}

TEST_CASE("openvmm: ready at the first read of each wait", "[openvmm][systemc]") {
  const auto trials = openvmm(R"({"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == 1892094);
  CHECK(dis.end_ps == 5684094);
  CHECK(dis.polls == 1);
  const Phase& en = t.phase("enable");
  CHECK(en.start_ps == 5719644);
  CHECK(en.end_ps == kT0);
  CHECK(en.polls == 1);
  CHECK(en.sleeps == 0);
  CHECK(t.lines.empty());
}

TEST_CASE("openvmm new: never ready with CAP.TO=1 fails at the first check at or past 500 ms", "[openvmm][systemc]") {
  // Read k ends at t0 + B(k) + k R, B(k) the first k back-offs; the check is elapsed since S
  // >= 500 ms. 250 yields and 250 ms of sleeps bring read 500 to t0 + 250.25 ms + 500 R =
  // 250.82 ms (+ t0 - S); each 15 ms sleep adds 15 ms + R: read 517 ends at t0 + 0.25 ms + 250 ms
  // + 17 x 15 ms + 517 R = 8570094 + 505250000000 + 489082000 = 505747652094, 505.74 ms after
  // S (read 516 ended at 490.7 ms: under 500). 518 reads, 517 back-offs.
  const auto trials = openvmm(R"({"handoff": "disabled", "cap": {"to": 1}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 518);
  CHECK(en.sleeps == 517);
  CHECK(en.end_ps == 505747652094);
  CHECK(en.end_ps == kT0 + 250 * kY + 250 * kMs + 17 * 15 * kMs + 517 * kR);
  CHECK(t.lines ==
        std::vector<std::string>{"nvme_driver: 0000:04:00.0: controller did not become ready within 500 ms (csts 0x0)"});
}

TEST_CASE("openvmm new: CAP.TO=0 waits the 3 s floor", "[openvmm][systemc]") {
  // 3000 ms: read k ends t0 + 250.25 ms + (k - 500) x 15 ms + k R for k >= 500; the first at or
  // past 3 s after S is k = 684: t0 + 250.25 ms + 184 x 15 ms + 684 R = 8570094 + 3010250000000 +
  // 647064000 = 3010905634094. 685 reads, 684 back-offs.
  const auto trials = openvmm(R"({"handoff": "disabled", "cap": {"to": 0}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 685);
  CHECK(en.sleeps == 684);
  CHECK(en.end_ps == 3010905634094);
  CHECK(t.has_line("controller did not become ready within 3000 ms (csts 0x0)"));
}

TEST_CASE("openvmm: a 2 ms enable ends in the 1 ms sleeps", "[openvmm][systemc]") {
  // RDY=1 at F + 2 ms = 2006190000. Read k >= 1 is issued at the end of back-off k - 1, t0 +
  // B(k) + (k - 1) R, and sampled 457906 later. After the 250 yields (B = 0.25 ms) come 1 ms
  // sleeps: read 251 is sampled at 8570094 + 1250000000 + 250 x 946000 + 457906 = 1495528000
  // (not ready), read 252 at 8570094 + 2250000000 + 251 x 946000 + 457906 = 2496474000 (ready):
  // 253 reads, 252 back-offs, back at 2496962094.
  const auto trials = openvmm(R"({"handoff": "disabled", "enable_latency": "2ms"})");
  const Phase& en = trials[0].phase("enable");
  CHECK(trials[0].status == ProbeStatus::ok);
  CHECK(en.polls == 253);
  CHECK(en.sleeps == 252);
  CHECK(en.end_ps == 2496962094);
  CHECK(en.end_ps == kT0 + 250 * kY + 2 * kMs + 252 * kR);
}

TEST_CASE("openvmm: a 300 ms enable ends after four 15 ms sleeps", "[openvmm][systemc]") {
  // RDY=1 at F + 300 ms = 300006190000; read k >= 500 is sampled at t0 + 250.25 ms + (k - 500) x
  // 15 ms + (k - 1) R + 457906: k = 504: 8570094 + 310250000000 + 475838000 + 457906 =
  // 310734866000, ready (k = 503: 295733920000, not): 505 reads, 504 back-offs (250 yields, 250 x
  // 1 ms, 4 x 15 ms), back at t0 + 310.25 ms + 504 R = 310735354094.
  const auto trials = openvmm(R"({"handoff": "disabled", "enable_latency": "300ms"})");
  const Phase& en = trials[0].phase("enable");
  CHECK(trials[0].status == ProbeStatus::ok);
  CHECK(en.polls == 505);
  CHECK(en.sleeps == 504);
  CHECK(en.end_ps == 310735354094);
  CHECK(en.end_ps == kT0 + 250 * kY + 250 * kMs + 4 * 15 * kMs + 504 * kR);
}

TEST_CASE("openvmm: a CSTS of all ones fails the reset wait at once", "[openvmm][systemc]") {
  // Handed over enabled and all ones from the start: RDY (all ones) is not 0, then the all-ones
  // test fails the wait after one read, before any back-off.
  const auto trials = openvmm(R"({"handoff": "enabled", "faults": {"all_ones": {}}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  CHECK(t.phase("disable").polls == 1);
  CHECK(t.phase("disable").sleeps == 0);
  CHECK(t.lines == std::vector<std::string>{"nvme_driver: 0000:04:00.0: device is gone (csts 0xffffffff)"});
}

TEST_CASE("openvmm old: no timeout: a never-ready controller is ended by host.max_polls_per_wait",
          "[openvmm][process]") {
  // The old rule waits for ever; the polls limit (1000 here) stops the trial with its error and
  // `nvmesim run` exits 2 naming the limit and the rule.
  namespace fs = std::filesystem;
  const fs::path d = fs::temp_directory_path() / "nvmesim-openvmm-old";
  fs::create_directories(d);
  std::ofstream(d / "old.json") << R"({"schema": "nvmesim.scenario/1", "host": {"driver": "openvmm", "release": "old",
    "max_polls_per_wait": 1000}, "controllers": [{"faults": {"never_ready": true}}]})";
  const test::CliResult r = test::run_capture("run '" + (d / "old.json").string() + "' -q --out '" +
                                              (d / "out").string() + "'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("made 1000 CSTS reads in one readiness wait (limit host.max_polls_per_wait = "
                                    "1000); OpenVMM \"old\" has no ready timeout and polls for ever"));
  fs::remove_all(d);
}
