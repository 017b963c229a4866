#include "host/timers/kernel_timers.hpp"

#include <algorithm>
#include <cmath>

#include "core/time_math.hpp"

namespace nvmesim {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

namespace {
constexpr i128 kPsPerSecond = 1000000000000;

// ceil(a / b) for a possibly negative a and b > 0.
i128 ceil_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && (a > 0)) ++q;
  return q;
}
}  // namespace

uint64_t TickClock::jiffies_at(int64_t t_ps) const {
  const i128 x = (static_cast<i128>(t_ps) + phase_ps_) * hz_;
  // floor division (x may be negative only for times before the trial began)
  i128 q = x / kPsPerSecond;
  if (x % kPsPerSecond != 0 && x < 0) --q;
  return base_ + static_cast<uint64_t>(static_cast<int64_t>(q));
}

int64_t TickClock::time_of_jiffy(uint64_t j) const {
  const i128 k = static_cast<i128>(static_cast<int64_t>(j - base_));
  return clamp_ps(ceil_div(k * kPsPerSecond, hz_) - phase_ps_);  // saturates: never wraps
}

int64_t TickClock::tick_at_or_after(int64_t t_ps) const {
  const uint64_t j = jiffies_at(t_ps);
  const int64_t tj = time_of_jiffy(j);
  return tj == t_ps ? t_ps : time_of_jiffy(j + 1);
}

uint64_t msecs_to_jiffies(uint64_t ms, int hz) {
  return (ms * static_cast<uint64_t>(hz) + 999) / 1000;
}

uint64_t msleep_timeout_jiffies(uint64_t ms, int hz, bool extra_jiffy) {
  return msecs_to_jiffies(ms, hz) + (extra_jiffy ? 1 : 0);
}

uint64_t wheel_granularity_jiffies(uint64_t t) {
  uint64_t g = 1;
  uint64_t limit = 63;
  for (int level = 0; level < 8 && t >= limit; ++level) {
    g <<= 3;
    limit <<= 3;
  }
  return g;
}

uint64_t wheel_expiry_jiffy(uint64_t j, uint64_t t) {
  const uint64_t g = wheel_granularity_jiffies(t);
  const uint64_t e = j + t;
  return (e / g + 1) * g;
}

int64_t msleep_wake_ps(const TickClock& clock, int64_t now_ps, uint64_t ms, bool extra_jiffy) {
  const uint64_t t = msleep_timeout_jiffies(ms, clock.hz(), extra_jiffy);
  return clock.time_of_jiffy(wheel_expiry_jiffy(clock.jiffies_at(now_ps), t));
}

bool tick_runs_in_usleep_range(TickMode mode, int hz, int64_t max_ps) {
  switch (mode) {
    case TickMode::periodic: return true;
    case TickMode::nohz_idle: return false;
    case TickMode::automatic: return static_cast<i128>(max_ps) * hz < kPsPerSecond;  // max < 1/HZ
  }
  return false;
}

int64_t usleep_range_wake_ps(const TickClock& clock, const TimerSettings& settings, int64_t now_ps,
                             int64_t min_ps, int64_t max_ps, double irq_u) {
  const int64_t soft = add_ps(now_ps, min_ps);
  const int64_t hard = add_ps(now_ps, std::max(min_ps, max_ps));
  if (!settings.highres)
    return clock.tick_at_or_after(settings.tick == TickMode::periodic ? soft : hard);
  int64_t wake = hard;
  if (tick_runs_in_usleep_range(settings.tick, clock.hz(), std::max(min_ps, max_ps)))
    wake = std::min(wake, clock.tick_at_or_after(soft));
  if (settings.background_irq_rate_hz > 0) {
    // Poisson arrivals are memoryless: the first one after the soft expiry is soft + Exp(rate).
    const double gap_ps = -std::log1p(-irq_u) / settings.background_irq_rate_hz * 1e12;
    if (gap_ps < static_cast<double>(hard - soft))
      wake = std::min(wake, add_ps(soft, static_cast<int64_t>(gap_ps)));
  }
  return std::max(wake, soft);
}

uint64_t deadline_half_jiffies(uint64_t j0, uint64_t to_500ms, int hz) {
  return j0 + (to_500ms + 1) * static_cast<uint64_t>(hz) / 2;
}

uint64_t deadline_whole_seconds_jiffies(uint64_t j0, uint64_t to_500ms, int hz) {
  return j0 + ((to_500ms + 1) / 2) * static_cast<uint64_t>(hz);
}

}  // namespace nvmesim
