// The FreeBSD host driver (host/freebsd/) through the host-driver seam. Release "older" (the
// last pre-13.1 shape, 00ed045a): its readiness wait is the one loop with `R A T D S`, a 1 ms busy
// DELAY and an iteration-count deadline (CAP.TO + 1) x 500; attach runs two hw_resets, each with
// a 100 ms DELAY, and a 5 ms DELAY after each admin-queue register. Release "13.1+": one reset,
// no DELAYs, pause_sbt from 1 us x 1.5 to 1 ms, a tick deadline. Facts: the FreeBSD section of
// the host facts (brief), 1.1-1.6 and cases F1, F3, F4, F6.
// Notation: R = one CSTS read round trip = 2 x 450 ns + 2 x 6.094 ns + 32 ns + (0..2) ns edge =
// 0.944-0.946 us; w = a posted write, ~7 ns for the host. DELAY(n) is exact (udelay: no lateness).
// Exact times (ps, trial 0 from simulation time 0) follow tests/test_uboot.cpp's rules: a read
// issued at 94 (mod 2000) ps takes kR = 946000, a posted write kW = 7110.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "host_bench.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {
std::vector<test::BenchTrial> freebsd(const std::string& controllers, int trials = 3,
                                      const std::string& host_keys = R"("release": "older")") {
  return test::run_bench(test::bench_scenario("freebsd", controllers, trials, host_keys));
}

double dur_ns(const Phase& p) { return static_cast<double>(p.end_ps - p.start_ps) / 1000.0; }

constexpr double kRMin = 944.0, kRMax = 946.0, kWMax = 10.0;  // ns
constexpr int64_t kR = 946000, kW = 7110, kMs = 1'000'000'000;  // ps
}  // namespace

TEST_CASE("freebsd older: never ready with CAP.TO=0 fails after 501 DELAYs and 502 reads (cases F6, 1.6)",
          "[freebsd][systemc]") {
  // T = (TO + 1) x 500 = 500 (the 12.0-era TO x 500 would be 0). Read k follows k DELAYs of
  // 1 ms; the check "k > 500" before the DELAY fails at read k = 501: 502 reads, 501 DELAYs.
  // The controller starts disabled (EN=0, RDY=0), so the first reset's disable is the short cut
  // (CC and CSTS read, no write); enable reads CC and CSTS, waits RDY=0 (1 read), writes ASQ, ACQ
  // (2 writes each), AQA with a 5 ms DELAY after each, writes CC.EN=1 and waits:
  //   first_reset = 100 ms + 2R + 2R + R + 15 ms + 5w + w + 501 ms + 502R = 616 ms + 507R + 6w
  //               = 616.478608-616.479622 ms (+ 6w <= 60 ns).
  for (const auto& t : freebsd(R"({"handoff": "disabled", "cap": {"to": 0}, "enable_latency": "10s"})")) {
    CHECK(t.status == ProbeStatus::enodev);
    const Phase& r1 = t.phase("first_reset");
    CHECK(r1.polls == 1 + 502);  // the enable's RDY=0 read, then the RDY=1 wait
    CHECK(r1.sleeps == 501);     // the wait's DELAYs (the 100 ms and 5 ms DELAYs are not wait sleeps)
    CHECK(dur_ns(r1) >= 616e6 + 507 * kRMin);
    CHECK(dur_ns(r1) <= 616e6 + 507 * kRMax + 6 * kWMax);
    CHECK(!t.has_phase("disable"));  // the second reset never starts
    CHECK(t.has_line("nvme0: controller ready did not become 1 within 500 ms"));
  }
}

TEST_CASE("freebsd older: two resets, each wait 1 ms + 2R on a 500 us device (case F4)", "[freebsd][systemc]") {
  // Handed over enabled (EN=1, RDY=1), disable and enable latency 500 us fixed. Each reset:
  // DELAY(100 ms); disable reads CC (EN=1) and CSTS (RDY=1), writes CC.EN=0, waits RDY=0: read 0
  // sees RDY=1 (the write lands ~0.46 us later, RDY falls 500 us after), DELAY 1 ms, read 1 sees
  // RDY=0: the wait is w + 1 ms + 2R. Then enable: CC (EN=0), CSTS, wait RDY=0 (1 read), the three
  // registers with their 5 ms DELAYs, CC.EN=1 and the wait: read 0 at w sees RDY=0, DELAY, read 1
  // sees RDY=1: w + 1 ms + 2R. Reset 2 finds EN=1, RDY=1 again: the same.
  //   reset_delay = 100 ms exactly; disable = 2R + w + 1 ms + 2R = 1 ms + 4R + w;
  //   admin_queue = 3R + 15 ms + 5w; enable = w + 1 ms + 2R.
  for (const auto& t : freebsd(R"({"handoff": "enabled", "disable_latency": "500us", "enable_latency": "500us"})")) {
    CHECK(t.status == ProbeStatus::ok);
    const Phase& delay = t.phase("reset_delay");
    CHECK(delay.end_ps - delay.start_ps == 100 * kMs);  // DELAY(100 ms): to the picosecond
    const Phase& dis = t.phase("disable");
    CHECK(dis.polls == 2);
    CHECK(dis.sleeps == 1);
    CHECK(dur_ns(dis) >= 1e6 + 4 * kRMin);
    CHECK(dur_ns(dis) <= 1e6 + 4 * kRMax + kWMax);
    const Phase& aq = t.phase("admin_queue");
    CHECK(aq.polls == 1);
    CHECK(dur_ns(aq) >= 15e6 + 3 * kRMin);
    CHECK(dur_ns(aq) <= 15e6 + 3 * kRMax + 5 * kWMax);
    const Phase& en = t.phase("enable");
    CHECK(en.polls == 2);
    CHECK(en.sleeps == 1);
    CHECK(dur_ns(en) >= 1e6 + 2 * kRMin);
    CHECK(dur_ns(en) <= 1e6 + 2 * kRMax + kWMax);
    // The first reset is the same sequence: 100 ms + (1 ms + 4R + w) + (3R + 15 ms + 5w) + (w + 1 ms + 2R).
    const Phase& r1 = t.phase("first_reset");
    CHECK(r1.polls == 2 + 1 + 2);
    CHECK(dur_ns(r1) >= 117e6 + 9 * kRMin);
    CHECK(dur_ns(r1) <= 117e6 + 9 * kRMax + 7 * kWMax);
    CHECK(dis.start_ps >= r1.end_ps + 100 * kMs);
  }
}

TEST_CASE("freebsd older: the EN=0, RDY=0 short cut and the 2300-tick quirk pause (cases F1, F3)",
          "[freebsd][systemc]") {
  // nvme0: disabled at hand-over and instant: the first reset's disable is the short cut (CC and
  // CSTS reads only, no write, no wait read), its enable reads CC, CSTS, waits RDY=0 (1 read),
  // writes the three registers with their 5 ms DELAYs and CC.EN=1, and its wait's first read sees
  // RDY=1: first_reset = 100 ms + 2R + (3R + 15 ms + 5w) + (w + R) = 115 ms + 6R + 6w, 2 wait
  // reads (without the short cut: a CC write and a third wait read). The second reset finds
  // EN=1, RDY=1: disable = 2R + w + R (RDY=0 at once), 1 wait read.
  // nvme1: PCI id 144d:a822 (QUIRK_DELAY_B4_CHK_RDY), handed over enabled with a 1 ms disable
  // latency: after the CC write the driver pauses until the 1 kHz tick counter has advanced 2300,
  // i.e. 2300 ms - phi (phi in [0, 1 ms): the write's offset past its tick), and the wait's one
  // read then sees RDY=0: disable = 2R + w + (2299, 2300] ms + R.
  const auto trials =
      freebsd(R"({"handoff": "disabled"}, {"handoff": "enabled", "pci_id": "144d:a822", "disable_latency": "1ms"})", 2);
  // Trial 0 to the picosecond: CAP, CAP+4 from 0 (946094 + kR = 1892094, where first_reset
  // opens); DELAY(100 ms); CC, CSTS (the short cut), CC, CSTS, the RDY=0 wait's read: 5 x kR;
  // ASQ, ASQ+4, DELAY(5 ms), ACQ, ACQ+4, DELAY, AQA, DELAY: 5 kW + 15 ms; CC.EN=1 at
  // 115006657644, back + kW = 115006664754, arriving 115007114754 -> edge 115007116000, effect
  // F = 115007124000 (RDY=1 there: latency 0); the wait's read (arriving 115007120848, edge
  // 115007122000) is sampled at F and back at F + 488094 = 115007612094.
  const Phase& f1 = trials[0].phase("first_reset");
  CHECK(f1.start_ps == 1892094);
  CHECK(f1.end_ps == 1892094 + 100 * kMs + 5 * kR + 5 * kW + 15 * kMs + kW + (115007612094 - 115006664754));
  CHECK(f1.end_ps == 115007612094);
  for (const auto& t : trials) {
    CHECK(t.status == ProbeStatus::ok);
    int seen = 0;
    for (const Phase& p : t.phases) {
      if (p.ctrl == 0 && p.id.name == std::string("first_reset")) {
        CHECK(p.polls == 2);
        CHECK(dur_ns(p) >= 115e6 + 6 * kRMin);
        CHECK(dur_ns(p) <= 115e6 + 6 * kRMax + 6 * kWMax);
      }
      if (p.id.name != std::string("disable")) continue;
      ++seen;
      CHECK(p.polls == 1);
      CHECK(p.sleeps == 0);
      if (p.ctrl == 0) {
        CHECK(dur_ns(p) >= 3 * kRMin);
        CHECK(dur_ns(p) <= 3 * kRMax + kWMax);
      } else {
        CHECK(dur_ns(p) > 2299e6 + 3 * kRMin);
        CHECK(dur_ns(p) <= 2300e6 + 3 * kRMax + kWMax);
      }
    }
    CHECK(seen == 2);
  }
}

TEST_CASE("freebsd 13.1+: one reset, pause_sbt backoff: each 500 us wait is S_14 + 15R (case F4)", "[freebsd][systemc]") {
  // Handed over enabled, disable and enable latency 500 us, lateness none. The sleeps d_k of
  // the backoff (sbt, 2^-32 s): 4294, 6441, 9661, ... (x 3/2 rounded down), in ps rounded down;
  // their sums S_13 = 387.107 us, S_14 = 581.660 us (host facts 1.2: 387.108, 581.660). Read k
  // of a wait is issued at S_k + k R after the CC write returns and samples about 0.458 us
  // later; RDY changes 500 us after the write's effect (~0.46 us after it returns): read 13
  // (S_13 + 13R = 399.4 us) is too early, read 14 (S_14 + 14R = 594.9 us) sees it. So each wait
  // is 15 reads and 14 sleeps, w + S_14 + 15R = 595.86-595.89 us (facts, R = 1 us: 596.660).
  // disable = CC + CSTS reads (2R) + that; no 100 ms DELAY, no 5 ms DELAYs, one reset.
  constexpr double kS14 = 581'660.067;  // ns, sum of the 14 first sleeps
  const auto trials = freebsd(R"({"handoff": "enabled", "disable_latency": "500us", "enable_latency": "500us"})", 2,
                              R"("release": "13.1+", "sleep_lateness": "none")");
  for (const auto& t : trials) {
    CHECK(t.status == ProbeStatus::ok);
    CHECK(!t.has_phase("first_reset"));
    CHECK(!t.has_phase("reset_delay"));
    const Phase& dis = t.phase("disable");
    CHECK(dis.polls == 15);
    CHECK(dis.sleeps == 14);
    CHECK(dur_ns(dis) >= kS14 + 17 * kRMin);
    CHECK(dur_ns(dis) <= kS14 + 17 * kRMax + kWMax);
    const Phase& aq = t.phase("admin_queue");  // CC, CSTS, the RDY=0 read, 5 writes: no DELAYs
    CHECK(dur_ns(aq) >= 3 * kRMin);
    CHECK(dur_ns(aq) <= 3 * kRMax + 5 * kWMax);
    const Phase& en = t.phase("enable");
    CHECK(en.polls == 15);
    CHECK(en.sleeps == 14);
    CHECK(dur_ns(en) >= kS14 + 15 * kRMin);
    CHECK(dur_ns(en) <= kS14 + 15 * kRMax + kWMax);
  }
}

TEST_CASE("freebsd 13.1+: never ready with CAP.TO=0 fails once the tick counter passes 500 ticks",
          "[freebsd][systemc]") {
  // (TO + 1) x 500 = 500 ticks at hz 1000. The wait fails at the first read whose check sees
  // ticks > ticks0 + 500: 500-501 ms after the CC write (the phase of the 1 kHz counter), plus
  // at most one sleep (1 ms) and read. Sleeps: 18 of the backoff (S_18 = 2.953 ms), then 1 ms
  // each: about 18 + 498 = 516.
  const auto trials = freebsd(R"({"handoff": "disabled", "cap": {"to": 0}, "enable_latency": "10s"})", 2,
                              R"("release": "13.1+", "sleep_lateness": "none")");
  for (const auto& t : trials) {
    CHECK(t.status == ProbeStatus::enodev);
    const Phase& en = t.phase("enable");
    CHECK(dur_ns(en) >= 499e6);
    CHECK(dur_ns(en) <= 502e6);
    CHECK(en.sleeps >= 514);
    CHECK(en.sleeps <= 518);
    CHECK(en.polls == en.sleeps + 1);
    CHECK(t.has_line("nvme0: controller ready did not become 1 within 500 ms"));
  }
}

TEST_CASE("freebsd: the release is 13.1+ unless host.release says older", "[freebsd][scenario]") {
  CHECK(load_scenario_text(test::bench_scenario("freebsd", "{}"), "s").variants[0].host.driver_release == "13.1+");
  CHECK(load_scenario_text(test::bench_scenario("freebsd", "{}", 1, R"("release": "older")"), "s")
            .variants[0]
            .host.driver_release == "older");
}

TEST_CASE("freebsd older: an Identify with an error status fails the controller (nvme_ctrlr_fail)", "[freebsd][systemc]") {
  // nvme_completion_is_error (SC or SCT not 0): `nvme0: nvme_identify_controller failed!`, no
  // disk attaches; the Set Features before it succeeded, no queue is created.
  for (const auto& t : freebsd(R"({"faults": {"identify_status": 6}})", 1)) {
    CHECK(t.status == ProbeStatus::eio);
    CHECK(t.lines == std::vector<std::string>{"nvme0: <Generic NVMe Device> at device 0.0 on pci4",
                                              "nvme0: nvme_identify_controller failed!"});
    size_t creates = 0;
    for (const Event& e : t.events)
      if (e.kind == EventKind::admin_cmd && e.reg && std::string(e.reg) == "create_io_cq") ++creates;
    CHECK(creates == 0);
  }
}

TEST_CASE("freebsd: only CRD, M or DNR set is no error (SC and SCT are 0)", "[freebsd][systemc]") {
  // Status Field 0x4000 = DNR alone: nvme_completion_is_error tests SC and SCT only, so the
  // attach goes on (a driver testing all 15 bits would fail here).
  for (const auto& t : freebsd(R"({"faults": {"identify_status": 16384}})", 1, R"("release": "13.1+")")) {
    CHECK(t.status == ProbeStatus::ok);
    // The bus's attach line only (the bench's function 0000:04:00.0: bus 4, device 0, function 0):
    // no namespace (identify.nn 0), so no nvd line.
    CHECK(t.lines == std::vector<std::string>{"nvme0: <Generic NVMe Device> at device 0.0 on pci4"});
  }
}

namespace {
std::string freebsd_load_error(const std::string& host_keys, const std::string& controller = "{}") {
  try {
    load_scenario_text(test::bench_scenario("freebsd", controller, 1, host_keys), "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
size_t admin_cmds(const test::BenchTrial& t, const std::string& name) {
  size_t n = 0;
  for (const Event& e : t.events)
    if (e.kind == EventKind::admin_cmd && e.reg && name == e.reg) ++n;
  return n;
}
}  // namespace

TEST_CASE("freebsd: host.hz is kern.hz, 1000 unless 100, and host.nvme_2x_reset is 13.1+'s", "[freebsd][scenario]") {
  CHECK(load_scenario_text(test::bench_scenario("freebsd", "{}"), "s").variants[0].host.timers.hz == 1000);
  CHECK(load_scenario_text(test::bench_scenario("freebsd", "{}", 1, R"("hz": 100)"), "s").variants[0].host.timers.hz ==
        100);
  CHECK(load_scenario_text(test::bench_scenario("linux", "{}"), "s").variants[0].host.timers.hz == 250);
  CHECK(freebsd_load_error(R"("hz": 250)") == "s.json: /host/hz: FreeBSD's kern.hz must be 100 or 1000, not 250");
  // Every wrong value gets FreeBSD's list, a number or a string alike (issue 13: "1000" as a
  // string was told Linux's CONFIG_HZ list).
  CHECK(freebsd_load_error(R"("hz": 1024)") == "s.json: /host/hz: FreeBSD's kern.hz must be 100 or 1000, not 1024");
  CHECK(freebsd_load_error(R"("hz": "1000")") ==
        "s.json: /host/hz: FreeBSD's kern.hz must be 100 or 1000, not the string \"1000\"");
  CHECK(!load_scenario_text(test::bench_scenario("freebsd", "{}"), "s").variants[0].host.nvme_2x_reset);
  CHECK(load_scenario_text(test::bench_scenario("freebsd", "{}", 1, R"("nvme_2x_reset": true)"), "s")
            .variants[0]
            .host.nvme_2x_reset);
  CHECK(freebsd_load_error(R"("release": "older", "nvme_2x_reset": true)")
            .rfind("s.json: /host/nvme_2x_reset: FreeBSD \"older\" always resets the controller twice", 0) == 0);
  CHECK(freebsd_load_error(R"("nvme_2x_reset": 1)").rfind("s.json: /host/nvme_2x_reset: ", 0) == 0);
  CHECK(freebsd_load_error("", R"({"identify": {"nn": -1}})").rfind("s.json: /controllers/0/identify/nn: ", 0) == 0);
  CHECK(freebsd_load_error("", R"({"identify": {"nn": 4294967296}})").rfind("s.json: /controllers/0/identify/nn: ", 0) ==
        0);
  // The key takes all 32 bits; under FreeBSD, which identifies namespaces 1..NN, so many is the
  // event budget's refusal (issue 13; the test below), not the key's.
  CHECK(freebsd_load_error("", R"({"identify": {"nn": 4294967295}})").rfind("s.json: /host/max_events_per_trial: ", 0) == 0);
  CHECK(freebsd_load_error("", R"({"identify": {"nn": 1}})").empty());
}

TEST_CASE("freebsd 13.1+ with NVME_2X_RESET: two resets, the first one phase, each wait S_14 + 15R",
          "[freebsd][systemc]") {
  // As "13.1+: one reset, pause_sbt backoff" above (handed over enabled, 500 us latencies,
  // lateness none), but attach resets twice (other-hosts.md: "two before, and with the
  // NVME_2X_RESET option"). The first reset ends with EN=1, RDY=1, so the second meets the same
  // state: first_reset = disable (2R + w + S_14 + 15R) + admin queue (3R + 5w, the RDY=0 wait's
  // one read) + enable (w + S_14 + 15R) = 2 S_14 + 35R + 7w; polls 15 + 1 + 15 = 31, sleeps 28.
  // No reset_delay (13.1+ has no 100 ms DELAY).
  constexpr double kS14 = 581'660.067;  // ns
  const auto trials = freebsd(R"({"handoff": "enabled", "disable_latency": "500us", "enable_latency": "500us"})", 2,
                              R"("release": "13.1+", "sleep_lateness": "none", "nvme_2x_reset": true)");
  for (const auto& t : trials) {
    CHECK(t.status == ProbeStatus::ok);
    CHECK(!t.has_phase("reset_delay"));
    const Phase& r1 = t.phase("first_reset");
    CHECK(r1.polls == 31);
    CHECK(r1.sleeps == 28);
    CHECK(dur_ns(r1) >= 2 * kS14 + 35 * kRMin);
    CHECK(dur_ns(r1) <= 2 * kS14 + 35 * kRMax + 7 * kWMax);
    const Phase& dis = t.phase("disable");
    CHECK(dis.start_ps >= r1.end_ps);
    CHECK(dis.polls == 15);
    CHECK(t.phase("enable").polls == 15);
  }
}

TEST_CASE("freebsd 13.1+ at hz 100: the ready deadline is 50 ticks of 10 ms", "[freebsd][systemc]") {
  // (TO + 1) x 500 ms = 500 ms at CAP.TO 0: MSEC_2_TICKS = 500 x 100 / 1000 = 50 ticks. The wait
  // fails at the first read whose check sees ticks > ticks0 + 50: 500-510 ms after the CC write
  // (the phase of the 100 Hz counter), plus at most one 1 ms sleep and a read (< 1.01 ms); at hz
  // 1000 it would be 500-501 ms. Message: 50 ticks x 1000 / 100 = "500 ms".
  const auto trials = freebsd(R"({"handoff": "disabled", "cap": {"to": 0}, "enable_latency": "10s"})", 2,
                              R"("release": "13.1+", "sleep_lateness": "none", "hz": 100)");
  for (const auto& t : trials) {
    CHECK(t.status == ProbeStatus::enodev);
    const Phase& en = t.phase("enable");
    CHECK(dur_ns(en) >= 500e6);
    CHECK(dur_ns(en) <= 511.01e6);
    CHECK(t.has_line("nvme0: controller ready did not become 1 within 500 ms"));
  }
}

TEST_CASE("freebsd older at hz 100: each admin command waits for the next 10 ms tick", "[freebsd][systemc]") {
  // nvme_completion_poll: check, pause(1) (until the tick counter advances), check ... The
  // device completes each command within a few microseconds (latencies 0), so the first check
  // fails and each command ends at the first tick after its submission: Set Features, Identify,
  // Create I/O CQ and SQ for each of the 2 granted queues = 6 commands. The first starts phi into
  // a tick (phi in (0, 10 ms)); each later one a few microseconds after a tick: admin = (10 ms -
  // phi) + 5 x 10 ms + the last check, in (50, 60] ms (+ a few us); at hz 1000: (5, 6] ms.
  for (const auto& t : freebsd(R"({"handoff": "disabled"})", 2, R"("release": "older", "hz": 100)")) {
    CHECK(t.status == ProbeStatus::ok);
    CHECK(admin_cmds(t, "create_io_cq") == 2);
    const Phase& a = t.phase("admin");
    CHECK(dur_ns(a) > 50e6);
    CHECK(dur_ns(a) <= 60.02e6);
  }
}

TEST_CASE("freebsd: identify.nn namespaces are identified, each an nvd line", "[freebsd][systemc]") {
  // NN = 2 in Identify Controller (bytes 519:516): Identify Namespace 1 and 2, then one
  // `nvd<N>: <MN> NVMe namespace` per namespace (units from the controller's index 0), after
  // the bus's attach line.
  for (const auto& t : freebsd(R"({"handoff": "disabled", "identify": {"nn": 2, "model": "EBS"}})", 1,
                               R"("release": "13.1+")")) {
    CHECK(t.status == ProbeStatus::ok);
    CHECK(admin_cmds(t, "identify") == 1 + 2);
    CHECK(t.lines == std::vector<std::string>{"nvme0: <Generic NVMe Device> at device 0.0 on pci4",
                                              "nvd0: <EBS> NVMe namespace", "nvd1: <EBS> NVMe namespace"});
  }
}

TEST_CASE("freebsd-aws-older-vs-13.1.json: the RDY waits its comment derives from the loops", "[freebsd][cases][process]") {
  // The file's 200 trials per variant, seed 1. Means of the hand derivation in the file's comment
  // (the CC write to the end of the read that sees RDY, averaged over the latency distributions):
  // older 1008.0 (disable) + 1212.3 (enable) = 2220.3 us per reset, 13.1+ 623.3 + 988.8 = 1612.1
  // us. A phase adds what comes before the wait: the disable phase its CC and CSTS reads (2 x
  // 0.946 us), the enable phase nothing (it opens at the CC write); older's first_reset phase holds
  // the 100 ms DELAY, the three 5 ms DELAYs and the two reads and six writes around them (< 10 us).
  // Tolerances: the 200-trial mean's spread (older per reset sd 0.42 ms -> 29 us; two resets 42 us;
  // 13.1+ sd 0.41 ms -> 29 us) x 3.4.
  const std::string out = "fbsd_aws_waits.json";
  REQUIRE(test::run_nvmesim(std::string("run ") + NVMESIM_SOURCE_DIR +
                            "/scenarios/freebsd-aws-older-vs-13.1.json -q --detail-trials 0 --out " + out) == 0);
  const auto doc = nlohmann::json::parse(test::slurp(out));
  std::remove(out.c_str());
  std::map<std::string, std::map<std::string, double>> mean_us;  // variant -> phase -> mean
  for (const auto& v : doc["variants"]) {
    REQUIRE(v["trials"].size() == 200);
    const std::string name = v["name"].get<std::string>();
    for (const auto& t : v["trials"]) {
      CHECK(t["status"] == "ok");
      for (const auto& p : t["phases"])
        mean_us[name][p["name"].get<std::string>()] +=
            (p["end_ns"].get<double>() - p["start_ns"].get<double>()) / 1000.0 / 200.0;
    }
  }
  const double older_second = mean_us["older"]["disable"] + mean_us["older"]["enable"];
  const double older_first = mean_us["older"]["first_reset"] - 115000.0;
  const double v131 = mean_us["13.1+"]["disable"] + mean_us["13.1+"]["enable"];
  CHECK(older_second == Approx(2220.3 + 1.9).margin(100));
  CHECK(older_first == Approx(2220.3).margin(110));
  CHECK(older_first + older_second == Approx(4440.6).margin(145));
  CHECK(v131 == Approx(1612.1 + 1.9).margin(100));
  // 13.1+ spends 2.83 ms less in the RDY waits: 2.22 ms the second reset, 0.61 ms the sleeps.
  CHECK(older_first + older_second - v131 == Approx(2828.5).margin(180));
  CHECK(mean_us["13.1+"].count("first_reset") == 0);
}

TEST_CASE("identify.nn past the event limit is refused before running, naming the namespaces", "[freebsd][scenario]") {
  // Issue 13: nn 4294967295 ran until host.max_events_per_trial stopped the trial with advice
  // about poll policies. FreeBSD identifies namespaces 1..NN, each command at least its SQ tail
  // doorbell write: 4294967295 operations > the 4000000 default (and > 2^26, the most it can be).
  const std::string e = freebsd_load_error("", R"({"identify": {"nn": 4294967295}})");
  CHECK_THAT(e, Catch::StartsWith("s.json: /host/max_events_per_trial: variant "));
  CHECK_THAT(e, Catch::Contains("4294967295 of them the Identify Namespace commands of the namespaces host.driver "
                                "\"freebsd\" walks (controllers[].identify.nn"));
  CHECK(e.find("poll") == std::string::npos);
  // Linux does not walk namespaces: the same nn is no load error there.
  CHECK_NOTHROW(load_scenario_text(test::bench_scenario("linux", R"({"identify": {"nn": 4294967295}})"), "s.json"));
  // 1000 namespaces fit the default limit.
  CHECK(freebsd_load_error("", R"({"identify": {"nn": 1000}})").empty());
}
