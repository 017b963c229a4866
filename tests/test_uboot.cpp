// The U-Boot host driver (host/uboot/) through the host-driver seam: host.driver selects it, its
// readiness wait is the one loop with a tight-loop WaitSpec (deadline checked before each read on
// the millisecond timer, no sleep, no all-ones test), its platform probes the functions one
// after the other, a CSTS of all ones at probe start is -ENODEV, an admin command whose CQE
// carries an error status is -EIO. Facts: the U-Boot section of the host facts (brief), case U1,
// and U-Boot's drivers/nvme/nvme.c (nvme_init, nvme_submit_sync_cmd, nvme_setup_io_queues).
//
// Times are picoseconds of the simulation (sc_time_stamp(); trial 0 starts at 0), worked out
// from the model's rules (tests/test_model_timing.cpp has the derivations): PCIe Gen3 x4, one
// way 450000, controller clock 2000 (edges at multiples of 2000), 16 read cycles, 4 write cycles:
//   - a register read issued at t arrives at t + 6094 + 450000, is sampled at the first edge at
//     or after that (and not before the effect of an earlier write), and is back 32000 + 6094 +
//     450000 = 488094 after the sample; from t = 0 that is 946094, and a read issued at
//     t = 94 (mod 2000) takes exactly kR = 946000 (its arrival is 188 mod 2000: 1812 to the edge);
//   - a posted write returns to the host after its 28-byte TLP left: kW = 7110; it arrives 450000
//     later and takes effect 4 cycles (8000) after the edge at or after its arrival.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include "core/errors.hpp"
#include "host_bench.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kR = 946000, kW = 7110;
// The probe's first three reads from t = 0: CSTS (946094), CAP, CAP+4 (kR each).
constexpr int64_t kAfterCap = 946094 + 2 * kR;  // 2838094
}  // namespace

TEST_CASE("uboot: CAP.TO=0 fails the disable wait with no CSTS read (case U1)", "[uboot][systemc]") {
  // while (get_timer(start) < TO * 500): with TO = 0 the loop never runs and returns -ETIME (-62).
  // CSTS, CAP, CAP+4, then the disable's CC write at 2838094 returns at 2838094 + kW = 2845204,
  // and the wait ends there without a read: the probe fails at 2845204.
  const auto trials = test::run_bench(test::bench_scenario("uboot", R"({"handoff": "enabled", "cap": {"to": 0}})"));
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == kAfterCap);
  CHECK(dis.end_ps == kAfterCap + kW);
  CHECK(t.end_ps == kAfterCap + kW);
  CHECK(dis.polls == 0);
  CHECK(dis.sleeps == 0);
  CHECK(t.reads_of("CSTS") == 1);  // the one at probe start
  CHECK(!t.has_phase("enable"));
  CHECK(t.has_line("Failed to probe 'nvme#0': err=-62"));
}

TEST_CASE("uboot: a tight loop without sleeps, functions probed one after the other", "[uboot][systemc]") {
  // nvme0: disabled at hand-over, enable latency 50 us, CAP.TO=1 (a 500 ms budget); nvme1: instant.
  // disable: CC (EN=0) written at kAfterCap, back at 2845204; it lands at 2845204 + 450000 ->
  //   edge 3296000, effect 3304000. The wait's read (issued 2845204, arriving 3301298) is sampled
  //   at the write's effect 3304000 and is back at 3304000 + 488094 = 3792094: RDY=0, 1 read.
  // admin queue: AQA, ASQ, ASQ+4, ACQ, ACQ+4: 5 x kW, to 3827644 (the enable phase opens there).
  //   Back-to-back writes queue in the controller: each takes effect 8000 after max(its edge,
  //   the previous effect): arrivals 4249204, 4256314, 4263424, 4270534, 4277644 -> effects
  //   4258000, 4266000, 4274000, 4282000, 4290000.
  // enable: CC.EN=1 written 3827644, back 3834754, arrives 4284754 -> edge 4286000, but after
  //   4290000: "enabling" at F = 4298000; RDY=1 at F + 50 us = 54298000 (an edge). Read 0
  //   (issued 3834754, arriving 4290848) is sampled at F and back at 4786094 (RDY=0); read k >= 1
  //   is issued at 4786094 + (k-1) kR and sampled at issue + 457906 = 5244000 + (k-1) x 946000;
  //   the first sample >= 54298000 is k - 1 = 52 (49054000 / 946000 = 51.85): sampled 54436000,
  //   back 54924094, after 54 reads, no sleep.
  const auto trials = test::run_bench(test::bench_scenario(
      "uboot", R"({"handoff": "disabled", "cap": {"to": 1}, "enable_latency": "50us"},
                  {"handoff": "disabled", "cap": {"to": 1}, "enable_latency": "0ns"})"));
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  const Phase& dis = t.phase("disable");
  CHECK(dis.start_ps == kAfterCap);
  CHECK(dis.end_ps == 3792094);
  CHECK(dis.polls == 1);
  const Phase& en = t.phase("enable");
  CHECK(en.start_ps == 3792094 + 5 * kW);
  CHECK(en.end_ps == 54924094);
  CHECK(en.polls == 54);
  CHECK(en.sleeps == 0);
  // nvme1 (ready at once: one read per wait) starts only after nvme0's probe ended: serial.
  CHECK(t.phase("disable", 1).start_ps >= t.phase("admin", 0).end_ps);
  CHECK(t.phase("disable", 1).polls == 1);
  CHECK(t.phase("enable", 1).polls == 1);
}

TEST_CASE("uboot: a CSTS of all ones at probe start is -ENODEV with U-Boot's own line", "[uboot][systemc]") {
  // nvme_init reads CSTS first; all ones: `Error: nvme#0: Out of memory!` (the text U-Boot prints
  // at that site) and -ENODEV (-19): no CAP read, no CC write; the read ends at 946094.
  const auto trials = test::run_bench(test::bench_scenario("uboot", R"({"faults": {"all_ones": {}}})"));
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::enodev);
  CHECK(t.lines == std::vector<std::string>{"Error: nvme#0: Out of memory!", "Failed to probe 'nvme#0': err=-19"});
  CHECK(t.reads_of("CAP") == 0);
  CHECK(t.end_ps == 946094);
  CHECK(t.phases.empty());
}

TEST_CASE("uboot: an Identify that fails leaves NN at 0 - a failing Set Features is -EIO", "[uboot][systemc]") {
  // faults.identify_status 6 (Internal Error): nvme_submit_sync_cmd prints the status without the
  // phase tag (6), the phase (1) and the CQ slot, and returns -EIO. nvme_get_info_from_identify's
  // failure is not checked: the probe ends ok with no namespace looked at (NN stays 0). The slot:
  // Set Features, Create CQ and Create SQ took slots 0, 1 and 0 of the 2-entry admin CQ (phase 1,
  // 1, then 0 after the wrap), so Identify reads slot 1 with phase 0.
  const auto trials = test::run_bench(test::bench_scenario("uboot", R"({"faults": {"identify_status": 6}})"));
  const test::BenchTrial& t = trials[0];
  CHECK(t.status == ProbeStatus::ok);
  CHECK(t.lines == std::vector<std::string>{"ERROR: status = 6, phase = 0, head = 1"});
}

TEST_CASE("host.driver: an unknown driver is an error listing the known ones", "[uboot][scenario]") {
  std::string err;
  try {
    load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": {"driver": "nonesuch"}})", "s.json");
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err == "s.json: /host/driver: \"nonesuch\" is not allowed; allowed: \"linux\", \"uboot\", \"freebsd\", \"edk2\", \"spdk\", \"openbsd\", \"seabios\", \"qemu-userspace\", \"openvmm\", \"nvmewin\"");
}
