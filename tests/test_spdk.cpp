// The SPDK host driver (host/spdk/): an init state machine advanced one state per application
// poll (host.poll_interval between two polls), each state's timeout CAP.TO x 500 ms from the poll
// that entered it, checked after the read; the post-reset wait (2 s "18.01+", 500 ms "17.x"); a
// 100 us busy wait before CC.EN=1; the quirk's 2.5 s after CC.EN=0; all-ones CSTS reads retried
// until the state's timeout; shutdown polled every 1 ms up to max(RTD3E, 10 s) (5 s "17.x"),
// controllers one after the other. Facts: shared/reference/other-hosts.md (SPDK row and "More
// facts per host").
// Times are picoseconds of the simulation (trial 0 starts at 0) by tests/test_uboot.cpp's rules:
// PCIe Gen3 x4, controller clock 2000 ps; a read issued at t arrives at t + 456094, is sampled at
// the first edge at or after that (and not before the effect of an earlier write) and is back
// 488094 after the sample: d(t) = 944188 + w, w = (-(t + 456094)) mod 2000; from t = 94 (mod
// 2000) that is kR = 946000, and the read ends at 94 (mod 2000) again. A posted write returns
// after kW = 7110. The default poll interval, 2 us, and the delays are multiples of 2000 ps, so
// they keep a read's alignment.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "core/errors.hpp"
#include "core/rng.hpp"
#include "host_bench.hpp"
#include "support.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kW = 7110, kMs = 1'000'000'000, kS = 1000 * kMs, kPoll = 2'000'000;

std::vector<test::BenchTrial> spdk(const std::string& controllers, int trials = 1, const std::string& host_keys = "",
                                   const std::string& workload = "") {
  std::string text = test::bench_scenario("spdk", controllers, trials, host_keys);
  if (!workload.empty()) text.insert(text.size() - 1, R"(, "workload": ")" + workload + "\"");
  return test::run_bench(text);
}

// The end of the last write of `reg` by controller `ctrl` (a time the shutdown tests start from).
int64_t last_write_end(const test::BenchTrial& t, const std::string& reg, int ctrl = 0) {
  int64_t end = -1;
  for (const Event& e : t.events)
    if (e.kind == EventKind::mmio_write && e.ctrl == ctrl && e.reg && reg == e.reg) end = e.t_ps + e.dur_ps;
  REQUIRE(end >= 0);
  return end;
}
// The end of a read issued at `t` right after a lone write that returned at `t`: sampled at the
// write's effect, edge(t + 450000) + 8000 (edge(t + 456094) is never later).
int64_t read_after_write(int64_t t) { return (t + 450000 + 1999) / 2000 * 2000 + 8000 + 488094; }
}  // namespace

// The probe of a disabled, instant controller under "18.01+" with the 2 us poll interval:
//   reset_wait [0, 2 s]: the post-reset wait, exactly 2 s.
//   CAP, CAP+4 from 2 s (= 0 mod 2000): 946094 + kR -> 2 s + 1892094 (disable opens).
//   state 0: CC, CSTS (2 kR), EN=0 -> state 2 at 2 s + 3784094; a poll (2 us); its read sees RDY=0
//     (kR): disable = 2 kR + 2 us + kR = 4838000, ends at 2 s + 6730094.
//   enable: 100 us busy; a poll (2 us); state 3's six writes (ASQ, ASQ+4, ACQ, ACQ+4, AQA, CC):
//     6 kW = 42660, the CC write back at 2 s + 108772754; a poll (2 us); the read issued at
//     2 s + 110772754 (754 mod 2000): w = (-(754 + 456094)) mod 2000 = 1152, d = 945340, long
//     after the CC write's effect; RDY=1 (latency 0). enable = 100 us + 2 us + 42660 + 2 us +
//     945340 = 104988000, ends at 2 s + 111718094.
TEST_CASE("spdk: ready at the first read: 2 s reset wait, one poll per state, 100 us before CC.EN=1",
          "[spdk][systemc]") {
  const auto trials = spdk(R"({"handoff": "disabled"})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  CHECK(t.phase("reset_wait").start_ps == 0);
  CHECK(t.phase("reset_wait").end_ps == 2 * kS);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == 2 * kS + 946094 + kR);
  CHECK(dis.end_ps == 2 * kS + 6730094);
  CHECK(dis.end_ps - dis.start_ps == 3 * kR + kPoll);
  CHECK(dis.polls == 1);
  const Phase& en = t.phase("enable");
  CHECK(en.start_ps == 2 * kS + 6730094);
  CHECK(en.end_ps == 2 * kS + 111718094);
  CHECK(en.end_ps - en.start_ps == 100'000'000 + kPoll + 6 * kW + kPoll + 945340);
  CHECK(en.polls == 1);
  // The first and the last state's debug lines (what `nvmesim dmesg` reads back).
  CHECK(t.lines == std::vector<std::string>{"nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to delay init (no timeout)",
                                            "nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to ready (no timeout)"});
}

// The same with host.poll_interval 5 us (5000000 ps, 0 mod 2000: the same alignments):
//   disable = 2 kR + 5 us + kR = 7838000; enable = 100 us + 5 us + 42660 + 5 us + 945340 = 110988000.
TEST_CASE("spdk: host.poll_interval is the time between two polls", "[spdk][systemc]") {
  const auto trials = spdk(R"({"handoff": "disabled"})", 1, R"("poll_interval": "5us")");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& dis = t.phase("disable");
  CHECK(dis.end_ps - dis.start_ps == 7'838'000);
  const Phase& en = t.phase("enable");
  CHECK(en.end_ps - en.start_ps == 110'988'000);
}

// Never ready, CAP.TO = 1: state 4's timeout T = 1 x 500 ms = 5e11 ps from the CC write's return
// t4 = 2 s + 108772754 (the first test), no grace. Read 0 ends at t4 + 2 us + 945340 =
// t4 + 2945340; read k at t4 + 2945340 + k (2 us + kR) = t4 + 2945340 + 2946000 k. The check after
// read k fails when 2945340 + 2946000 k > 5e11: k > 499997054660 / 2946000 = 169720.65, so
// k = 169721: 2945340 + 169721 x 2946000 = 2945340 + 499998066000 = 500001011340 (k = 169720:
// 499998065340 < 5e11). The probe fails at t4 + 500001011340 = 2500109784094 after 169722 reads
// and 169721 polls' sleeps in the wait.
TEST_CASE("spdk: never ready with CAP.TO=1 fails state 4 at 2500109784094 ps, no grace", "[spdk][systemc]") {
  const auto trials = spdk(R"({"handoff": "disabled", "cap": {"to": 1}, "faults": {"never_ready": true}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& en = t.phase("enable");
  CHECK(en.end_ps == 2'500'109'784'094);
  CHECK(t.end_ps == 2'500'109'784'094);
  CHECK(en.polls == 169722);
  CHECK(en.sleeps == 169721);
  CHECK(!t.has_phase("admin"));
  CHECK(t.lines == std::vector<std::string>{
                       "nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to delay init (no timeout)",
                       "nvme_ctrlr.c:1467:nvme_ctrlr_process_init: *ERROR*: Initialization timed out in state 4",
                       "nvme.c: 439:nvme_init_controllers: *ERROR*: Failed to initialize SSD: 0000:04:00.0"});
}

// Release "17.x": the post-reset wait is 500 ms; the rest is the first test's sequence shifted by
// 1.5 s: disable opens at 0.5 s + 1892094 and lasts 4838000.
TEST_CASE("spdk 17.x: the post-reset wait is 500 ms", "[spdk][systemc]") {
  const auto trials = spdk(R"({"handoff": "disabled"})", 1, R"("release": "17.x")");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  CHECK(t.phase("reset_wait").end_ps == 500 * kMs);
  CHECK(t.phase("disable").start_ps == 500 * kMs + 1892094);
  CHECK(t.phase("disable").end_ps - t.phase("disable").start_ps == 4'838'000);
}

// The quirk: nvme0 is 144d:a822 (NVME_QUIRK_DELAY_BEFORE_CHK_RDY), nvme1 the default id; both
// handed over enabled, disable latency 1 us, CAP.TO 20 (10 s). Each: state 0 reads CC (EN=1) and
// CSTS (RDY=1) from 2 s + 1892094 (2 kR), writes CC.EN=0 (kW): state 2 entered at 2 s + 3791204.
// The write arrives at 2 s + 4241204, edge 2 s + 4242000, effect 2 s + 4250000: RDY=0 at
// 2 s + 5250000. nvme0 waits 2.5 s without touching the device, then a poll (2 us): the read
// issued at 4.5 s + 5791204 (1204 mod 2000): w = (-(1204 + 456094)) mod 2000 = 702, d = 944890;
// RDY=0: disable ends at 4.5 s + 6736094 = 4500006736094. nvme1 has no delay: its read issued at
// 2 s + 5791204 arrives at 2 s + 6247298, sampled at the edge 2 s + 6248000 (after RDY=0), back
// at 2 s + 6736094 = 2000006736094.
TEST_CASE("spdk: the 2.5 s quirk delay after CC.EN=0 for a quirked PCI id", "[spdk][systemc]") {
  const auto trials = spdk(R"({"handoff": "enabled", "pci_id": "144d:a822", "disable_latency": "1us", "cap": {"to": 20}},
                             {"handoff": "enabled", "disable_latency": "1us", "cap": {"to": 20}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  CHECK(t.phase("disable", 0).end_ps == 4'500'006'736'094);
  CHECK(t.phase("disable", 1).end_ps == 2'000'006'736'094);
  CHECK(t.phase("disable", 0).polls == 1);
  CHECK(t.phase("disable", 1).polls == 1);
}

// All ones in state 4: the CC write is back at t4 = 2 s + 108772754 (the first test, 754 mod
// 2000). The six writes ASQ ... CC returned at t4 - 35550 ... t4 and arrive 450000 later:
// t4 + 414450, 421560, 428670, 435780, 442890, 450000; edges t4 + 415246, 423246, 429246, 437246,
// 443246, 451246; each effect 8000 after max(its edge, the previous effect): t4 + 423246,
// 431246, 439246, 447246, 455246, 463246. RDY=1 300 ms after the CC write's effect t4 + 463246. nvme0: reads return all ones from 2.001 s for 100 ms:
// retried (all ones has RDY set, yet is no RDY), and the wait ends at the first read after
// t4 + 463246 + 300 ms, within one poll (2 us + kR) and the read's own time: ok. nvme1: all ones from 2.001 s for ever:
// polled to the state's timeout (CAP.TO 1: 500 ms from t4), the failure within one poll after
// t4 + 500 ms. Linux (4.9+) would fail both at the first all-ones read.
TEST_CASE("spdk: all-ones CSTS reads are retried until the state's timeout", "[spdk][systemc]") {
  constexpr int64_t t4 = 2 * kS + 108'772'754;
  const auto trials = spdk(R"({"handoff": "disabled", "cap": {"to": 1}, "enable_latency": "300ms",
                              "faults": {"all_ones": {"from": "2001ms", "for": "100ms"}}},
                             {"handoff": "disabled", "cap": {"to": 1}, "enable_latency": "300ms",
                              "faults": {"all_ones": {"from": "2001ms"}}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);  // the trial's status: nvme1 failed
  const Phase& ok = t.phase("enable", 0);
  CHECK(ok.end_ps > t4 + 463'246 + 300 * kMs);
  CHECK(ok.end_ps <= t4 + 463'246 + 300 * kMs + kPoll + 2 * kR);
  CHECK(t.has_phase("admin", 0));
  const Phase& gone = t.phase("enable", 1);
  CHECK(gone.end_ps > t4 + 500 * kMs);
  CHECK(gone.end_ps <= t4 + 500 * kMs + kPoll + 2 * kR);
  CHECK(gone.polls > 100'000);  // ~500 ms / 2.946 us = 169722 reads: not a failure at the first
  CHECK(t.has_line("Initialization timed out in state 4"));
  CHECK(t.has_line("Failed to initialize SSD: 0000:05:00.0"));
  CHECK(!t.has_line("Failed to initialize SSD: 0000:04:00.0"));
}

// All ones from the start: state 0 has no timeout (it is entered at construction with an
// infinite one), so its failed CC/CSTS read fails the controller at once, with no wait read.
TEST_CASE("spdk: all ones in state 0 fails at once: Failed to read CC and CSTS in state 0", "[spdk][systemc]") {
  const auto trials = spdk(R"({"faults": {"all_ones": {"from": "0s"}}})");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  CHECK(t.phase("disable").polls == 0);
  CHECK(t.reads_of("CSTS") == 1);
  CHECK(!t.has_phase("enable"));
  CHECK(t.lines == std::vector<std::string>{
                       "nvme_ctrlr.c:1462:_nvme_ctrlr_set_state: *DEBUG*: [0000:04:00.0] setting state to delay init (no timeout)",
                       "nvme_ctrlr.c:1294:nvme_ctrlr_process_init: *ERROR*: Failed to read CC and CSTS in state 0",
                       "nvme.c: 439:nvme_init_controllers: *ERROR*: Failed to initialize SSD: 0000:04:00.0"});
}

// Shutdown, one controller after the other: CC read, CC.SHN=01b written (its end: s0), then
// read, delay(1 ms), ... Neither controller completes (shutdown latency 30 s). nvme0's RTD3E
// 12 s: limit max(ceil(12000000 us / 1000), 10000) = 12000 ms; nvme1's RTD3E 0: 10000 ms. The
// first read right after the CC write ends at read_after_write(s0), the others take kR (94 mod
// 2000 after a 1 ms delay); the loop ends after `limit` delays:
//   read_after_write(s0) + (limit - 1) kR + limit x 1 ms.
TEST_CASE("spdk: shutdown polls every 1 ms up to max(RTD3E, 10 s), one controller after the other",
          "[spdk][systemc]") {
  const auto trials = spdk(R"({"shutdown_latency": "30s", "identify": {"rtd3e": "12s"}}, {"shutdown_latency": "30s"})", 1,
                           "", "shutdown");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  auto expected_end = [&](int ctrl, int64_t limit_ms) {
    return read_after_write(last_write_end(t, "CC", ctrl)) + (limit_ms - 1) * kR + limit_ms * kMs;
  };
  const Phase& s0 = t.phase("shutdown", 0);
  const Phase& s1 = t.phase("shutdown", 1);
  CHECK(s0.end_ps == expected_end(0, 12000));
  CHECK(s1.end_ps == expected_end(1, 10000));
  CHECK(s0.polls == 12000);
  CHECK(s1.polls == 10000);
  CHECK(s1.start_ps >= s0.end_ps);  // serial
  CHECK(t.has_line("nvme_ctrlr.c: 601:nvme_ctrlr_shutdown: *ERROR*: did not shutdown within 12000 milliseconds"));
  CHECK(t.has_line("nvme_ctrlr.c: 601:nvme_ctrlr_shutdown: *ERROR*: did not shutdown within 10000 milliseconds"));
}

// 17.x: 5000 ms whatever RTD3E says: the loop ends after 5000 delays and 5000 reads.
TEST_CASE("spdk 17.x: shutdown gives up after 5 s", "[spdk][systemc]") {
  const auto trials = spdk(R"({"shutdown_latency": "30s", "identify": {"rtd3e": "12s"}})", 1, R"("release": "17.x")",
                           "shutdown");
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& s = t.phase("shutdown");
  CHECK(s.end_ps == read_after_write(last_write_end(t, "CC")) + 4999 * kR + 5000 * kMs);
  CHECK(s.polls == 5000);
  CHECK(t.has_line("nvme_ctrlr.c: 601:nvme_ctrlr_shutdown: *ERROR*: did not shutdown within 5 seconds"));
}

TEST_CASE("spdk: host.release and host.poll_interval are validated", "[spdk][scenario]") {
  const auto load_error = [](const std::string& text) -> std::string {
    try {
      load_scenario_text(text, "s.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(load_scenario_text(test::bench_scenario("spdk", "{}"), "s").variants[0].host.driver_release == "18.01+");
  Stream stream(1, 0, uint64_t{0});
  CHECK(load_scenario_text(test::bench_scenario("spdk", "{}"), "s").variants[0].host.poll_interval.sample_ps(stream) ==
        2'000'000);
  CHECK(load_error(test::bench_scenario("spdk", "{}", 1, R"("release": "19.04")"))
            .rfind("s.json: /host/release: \"19.04\" is not allowed; allowed: ", 0) == 0);
  CHECK(load_error(test::bench_scenario("linux", "{}", 1, R"("poll_interval": "2us")")) ==
        "s.json: /host/poll_interval: host.driver \"linux\" does not use this key (used by \"spdk\"); leave it out "
        "for this driver");
  CHECK(load_error(test::bench_scenario("spdk", "{}", 1, R"("poll_interval": "fast")")).rfind("s.json: /host/poll_interval: ", 0) ==
        0);
}

namespace {
using json = nlohmann::json;
const json& variant_of(const json& j, const std::string& name) {
  for (const auto& v : j["variants"])
    if (v["name"] == name) return v;
  FAIL("no variant " << name);
  static json none;
  return none;
}
const json& phase_of(const json& trial, const std::string& name, int ctrl = 0) {
  for (const auto& p : trial["phases"])
    if (p["name"] == name && p["ctrl"] == ctrl) return p;
  FAIL("no phase " << name);
  static json none;
  return none;
}
int lines_with(const json& trial, const std::string& text) {
  int n = 0;
  for (const auto& l : trial["dmesg"]) n += l.get<std::string>().find(text) != std::string::npos;
  return n;
}
}  // namespace

// The predictions in scenarios/spdk-vs-linux-allones.json's comment.
TEST_CASE("scenario spdk-vs-linux-allones: Linux fails at the first all-ones read, SPDK retries and succeeds",
          "[spdk][behaviour][systemc]") {
  const json j = test::run_file("spdk-vs-linux-allones.json", "spdk_allones.json", 2);
  for (const auto& t : variant_of(j, "linux 5.7")["trials"]) {
    // The window opens at 2.05 s; 5.7 polls every usleep_range(1000, 2000): within 2 ms + a read.
    CHECK(t["status"] == "enodev");
    CHECK(phase_of(t, "enable")["end_ns"].get<double>() >= 2050e6);
    CHECK(phase_of(t, "enable")["end_ns"].get<double>() <= 2053e6);
    CHECK(lines_with(t, "Removing after probe failure status: -19") == 1);
  }
  for (const auto& t : variant_of(j, "spdk 18.01+")["trials"]) {
    // reset_wait 2 s; the first test's sequence with 20 us polls: t4 = 2 s + 1892094 + 2 kR +
    // 20 us + kR + 100 us + 20 us + 6 kW = 2 s + 144772754 (754 mod 2000, as there), so the CC
    // write's effect is t4 + 463246 (the all-ones test above) = 2 s + 145236000 ps; RDY=1 300 ms
    // later, 2300145236000 ps, seen by a read within one poll (20 us) and two reads.
    CHECK(t["status"] == "ok");
    CHECK(phase_of(t, "reset_wait")["end_ns"].get<double>() == 2e9);
    CHECK(phase_of(t, "enable")["end_ns"].get<double>() > 2300145236.0);
    CHECK(phase_of(t, "enable")["end_ns"].get<double>() <= 2300145236.0 + 20000.0 + 2 * 946.0);
    CHECK(lines_with(t, "Initialization timed out") == 0);
  }
}

// The predictions in scenarios/spdk-shutdown-16.json's comment: per controller the CC read and
// write and the first read (< 2 us), then reads of ~0.946 us and 1 ms delays, one after the other.
TEST_CASE("scenario spdk-shutdown-16: 72 s at 4.5 s each, 160 s at the 10 s limit, 80 s at the 5 s limit of 17.x",
          "[spdk][behaviour][systemc]") {
  const json j = test::run_file("spdk-shutdown-16.json", "spdk_shutdown16.json", 1);
  for (const auto& t : variant_of(j, "4.5 s device, 18.01+")["trials"]) {
    // 16 x (4.5 s + at most one delay and two reads + ~2 us) = 72.0 .. 72.04 s.
    CHECK(t["status"] == "ok");
    CHECK(t["workload_ns"].get<double>() > 72e9);
    CHECK(t["workload_ns"].get<double>() < 72.04e9);
    for (int c = 1; c < 16; ++c) CHECK(phase_of(t, "shutdown", c)["start_ns"] >= phase_of(t, "shutdown", c - 1)["end_ns"]);
  }
  for (const auto& t : variant_of(j, "12 s device, 18.01+")["trials"]) {
    // RTD3E 8 s < 10 s: 10000 delays and 10000 reads each: 10 s + 10000 x 0.946 us = 10.00946 s
    // (+ < 3 us); 16 x = 160.151 s.
    CHECK(t["status"] == "enodev");
    CHECK(t["workload_ns"].get<double>() > 160.15e9);
    CHECK(t["workload_ns"].get<double>() < 160.16e9);
    CHECK(lines_with(t, "did not shutdown within 10000 milliseconds") == 16);
  }
  for (const auto& t : variant_of(j, "12 s device, 17.x")["trials"]) {
    // 5000 delays and reads each: 5.00473 s; 16 x = 80.076 s.
    CHECK(t["status"] == "enodev");
    CHECK(t["workload_ns"].get<double>() > 80.07e9);
    CHECK(t["workload_ns"].get<double>() < 80.08e9);
    CHECK(lines_with(t, "did not shutdown within 5 seconds") == 16);
  }
}

// A reboot (workload "reboot": probe, shutdown, platform reset, probe): the second boot's init
// is recorded as reboot_reset_wait, reboot_disable, reboot_enable and reboot_admin, so the
// summary keeps the two boots apart. Each boot's post-reset wait is exactly 2 s ("18.01+"):
// 2000000000 ns in reset_wait and again in reboot_reset_wait (folded, one phase name would
// hold 4 s). The second boot starts where the shutdown (serial, one controller) ends.
TEST_CASE("spdk: a reboot's second boot is recorded in reboot_* phases, apart in the summary", "[spdk][systemc]") {
  const nlohmann::json j = test::run_to_json(
      R"({"schema": "nvmesim.scenario/1", "trials": 2, "workload": "reboot", "host": {"driver": "spdk"},
          "controllers": [{"handoff": "disabled"}]})",
      "spdk_reboot.json");
  const auto& v = j["variants"][0];
  for (const auto& t : v["trials"]) {
    CHECK(t["status"] == "ok");
    std::vector<std::string> names;
    for (const auto& p : t["phases"]) names.push_back(p["name"].get<std::string>());
    REQUIRE(names == std::vector<std::string>{"reset_wait", "disable", "enable", "admin", "shutdown",
                                              "reboot_reset_wait", "reboot_disable", "reboot_enable",
                                              "reboot_admin"});
    const auto& p = t["phases"];
    CHECK(p[0]["end_ns"].get<int64_t>() - p[0]["start_ns"].get<int64_t>() == 2'000'000'000);
    CHECK(p[5]["end_ns"].get<int64_t>() - p[5]["start_ns"].get<int64_t>() == 2'000'000'000);
    CHECK(p[5]["start_ns"].get<int64_t>() >= p[4]["end_ns"].get<int64_t>());
  }
  const auto& ph = v["summary"]["phases"];
  for (const char* name : {"reset_wait", "disable", "enable", "admin", "shutdown", "reboot_reset_wait",
                           "reboot_disable", "reboot_enable", "reboot_admin"})
    CHECK(ph.contains(name));
  // The first boot's disable alone: state 0 reads EN=0, state 2's one poll sees RDY=0 (the first
  // test above): 1 poll.
  CHECK(ph["disable"]["polls"]["max"].get<double>() == 1);
}
