#include "core/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "core/rng.hpp"

namespace nvmesim {

namespace {
// Largest value a draw gives: 10^6 s, the largest duration a scenario file may hold
// (kMaxDurationPs in core/duration.hpp). Heavy tails (lognormal, exponential) are cut there so
// that simulated time (a 64-bit picosecond count) cannot overflow within a trial.
constexpr double kMaxPs = 1e18;

int64_t round_ps(double v) {
  if (!(v >= 0.0)) return 0;  // also catches NaN
  if (v >= kMaxPs) return static_cast<int64_t>(kMaxPs);
  return static_cast<int64_t>(std::llround(v));
}
}  // namespace

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::domain_error("normal_quantile: p must be in (0, 1)");
  // Acklam's algorithm.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double plow = 0.02425;
  double x;
  if (p < plow) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - plow) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley refinement step.
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

Distribution Distribution::fixed(int64_t value_ps) {
  if (value_ps < 0) throw std::invalid_argument("a fixed latency must be >= 0");
  Distribution d;
  d.kind_ = Kind::fixed;
  d.a_ = static_cast<double>(value_ps);
  d.settle();
  return d;
}

Distribution Distribution::uniform(int64_t min_ps, int64_t max_ps) {
  if (min_ps < 0) throw std::invalid_argument("uniform: min must be >= 0");
  if (min_ps > max_ps) throw std::invalid_argument("uniform: min must be <= max");
  Distribution d;
  d.kind_ = Kind::uniform;
  d.a_ = static_cast<double>(min_ps);
  d.b_ = static_cast<double>(max_ps);
  d.settle();
  return d;
}

Distribution Distribution::normal(double mean_ps, double sd_ps, double min_ps, double max_ps) {
  if (!std::isfinite(mean_ps)) throw std::invalid_argument("normal: mean must be finite");
  if (!std::isfinite(sd_ps) || sd_ps < 0) throw std::invalid_argument("normal: sd must be finite and >= 0");
  if (min_ps < 0) throw std::invalid_argument("normal: min must be >= 0");
  if (!(min_ps <= max_ps)) throw std::invalid_argument("normal: min must be <= max");
  Distribution d;
  d.kind_ = Kind::normal;
  d.a_ = mean_ps;
  d.b_ = sd_ps;
  d.c_ = min_ps;
  d.d_ = std::min(max_ps, kMaxPs);
  if (sd_ps > 0) {
    d.pa_ = normal_cdf((d.c_ - mean_ps) / sd_ps);
    d.pb_ = normal_cdf((d.d_ - mean_ps) / sd_ps);
    if (!(d.pb_ - d.pa_ > 1e-12))
      throw std::invalid_argument(
          "normal: the interval [min, max] holds no probability (it lies more than 7 sd from the mean)");
  } else if (mean_ps < min_ps || mean_ps > max_ps) {
    throw std::invalid_argument("normal: with sd 0 the mean must lie in [min, max]");
  }
  d.settle();
  return d;
}

Distribution Distribution::lognormal(double median_ps, double sigma) {
  if (!std::isfinite(median_ps) || median_ps <= 0)
    throw std::invalid_argument("lognormal: median must be > 0");
  if (!std::isfinite(sigma) || sigma < 0) throw std::invalid_argument("lognormal: sigma must be finite and >= 0");
  Distribution d;
  d.kind_ = Kind::lognormal;
  d.a_ = std::log(median_ps);
  d.b_ = sigma;
  d.settle();
  return d;
}

Distribution Distribution::exponential(double mean_ps, int64_t offset_ps) {
  if (!std::isfinite(mean_ps) || mean_ps <= 0) throw std::invalid_argument("exponential: mean must be > 0");
  if (offset_ps < 0) throw std::invalid_argument("exponential: offset must be >= 0");
  Distribution d;
  d.kind_ = Kind::exponential;
  d.a_ = mean_ps;
  d.b_ = static_cast<double>(offset_ps);
  d.settle();
  return d;
}

Distribution Distribution::empirical(std::vector<int64_t> samples_ps) {
  if (samples_ps.empty()) throw std::invalid_argument("empirical: needs at least one sample");
  for (int64_t s : samples_ps)
    if (s < 0) throw std::invalid_argument("empirical: samples must be >= 0");
  std::sort(samples_ps.begin(), samples_ps.end());
  Distribution d;
  d.kind_ = Kind::empirical;
  d.samples_ = std::make_shared<const std::vector<int64_t>>(std::move(samples_ps));
  d.settle();
  return d;
}

Distribution Distribution::quantiles(std::vector<std::pair<double, int64_t>> points) {
  if (points.size() < 2) throw std::invalid_argument("quantiles: needs at least two [p, value] points");
  if (points.front().first != 0.0 || points.back().first != 1.0)
    throw std::invalid_argument("quantiles: the first p must be 0 and the last 1");
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].second < 0) throw std::invalid_argument("quantiles: values must be >= 0");
    if (i > 0 && !(points[i].first > points[i - 1].first))
      throw std::invalid_argument("quantiles: p must increase strictly");
    if (i > 0 && points[i].second < points[i - 1].second)
      throw std::invalid_argument("quantiles: values must not decrease (an inverse CDF is monotonic)");
  }
  Distribution d;
  d.kind_ = Kind::quantiles;
  d.points_ = std::make_shared<const std::vector<std::pair<double, int64_t>>>(std::move(points));
  d.settle();
  return d;
}

Distribution Distribution::mixture(std::vector<std::pair<double, Distribution>> components) {
  if (components.empty()) throw std::invalid_argument("mixture: needs at least one component");
  double total = 0;
  for (auto& c : components) {
    if (!std::isfinite(c.first) || c.first <= 0) throw std::invalid_argument("mixture: weights must be > 0");
    total += c.first;
  }
  Distribution d;
  d.kind_ = Kind::mixture;
  std::vector<std::pair<double, Distribution>> cumulative;
  cumulative.reserve(components.size());
  double cum = 0;
  for (auto& c : components) {
    cum += c.first / total;
    cumulative.emplace_back(cum, std::move(c.second));
  }
  cumulative.back().first = 1.0;
  d.components_ = std::make_shared<const std::vector<std::pair<double, Distribution>>>(std::move(cumulative));
  d.settle();
  return d;
}

double Distribution::quantile_double(double u) const {
  switch (kind_) {
    case Kind::fixed:
      return a_;
    case Kind::uniform:
      return a_ + u * (b_ - a_);
    case Kind::normal:
      if (b_ == 0) return a_;
    {
      // Truncated far in a tail, pa + u (pb - pa) can round to 0 or 1: keep it inside (0, 1).
      const double p = std::clamp(pa_ + u * (pb_ - pa_), 0x1.0p-1074, 1.0 - 0x1.0p-53);
      return std::clamp(a_ + b_ * normal_quantile(p), c_, d_);
    }
    case Kind::lognormal:
      return b_ == 0 ? std::exp(a_) : std::exp(a_ + b_ * normal_quantile(u));
    case Kind::exponential:
      return b_ - a_ * std::log1p(-u);
    case Kind::empirical: {
      const std::vector<int64_t>& samples = *samples_;
      size_t i = static_cast<size_t>(u * static_cast<double>(samples.size()));
      return static_cast<double>(samples[std::min(i, samples.size() - 1)]);
    }
    case Kind::quantiles: {
      const auto& points = *points_;
      auto it = std::upper_bound(points.begin(), points.end(), u,
                                 [](double x, const auto& p) { return x < p.first; });
      if (it == points.end()) return static_cast<double>(points.back().second);
      auto lo = std::prev(it);
      const double f = (u - lo->first) / (it->first - lo->first);
      return static_cast<double>(lo->second) + f * static_cast<double>(it->second - lo->second);
    }
    case Kind::mixture: {
      // Select the component by u, then reuse u rescaled inside the component's band, so that
      // a mixture still costs one uniform per draw and stays an inverse CDF per component.
      double lo = 0;
      for (const auto& c : *components_) {
        if (u < c.first || &c == &components_->back()) {
          double v = (u - lo) / (c.first - lo);
          v = std::clamp(v, 0x1.0p-53, 1.0 - 0x1.0p-53);
          return static_cast<double>(c.second.quantile_ps(v));
        }
        lo = c.first;
      }
      return 0;
    }
  }
  return 0;
}

int64_t Distribution::quantile_ps(double u) const { return round_ps(quantile_double(u)); }

int64_t Distribution::sample_ps(Stream& stream) const {
  // Every kind consumes exactly one uniform, so that patching a fixed latency into a random one
  // in a variant does not shift the draw indices of the stream. A constant skips computing it.
  if (constant_) {
    (void)stream.next_uniform();  // inline: only the index increment is left of it
    return constant_ps_;
  }
  return quantile_ps(stream.next_uniform());
}

void Distribution::settle() {
  // The kinds whose quantile is the same for every u (quantile_double returns before using u).
  constant_ = kind_ == Kind::fixed || (kind_ == Kind::uniform && a_ == b_) ||
              ((kind_ == Kind::normal || kind_ == Kind::lognormal) && b_ == 0);
  constant_ps_ = constant_ ? quantile_ps(0.5) : 0;
}

int64_t Distribution::min_ps() const {
  switch (kind_) {
    case Kind::fixed: return round_ps(a_);
    case Kind::uniform: return round_ps(a_);
    case Kind::normal: return round_ps(b_ == 0 ? a_ : c_);
    case Kind::lognormal: return b_ == 0 ? round_ps(std::exp(a_)) : 0;
    case Kind::exponential: return round_ps(b_);
    case Kind::empirical: return samples_->front();
    case Kind::quantiles: return points_->front().second;
    case Kind::mixture: {
      int64_t m = INT64_MAX;
      for (const auto& c : *components_) m = std::min(m, c.second.min_ps());
      return m;
    }
  }
  return 0;
}

int64_t Distribution::max_ps() const {
  switch (kind_) {
    case Kind::fixed: return round_ps(a_);
    case Kind::uniform: return round_ps(b_);
    case Kind::normal: return b_ == 0 ? round_ps(a_) : round_ps(d_);
    case Kind::lognormal: return b_ == 0 ? round_ps(std::exp(a_)) : INT64_MAX;
    case Kind::exponential: return INT64_MAX;
    case Kind::empirical: return samples_->back();
    case Kind::quantiles: return points_->back().second;
    case Kind::mixture: {
      int64_t m = 0;
      for (const auto& c : *components_) m = std::max(m, c.second.max_ps());
      return m;
    }
  }
  return 0;
}

}  // namespace nvmesim
