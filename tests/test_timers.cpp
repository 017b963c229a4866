// Kernel timer formulas against shared/reference/linux-readiness.md section 4. Expected values
// are the reference table's, typed in by hand (ms); the model's extremes are found by sweeping
// the tick phase and the jiffies value at the call.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>

#include "host/timers/kernel_timers.hpp"
#include "host/timers/sleep_policy.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kMs = 1'000'000'000;  // ps

struct Range {
  double lo_ms, hi_ms;
};

// The shortest and longest msleep(ms) over call phases in [0, 1) and 512 consecutive jiffies
// values (covers every alignment to the wheel granularity up to level 3).
Range msleep_range(int hz, uint64_t ms, bool extra) {
  const double tick_ps = 1e12 / hz;
  double lo = 1e300, hi = 0;
  for (uint64_t base = 0; base < 512; ++base) {
    for (int k = 0; k < 50; ++k) {
      const auto phase = static_cast<int64_t>(tick_ps * k / 50.0);
      for (int64_t p : {phase, static_cast<int64_t>(tick_ps) - 1}) {
        const TickClock clock(hz, p, base);
        const double sleep_ms = static_cast<double>(msleep_wake_ps(clock, 0, ms, extra)) / kMs;
        lo = std::min(lo, sleep_ms);
        hi = std::max(hi, sleep_ms);
      }
    }
  }
  return {lo, hi};
}

struct Row {
  int hz;
  uint64_t ms;
  double before_lo, before_hi, after_lo, after_hi;  // reference: before 6.12 / from 6.12
};
// linux-readiness.md section 4, "Reference values (before 6.12 / from 6.12), in ms".
const Row kTable[] = {
    {1000, 100, 101, 109, 100, 108},     {300, 100, 103.3, 106.7, 100, 103.3},
    {250, 100, 104, 108, 100, 104},      {100, 100, 110, 120, 100, 110},
    {1000, 2300, 2301, 2365, 2300, 2364}, {300, 2300, 2303, 2517, 2300, 2513},
    {250, 2300, 2304, 2560, 2300, 2556}, {100, 2300, 2310, 2390, 2300, 2380},
    {1000, 1, 2, 3, 1, 2},               {300, 1, 6.7, 10, 3.3, 6.7},
    {250, 1, 8, 12, 4, 8},               {100, 1, 20, 30, 10, 20},
};
}  // namespace

TEST_CASE("msecs_to_jiffies = ceil(m * HZ / 1000)", "[timers]") {
  CHECK(msecs_to_jiffies(100, 250) == 25);
  CHECK(msecs_to_jiffies(100, 300) == 30);
  CHECK(msecs_to_jiffies(1, 300) == 1);     // 0.3 rounds up
  CHECK(msecs_to_jiffies(2300, 300) == 690);
  CHECK(msecs_to_jiffies(1, 100) == 1);
  CHECK(msecs_to_jiffies(5, 250) == 2);     // 1.25 rounds up
  CHECK(msleep_timeout_jiffies(100, 250, true) == 26);
  CHECK(msleep_timeout_jiffies(100, 250, false) == 25);
}

TEST_CASE("timer wheel levels: granularity 1 below 63 - 8 below 504 - 64 below 4032", "[timers]") {
  CHECK(wheel_granularity_jiffies(62) == 1);
  CHECK(wheel_granularity_jiffies(63) == 8);
  CHECK(wheel_granularity_jiffies(503) == 8);
  CHECK(wheel_granularity_jiffies(504) == 64);
  CHECK(wheel_granularity_jiffies(4031) == 64);
  CHECK(wheel_granularity_jiffies(4032) == 512);
  CHECK(wheel_expiry_jiffy(1000, 26) == 1027);  // level 0: J + t + 1
  CHECK(wheel_expiry_jiffy(1000, 101) == 1104); // level 1: first multiple of 8 above 1101
  CHECK(wheel_expiry_jiffy(999, 101) == 1104);  // 1100 is a multiple of 8: strictly above gives 1104
}

TEST_CASE("msleep sleeps within the reference table - both sides of 6.12", "[timers]") {
  for (const Row& r : kTable) {
    CAPTURE(r.hz, r.ms);
    const Range before = msleep_range(r.hz, r.ms, true);
    const Range after = msleep_range(r.hz, r.ms, false);
    // The low end is open: sleeps come arbitrarily close to it but never reach it.
    CHECK(before.lo_ms > r.before_lo - 0.4);
    CHECK(before.lo_ms < r.before_lo + 0.4 + 0.05 * 1000.0 / r.hz);
    // The table rounds HZ=300 values (ticks of 3.33 ms) to 0.1 ms or to whole ms: allow 0.4 ms,
    // well under one tick at every HZ.
    CHECK(before.hi_ms == Approx(r.before_hi).margin(0.4));
    CHECK(after.lo_ms > r.after_lo - 0.4);
    CHECK(after.lo_ms < r.after_lo + 0.4 + 0.05 * 1000.0 / r.hz);
    CHECK(after.hi_ms == Approx(r.after_hi).margin(0.4));
  }
}

TEST_CASE("msleep(5) at HZ=250 on 6.12 lies in (8 - 12) ms - as the published 11.9 ms does", "[timers]") {
  const Range r = msleep_range(250, 5, false);
  CHECK(r.lo_ms > 8.0);
  CHECK(r.hi_ms == Approx(12.0));
}

TEST_CASE("usleep_range(1000 - 2000): hard expiry on an idle NOHZ CPU", "[timers]") {
  TimerSettings s;
  s.hz = 250;
  s.tick = TickMode::nohz_idle;
  for (int64_t k = 0; k < 100; ++k) {
    const TickClock clock(250, k * 40'000'000, 7);  // phases over the 4 ms tick
    CHECK(usleep_range_wake_ps(clock, s, 0, 1 * kMs, 2 * kMs, 0.5) == 2 * kMs);
  }
}

TEST_CASE("usleep_range with a periodic tick wakes at the first tick in (min - max)", "[timers]") {
  TimerSettings s;
  s.tick = TickMode::periodic;
  s.hz = 1000;  // a tick every 1 ms: there is always one in [1, 2] ms
  for (int64_t k = 1; k < 100; ++k) {
    const int64_t phase = k * 10'000'000;  // call k/100 of the way into a tick
    const TickClock clock(1000, phase, 0);
    // Ticks at (1 - k/100) ms, (2 - k/100) ms, ...: the first at or after 1 ms is 2 - k/100 ms.
    CHECK(usleep_range_wake_ps(clock, s, 0, 1 * kMs, 2 * kMs, 0.5) == 2 * kMs - phase);
  }
  s.hz = 250;  // a 4 ms tick falls in [1, 2] ms for one call phase in four
  int early = 0;
  for (int64_t k = 0; k < 400; ++k) {
    const TickClock clock(250, k * 10'000'000, 0);
    const int64_t w = usleep_range_wake_ps(clock, s, 0, 1 * kMs, 2 * kMs, 0.5);
    REQUIRE(w >= 1 * kMs);
    REQUIRE(w <= 2 * kMs);
    if (w < 2 * kMs) ++early;
  }
  CHECK(early == Approx(100).margin(2));
}

TEST_CASE("usleep_range without high-resolution timers: the first tick at or after min", "[timers]") {
  TimerSettings s;
  s.hz = 250;
  s.highres = false;
  const TickClock clock(250, 1'000'000'000, 0);  // 1 ms into a 4 ms tick: next ticks at 3, 7 ms
  CHECK(usleep_range_wake_ps(clock, s, 0, 1 * kMs, 2 * kMs, 0.5) == 3 * kMs);
  const TickClock late(250, 3'500'000'000, 0);   // ticks at 0.5, 4.5 ms
  CHECK(usleep_range_wake_ps(late, s, 0, 1 * kMs, 2 * kMs, 0.5) == 4'500'000'000);
}

TEST_CASE("usleep_range with background interrupts wakes early - never before min", "[timers]") {
  TimerSettings s;
  s.background_irq_rate_hz = 1e6;  // an interrupt every microsecond on average
  const TickClock clock(250, 0, 0);
  const int64_t w = usleep_range_wake_ps(clock, s, 0, 1 * kMs, 2 * kMs, 0.5);
  CHECK(w >= 1 * kMs);
  CHECK(w < 1 * kMs + 10'000'000);  // ln 2 us after the soft expiry
}

TEST_CASE("fsleep resolves by release", "[timers]") {
  TimerSettings s;
  s.hz = 250;
  TimerRules r;
  CHECK(SleepPolicy::fsleep(10).resolved(s, r) == SleepPolicy::udelay(10));
  CHECK(SleepPolicy::fsleep(500).resolved(s, r) == SleepPolicy::usleep_range(500, 1000));
  CHECK(SleepPolicy::fsleep(30000).resolved(s, r) == SleepPolicy::msleep(30));
  r.fsleep_613 = true;  // 6.13: below 4 ticks (16 ms at HZ=250) usleep_range(us, us * 5 / 4)
  CHECK(SleepPolicy::fsleep(8000).resolved(s, r) == SleepPolicy::usleep_range(8000, 10000));
  CHECK(SleepPolicy::fsleep(16000).resolved(s, r) == SleepPolicy::msleep(16));
}

TEST_CASE("sleep policies parse in the kernel's spelling", "[timers]") {
  CHECK(SleepPolicy::parse("msleep(100)") == SleepPolicy::msleep(100));
  CHECK(SleepPolicy::parse("usleep_range(1000, 2000)") == SleepPolicy::usleep_range(1000, 2000));
  CHECK(SleepPolicy::parse("busy") == SleepPolicy::busy());
  CHECK(SleepPolicy::usleep_range(1000, 2000).to_string() == "usleep_range(1000, 2000)");
  CHECK_THROWS_WITH(SleepPolicy::parse("usleep_range(2000, 1000)"), Catch::Contains("min > max"));
  CHECK_THROWS_WITH(SleepPolicy::parse("nap(5)"), Catch::Contains("allowed:"));
  CHECK_THROWS_AS(SleepPolicy::parse("msleep(-1)"), std::invalid_argument);
  CHECK_THROWS_AS(SleepPolicy::parse("msleep()"), std::invalid_argument);
}

TEST_CASE("readiness deadlines: (TO+1)*HZ/2 up to 6.1 - ((TO+1)/2)*HZ from 6.2", "[timers]") {
  // Reference: old form TO=0 0.5 s, TO=1 1 s, TO=2 1.5 s, TO=0xFF 128 s.
  CHECK(deadline_half_jiffies(1000, 0, 250) == 1000 + 125);
  CHECK(deadline_half_jiffies(1000, 1, 250) == 1000 + 250);
  CHECK(deadline_half_jiffies(1000, 2, 250) == 1000 + 375);
  CHECK(deadline_half_jiffies(0, 255, 250) == 32000);
  CHECK(deadline_half_jiffies(0, 0, 300) == 150);
  CHECK(deadline_half_jiffies(0, 0, 100) == 50);
  // New form: TO=0 0 s, TO=2 1 s, TO=4 2 s, TO=0xFF 128 s.
  CHECK(deadline_whole_seconds_jiffies(1000, 0, 250) == 1000);
  CHECK(deadline_whole_seconds_jiffies(0, 1, 250) == 250);
  CHECK(deadline_whole_seconds_jiffies(0, 2, 250) == 250);
  CHECK(deadline_whole_seconds_jiffies(0, 4, 1000) == 2000);
  CHECK(deadline_whole_seconds_jiffies(0, 255, 300) == 128 * 300);
  // time_after(jiffies, deadline) is true once jiffies >= deadline + 1, across wraparound.
  CHECK_FALSE(time_after(1250, 1250));
  CHECK(time_after(1251, 1250));
  CHECK(time_after(5, std::numeric_limits<uint64_t>::max() - 5));
}

TEST_CASE("the tick clock: jiffies and tick times invert each other", "[timers]") {
  const TickClock c(300, 1'234'567, 1000);  // HZ=300: ticks every 3.333... ms, not whole ps
  CHECK(c.jiffies_at(0) == 1000);
  for (uint64_t j = 1001; j < 2000; ++j) {
    const int64_t t = c.time_of_jiffy(j);
    REQUIRE(c.jiffies_at(t) == j);
    REQUIRE(c.jiffies_at(t - 1) == j - 1);
  }
}
