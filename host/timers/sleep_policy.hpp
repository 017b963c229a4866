#pragma once
// The sleep between two CSTS reads, as a value (DESIGN section 5): msleep(ms),
// usleep_range(min_us, max_us), fsleep(us), udelay(us), busy (no sleep), FreeBSD's
// pause_sbt(sbt) with its adaptive backoff, app_poll (the application's work between two polls
// of a user-space driver's state machine, SPDK), a cooperative yield of a fixed cost (SeaBIOS)
// and OpenVMM's yield-then-sleep backoff. Pure C++.
#include <cstdint>
#include <string>
#include <string_view>

#include "host/timers/kernel_timers.hpp"

namespace nvmesim {

class SleepPolicy {
 public:
  enum class Kind { msleep, usleep_range, fsleep, udelay, busy, pause_sbt, app_poll, yield, openvmm_backoff };
  /// Where in its precision window [d, d + d/2] a pause_sbt callout fires.
  enum class Lateness : uint8_t {
    none,     ///< at d (an event timer programmed for the earliest time)
    uniform,  ///< uniform in [d, 1.5 d] (one draw per sleep)
    max,      ///< at 1.5 d (an idle CPU whose timer is set for the end of the window)
  };

  static SleepPolicy msleep(uint32_t ms) { return SleepPolicy(Kind::msleep, ms, 0); }
  static SleepPolicy usleep_range(uint32_t min_us, uint32_t max_us) {
    return SleepPolicy(Kind::usleep_range, min_us, max_us);
  }
  static SleepPolicy fsleep(uint32_t us) { return SleepPolicy(Kind::fsleep, us, 0); }
  static SleepPolicy udelay(uint32_t us) { return SleepPolicy(Kind::udelay, us, 0); }
  static SleepPolicy busy() { return SleepPolicy(Kind::busy, 0, 0); }
  /// FreeBSD's pause_sbt("nvmerdy", d, d / 2, 0) for d = `sbt` units of 2^-32 s (sbintime_t;
  /// 4294 = SBT_1US, 4294967 = SBT_1MS), firing `lateness` of the way into its precision window.
  /// Not a scheduled sleep in the Linux sense (no host.wakeup_latency). In a wait it backs off:
  /// next_in_wait() gives min(SBT_1MS, d * 3 / 2) (FreeBSD 13.1+, nvme_ctrlr_wait_for_ready).
  static SleepPolicy pause_sbt(uint32_t sbt, Lateness lateness) {
    return SleepPolicy(Kind::pause_sbt, sbt, static_cast<uint32_t>(lateness));
  }
  /// The application's own work between two polls of a user-space driver's init state machine
  /// (SPDK's spdk_nvme_probe_poll_async and friends; other-hosts.md "More facts per host"): its
  /// length is drawn per sleep from HostParams::poll_interval by nvme_host::sleep; end_ps() alone
  /// adds nothing, and requested_ps() is 0 (no deadline of SPDK counts requested sleep).
  static SleepPolicy app_poll() { return SleepPolicy(Kind::app_poll, 0, 0); }
  /// A cooperative yield that gives the CPU to the host's other work and returns `cost_ns` ns
  /// later (SeaBIOS's yield(): the other threads and check_irqs; other-hosts.md, SeaBIOS row).
  /// Exact: no lateness, no wakeup latency. `cost_ns` in 0..2^32-1.
  static SleepPolicy yield(uint32_t cost_ns) { return SleepPolicy(Kind::yield, cost_ns, 0); }
  /// OpenVMM's user_driver Backoff::back_off at its call `n` (0-based; other-hosts.md, OpenVMM
  /// row): n < 250 a yield of `yield_ns` ns (yield_once: the task is polled again at once), n <
  /// 500 a 1 ms timer sleep, then 15 ms sleeps, each exact (no timer slack modelled).
  /// next_in_wait() gives call n + 1 (saturating at 2^32 - 1).
  static SleepPolicy openvmm_backoff(uint32_t n, uint32_t yield_ns) {
    return SleepPolicy(Kind::openvmm_backoff, n, yield_ns);
  }
  static constexpr uint32_t kOpenvmmYields = 250, kOpenvmmShortSleeps = 250;  ///< YIELD_ATTEMPTS, SHORT_SLEEP_ATTEMPTS
  static constexpr int64_t kOpenvmmShortPs = 1'000'000'000, kOpenvmmLongPs = 15'000'000'000;  ///< 1 ms, 15 ms
  static constexpr uint32_t kSbt1Us = 4294, kSbt1Ms = 4294967;  ///< FreeBSD's SBT_1US, SBT_1MS (2^32 / 10^6, / 10^3)
  /// d in ps: sbt x 10^12 / 2^32, rounded down (4294 -> 999774).
  static int64_t sbt_ps(uint32_t sbt) { return static_cast<int64_t>((uint64_t{sbt} * 1'000'000'000'000ull) >> 32); }

  /// Parses the kernel spelling: "msleep(100)", "usleep_range(1000, 2000)", "fsleep(500)",
  /// "udelay(10)", "busy". Arguments are whole numbers (ms for msleep, us otherwise) up to
  /// 10^7; usleep_range needs min <= max. Throws ParseError (core/duration.hpp's type is not
  /// visible here: std::invalid_argument) with a message listing the allowed forms.
  static SleepPolicy parse(std::string_view text);

  /// The kernel spelling, e.g. "usleep_range(1000, 2000)".
  std::string to_string() const;

  /// Resolves fsleep into the primitive the kernel picks for it (linux-readiness.md section 4):
  /// 5.8 - 6.12: us <= 10 udelay; us <= 20000 usleep_range(us, 2 us); else msleep(ceil(us/1000)).
  /// 6.13+: us <= 10 udelay; below 4 ticks usleep_range(us, us * 5 / 4); else msleep.
  /// `rules.fsleep_613` picks the rule.
  SleepPolicy resolved(const TimerSettings& settings, const TimerRules& rules) const;

  /// The sleep asked for, in ps: msleep's ms, usleep_range's min, fsleep's and udelay's us,
  /// pause_sbt's d (sbt_ps), a yield's cost, the OpenVMM backoff step's yield or sleep; busy and app_poll 0.
  int64_t requested_ps() const;
  /// The same kind with every argument multiplied by `factor` (a backoff such as pcie_flr's
  /// doubling). Throws std::overflow_error when an argument would pass 2^32 - 1.
  SleepPolicy scaled(uint32_t factor) const;
  /// The sleep after this one in a readiness wait: pause_sbt's backoff (min(SBT_1MS, d * 3 / 2),
  /// integer arithmetic as FreeBSD's), the OpenVMM backoff's next call, else scaled(growth)
  /// (WaitSpec::sleep_growth; 1: the same).
  SleepPolicy next_in_wait(uint32_t growth) const;

  /// True when the task is scheduled out (msleep, usleep_range): a wakeup latency applies.
  bool schedules() const { return kind_ == Kind::msleep || kind_ == Kind::usleep_range; }

  /// When a sleep started at `now_ps` ends, before wakeup latency. `irq_u` in (0, 1) draws
  /// the background interrupt for usleep_range (see usleep_range_wake_ps) and a uniform
  /// pause_sbt's lateness (d + floor(irq_u x d / 2)); `rules` are the
  /// release's (msleep's extra jiffy, fsleep's rule).
  int64_t end_ps(const TickClock& clock, const TimerSettings& settings, const TimerRules& rules, int64_t now_ps,
                 double irq_u) const;

  Kind kind() const { return kind_; }
  uint32_t a() const { return a_; }
  uint32_t b() const { return b_; }
  bool operator==(const SleepPolicy& o) const { return kind_ == o.kind_ && a_ == o.a_ && b_ == o.b_; }

 private:
  SleepPolicy(Kind k, uint32_t a, uint32_t b) : kind_(k), a_(a), b_(b) {}
  Kind kind_;
  uint32_t a_, b_;
};

}  // namespace nvmesim
