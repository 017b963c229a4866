// The EDK2 host driver (host/edk2/, NvmExpressDxe): a 1 ms Stall before every CSTS read,
// max(CAP.TO, 1) x 500 iterations, CC.EN=0 written without a short cut. Facts: the EDK2 section
// of the host facts (brief), cases E1, E2.
// Notation: R = one CSTS read round trip = 0.944-0.946 us (2 x 450 ns + 2 x 6.094 ns + 32 ns +
// 0..2 ns); w = a posted write, ~7 ns for the host. Stall(1000) is exact (udelay: no lateness).
// Each TEST_CASE elaborates once, so CTest runs it in its own process.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "support.hpp"

using namespace nvmesim;
using json = nlohmann::json;

namespace {
std::string edk2(const std::string& controller, int trials = 3) {
  return R"({"schema": "nvmesim.scenario/1", "trials": )" + std::to_string(trials) + R"(,
    "host": {"driver": "edk2"}, "controllers": [)" + controller + "]}";
}

const json& phase(const json& trial, const std::string& name) {
  for (const auto& p : trial["phases"])
    if (p["name"] == name) return p;
  FAIL("no phase " << name);
  static json none;
  return none;
}

double dur_ns(const json& p) { return p["end_ns"].get<double>() - p["start_ns"].get<double>(); }

bool has_line(const json& trial, const std::string& text) {
  for (const auto& l : trial["dmesg"])
    if (l.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

constexpr double kRMin = 944.0, kRMax = 946.0, kWMax = 10.0;  // ns
}  // namespace

TEST_CASE("edk2: a stall before every read, even on an instant device (case E1)", "[edk2][systemc]") {
  // Disabled at hand-over, instant: disable = CC read + CC write (EN=0 written anyway) + Stall
  // 1 ms + 1 read = 1 ms + 2R + w; enable = CC write + Stall 1 ms + 1 read = 1 ms + R + w.
  const json j = test::run_to_json(edk2(R"({"handoff": "disabled"})"), "edk2_e1.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "ok");
    const json& dis = phase(t, "disable");
    CHECK(dis["polls"] == 1);
    CHECK(dis["sleeps"] == 1);
    CHECK(dur_ns(dis) >= 1e6 + 2 * kRMin);
    CHECK(dur_ns(dis) <= 1e6 + 2 * kRMax + kWMax);
    const json& en = phase(t, "enable");
    CHECK(en["polls"] == 1);
    CHECK(en["sleeps"] == 1);
    CHECK(dur_ns(en) >= 1e6 + kRMin);
    CHECK(dur_ns(en) <= 1e6 + kRMax + kWMax);
    CHECK(has_line(t, "NVMe controller is enabled with status [Success]."));
    CHECK(has_line(t, "NvmExpressDriverBindingStart: end successfully"));
  }
}

TEST_CASE("edk2: CAP.TO=0 counts as 1: 500 x (1 ms + R) = 500.5 ms, then [Time out] (case E2)", "[edk2][systemc]") {
  // N = max(0, 1) x 500 = 500 iterations, each Stall 1 ms + a read that sees RDY=0:
  // enable = w + 500 x (1 ms + R) = 500 ms + 500R + w = 500.472-500.473 ms (+ w).
  const json j = test::run_to_json(edk2(R"({"handoff": "disabled", "cap": {"to": 0}, "enable_latency": "10s"})"),
                                   "edk2_e2.json");
  for (const auto& t : j["variants"][0]["trials"]) {
    CHECK(t["status"] == "enodev");
    const json& en = phase(t, "enable");
    CHECK(en["polls"] == 500);
    CHECK(en["sleeps"] == 500);
    CHECK(dur_ns(en) >= 500e6 + 500 * kRMin);
    CHECK(dur_ns(en) <= 500e6 + 500 * kRMax + kWMax);
    CHECK(has_line(t, "NVMe controller is enabled with status [Time out]."));
    CHECK(has_line(t, "NvmExpressDriverBindingStart: end with Time out"));
  }
}
