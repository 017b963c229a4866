// Constant-memory statistics against the exact ones of core/stats.hpp. The values here are taken
// as nanoseconds (summary(1e6): 10^6 of them make a millisecond); the sketch itself has no unit.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/rng.hpp"
#include "core/sketch.hpp"
#include "core/stats.hpp"

using namespace nvmesim;

TEST_CASE("sketch percentiles are exact below 4096 units", "[stats]") {
  QuantileSketch sk;
  std::vector<double> ms;
  for (int64_t v : {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 4000, -7, -4095}) {
    sk.add(v);
    ms.push_back(static_cast<double>(v) / 1e6);
  }
  const Summary e = summarize(ms), s = sk.summary(1e6);
  CHECK(s.count == e.count);
  CHECK(s.min == e.min);
  CHECK(s.max == e.max);
  CHECK(s.mean == Approx(e.mean).epsilon(1e-12));
  CHECK(s.stddev == Approx(e.stddev).epsilon(1e-9));
  CHECK(s.p5 == Approx(e.p5).epsilon(1e-12));
  CHECK(s.p10 == Approx(e.p10).epsilon(1e-12));
  CHECK(s.p50 == Approx(e.p50).epsilon(1e-12));
  CHECK(s.p90 == Approx(e.p90).epsilon(1e-12));
  CHECK(s.p99 == Approx(e.p99).epsilon(1e-12));
}

TEST_CASE("sketch percentiles are within 0.05 percent for large values of either sign", "[stats]") {
  QuantileSketch sk;
  std::vector<double> ms;
  Stream r(9, 0, "sketch");
  for (int i = 0; i < 20000; ++i) {
    // probe-like times around 6 ms and 217 ms, and deltas around -210 ms
    const double u = r.next_uniform();
    int64_t v = static_cast<int64_t>(6e6 + 1e6 * u);
    if (i % 3 == 1) v = static_cast<int64_t>(217e6 + 2e6 * u);
    if (i % 3 == 2) v = -static_cast<int64_t>(210e6 + 3e6 * u);
    sk.add(v);
    ms.push_back(static_cast<double>(v) / 1e6);
  }
  const Summary e = summarize(ms), s = sk.summary(1e6);
  CHECK(s.count == 20000);
  CHECK(s.min == e.min);
  CHECK(s.max == e.max);
  CHECK(s.mean == Approx(e.mean).epsilon(1e-9));
  for (auto [got, want] : {std::pair{s.p5, e.p5}, {s.p10, e.p10}, {s.p50, e.p50}, {s.p90, e.p90},
                           {s.p95, e.p95}, {s.p99, e.p99}}) {
    CHECK(std::fabs(got - want) <= 0.0005 * std::fabs(want));
  }
}

TEST_CASE("an empty sketch summarises to zeros", "[stats]") {
  const Summary s = QuantileSketch{}.summary(1e6);
  CHECK(s.count == 0);
  CHECK(s.p50 == 0);
}

TEST_CASE("sketch ranks run through the exact magnitudes into the octaves, on both signs", "[stats]") {
  // 1000 values: 0..249 (exact part), 5000..5249 (octave 0), -1..-250 (exact part of the negative
  // side) and -9000..-9249 (its octave 0). Sorted, rank r of 1000 is -9249 + r for r < 250, then
  // -250.. -1, 0..249, 5000..5249. Percentiles within 0.05 % of the exact ones (exact where a rank
  // falls on a magnitude below 4096).
  QuantileSketch sk;
  std::vector<double> ms;
  for (int64_t i = 0; i < 250; ++i) {
    for (int64_t v : {i, 5000 + i, -1 - i, -9000 - i}) {
      sk.add(v);
      ms.push_back(static_cast<double>(v) / 1e6);
    }
  }
  const Summary e = summarize(ms), s = sk.summary(1e6);
  CHECK(s.count == 1000);
  CHECK(s.p50 == Approx(e.p50).epsilon(1e-12));  // ranks 499/500: -1 and 0, both exact: -0.5 units
  CHECK(e.p50 == Approx(-0.5 / 1e6));
  for (auto [got, want] : {std::pair{s.p5, e.p5}, {s.p10, e.p10}, {s.p90, e.p90}, {s.p95, e.p95}, {s.p99, e.p99}})
    CHECK(std::fabs(got - want) <= 0.0005 * std::fabs(want));
}
