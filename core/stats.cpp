#include "core/stats.hpp"

#include <algorithm>
#include <cmath>

namespace nvmesim {

double round6(double v) { return std::round(v * 1e6) / 1e6; }

double quantile_sorted(const std::vector<double>& sorted, double q) {
  const double h = (static_cast<double>(sorted.size()) - 1) * q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

Summary summarize(std::vector<double>& values) {
  Summary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // Kahan-free two-pass mean and variance; sums in sorted order are deterministic.
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.stddev = values.size() > 1 ? std::sqrt(ss / static_cast<double>(values.size() - 1)) : 0.0;
  s.min = values.front();
  s.max = values.back();
  s.p5 = quantile_sorted(values, 0.05);
  s.p10 = quantile_sorted(values, 0.10);
  s.p50 = quantile_sorted(values, 0.50);
  s.p90 = quantile_sorted(values, 0.90);
  s.p95 = quantile_sorted(values, 0.95);
  s.p99 = quantile_sorted(values, 0.99);
  return s;
}

nlohmann::ordered_json to_json(const Summary& s) {
  nlohmann::ordered_json j;
  j["count"] = s.count;
  j["mean"] = round6(s.mean);
  j["stddev"] = round6(s.stddev);
  j["min"] = round6(s.min);
  j["p5"] = round6(s.p5);
  j["p10"] = round6(s.p10);
  j["p50"] = round6(s.p50);
  j["p90"] = round6(s.p90);
  j["p95"] = round6(s.p95);
  j["p99"] = round6(s.p99);
  j["max"] = round6(s.max);
  return j;
}

}  // namespace nvmesim
