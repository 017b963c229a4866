#pragma once
// Summary statistics of per-trial values (DESIGN section 8, `summary`).
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvmesim {

/// count, mean, sample standard deviation, min, percentiles and max of a set of values.
/// Percentiles interpolate linearly between order statistics (Hyndman-Fan type 7, numpy's
/// default): p = x[floor(h)] + (h - floor(h)) (x[floor(h)+1] - x[floor(h)]), h = (n - 1) q.
struct Summary {
  size_t count = 0;
  double mean = 0, stddev = 0, min = 0, p5 = 0, p10 = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};

/// Summarises `values` (sorted in place). An empty set gives count 0 and zeros.
Summary summarize(std::vector<double>& values);

/// The q-quantile (q in [0, 1]) of sorted values, type 7. Requires a non-empty vector.
double quantile_sorted(const std::vector<double>& sorted, double q);

/// {"count", "mean", "stddev", "min", "p5", "p10", "p50", "p90", "p95", "p99", "max"}; doubles are
/// rounded to 6 decimals so that outputs stay readable and stable.
nlohmann::ordered_json to_json(const Summary& s);

/// Rounds to 6 decimal places (outputs carry ms with ns resolution).
double round6(double v);

}  // namespace nvmesim
