// docs/hosts.md, "A never-ready controller, CAP.TO = 0x20": each host driver on a controller
// that never sets RDY (faults.never_ready, handed over disabled, CAP.TO = 32: 16 s of 500 ms
// units), its enable wait's failure to the picosecond where the host's clock is fine-grained or
// the host counts polls, and within its tick where the host reads a tick counter (U-Boot's
// get_timer, FreeBSD 13.1+'s ticks: the trial starts at a random phase of the tick).
// Times are the simulation's (trial 0 from 0), worked out in each driver's own test file from
// the rules in tests/test_uboot.cpp's header: R = kR = 946000 ps per read at the 94 ps phase,
// t0 = the end of the enable wait's first read, S = the wait's deadline start. The polls and
// event limits are raised for the tight loops (16.9 million reads in one wait).
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "host_bench.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kMs = 1'000'000'000;  // ps
const std::string kNeverReady = R"({"handoff": "disabled", "cap": {"to": 32}, "faults": {"never_ready": true}})";
const std::string kLimits = R"("max_polls_per_wait": 20000000, "max_events_per_trial": 40000000)";

test::BenchTrial never_ready(const std::string& driver, const std::string& host_keys = "") {
  auto trials = test::run_bench(
      test::bench_scenario(driver, kNeverReady, 1, host_keys.empty() ? kLimits : host_keys + ", " + kLimits));
  return trials[0];
}
}  // namespace

TEST_CASE("never-ready table: seabios fails at S + 8221994 x (R + 1 us)", "[table][seabios][systemc]") {
  // tests/test_seabios.cpp: S = 9516094; m = floor(16e12 / 1946000) + 1 = 8221993 + 1 =
  // 8221994 reads and yields; S + 8221994 x 1946000 = 9516094 + 16000000324000 = 16000009840094.
  const test::BenchTrial t = never_ready("seabios");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 8221994);
  CHECK(en.sleeps == 8221994);
  CHECK(en.end_ps == 16000009840094);
}

TEST_CASE("never-ready table: qemu-userspace fails at the first read past S + 16 s", "[table][qemu-userspace][systemc]") {
  // tests/test_qemu_userspace.cpp: S = 4780754, t0 = 5732094 (d0 = 951340); k = floor((16e12 -
  // 951340) / 946000) + 1 = 16913318 + 1 = 16913319: 16913320 reads, the failure at t0 + k R =
  // 5732094 + 15999999774000 = 16000005506094.
  const test::BenchTrial t = never_ready("qemu-userspace");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 16913320);
  CHECK(en.end_ps == 16000005506094);
}

TEST_CASE("never-ready table: openvmm new fails after 1550 back-offs", "[table][openvmm][systemc]") {
  // tests/test_openvmm.cpp: S = 5726754, t0 = 8570094; read k >= 500 ends at t0 + 250.25 ms +
  // (k - 500) x 15 ms + k R; the first at or past S + 16 s: k = 1550: 8570094 + 16000250000000 +
  // 1466300000 = 16001724870094 (k = 1549: 15.986 s after S). 1551 reads, 1550 back-offs.
  const test::BenchTrial t = never_ready("openvmm");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 1551);
  CHECK(en.sleeps == 1550);
  CHECK(en.end_ps == 16001724870094);
}

TEST_CASE("never-ready table: nvmewin fails after 3200 polls of 5 ms", "[table][nvmewin][systemc]") {
  // tests/test_nvmewin.cpp: t0 = 4786094; PollMax = 32 x 100 = 3200: t0 + 3200 x 5 ms + 3199 R =
  // 4786094 + 16000000000000 + 3026254000 = 16003031040094.
  const test::BenchTrial t = never_ready("nvmewin");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 3200);
  CHECK(en.sleeps == 3200);
  CHECK(en.end_ps == 16003031040094);
}

TEST_CASE("never-ready table: edk2 fails after 16000 stalls and reads", "[table][edk2][systemc]") {
  // tests/test_edk2.cpp: the enable's CC write is back at S = 1003832754; Stall(1 ms), read 0
  // (issued at 754 mod 2000: 945340), then 1 ms + R per iteration: read k ends at S + (k + 1) ms
  // + 945340 + k R; N = 32 x 500 = 16000 iterations: read 15999 ends at S + 16000 ms + 945340 +
  // 15999 R = 1003832754 + 16000000000000 + 945340 + 15135054000 = 16016139832094.
  const test::BenchTrial t = never_ready("edk2");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 16000);
  CHECK(en.sleeps == 16000);
  CHECK(en.end_ps == 16016139832094);
}

TEST_CASE("never-ready table: freebsd older fails after 16501 DELAYs and 16502 reads", "[table][freebsd][systemc]") {
  // tests/test_freebsd.cpp (case F1's trial 0): the first reset's wait read 0 ends at t0 =
  // 115007612094; T = (32 + 1) x 500 = 16500; read k ends at t0 + k (1 ms + R) and the check
  // "k > 16500" fails at k = 16501: t0 + 16501 x 1000946000 = 115007612094 + 16516609946000 =
  // 16631617558094. The first reset's polls: the enable's RDY=0 read, then 16502.
  const test::BenchTrial t = never_ready("freebsd", R"("release": "older")");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& r1 = t.phase("first_reset");
  CHECK(r1.polls == 1 + 16502);
  CHECK(r1.end_ps == 16631617558094);
}

TEST_CASE("never-ready table: uboot fails at the first read after get_timer reaches 16000", "[table][uboot][systemc]") {
  // tests/test_uboot.cpp: the wait starts at S = 3834754 (CC.EN=1 back), read 0 ends at t0 =
  // 4786094, then a read every R. get_timer(start) >= 16000 from the tick B = start tick + 16000,
  // B in (S + 15999 ms, S + 16000 ms] (the counter's phase is the trial's); the check before each
  // read fails at the first read end >= B: the failure is t0 + k R in [B, B + R).
  const test::BenchTrial t = never_ready("uboot");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  const int64_t s = 3834754, t0 = 4786094;
  CHECK(en.end_ps > s + 15999 * kMs);
  CHECK(en.end_ps < s + 16000 * kMs + kR);
  CHECK((en.end_ps - t0) % kR == 0);
  CHECK(en.polls == static_cast<uint32_t>((en.end_ps - t0) / kR + 1));
}

TEST_CASE("never-ready table: freebsd 13.1+ fails within a tick and a sleep of S + 16.5 s", "[table][freebsd][systemc]") {
  // (TO + 1) x 500 = 16500 ticks at hz 1000: the check after a read fails once ticks > ticks0 +
  // 16500, i.e. from the tick B in (W + 16500 ms, W + 16501 ms] (W: the wait's start, the CC.EN
  // write's return, within 2 reads and a write of the enable phase's start); reads come at most
  // 1 ms + R apart (pause_sbt capped at 1 ms, lateness none), so the failure is in
  // (start + 16500 ms, start + 16502 ms + 2 R + w].
  const test::BenchTrial t = never_ready("freebsd", R"("release": "13.1+", "sleep_lateness": "none")");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.end_ps - en.start_ps > 16500 * kMs);
  CHECK(en.end_ps - en.start_ps < 16502 * kMs + 2 * kR + 10000);
}

TEST_CASE("never-ready table: spdk fails state 4 at the first read past 16 s after the CC write", "[table][spdk][systemc]") {
  // tests/test_spdk.cpp's CAP.TO = 1 case with T = 32 x 500 ms = 16e12 ps: from the CC write's
  // return t4 = 2 s + 108772754, read k ends at t4 + 2945340 + 2946000 k (a 2 us poll and a read
  // each); the check after read k fails when that exceeds 16e12: k > (16e12 - 2945340) / 2946000
  // = 5431092.0..., so k = 5431093: 2945340 + 5431093 x 2946000 = 16000002923340; the failure at
  // 2000108772754 + 16000002923340 = 18000111696094, after 5431094 reads and 5431093 polls.
  const test::BenchTrial t = never_ready("spdk");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 5431094);
  CHECK(en.sleeps == 5431093);
  CHECK(en.end_ps == 18000111696094);
}

TEST_CASE("never-ready table: openbsd fails after 16001 delays and 16002 reads", "[table][openbsd][systemc]") {
  // tests/test_openbsd.cpp's CAP.TO = 1 case (the wait's first read ends at 5732094, then each
  // iteration is a 1 ms delay and a read) with CAP.TO x 500 + 1 = 16001 delays: 5732094 + 16001 x
  // (1e9 + 946000) = 5732094 + 16001000000000 + 15136946000 = 16016142678094.
  const test::BenchTrial t = never_ready("openbsd");
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.polls == 16002);
  CHECK(en.sleeps == 16001);
  CHECK(en.end_ps == 16016142678094);
}
