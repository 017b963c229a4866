#include "host/timers/sleep_policy.hpp"
#include "core/terminal_text.hpp"

#include <cctype>
#include <stdexcept>
#include <vector>

#include "core/time_math.hpp"

namespace nvmesim {

namespace {
constexpr const char* kForms =
    "allowed: \"msleep(MS)\", \"usleep_range(MIN_US, MAX_US)\", \"fsleep(US)\", \"udelay(US)\", \"busy\"";

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw std::invalid_argument("sleep policy " + quoted_text(text) + " " + why + "; " + kForms);
}
}  // namespace

SleepPolicy SleepPolicy::parse(std::string_view text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s == "busy") return busy();
  const size_t open = s.find('(');
  if (open == std::string::npos || s.back() != ')') bad(text, "is not a call");
  const std::string name = s.substr(0, open);
  std::vector<uint32_t> args;
  std::string cur;
  for (size_t i = open + 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ',' || c == ')') {
      if (cur.empty()) bad(text, "has an empty argument");
      if (cur.size() > 8) bad(text, "has an argument above 10^7");
      args.push_back(static_cast<uint32_t>(std::stoul(cur)));
      cur.clear();
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      cur += c;
    } else {
      bad(text, "has an argument that is not a whole number");
    }
  }
  auto want = [&](size_t n) {
    if (args.size() != n) bad(text, "takes " + std::to_string(n) + " argument" + (n > 1 ? "s" : ""));
  };
  if (name == "msleep") { want(1); return msleep(args[0]); }
  if (name == "usleep_range") {
    want(2);
    if (args[0] > args[1]) bad(text, "has min > max");
    return usleep_range(args[0], args[1]);
  }
  if (name == "fsleep") { want(1); return fsleep(args[0]); }
  if (name == "udelay") { want(1); return udelay(args[0]); }
  bad(text, "names an unknown sleep");
}

std::string SleepPolicy::to_string() const {
  switch (kind_) {
    case Kind::msleep: return "msleep(" + std::to_string(a_) + ")";
    case Kind::usleep_range: return "usleep_range(" + std::to_string(a_) + ", " + std::to_string(b_) + ")";
    case Kind::fsleep: return "fsleep(" + std::to_string(a_) + ")";
    case Kind::udelay: return "udelay(" + std::to_string(a_) + ")";
    case Kind::busy: return "busy";
    case Kind::pause_sbt: return "pause_sbt(" + std::to_string(a_) + " sbt)";
    case Kind::app_poll: return "app_poll";
    case Kind::yield: return "yield(" + std::to_string(a_) + " ns)";
    case Kind::openvmm_backoff: return "back_off(" + std::to_string(a_) + ")";
  }
  return "?";
}

SleepPolicy SleepPolicy::resolved(const TimerSettings& settings, const TimerRules& rules) const {
  if (kind_ != Kind::fsleep) return *this;
  const uint32_t us = a_;
  if (us <= 10) return udelay(us);
  if (rules.fsleep_613) {
    const uint64_t four_ticks_us = 4ull * 1000000ull / static_cast<uint64_t>(settings.hz);
    if (us < four_ticks_us) return usleep_range(us, us + us / 4);
    return msleep((us + 999) / 1000);
  }
  if (us <= 20000) return usleep_range(us, 2 * us);
  return msleep((us + 999) / 1000);
}

int64_t SleepPolicy::requested_ps() const {
  switch (kind_) {
    case Kind::msleep: return int64_t{a_} * 1'000'000'000;
    case Kind::usleep_range:
    case Kind::fsleep:
    case Kind::udelay: return int64_t{a_} * 1'000'000;
    case Kind::busy:
    case Kind::app_poll: return 0;
    case Kind::pause_sbt: return sbt_ps(a_);
    case Kind::yield: return int64_t{a_} * 1000;
    case Kind::openvmm_backoff:
      if (a_ < kOpenvmmYields) return int64_t{b_} * 1000;
      return a_ - kOpenvmmYields < kOpenvmmShortSleeps ? kOpenvmmShortPs : kOpenvmmLongPs;
  }
  return 0;
}

SleepPolicy SleepPolicy::next_in_wait(uint32_t growth) const {
  if (kind_ == Kind::pause_sbt) {
    const uint64_t d = uint64_t{a_} * 3 / 2;
    return SleepPolicy(kind_, static_cast<uint32_t>(d < kSbt1Ms ? d : kSbt1Ms), b_);
  }
  if (kind_ == Kind::openvmm_backoff) return SleepPolicy(kind_, a_ == UINT32_MAX ? a_ : a_ + 1, b_);
  return growth == 1 ? *this : scaled(growth);
}

SleepPolicy SleepPolicy::scaled(uint32_t factor) const {
  const uint64_t a = uint64_t{a_} * factor, b = uint64_t{b_} * factor;
  if (a > UINT32_MAX || b > UINT32_MAX)
    throw std::overflow_error("sleep policy " + to_string() + " times " + std::to_string(factor) + " overflows");
  return SleepPolicy(kind_, static_cast<uint32_t>(a), static_cast<uint32_t>(b));
}

int64_t SleepPolicy::end_ps(const TickClock& clock, const TimerSettings& settings, const TimerRules& rules,
                            int64_t now_ps, double irq_u) const {
  switch (kind_) {
    case Kind::msleep: return msleep_wake_ps(clock, now_ps, a_, rules.msleep_extra_jiffy);
    case Kind::usleep_range:
      return usleep_range_wake_ps(clock, settings, now_ps, int64_t{a_} * 1000000, int64_t{b_} * 1000000, irq_u);
    case Kind::fsleep: return resolved(settings, rules).end_ps(clock, settings, rules, now_ps, irq_u);
    case Kind::udelay: return add_ps(now_ps, mul_ps(a_, 1000000));
    case Kind::busy:
    case Kind::app_poll: return now_ps;  // the host adds host.poll_interval's draw (nvme_host::sleep)
    case Kind::yield:
    case Kind::openvmm_backoff: return add_ps(now_ps, requested_ps());
    case Kind::pause_sbt: {
      const int64_t d = sbt_ps(a_);
      switch (static_cast<Lateness>(b_)) {
        case Lateness::none: return now_ps + d;
        case Lateness::uniform: return now_ps + d + static_cast<int64_t>(irq_u * static_cast<double>(d / 2));
        case Lateness::max: return now_ps + d + d / 2;
      }
      return now_ps + d;
    }
  }
  return now_ps;
}

}  // namespace nvmesim
