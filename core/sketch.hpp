#pragma once
// Constant-memory summary statistics for any number of trials (issue 7: memory must stay flat in
// the trial count). Values are integers in one unit the caller chooses (the runner adds
// picoseconds); they may be negative (paired deltas). Pure C++.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/stats.hpp"

namespace nvmesim {

/// A log-linear histogram of int64 values (HdrHistogram's layout): magnitudes below 2^12 are
/// counted exactly; above, each power of two is split into 2^11 buckets, so a bucket spans at
/// most 1/2048 of its values (0.05%). Count, mean, standard deviation, min and max are exact;
/// percentiles are exact for magnitudes below 4096 units (4.096 ns for the runner's picoseconds)
/// and within 0.05% above. Memory grows with the number of distinct powers of two seen (16 KiB
/// each, and 32 KiB per sign once a magnitude below 4096 is seen), never with the number of values.
class QuantileSketch {
 public:
  /// Adds one value, in the sketch's unit (picoseconds in the runner).
  void add(int64_t value);
  uint64_t count() const { return count_; }
  /// Summary in milliseconds of values added in a unit of which `units_per_ms` make a
  /// millisecond (1e9 for picoseconds), percentiles interpolated between order statistics as
  /// nvmesim::summarize does (type 7), with each order statistic taken as its bucket's midpoint
  /// clamped to [min, max].
  Summary summary(double units_per_ms) const;
  /// The value of the order statistic of 0-based rank r (r < count), in the sketch's unit.
  double value_at_rank(uint64_t r) const;

 private:
  static constexpr int kSubBits = 11;  // 2048 buckets per power of two above 2^12
  struct Side {
    // Magnitudes 0..4095, allocated at the first such value: picosecond durations rarely fall
    // there, and a zeroed 32 KiB per side was most of a run's fresh memory (10 sketches per
    // variant, per sweep point; issue 15 item 5).
    std::unique_ptr<std::array<uint64_t, 4096>> exact;
    std::vector<std::unique_ptr<std::array<uint64_t, 2048>>> octaves;  // octave o: [2^(12+o), 2^(13+o))
    uint64_t count = 0;
    void add(uint64_t magnitude);
    // The magnitude of the r-th smallest value of this side, 0-based.
    double at_rank(uint64_t r) const;
  };
  Side neg_, pos_;  // negative values by magnitude; zero and positive values
  uint64_t count_ = 0;
  int64_t min_ = 0, max_ = 0;
  long double sum_ = 0;
  double mean_ = 0, m2_ = 0;  // Welford
};

}  // namespace nvmesim
