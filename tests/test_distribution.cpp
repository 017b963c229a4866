// Distributions: quantiles of 100k draws against the analytic inverse CDFs, and the
// counter-based streams of DESIGN section 6.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/distribution.hpp"
#include "core/rng.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kUs = 1000000;  // ps per microsecond
constexpr int64_t kMs = 1000 * kUs;

std::vector<double> draw(const Distribution& d, int n = 100000, const char* stream = "test/stream") {
  Stream s(42, 7, stream);
  std::vector<double> v;
  v.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v.push_back(static_cast<double>(d.sample_ps(s)));
  std::sort(v.begin(), v.end());
  return v;
}
double q(const std::vector<double>& sorted, double p) {
  return sorted[static_cast<size_t>(p * static_cast<double>(sorted.size() - 1))];
}
}  // namespace

TEST_CASE("normal_quantile matches tabulated standard normal quantiles", "[dist]") {
  CHECK(normal_quantile(0.5) == Approx(0.0).margin(1e-12));
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(normal_quantile(0.8413447460685429) == Approx(1.0).epsilon(1e-12));
  CHECK(normal_quantile(1e-6) == Approx(-4.753424308822899).epsilon(1e-10));
  CHECK_THROWS_AS(normal_quantile(0.0), std::domain_error);
}

TEST_CASE("uniform: 100k draws have the quantiles of U(1 ms - 3 ms)", "[dist]") {
  const auto v = draw(Distribution::uniform(1 * kMs, 3 * kMs));
  CHECK(q(v, 0.10) == Approx(1.2 * kMs).epsilon(0.01));
  CHECK(q(v, 0.50) == Approx(2.0 * kMs).epsilon(0.01));
  CHECK(q(v, 0.90) == Approx(2.8 * kMs).epsilon(0.01));
  CHECK(v.front() >= 1 * kMs);
  CHECK(v.back() <= 3 * kMs);
}

TEST_CASE("normal: quantiles mean + z sd - truncation respected", "[dist]") {
  // mean 500 us, sd 100 us: p10 = 500 - 1.2816 * 100 = 371.8 us, p90 = 628.2 us.
  const auto v = draw(Distribution::normal(500.0 * kUs, 100.0 * kUs));
  CHECK(q(v, 0.50) == Approx(500.0 * kUs).epsilon(0.01));
  CHECK(q(v, 0.10) == Approx(371.84 * kUs).epsilon(0.01));
  CHECK(q(v, 0.90) == Approx(628.16 * kUs).epsilon(0.01));
  // Truncated to [400, 600] us: symmetric, so the median stays 500 us and nothing falls outside.
  const auto t = draw(Distribution::normal(500.0 * kUs, 100.0 * kUs, 400.0 * kUs, 600.0 * kUs));
  CHECK(t.front() >= 400.0 * kUs);
  CHECK(t.back() <= 600.0 * kUs);
  CHECK(q(t, 0.5) == Approx(500.0 * kUs).epsilon(0.01));
  // Default truncation at 0: mean 0, sd 1 ms gives a half-normal with median 0.6745 ms.
  const auto h = draw(Distribution::normal(0.0, 1.0 * kMs));
  CHECK(h.front() >= 0);
  CHECK(q(h, 0.5) == Approx(0.6745 * kMs).epsilon(0.02));
}

TEST_CASE("lognormal: median exp(mu) - p90 median * exp(1.2816 sigma)", "[dist]") {
  const auto v = draw(Distribution::lognormal(1.0 * kMs, 0.5));
  CHECK(q(v, 0.5) == Approx(1.0 * kMs).epsilon(0.01));
  CHECK(q(v, 0.9) == Approx(std::exp(1.2815516 * 0.5) * kMs).epsilon(0.015));
}

TEST_CASE("exponential: median = offset + mean ln 2", "[dist]") {
  const auto v = draw(Distribution::exponential(1.0 * kMs, 100 * kUs));
  CHECK(q(v, 0.5) == Approx(100 * kUs + std::log(2.0) * kMs).epsilon(0.01));
  CHECK(q(v, 0.9) == Approx(100 * kUs + std::log(10.0) * kMs).epsilon(0.015));
  CHECK(v.front() >= 100 * kUs);
}

TEST_CASE("empirical: each sample with equal probability", "[dist]") {
  const auto v = draw(Distribution::empirical({3 * kMs, 1 * kMs, 2 * kMs, 4 * kMs}));
  const auto count = [&](int64_t x) { return std::count(v.begin(), v.end(), static_cast<double>(x)); };
  for (int64_t x : {1 * kMs, 2 * kMs, 3 * kMs, 4 * kMs}) CHECK(count(x) == Approx(25000).epsilon(0.03));
}

TEST_CASE("quantiles: piecewise-linear inverse CDF through the points", "[dist]") {
  const auto d = Distribution::quantiles({{0.0, 100 * kUs}, {0.5, 400 * kUs}, {1.0, 1200 * kUs}});
  CHECK(d.quantile_ps(0.25) == 250 * kUs);  // halfway between 100 and 400
  CHECK(d.quantile_ps(0.75) == 800 * kUs);  // halfway between 400 and 1200
  const auto v = draw(d);
  CHECK(q(v, 0.5) == Approx(400.0 * kUs).epsilon(0.01));
  CHECK(q(v, 0.9) == Approx(1040.0 * kUs).epsilon(0.01));  // 400 + 0.8 * 800
}

TEST_CASE("mixture: weights split the probability - each part keeps its shape", "[dist]") {
  // 90% fixed 1 ms, 10% fixed 50 ms: p50 = 1 ms, p95 = 50 ms, 10% of draws at 50 ms.
  const auto d = Distribution::mixture({{9.0, Distribution::fixed(1 * kMs)}, {1.0, Distribution::fixed(50 * kMs)}});
  const auto v = draw(d);
  CHECK(q(v, 0.5) == 1.0 * kMs);
  CHECK(q(v, 0.95) == 50.0 * kMs);
  CHECK(std::count(v.begin(), v.end(), 50.0 * kMs) == Approx(10000).epsilon(0.03));
}

TEST_CASE("impossible parameters are rejected with what is allowed", "[dist]") {
  CHECK_THROWS_WITH(Distribution::uniform(3, 1), Catch::Contains("min must be <= max"));
  CHECK_THROWS_AS(Distribution::fixed(-1), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::normal(1, NAN), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::lognormal(0, 1), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::empirical({}), std::invalid_argument);
  CHECK_THROWS_WITH(Distribution::quantiles({{0, 5}, {0.5, 3}, {1, 9}}), Catch::Contains("must not decrease"));
  CHECK_THROWS_AS(Distribution::quantiles({{0.1, 5}, {1, 9}}), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::mixture({{0.0, Distribution::fixed(1)}}), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::normal(0, 1, 1e9, 2e9), std::invalid_argument);  // no mass
}

TEST_CASE("same stream - same draws - streams and trials are independent", "[rng]") {
  Stream a(1, 5, "nvme0/enable_latency"), b(1, 5, "nvme0/enable_latency");
  for (int i = 0; i < 1000; ++i) REQUIRE(a.next_uniform() == b.next_uniform());
  // Draw i does not depend on how many draws came before (counter-based).
  Stream c(1, 5, "nvme0/enable_latency");
  CHECK(c.uniform_at(999) == a.uniform_at(999));
  CHECK(Stream(1, 5, "nvme0/enable_latency").uniform_at(0) != Stream(1, 6, "nvme0/enable_latency").uniform_at(0));
  CHECK(Stream(1, 5, "nvme0/enable_latency").uniform_at(0) != Stream(1, 5, "nvme1/enable_latency").uniform_at(0));
  CHECK(Stream(1, 5, "nvme0/enable_latency").uniform_at(0) != Stream(2, 5, "nvme0/enable_latency").uniform_at(0));
  // Uniforms lie in (0, 1) and average 1/2.
  double sum = 0;
  Stream d(3, 0, "x");
  for (int i = 0; i < 100000; ++i) {
    const double u = d.next_uniform();
    REQUIRE(u > 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(sum / 100000 == Approx(0.5).epsilon(0.01));
}

TEST_CASE("known draws do not change between builds (byte-identical outputs)", "[rng]") {
  // splitmix64 of 0 is the published first output of SplitMix64 seeded with 0.
  CHECK(splitmix64(0) == 0xE220A8397B1DCDAFull);
  CHECK(fnv1a64("") == 0xCBF29CE484222325ull);
  CHECK(fnv1a64("a") == 0xAF63DC4C8601EC8Cull);
}

TEST_CASE("a normal truncated far in its upper tail samples inside its bounds at every u", "[dist]") {
  // mean 800 us, sd 250 us, truncated to [1800 us, inf): 4 sd above the mean, so the CDF at the
  // lower bound is 0.99997 and pa + u (1 - pa) rounds to 1.0 for u near 1 (found by the fuzzer).
  const auto d = Distribution::normal(800.0 * kUs, 250.0 * kUs, 1800.0 * kUs);
  for (double u : {1e-300, 0.5, 1.0 - 1e-16}) {
    const int64_t v = d.quantile_ps(u);
    CHECK(v >= 1800 * kUs);
    CHECK(v < 1000 * kMs);
  }
}
