// host.tick "auto" (issue 11 item 9): the cpuidle menu governor's rule for usleep_range, against
// shared/reference/linux-readiness.md section 4 (usleep_range: soft expiry now+min, hard expiry
// now+max; a running tick ends it at the first tick in [min, max]) and section 6, "Timers" (the
// tick keeps running when the predicted idle time is shorter than a tick; highres off under NOHZ:
// the first tick at or after max). Every expected time is worked out by hand in ps below.
//
// TickClock(hz, phase, base) puts tick k (k = 0, 1, ...) at ceil(k x 10^12 / hz) - phase ps of
// trial time: with phase p in [0, T), T = 10^12 / hz, the ticks after 0 are at T - p, 2T - p, ...
#include <catch2/catch.hpp>

#include "host/timers/kernel_timers.hpp"
#include "host/timers/sleep_policy.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {
constexpr int64_t kUs = 1'000'000;      // ps
constexpr int64_t kMs = 1'000'000'000;  // ps

TimerSettings timers(int hz, TickMode tick, bool highres = true) {
  TimerSettings s;
  s.hz = hz;
  s.tick = tick;
  s.highres = highres;
  return s;
}

int64_t wake(const TimerSettings& s, int64_t phase_ps, int64_t min_us, int64_t max_us, int64_t now_ps = 0) {
  const TickClock clock(s.hz, phase_ps, 0);
  return usleep_range_wake_ps(clock, s, now_ps, min_us * kUs, max_us * kUs, 0.5);
}
}  // namespace

TEST_CASE("tick auto at HZ=1000: a 1-2 ms usleep_range is not shorter than the 1 ms tick - wake at max",
          "[timers][tick]") {
  // T = 1 ms; phase 0.3 ms: ticks at 0.7, 1.7, 2.7 ms. max = 2 ms, 2 ms x 1000 = 2 x 10^12 is not
  // below 10^12: the tick stops, the wake is the hard expiry 2 ms = 2'000'000'000 ps, although
  // the tick at 1.7 ms lies in [1, 2] ms (where periodic wakes, below).
  CHECK(wake(timers(1000, TickMode::automatic), 300 * kUs, 1000, 2000) == 2'000'000'000);
  CHECK(wake(timers(1000, TickMode::periodic), 300 * kUs, 1000, 2000) == 1'700'000'000);
  // Called at 5.25 ms (phase 0: ticks on every whole ms): hard expiry 5.25 + 2 = 7.25 ms.
  CHECK(wake(timers(1000, TickMode::automatic), 0, 1000, 2000, 5'250 * kUs) == 7'250'000'000);
  // The boundary: max = 1 ms equals the tick, not shorter: wake at max 1 ms, past the tick at
  // 0.7 ms in [0.5, 1] ms. max = 999 us is shorter: the tick runs, wake at 0.7 ms.
  CHECK(wake(timers(1000, TickMode::automatic), 300 * kUs, 500, 1000) == 1'000'000'000);
  CHECK(wake(timers(1000, TickMode::automatic), 300 * kUs, 500, 999) == 700'000'000);
}

TEST_CASE("tick auto at HZ=250: the tick runs through a 1-2 ms sleep - first tick in [min, max] else max",
          "[timers][tick]") {
  const TimerSettings s = timers(250, TickMode::automatic);  // T = 4 ms; 2 ms x 250 = 5 x 10^11 < 10^12
  // phase 2.5 ms: ticks at 1.5, 5.5 ms; 1.5 ms is in [1, 2] ms: wake at 1'500'000'000 ps.
  CHECK(wake(s, 2'500 * kUs, 1000, 2000) == 1'500'000'000);
  // phase 1 ms: ticks at 3, 7 ms; none in [1, 2] ms: wake at max, 2'000'000'000 ps.
  CHECK(wake(s, 1'000 * kUs, 1000, 2000) == 2'000'000'000);
  // phase 3 ms: a tick at exactly 1 ms = min: [min, max] is closed, wake at 1'000'000'000 ps.
  CHECK(wake(s, 3'000 * kUs, 1000, 2000) == 1'000'000'000);
  // Called at 10.25 ms, phase 0: ticks at 8, 12 ms; [11.25, 12.25] ms holds 12 ms.
  CHECK(wake(s, 0, 1000, 2000, 10'250 * kUs) == 12'000'000'000);
  // nohz_idle keeps today's meaning: the tick is already stopped, wake at max 2 ms for the same
  // phase 2.5 ms; periodic wakes at the tick at 1.5 ms as auto does here.
  CHECK(wake(timers(250, TickMode::nohz_idle), 2'500 * kUs, 1000, 2000) == 2'000'000'000);
  CHECK(wake(timers(250, TickMode::periodic), 2'500 * kUs, 1000, 2000) == 1'500'000'000);
}

TEST_CASE("tick auto compares max with the tick - usleep_range(1000 - 5000) at HZ=250 stops it",
          "[timers][tick]") {
  // The governor predicts the idle time from the next timer event, the hard expiry now + max
  // (section 4: the clock event device is programmed for it). max = 5 ms, 5 ms x 250 =
  // 1.25 x 10^12 >= 10^12: the tick stops and the wake is 5 ms, although min = 1 ms is shorter
  // than the tick and the tick at 1.5 ms (phase 2.5 ms) lies in [1, 5] ms.
  CHECK(wake(timers(250, TickMode::automatic), 2'500 * kUs, 1000, 5000) == 5'000'000'000);
  CHECK(wake(timers(250, TickMode::periodic), 2'500 * kUs, 1000, 5000) == 1'500'000'000);
  CHECK_FALSE(tick_runs_in_usleep_range(TickMode::automatic, 250, 5 * kMs));
  CHECK(tick_runs_in_usleep_range(TickMode::automatic, 250, 2 * kMs));
}

TEST_CASE("tick auto at HZ=100 and 300: a 2 ms usleep_range keeps the tick - exact tick length at 300",
          "[timers][tick]") {
  // Section 6: "a 2 ms usleep_range at HZ 100, 250 or 300 then behaves as under a running tick".
  // HZ=100: T = 10 ms; phase 8.8 ms: the tick at 1.2 ms lies in [1, 2] ms.
  CHECK(wake(timers(100, TickMode::automatic), 8'800 * kUs, 1000, 2000) == 1'200'000'000);
  // HZ=300: tick 1 at ceil(10^12 / 300) = 3'333'333'334 ps - phase; phase 2'133'333'334 ps puts
  // it at 1'200'000'000 ps, in [1, 2] ms.
  CHECK(wake(timers(300, TickMode::automatic), 2'133'333'334, 1000, 2000) == 1'200'000'000);
  // 1/300 s = 3'333'333'333.3 ps: max 3333 us (x 300 = 999'900'000'000 < 10^12) is shorter, the
  // tick runs; max 3334 us (x 300 = 1'000'200'000'000) is not, the tick stops.
  CHECK(tick_runs_in_usleep_range(TickMode::automatic, 300, 3'333 * kUs));
  CHECK_FALSE(tick_runs_in_usleep_range(TickMode::automatic, 300, 3'334 * kUs));
  // periodic and nohz_idle do not look at the length.
  CHECK(tick_runs_in_usleep_range(TickMode::periodic, 1000, 100 * kMs));
  CHECK_FALSE(tick_runs_in_usleep_range(TickMode::nohz_idle, 100, 1 * kMs));
}

TEST_CASE("highres off under NOHZ (auto - nohz_idle): the first tick at or after max - periodic: after min",
          "[timers][tick]") {
  // HZ=250, phase 2.5 ms: ticks at 1.5, 5.5 ms. Section 6: under NOHZ the next event is the hard
  // expiry (2 ms) rounded up to a tick: 5.5 ms. With the tick running (periodic) the first tick
  // at or after min (1 ms): 1.5 ms.
  CHECK(wake(timers(250, TickMode::automatic, false), 2'500 * kUs, 1000, 2000) == 5'500'000'000);
  CHECK(wake(timers(250, TickMode::nohz_idle, false), 2'500 * kUs, 1000, 2000) == 5'500'000'000);
  CHECK(wake(timers(250, TickMode::periodic, false), 2'500 * kUs, 1000, 2000) == 1'500'000'000);
  // phase 2 ms: a tick at exactly 2 ms = max: "at or after" takes it, 2'000'000'000 ps.
  CHECK(wake(timers(250, TickMode::automatic, false), 2'000 * kUs, 1000, 2000) == 2'000'000'000);
  // HZ=1000, phase 0.3 ms: ticks at 0.7, 1.7, 2.7 ms: NOHZ 2.7 ms (at or after 2 ms), periodic
  // 1.7 ms (at or after 1 ms).
  CHECK(wake(timers(1000, TickMode::automatic, false), 300 * kUs, 1000, 2000) == 2'700'000'000);
  CHECK(wake(timers(1000, TickMode::periodic, false), 300 * kUs, 1000, 2000) == 1'700'000'000);
}

TEST_CASE("tick auto with the tick stopped still wakes at a background interrupt in [min, max]", "[timers][tick]") {
  TimerSettings s = timers(1000, TickMode::automatic);
  s.background_irq_rate_hz = 1e6;
  // irq_u = 0.5: the first interrupt after the soft expiry comes -ln(1 - 0.5) / 10^6 s =
  // 0.693147180... us = 693147 ps (truncated) after it: 1'000'000'000 + 693'147 ps.
  CHECK(wake(s, 300 * kUs, 1000, 2000) == 1'000'693'147);
}

TEST_CASE("fsleep on 6.13 at HZ=250 resolves to usleep_range(8000 - 10000) - tick auto stops, wake at max",
          "[timers][tick]") {
  // 6.13: fsleep(8000) is below 4 ticks (16 ms): usleep_range(8000, 10000). max 10 ms x 250 =
  // 2.5 x 10^12 >= 10^12: the tick stops, wake at 10 ms. Phase 3 ms: ticks at 1, 5, 9 ms, and
  // periodic wakes at 9 ms.
  TimerRules r;
  r.fsleep_613 = true;
  const TickClock clock(250, 3'000 * kUs, 0);
  const SleepPolicy f = SleepPolicy::fsleep(8000);
  CHECK(f.end_ps(clock, timers(250, TickMode::automatic), r, 0, 0.5) == 10'000'000'000);
  CHECK(f.end_ps(clock, timers(250, TickMode::periodic), r, 0, 0.5) == 9'000'000'000);
}

TEST_CASE("host.tick defaults to auto - a bad spelling is exit 2 listing the allowed values", "[timers][tick][scenario]") {
  const Scenario sc = load_scenario_text(R"({"schema": "nvmesim.scenario/1", "controllers": [{}]})", "s.json");
  REQUIRE(sc.variants.size() == 1);
  CHECK(sc.variants[0].host.timers.tick == TickMode::automatic);
  CHECK(TimerSettings{}.tick == TickMode::automatic);
  for (const char* key : {"auto", "nohz_idle", "periodic"}) {
    const Scenario k = load_scenario_text(
        std::string(R"({"schema": "nvmesim.scenario/1", "host": {"tick": ")") + key + R"("}, "controllers": [{}]})",
        "s.json");
    CHECK(std::string(key_in(kTickModeNames, k.variants[0].host.timers.tick)) == key);
  }
  const std::string path = "tick_autoo.json";
  std::ofstream(path) << R"({"schema": "nvmesim.scenario/1", "host": {"tick": "autoo"}, "controllers": [{}]})";
  const test::CliResult r = test::run_capture("validate " + path);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(path) && Catch::Contains("/host/tick") && Catch::Contains("\"auto\"") &&
                        Catch::Contains("\"nohz_idle\"") && Catch::Contains("\"periodic\""));
  std::remove(path.c_str());
}
