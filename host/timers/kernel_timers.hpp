#pragma once
// Linux kernel timer semantics used by the readiness waits (DESIGN section 5; formulas and tables:
// shared/reference/linux-readiness.md section 4). Pure C++, no SystemC: every function here is a
// formula of its arguments and is tested against the reference tables.
// Times are int64 picoseconds from the start of the trial; jiffies are absolute uint64 counts.
#include <cstdint>

#include "core/names.hpp"

namespace nvmesim {

/// How the CPU's tick runs while the probing task sleeps in usleep_range (linux-readiness.md
/// section 4, usleep_range; section 6, "Timers").
enum class TickMode {
  automatic,  ///< "auto": CONFIG_NO_HZ_IDLE with the cpuidle menu governor's rule: the tick keeps
              ///< running for a sleep whose hard expiry (max) is less than 1/HZ away, else it stops
  nohz_idle,  ///< CONFIG_NO_HZ_IDLE with the tick already stopped (HZ=1000, or a long idle before)
  periodic,   ///< CONFIG_HZ_PERIODIC, or a busy CPU: the tick interrupt fires every 1/HZ
};
/// host.tick's spellings, in the order messages list them.
inline constexpr EnumName<TickMode> kTickModeNames[] = {
    {TickMode::automatic, "auto"}, {TickMode::nohz_idle, "nohz_idle"}, {TickMode::periodic, "periodic"}};

/// True when the tick runs through a usleep_range whose hard expiry is `max_ps` (>= 0) after the
/// call: always under TickMode::periodic, never under nohz_idle; under automatic when max_ps is
/// strictly shorter than a tick (max_ps x hz < 10^12, exact integer arithmetic). The length
/// compared is max, not min: the menu governor predicts the idle time from the next timer event,
/// and the clock event device is programmed for the hard expiry, now + max (linux-readiness.md
/// section 4); the soft expiry is no event. Section 6: a 2 ms usleep_range keeps the tick at HZ
/// 100, 250 and 300, and at HZ=1000 (not shorter than 1 ms) the tick stops.
bool tick_runs_in_usleep_range(TickMode mode, int hz, int64_t max_ps);

/// Timer settings of one host, as a kernel config and boot command line give them.
struct TimerSettings {
  int hz = 250;                       ///< CONFIG_HZ: 100, 250, 300 or 1000
  TickMode tick = TickMode::automatic;  ///< host.tick; default "auto"
  bool highres = true;                ///< CONFIG_HIGH_RES_TIMERS (and not highres=off)
  double background_irq_rate_hz = 0;  ///< other interrupts on the CPU (Poisson rate), >= 0
};

/// The timer rules that changed between Linux releases (linux-readiness.md section 4). They
/// belong to the release: their one home is the kernel profile (KernelProfile::timer).
struct TimerRules {
  bool msleep_extra_jiffy = true;     ///< msleep adds one jiffy (kernels before 6.12)
  bool fsleep_613 = false;            ///< fsleep() follows the 6.13 rule (else 5.8 - 6.12)
};

/// The jiffies counter of one trial: jiffies increase by one at each tick; the trial starts at
/// phase `phase_ps` into tick number `jiffies_base` (random per trial).
class TickClock {
 public:
  /// `hz` in 1..10000; `phase_ps` in [0, 10^12 / hz).
  TickClock(int hz, int64_t phase_ps, uint64_t jiffies_base)
      : hz_(hz), phase_ps_(phase_ps), base_(jiffies_base) {}
  /// jiffies at trial time `t_ps` (>= 0): the number of the last tick at or before t.
  uint64_t jiffies_at(int64_t t_ps) const;
  /// Trial time of tick `j` (the instant jiffies becomes j); may be negative for past ticks.
  int64_t time_of_jiffy(uint64_t j) const;
  /// The first tick strictly after `t_ps`.
  int64_t next_tick_after(int64_t t_ps) const { return time_of_jiffy(jiffies_at(t_ps) + 1); }
  /// The first tick at or after `t_ps`.
  int64_t tick_at_or_after(int64_t t_ps) const;
  int hz() const { return hz_; }

 private:
  int hz_;
  int64_t phase_ps_;
  uint64_t base_;
};

/// msecs_to_jiffies(m) = ceil(m * HZ / 1000) (linux-readiness.md section 4).
uint64_t msecs_to_jiffies(uint64_t ms, int hz);

/// The timeout msleep(ms) asks the timer wheel for, in jiffies: msecs_to_jiffies(ms) + 1 before
/// Linux 6.12 (`extra_jiffy`), msecs_to_jiffies(ms) from 6.12.
uint64_t msleep_timeout_jiffies(uint64_t ms, int hz, bool extra_jiffy);

/// Timer-wheel level granularity for a timeout of `t` jiffies: level L holds t < 63 * 8^L and
/// has granularity 8^L (level 0: t < 63, granularity 1; level 1: t < 504, 8; level 2: t < 4032,
/// 64; ...). Returns the granularity G in jiffies.
uint64_t wheel_granularity_jiffies(uint64_t t);

/// The jiffy at which a wheel timer armed at jiffies `j` with timeout `t` fires: the first
/// multiple of G strictly above J + t (level 0: J + t + 1).
uint64_t wheel_expiry_jiffy(uint64_t j, uint64_t t);

/// When msleep(ms) called at trial time `now_ps` returns, before scheduler wakeup latency.
/// The sleep lies in (t, t + G] ticks (reference table "msleep").
int64_t msleep_wake_ps(const TickClock& clock, int64_t now_ps, uint64_t ms, bool extra_jiffy);

/// When usleep_range(min, max) called at `now_ps` returns, before wakeup latency. An hrtimer
/// with soft expiry now+min and hard expiry now+max (max < min is read as max = min). Whether
/// the tick runs is tick_runs_in_usleep_range(settings.tick, hz, max) (linux-readiness.md
/// section 4 and section 6, "Timers"):
/// - highres off: under TickMode::periodic the first tick at or after now+min; under nohz_idle
///   and auto (both NOHZ) the first tick at or after now+max (section 6: the next event is the
///   hard expiry rounded up to a tick; section 6 states auto's governor rule for high-resolution
///   timers only, so auto does not keep the tick here); background interrupts do not apply;
/// - highres on: the hard expiry, unless an interrupt on the CPU comes in [now+min, now+max]:
///   a running tick (the first tick at or after now+min), or a background interrupt (a Poisson
///   process of rate settings.background_irq_rate_hz; `irq_u` in (0, 1) is the uniform that
///   draws the first such interrupt after the soft expiry).
/// Never before now+min.
int64_t usleep_range_wake_ps(const TickClock& clock, const TimerSettings& settings, int64_t now_ps,
                             int64_t min_ps, int64_t max_ps, double irq_u);

/// Readiness deadline, pre-6.2 form: jiffies + (TO + 1) * HZ / 2 (integer division), where TO is
/// the timeout in 500 ms units (CAP.TO or a CRTO field).
uint64_t deadline_half_jiffies(uint64_t j0, uint64_t to_500ms, int hz);

/// Readiness deadline, 6.2+ form: jiffies + ((TO + 1) / 2) * HZ, whole seconds (TO=0 gives 0 s).
uint64_t deadline_whole_seconds_jiffies(uint64_t j0, uint64_t to_500ms, int hz);

/// time_after(a, b): true when a is later than b, i.e. once jiffies >= deadline + 1.
constexpr bool time_after(uint64_t a, uint64_t b) { return static_cast<int64_t>(b - a) < 0; }

}  // namespace nvmesim
