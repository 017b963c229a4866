// QEMU's own user-space NVMe driver (host/qemu_userspace/, block/nvme.c nvme_init): a tight
// loop (read CSTS, test, check the ns clock against the deadline, nothing in between), the
// timeout min(500 ms x CAP.TO, 30 s) counted from the CC write's return, strictly past. Facts:
// other-hosts.md, the "QEMU's own user-space NVMe driver" row.
// Exact times (ps, trial 0 from simulation time 0) follow tests/test_uboot.cpp's rules (see
// tests/test_seabios.cpp's header for them in short). The probe of a controller disabled at
// hand-over: CAP, CAP+4, VS from 0 (946094 + 2 kR = 2838094: the disable phase opens); CC read to
// 3784094; CC & 0xFE written, back at 3791204 (the reset deadline's start), effect: arrival
// 4241204 -> edge 4242000 -> 4250000; the CSTS read (issued 3791204, arriving 4247298) is sampled
// at the effect 4250000 and back at 4738094 = P (RDY=0). AQA, ASQ, ASQ+4, ACQ, ACQ+4 to X =
// P + 5 kW = 4773644 (the enable phase opens); effects from P + 457110 = 5195204 -> edge 5196000
// -> 5204000, then 8000 apart to CC.EN=1's F = 5244000. CC.EN=1 back at S = X + kW = 4780754
// (the start deadline's start); read 0 (issued S, arriving 5236848) is sampled at F, back at
// t0 = 5732094 (RDY=1 for an instant device); then a read every kR = 946000.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "host/qemu_userspace/qemu_userspace_driver.hpp"
#include "host_bench.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000;                    // ps
constexpr int64_t kS = 4780754, kT0 = 5732094;    // the start wait's deadline start, read 0's return
static_assert(kT0 - kS == 951340, "read 0 returns d0 = 951340 ps after the CC write (the header's arithmetic)");

std::vector<test::BenchTrial> qemu(const std::string& controllers) {
  return test::run_bench(test::bench_scenario("qemu-userspace", controllers, 1));
}
}  // namespace

TEST_CASE("qemu-userspace: the timeout is min(500 ms x CAP.TO, 30 s)", "[qemu-userspace]") {
  CHECK(qemu_userspace_driver::timeout_ms(0) == 0);
  CHECK(qemu_userspace_driver::timeout_ms(1) == 500);
  CHECK(qemu_userspace_driver::timeout_ms(0x0F) == 7500);   // QEMU's emulated controller
  CHECK(qemu_userspace_driver::timeout_ms(0x20) == 16000);
  CHECK(qemu_userspace_driver::timeout_ms(59) == 29500);
  CHECK(qemu_userspace_driver::timeout_ms(60) == 30000);    // 500 x 60 = 30000: the cap itself
  CHECK(qemu_userspace_driver::timeout_ms(61) == 30000);    // 30500 capped
  CHECK(qemu_userspace_driver::timeout_ms(255) == 30000);   // 127500 capped
}

TEST_CASE("qemu-userspace: ready at the first read of each wait", "[qemu-userspace][systemc]") {
  const auto trials = qemu(R"({"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == 2838094);
  CHECK(dis.end_ps == 4738094);
  CHECK(dis.polls == 1);
  const Phase& en = t.phase("enable");
  CHECK(en.start_ps == 4773644);
  CHECK(en.end_ps == kT0);
  CHECK(en.polls == 1);
  CHECK(en.sleeps == 0);
  CHECK(t.reads_of("CC") == 1);
  CHECK(t.lines.empty());
}

TEST_CASE("qemu-userspace: never ready with CAP.TO=1 fails at the first read that ends past 500 ms",
          "[qemu-userspace][systemc]") {
  // Read k ends at t0 + k R, d0 + k R after S (d0 = t0 - S = 951340); the check after read k
  // fails once d0 + k R > 500e9: k = floor((500e9 - 951340) / 946000) + 1 = 528540 + 1 = 528541,
  // so 528542 reads and the failure at t0 + 528541 x 946000 = 5732094 + 499999786000 =
  // 500005518094 (the overshoot past S + 500 ms: 737340 ps, under one read).
  const auto trials = qemu(R"({"handoff": "disabled", "cap": {"to": 1}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 528542);
  CHECK(en.sleeps == 0);
  CHECK(en.end_ps == 500005518094);
  CHECK(en.end_ps == kT0 + 528541 * kR);
  CHECK(t.lines == std::vector<std::string>{
                       "qemu-system-x86_64: -drive file=nvme://0000:04:00.0/1: Timeout while waiting for device to "
                       "start (500 ms)"});
}

TEST_CASE("qemu-userspace: CAP.TO=0 (timeout 0 ms) fails after exactly one read", "[qemu-userspace][systemc]") {
  // deadline = S; read 0 ends at t0 > S: the check fails there. The reset wait (RDY=0 at its
  // first read) returns before its check.
  const auto trials = qemu(R"({"handoff": "disabled", "cap": {"to": 0}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  CHECK(t.phase("disable").polls == 1);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 1);
  CHECK(en.end_ps == kT0);
  CHECK(t.has_line("Timeout while waiting for device to start (0 ms)"));
}

TEST_CASE("qemu-userspace: a function that left the bus ends the wait at host.max_polls_per_wait, and the error "
          "says the reads were all ones",
          "[qemu-userspace][process]") {
  // Stop 30's attack: surprise-removal.json under this driver (no all-ones test, a tight loop)
  // stopped at the polls limit with only the CAP.TO advice, which hides the cause: CSTS has read
  // FFFFFFFFh since 3 ms. At 946 ns a read, 20000 reads take the wait well past 3 ms.
  const std::string file = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/surprise-removal.json";
  const std::string out = (std::filesystem::temp_directory_path() / "nvmesim-qemu-gone.json").string();
  std::filesystem::remove(out);  // a file left by another run would fail the last check for the wrong reason
  const std::string common = "run '" + file + "' -n 1 -q --out '" + out +
                             "' --set /variants=[] --set '/host={\"driver\": \"qemu-userspace\", \"max_polls_per_wait\": 20000}'";
  const test::CliResult gone = test::run_capture(common);
  CHECK(gone.status == 2);
  CHECK_THAT(gone.err, Catch::Contains("made 20000 CSTS reads in one readiness wait (limit host.max_polls_per_wait = "
                                       "20000); QEMU's user-space driver polls without sleeping"));
  CHECK_THAT(gone.err, Catch::EndsWith("; its last read returned all ones (FFFFFFFFh): the function is not answering "
                                       "(off the bus, or not back from a reset), and this wait does not stop on that\n"));
  // The same wait on a device that answers (never ready to enable: CSTS reads 0) says nothing of all ones.
  const test::CliResult answering = test::run_capture(
      common + " --set '/controllers/0/faults={\"never_ready\": true}'");
  CHECK(answering.status == 2);
  CHECK_THAT(answering.err, Catch::Contains("made 20000 CSTS reads in one readiness wait"));
  CHECK_THAT(answering.err, !Catch::Contains("all ones"));
  CHECK_FALSE(std::filesystem::exists(out));
}
