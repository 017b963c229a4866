// scenarios/qemu-seabios.json: its comment's predictions (the QEMU hw/nvme and SeaBIOS rows of
// the other-hosts reference): every wait ends at its first read under SeaBIOS and under Linux
// 5.7, with or without SeaBIOS's enabled hand-over; SeaBIOS finds the one namespace
// (identify.nn 1) and succeeds. Over the vm-emulated link a read is 2 x one_way U[2.5, 2.95] us + 2 x
// 6.094 ns serialisation + 32 ns read cycles + up to 2 ns to an edge = 5.044-5.946 us; a write
// holds the guest 7.11 ns + write_stall U[5, 6] us = 5.007-6.007 us.
#include <catch2/catch.hpp>

#include "engine/runner.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;

TEST_CASE("qemu-seabios.json: every wait ends at its first read under SeaBIOS and Linux 5.7", "[cases][seabios][systemc]") {
  LoadOptions lo;
  const Scenario sc = load_scenario_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/qemu-seabios.json", lo);
  RunOptions o;
  o.quiet = true;
  o.progress = false;
  const RunReport r = run_scenario(sc, o);
  REQUIRE(r.variants.size() == 3);
  // SeaBIOS finds namespace 1 (identify.nn 1) and attaches; Linux probes it.
  CHECK(r.variants[0].status_counts[0] == 100);
  CHECK(r.variants[1].status_counts[0] == 100);
  CHECK(r.variants[2].status_counts[0] == 100);
  // Variant 1 is the SeaBIOS -> Linux chain: SeaBIOS's stage attaches (identify.nn 1) in every
  // trial, Linux's stage, which meets the controller SeaBIOS left enabled, succeeds in every trial.
  REQUIRE(r.variants[1].stages.size() == 2);
  CHECK(r.variants[1].stages[0].status_counts[0] == 100);
  CHECK(r.variants[1].stages[1].status_counts[0] == 100);
  CHECK(r.variants[0].stages.empty());
  for (const auto& v : r.variants) {
    for (const char* ph : {"disable", "enable"}) {
      INFO(v.name << " " << ph);
      CHECK(v.phases[ph]["polls"]["min"].get<double>() == 1);
      CHECK(v.phases[ph]["polls"]["max"].get<double>() == 1);
      CHECK(v.phases[ph]["sleeps"]["max"].get<double>() == 0);
    }
  }
  // SeaBIOS's setup is at least its 11 register reads (VS, CAP, CAP+4, twice the wait's CAP,
  // CAP+4 and CSTS, the doorbell stride's CAP, CAP+4) at 5.044 us, 7 register writes (CC, AQA,
  // ASQ, ASQ+4, ACQ, ACQ+4, CC) at 5.007 us, Identify Controller's 20 us, Create I/O CQ's and
  // SQ's 10 us each and Identify Namespace's 20 us: 55.484 + 35.049 + 20 + 10 + 10 + 20 =
  // 150.533 us, before any doorbell and DMA.
  CHECK(r.variants[0].probe_ms.min >= 0.150533);
}
