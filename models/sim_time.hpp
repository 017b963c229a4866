#pragma once
// The one door from a model's picosecond arithmetic to SystemC's time (issue 16 item 1): every
// wait and b_transport delay goes through sim_delay(), every timed notification through
// notify_in(); neither lets an event fall after the last time one run can simulate. A wait past
// it records what hit the limit, calls sc_stop() (the simulation cannot be restarted, so no
// process runs past the current delta cycle) and returns zero; the driver thread never reports
// the trial it was in, and the runner turns time_limit_error() into an input error (exit 2). Simulated time never resets between
// trials (DESIGN section 2), so the limit is one run's: 2^63 ps less the saturation value.
#include <cstdint>
#include <string>
#include <type_traits>

#include <systemc>

#include "core/time_math.hpp"

namespace nvmesim {

/// The last absolute simulated time (ps) an event may be due at: 2^63 - 2 ps (about 106.75 days).
inline constexpr int64_t kLastEventPs = kSaturatedPs - 1;

/// The current simulated time in ps: sc_time_stamp(), read inline through the simulation
/// context (sc_time_stamp() itself is out of line in libsystemc, and every access, sleep and
/// completion asks for "now" several times: issue 15, perf review section 2).
inline int64_t sim_now_ps() {
  return static_cast<int64_t>(sc_core::sc_get_curr_simcontext()->time_stamp().value());
}

namespace sim_time_detail {
inline std::string& error() {
  static std::string e;
  return e;
}
inline std::string& skipped() {
  static std::string e;
  return e;
}
inline std::string describe(const char* what, int64_t delay_ps) {
  const int64_t now = sim_now_ps();
  const double now_s = static_cast<double>(now) / 1e12;
  std::string when;
  if (delay_ps < 0) when = "before now (a time sum overflowed)";
  else if (now <= kSaturatedPs && delay_ps == kSaturatedPs - now) when = "after 2^63 ps (its time saturated)";
  else when = std::to_string(static_cast<double>(delay_ps) / 1e12) + " s after now";
  return std::string(what) + " needed an event " + when + ", at " + std::to_string(now_s) + " s of simulated time";
}
inline bool past_limit(int64_t delay_ps) {
  const int64_t now = sim_now_ps();
  return delay_ps < 0 || now > kLastEventPs || delay_ps > kLastEventPs - now;
}
}  // namespace sim_time_detail

/// What stopped the run at the limit of simulated time ("" while nothing did).
inline const std::string& time_limit_error() { return sim_time_detail::error(); }

/// The first notification skipped because it fell past the limit ("" when none). Harmless when
/// every trial still ends (the event would have come after the run); when the simulation runs out
/// of events with a trial unfinished, this is why, and the runner reports it as the limit.
inline const std::string& time_limit_skipped() { return sim_time_detail::skipped(); }

/// Forgets what a previous run recorded (the runner calls it before sc_start).
inline void clear_time_limit_error() {
  sim_time_detail::error().clear();
  sim_time_detail::skipped().clear();
}

/// Records that `what` needed an event `delay_ps` after now that passes kLastEventPs (or a
/// negative delay: a wrap that add_ps should have prevented) and stops the simulation.
inline void hit_time_limit(const char* what, int64_t delay_ps) {
  std::string& e = sim_time_detail::error();
  if (!e.empty()) return;
  e = sim_time_detail::describe(what, delay_ps);
  sc_core::sc_stop();
}

/// `ps` picoseconds as an sc_time, built inline: sc_time::from_value() is a call into
/// libsystemc (about 25 instructions), and each register access converts 3 to 6 delays (issue 15
/// item 3: "fewer out-of-line sc_time calls"). sc_time is a standard-layout class whose one data
/// member is its count of resolution units, so the object and that member are
/// pointer-interconvertible (C++17 [basic.compound]/4, 6.9.2/4 in N4659; [expr.static.cast]/13) and the store sets the count. The
/// resolution is 1 ps, fixed by init_systemc() before any model exists (engine/system.cpp), which
/// is what from_value() would otherwise fix on its first non-zero call. No range check: callers
/// go through sim_delay() and notify_in(), which keep `ps` below kLastEventPs.
inline sc_core::sc_time ps_to_sc_time(uint64_t ps) {
  static_assert(std::is_standard_layout_v<sc_core::sc_time> &&
                    sizeof(sc_core::sc_time) == sizeof(sc_core::sc_time::value_type),
                "sc_time is no longer one value_type count: use sc_time::from_value");
  sc_core::sc_time t;
  *reinterpret_cast<sc_core::sc_time::value_type*>(&t) = ps;
  return t;
}

/// `delay_ps` from now as an sc_time for a wait or a b_transport delay (which the initiator
/// waits at once), or zero after hit_time_limit() when now + delay_ps passes kLastEventPs or
/// delay_ps < 0.
inline sc_core::sc_time sim_delay(int64_t delay_ps, const char* what) {
  if (sim_time_detail::past_limit(delay_ps)) {
    hit_time_limit(what, delay_ps);
    return sc_core::SC_ZERO_TIME;
  }
  return ps_to_sc_time(static_cast<uint64_t>(delay_ps));
}

/// ev.notify(delay_ps from now). A notification past the limit is skipped and remembered
/// (time_limit_skipped): a device's transition due after the run's last possible time can only
/// matter if a trial waits for it, and then the run ends with that trial unfinished.
inline void notify_in(sc_core::sc_event& ev, int64_t delay_ps, const char* what) {
  if (sim_time_detail::past_limit(delay_ps)) {
    if (delay_ps < 0) return hit_time_limit(what, delay_ps);
    if (sim_time_detail::skipped().empty()) sim_time_detail::skipped() = sim_time_detail::describe(what, delay_ps);
    return;
  }
  ev.notify(ps_to_sc_time(static_cast<uint64_t>(delay_ps)));
}

}  // namespace nvmesim
