// Same scenario and seed: byte-identical output; a trial's result does not depend on how many
// trials run with it (DESIGN section 6). Runs the nvmesim binary, one process per run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support.hpp"

using nvmesim::test::run_nvmesim;
using nvmesim::test::slurp;

namespace {
const std::string kAws = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/aws-c5.12xlarge.json";
}  // namespace

TEST_CASE("two runs with the same scenario and seed give identical bytes", "[determinism]") {
  REQUIRE(run_nvmesim("run " + kAws + " --trials 50 --seed 7 -q --out det_a.json") == 0);
  REQUIRE(run_nvmesim("run " + kAws + " --trials 50 --seed 7 -q --out det_b.json") == 0);
  const std::string a = slurp("det_a.json"), b = slurp("det_b.json");
  CHECK(a.size() > 1000);
  CHECK(a == b);
  REQUIRE(run_nvmesim("run " + kAws + " --trials 50 --seed 8 -q --out det_c.json") == 0);
  CHECK(slurp("det_c.json") != a);  // the seed matters
  for (const char* f : {"det_a.json", "det_b.json", "det_c.json"}) std::remove(f);
}

TEST_CASE("trial k is the same whether 5 or 40 trials run", "[determinism]") {
  REQUIRE(run_nvmesim("run " + kAws + " --trials 5 -q --format jsonl --out det_5.jsonl") == 0);
  REQUIRE(run_nvmesim("run " + kAws + " --trials 40 -q --format jsonl --out det_40.jsonl") == 0);
  auto trials = [](const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> out;
    while (std::getline(in, line))
      if (nlohmann::json::parse(line)["record"] == "trial") out.push_back(line);
    return out;
  };
  const auto five = trials("det_5.jsonl"), forty = trials("det_40.jsonl");
  REQUIRE(five.size() == 10);   // 2 variants x 5
  REQUIRE(forty.size() == 80);
  for (size_t i = 0; i < 5; ++i) {
    CHECK(five[i] == forty[i]);          // variant 0
    CHECK(five[5 + i] == forty[40 + i]); // variant 1
  }
  std::remove("det_5.jsonl");
  std::remove("det_40.jsonl");
}

// Summaries and paired deltas are computed without per-trial storage (sketches and a spill file
// of the baseline's probe times); recompute them here from the per-trial lines. count, min, max
// and mean must agree exactly (to the 6 printed decimals), the median within the sketch's 0.05%.
TEST_CASE("paired deltas and summaries agree with the trial lines", "[determinism]") {
  REQUIRE(run_nvmesim("run " + kAws + " --trials 300 -q --format jsonl --out det_pair.jsonl") == 0);
  std::ifstream in("det_pair.jsonl");
  std::string line;
  std::map<std::string, std::vector<std::pair<int64_t, bool>>> by_variant;  // probe_ns, ok
  std::vector<std::string> order;
  nlohmann::json summary;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    if (j["record"] == "trial") {
      const std::string v = j["variant"];
      if (!by_variant.count(v)) order.push_back(v);
      auto& t = by_variant[v];
      REQUIRE(j["trial"].get<size_t>() == t.size());
      t.emplace_back(j["probe_ns"].get<int64_t>(), j["status"] == "ok");
    } else if (j["record"] == "summary") {
      summary = j;
    }
  }
  std::remove("det_pair.jsonl");
  REQUIRE(order.size() == 2);
  const auto& base = by_variant[order[0]];
  const auto& other = by_variant[order[1]];
  REQUIRE(base.size() == 300);
  REQUIRE(other.size() == 300);
  std::vector<double> d;
  for (size_t k = 0; k < 300; ++k)
    if (base[k].second && other[k].second) d.push_back(static_cast<double>(other[k].first - base[k].first) / 1e6);
  REQUIRE(!d.empty());
  std::sort(d.begin(), d.end());
  double sum = 0;
  for (double x : d) sum += x;
  const auto& delta = summary["paired"][0]["delta_ms"];
  CHECK(summary["paired"][0]["variant"] == order[1]);
  CHECK(delta["count"].get<size_t>() == d.size());
  // probe_ns truncates picoseconds to ns, so each delta is within 1 ns of the exact one.
  CHECK(delta["min"].get<double>() == Approx(d.front()).margin(1.5e-6));
  CHECK(delta["max"].get<double>() == Approx(d.back()).margin(1.5e-6));
  CHECK(delta["mean"].get<double>() == Approx(sum / static_cast<double>(d.size())).margin(1.5e-6));
  // Type 7 median of an even or odd count; the sketch keeps it within 0.05% (plus 1 ns).
  const size_t n = d.size();
  const double median = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
  CHECK(delta["p50"].get<double>() == Approx(median).margin(5e-4 * std::abs(median) + 2e-6));
  // The baseline's probe summary: exact count and extremes.
  std::vector<int64_t> p;
  for (const auto& t : base) p.push_back(t.first);
  const auto& ps = summary["variants"][0]["summary"]["probe_ms"];
  CHECK(ps["count"].get<size_t>() == 300);
  CHECK(ps["min"].get<double>() == Approx(static_cast<double>(*std::min_element(p.begin(), p.end())) / 1e6).margin(1.5e-6));
  CHECK(ps["max"].get<double>() == Approx(static_cast<double>(*std::max_element(p.begin(), p.end())) / 1e6).margin(1.5e-6));
}
