#pragma once
// Latency distributions (DESIGN section 4), sampled by inverse CDF from one uniform per draw.
// Implemented here rather than with <random>, whose distributions differ between standard
// libraries: the same seed must give the same bytes on every machine.
// All values are durations in picoseconds (int64 ps; a draw is at most 10^6 s).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nvmesim {

class Stream;

/// Inverse of the standard normal CDF, Phi^-1(p) for p in (0, 1). Acklam's rational
/// approximation refined by one Halley step (relative error below 1e-15).
/// Throws std::domain_error for p outside (0, 1).
double normal_quantile(double p);
/// Standard normal CDF Phi(x).
double normal_cdf(double x);

/// A latency distribution over durations in picoseconds.
/// Construct with the static factories; each throws std::invalid_argument (with a message that
/// says what is allowed) for impossible parameters. Copying is cheap: the tables of empirical,
/// quantiles and mixture distributions are immutable and shared between copies.
class Distribution {
 public:
  enum class Kind { fixed, uniform, normal, lognormal, exponential, empirical, quantiles, mixture };

  /// Always `value_ps`.
  static Distribution fixed(int64_t value_ps);
  /// Uniform on [min_ps, max_ps]; requires 0 <= min_ps <= max_ps.
  static Distribution uniform(int64_t min_ps, int64_t max_ps);
  /// Normal(mean, sd) truncated to [min_ps, max_ps] (default [0, +inf)); requires sd >= 0,
  /// min <= max, and the truncation interval holding some probability mass.
  static Distribution normal(double mean_ps, double sd_ps, double min_ps = 0.0,
                             double max_ps = 1e300);
  /// Lognormal with median `median_ps` (= exp(mu)) and shape `sigma` >= 0.
  static Distribution lognormal(double median_ps, double sigma);
  /// Exponential with mean `mean_ps` > 0, shifted by `offset_ps` >= 0.
  static Distribution exponential(double mean_ps, int64_t offset_ps = 0);
  /// Empirical: each of the samples with equal probability (inverse of the step ECDF).
  /// Requires at least one sample, all >= 0.
  static Distribution empirical(std::vector<int64_t> samples_ps);
  /// Piecewise-linear inverse CDF through (p, value) points: p strictly increasing from 0 to 1,
  /// values non-decreasing and >= 0; at least two points.
  static Distribution quantiles(std::vector<std::pair<double, int64_t>> points);
  /// Weighted mixture; weights > 0 (normalised here), at least one component.
  static Distribution mixture(std::vector<std::pair<double, Distribution>> components);

  /// The value at probability u in (0, 1), in picoseconds, rounded to the nearest ps.
  int64_t quantile_ps(double u) const;
  /// One draw: the quantile of the stream's next uniform.
  int64_t sample_ps(Stream& stream) const;

  Kind kind() const { return kind_; }
  /// Smallest and largest value the distribution can give (max may be INT64_MAX when unbounded).
  int64_t min_ps() const;
  int64_t max_ps() const;
  /// How many distributions share this one's table of samples, points or components (0 for the
  /// parametric kinds, which have none): memory checks use it.
  long table_owners() const {
    return samples_ ? samples_.use_count() : points_ ? points_.use_count() : components_ ? components_.use_count() : 0;
  }

 private:
  double quantile_double(double u) const;
  void settle();  // sets constant_ and constant_ps_ (each factory calls it last)
  Kind kind_ = Kind::fixed;
  bool constant_ = true;     // the same value for every u: sample_ps skips the arithmetic
  int64_t constant_ps_ = 0;
  double a_ = 0, b_ = 0, c_ = 0, d_ = 0;   // kind-specific parameters
  double pa_ = 0, pb_ = 1;                 // normal: CDF of the truncation bounds
  // Shared, never changed after construction: copies of a distribution (a controller's `count`
  // copies, the trials' variants) share one table instead of copying it (issue 16 item 8).
  std::shared_ptr<const std::vector<int64_t>> samples_;  // empirical (sorted)
  std::shared_ptr<const std::vector<std::pair<double, int64_t>>> points_;  // quantiles
  std::shared_ptr<const std::vector<std::pair<double, Distribution>>> components_;  // mixture, weights as cumulative
};

}  // namespace nvmesim
