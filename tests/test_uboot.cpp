// The second host driver, U-Boot (host/uboot/), through the host-driver seam: host.driver selects
// it, its readiness wait is the one loop with a tight-loop WaitSpec (deadline checked before each
// read on the millisecond timer, no sleep, no all-ones test), and its platform probes the
// functions one after the other. Facts: the U-Boot section of the host facts (brief), case U1.
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "scenario/scenario.hpp"
#include "support.hpp"

using namespace nvmesim;
using json = nlohmann::json;

namespace {
// `controllers` spliced into a U-Boot scenario of `trials` trials.
std::string uboot(const std::string& controllers, int trials = 5) {
  return R"({"schema": "nvmesim.scenario/1", "trials": )" + std::to_string(trials) + R"(,
    "host": {"driver": "uboot", "wakeup_latency": "0ns"}, "controllers": [)" + controllers + "]}";
}

const json& phase(const json& trial, const std::string& name, int ctrl) {
  for (const auto& p : trial["phases"])
    if (p["name"] == name && p["ctrl"] == ctrl) return p;
  FAIL("no phase " << name << " of controller " << ctrl);
  static json none;
  return none;
}

double dur_ns(const json& p) { return p["end_ns"].get<double>() - p["start_ns"].get<double>(); }

bool has_line(const json& trial, const std::string& text) {
  for (const auto& l : trial["dmesg"])
    if (l.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("uboot: CAP.TO=0 fails the disable wait with no CSTS read (case U1)", "[uboot][systemc]") {
  // while (get_timer(start) < TO * 500): with TO = 0 the loop never runs and returns -ETIME (-62).
  const json j = test::run_to_json(uboot(R"({"handoff": "enabled", "cap": {"to": 0}})"), "uboot_to0.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "enodev");
    const json& dis = phase(t, "disable", 0);
    CHECK(dis["polls"] == 0);
    CHECK(dis["sleeps"] == 0);
    CHECK(dur_ns(dis) < 20.0);  // the posted CC write (w, ~7 ns) only: one read would take ~0.95 us
    for (const auto& p : t["phases"]) CHECK(p["name"] == "disable");  // no enable, no admin
    CHECK(has_line(t, "Failed to probe 'nvme#0': err=-62"));
  }
}

TEST_CASE("uboot: a tight loop without sleeps, functions probed one after the other", "[uboot][systemc]") {
  // nvme0: enable latency 50 us, CAP.TO=1 (a 500 ms budget); nvme1: ready at once.
  const json j = test::run_to_json(
      uboot(R"({"handoff": "disabled", "cap": {"to": 1}, "enable_latency": "50us"},
               {"handoff": "disabled", "cap": {"to": 1}, "enable_latency": "0ns"})"),
      "uboot_tight.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "ok");
    // The disable phase is the posted CC write (w, a few ns) and one CSTS read that sees RDY=0:
    // R = 2 x 450 ns one way + 2 x 6.1 ns serialisation + 32 ns read cycles + (0..2) ns edge
    // = 0.944-0.946 us (host facts, notation), so w + R is 0.94-0.96 us.
    const double r_ns = dur_ns(phase(t, "disable", 0));
    CHECK(phase(t, "disable", 0)["polls"] == 1);
    CHECK(r_ns >= 940.0);
    CHECK(r_ns <= 960.0);
    // The enable wait polls back to back: no sleep, so its length is its reads, w + polls x R,
    // and it ends at the first read that samples RDY=1, at least 50 us after the CC write and
    // less than one read (plus the write's ~0.46 us flight) later.
    const json& en = phase(t, "enable", 0);
    const double en_ns = dur_ns(en);
    const int polls = en["polls"].get<int>();
    CHECK(en["sleeps"] == 0);
    CHECK(en_ns >= 50'000.0);
    CHECK(en_ns <= 50'000.0 + 460.0 + 2 * 960.0);
    CHECK(std::abs(en_ns - polls * r_ns) < 0.02 * r_ns * polls);  // 53-54 reads of ~0.95 us
    // nvme1 (ready at once: one read per wait) starts only after nvme0's probe ended: serial.
    CHECK(phase(t, "disable", 1)["start_ns"].get<double>() >= phase(t, "admin", 0)["end_ns"].get<double>());
    CHECK(phase(t, "disable", 1)["polls"] == 1);
    CHECK(phase(t, "enable", 1)["polls"] == 1);
  }
}

TEST_CASE("host.driver: an unknown driver is an error listing the known ones", "[uboot][scenario]") {
  std::string err;
  try {
    load_scenario_text(R"({"schema": "nvmesim.scenario/1", "host": {"driver": "nonesuch"}})", "s.json");
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err == "s.json: /host/driver: \"nonesuch\" is not allowed; allowed: \"linux\", \"uboot\", \"freebsd\", \"edk2\"");
}
