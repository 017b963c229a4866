#pragma once
// Picosecond arithmetic that cannot wrap (issue 16 item 1). Simulated time is a signed 64-bit
// count of picoseconds; a sum that would pass INT64_MAX saturates there instead of wrapping
// negative (which made devices ready "at once" and invented results). No event may be scheduled
// at INT64_MAX (models/sim_time.hpp refuses it and stops the run with an error), so a saturated
// time can never become a result: it is either never reached or it ends the run.
#include <cstdint>
#include <limits>

namespace nvmesim {

/// The saturation value of add_ps and clamp_ps: INT64_MAX ps, past the last schedulable time.
inline constexpr int64_t kSaturatedPs = std::numeric_limits<int64_t>::max();

/// a_ps + b_ps, saturated at kSaturatedPs (and at INT64_MIN below). Never wraps.
inline int64_t add_ps(int64_t a_ps, int64_t b_ps) noexcept {
  int64_t r;
  if (__builtin_add_overflow(a_ps, b_ps, &r)) return b_ps > 0 ? kSaturatedPs : std::numeric_limits<int64_t>::min();
  return r;
}

/// n x unit_ps for n, unit_ps >= 0, saturated at kSaturatedPs. Never wraps.
inline int64_t mul_ps(int64_t n, int64_t unit_ps) noexcept {
  int64_t r;
  if (__builtin_mul_overflow(n, unit_ps, &r)) return kSaturatedPs;
  return r;
}

/// A wide intermediate (e.g. __int128 timer arithmetic) as picoseconds, clamped to the int64 range.
template <class Wide>
int64_t clamp_ps(Wide v) noexcept {
  if (v > static_cast<Wide>(kSaturatedPs)) return kSaturatedPs;
  if (v < static_cast<Wide>(std::numeric_limits<int64_t>::min())) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace nvmesim
