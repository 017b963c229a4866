#include "core/sketch.hpp"

#include <algorithm>
#include <cmath>

namespace nvmesim {

void QuantileSketch::Side::add(uint64_t m) {
  ++count;
  if (m < 4096) {
    if (!exact) exact = std::make_unique<std::array<uint64_t, 4096>>();  // value-initialised: zeros
    ++(*exact)[m];
    return;
  }
  const int msb = 63 - __builtin_clzll(m);  // >= 12
  const size_t octave = static_cast<size_t>(msb - 12);
  if (octaves.size() <= octave) octaves.resize(octave + 1);
  if (!octaves[octave]) octaves[octave] = std::make_unique<std::array<uint64_t, 2048>>();
  const uint64_t sub = (m >> (msb - kSubBits)) & 2047;  // the 11 bits below the leading one
  ++(*octaves[octave])[sub];
}

double QuantileSketch::Side::at_rank(uint64_t r) const {
  uint64_t seen = 0;
  if (exact) {
    for (size_t m = 0; m < exact->size(); ++m) {
      seen += (*exact)[m];
      if (r < seen) return static_cast<double>(m);
    }
  }
  for (size_t o = 0; o < octaves.size(); ++o) {
    if (!octaves[o]) continue;
    const int msb = static_cast<int>(o) + 12;
    const double width = std::ldexp(1.0, msb - kSubBits);
    for (size_t s = 0; s < 2048; ++s) {
      seen += (*octaves[o])[s];
      if (r < seen) return std::ldexp(1.0, msb) + (static_cast<double>(s) + 0.5) * width;
    }
  }
  return 0;
}

void QuantileSketch::add(int64_t v) {
  if (count_ == 0) {
    min_ = max_ = v;
  } else {
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }
  ++count_;
  sum_ += v;
  const double x = static_cast<double>(v);
  const double d = x - mean_;
  mean_ += d / static_cast<double>(count_);
  m2_ += d * (x - mean_);
  if (v < 0) neg_.add(static_cast<uint64_t>(-(v + 1)) + 1);
  else pos_.add(static_cast<uint64_t>(v));
}

double QuantileSketch::value_at_rank(uint64_t r) const {
  double v;
  if (r < neg_.count) v = -neg_.at_rank(neg_.count - 1 - r);  // most negative first
  else v = pos_.at_rank(r - neg_.count);
  return std::clamp(v, static_cast<double>(min_), static_cast<double>(max_));
}

Summary QuantileSketch::summary(double units_per_ms) const {
  Summary s;
  s.count = count_;
  if (count_ == 0) return s;
  s.mean = static_cast<double>(sum_ / static_cast<long double>(count_)) / units_per_ms;
  s.stddev = count_ > 1 ? std::sqrt(m2_ / static_cast<double>(count_ - 1)) / units_per_ms : 0.0;
  s.min = static_cast<double>(min_) / units_per_ms;
  s.max = static_cast<double>(max_) / units_per_ms;
  auto q = [&](double p) {
    const double h = static_cast<double>(count_ - 1) * p;
    const auto lo = static_cast<uint64_t>(std::floor(h));
    const double a = value_at_rank(lo);
    if (lo + 1 >= count_) return a / units_per_ms;
    const double b = value_at_rank(lo + 1);
    return (a + (h - static_cast<double>(lo)) * (b - a)) / units_per_ms;
  };
  s.p5 = q(0.05);
  s.p10 = q(0.10);
  s.p50 = q(0.50);
  s.p90 = q(0.90);
  s.p95 = q(0.95);
  s.p99 = q(0.99);
  return s;
}

}  // namespace nvmesim
