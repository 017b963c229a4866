// The published measurements of shared/cases/README.md, reproduced by the shipped scenarios with
// only the kernel changed between variants.
#include <catch2/catch.hpp>

#include "engine/runner.hpp"
#include "scenario/scenario.hpp"

using namespace nvmesim;

namespace {
RunReport run_file(const std::string& name, int64_t trials) {
  LoadOptions lo;
  lo.trials = trials;
  const Scenario sc = load_scenario_file(std::string(NVMESIM_SOURCE_DIR) + "/scenarios/" + name, lo);
  RunOptions o;
  o.quiet = true;
  o.progress = false;
  return run_scenario(sc, o);
}
double stat(const nlohmann::ordered_json& phases, const char* phase, const char* what, const char* s) {
  return phases[phase][what][s].get<double>();
}
}  // namespace

TEST_CASE("AWS c5.12xlarge: 217 ms under 5.6 - 6.4 ms under 5.7 - paired delta near -211 ms", "[cases][systemc]") {
  const RunReport r = run_file("aws-c5.12xlarge.json", 1000);
  REQUIRE(r.variants.size() == 2);
  const auto& v56 = r.variants[0];
  const auto& v57 = r.variants[1];
  CHECK(v56.status_counts[0] == 1000);
  CHECK(v57.status_counts[0] == 1000);
  // cases/README.md: 217.242 ms +- 5% and 6.369 ms +- 20% (medians).
  CHECK(v56.probe_ms.p50 == Approx(217.242).epsilon(0.05));
  CHECK(v57.probe_ms.p50 == Approx(6.369).epsilon(0.20));
  // Paired delta p50 between -215 and -205 ms (observed -210.9 ms).
  REQUIRE(r.paired.size() == 1);
  CHECK(r.paired[0].delta_ms.count == 1000);
  CHECK(r.paired[0].delta_ms.p50 > -215.0);
  CHECK(r.paired[0].delta_ms.p50 < -205.0);
  // Each wait missed the first read and slept exactly once, in every trial, on both kernels.
  for (const auto* v : {&v56, &v57}) {
    for (const char* ph : {"disable", "enable"}) {
      CHECK(stat(v->phases, ph, "sleeps", "min") == 1);
      CHECK(stat(v->phases, ph, "sleeps", "max") == 1);
      CHECK(stat(v->phases, ph, "polls", "max") == 2);
    }
  }
}

TEST_CASE("reload with 32 queues: 70-88 ms under both kernels - no sleep - no change", "[cases][systemc]") {
  const RunReport r = run_file("reload-32q.json", 1000);
  REQUIRE(r.variants.size() == 2);
  for (const auto& v : r.variants) {
    CHECK(v.status_counts[0] == 1000);
    CHECK(v.probe_ms.p50 > 70.0);
    CHECK(v.probe_ms.p50 < 88.0);
    for (const char* ph : {"disable", "enable"}) {
      CHECK(stat(v.phases, ph, "sleeps", "max") == 0);
      CHECK(stat(v.phases, ph, "polls", "max") == 1);
    }
  }
  CHECK(r.paired[0].delta_ms.p50 > -2.0);
  CHECK(r.paired[0].delta_ms.p50 < 2.0);
}
