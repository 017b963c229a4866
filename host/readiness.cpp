#include "host/readiness.hpp"

#include "host/nvme_host.hpp"
#include "models/nvme_regs.hpp"

namespace nvmesim {

namespace {

// The deadline test at trial time `now_rel`; the wait started at tick `start_tick`.
bool expired(const TickClock& clock, const Deadline& d, uint64_t start_tick, int64_t start_rel, int64_t now_rel,
             int64_t slept_ps) {
  switch (d.rule) {
    case Deadline::Rule::elapsed_over: return now_rel - start_rel > static_cast<int64_t>(d.amount);
    case Deadline::Rule::elapsed_reached: return now_rel - start_rel >= static_cast<int64_t>(d.amount);
    case Deadline::Rule::never: return false;
    case Deadline::Rule::time_after: return time_after(clock.jiffies_at(now_rel), start_tick + d.amount);
    case Deadline::Rule::reached: return clock.jiffies_at(now_rel) - start_tick >= d.amount;
    case Deadline::Rule::slept_over: return slept_ps > static_cast<int64_t>(d.amount);
  }
  return true;
}

// One read of the polled register; sets `all_ones` when it read all ones.
uint32_t read_register(nvme_host& host, WaitSpec::Register reg, bool& all_ones) {
  if (reg == WaitSpec::Register::config_vendor_id) {
    const uint16_t v = host.read_config16(regs::pcicfg::kVendorId, "PCI_VENDOR_ID");
    all_ones = v == 0xFFFFu;
    return v;
  }
  const uint32_t v = host.read32(regs::kCsts, "CSTS");
  all_ones = v == regs::kAllOnes32;
  return v;
}

// `last_all_ones`: the last read returned all ones. The hint (a shorter CAP.TO, a sleeping poll)
// is then not the whole story: the function is not answering, and this wait does not stop on it.
[[noreturn]] void too_many_polls(const nvme_host& host, const WaitSpec& spec, uint64_t polls, bool last_all_ones) {
  const uint64_t limit = host.params().max_polls_per_wait;
  const char* what = spec.reg == WaitSpec::Register::csts ? "CSTS" : "PCI_VENDOR_ID";
  std::string text = "controller " + host.dev() + " made " + std::to_string(polls) + " " + what + " reads in one " +
                     spec.kind + " (limit host.max_polls_per_wait";
  if (spec.limit_hint) text += " = " + std::to_string(limit) + "); " + spec.limit_hint;
  else text += ")";
  if (last_all_ones)
    text += std::string("; its last read returned all ones (") +
            (spec.reg == WaitSpec::Register::csts ? "FFFFFFFFh" : "FFFFh") +
            "): the function is not answering (off the bus, or not back from a reset), and this wait does not stop on that";
  throw SimulationLimitError(text);
}

}  // namespace

WaitResult wait_until_ready(nvme_host& host, const WaitSpec& spec, size_t phase) {
  const TickClock& clock = *host.context().clock;
  const Deadline& d = spec.deadline;
  const int64_t start_rel = d.since_ps >= 0 ? d.since_ps : host.now_rel();
  const uint64_t start_tick = clock.jiffies_at(host.now_rel());
  std::optional<SleepPolicy> sleep = spec.sleep;
  WaitResult r;
  auto timed_out = [&]() {
    if (spec.message && host.detailed()) host.message(spec.message(spec, r.last, r.slept_ps));
    r.end = WaitResult::End::timed_out;
    return r;
  };
  auto past_deadline = [&]() { return expired(clock, d, start_tick, start_rel, host.now_rel(), r.slept_ps); };
  if (d.check == Deadline::Check::before_read && past_deadline()) return timed_out();
  for (;;) {
    // 1. read
    bool all_ones = false;
    r.last = read_register(host, spec.reg, all_ones);
    ++r.polls;
    if (phase != kNoPhase) ++host.phase(phase).polls;
    // 2. all ones: the device is gone (or, for a function after FLR, not answering yet)
    if (all_ones && spec.all_ones == WaitSpec::AllOnes::fail) {
      r.end = WaitResult::End::gone;
      return r;
    }
    // 3. the wanted state
    if (!(all_ones && spec.all_ones == WaitSpec::AllOnes::not_ready) && (r.last & spec.mask) == spec.value) return r;
    if (d.check == Deadline::Check::before_sleep && past_deadline()) return timed_out();
    // 4. sleep
    if (sleep) {
      host.sleep(*sleep);
      r.slept_ps += sleep->requested_ps();
      if (phase != kNoPhase) ++host.phase(phase).sleeps;
      sleep = sleep->next_in_wait(spec.sleep_growth);
    }
    // 5. fatal signal pending: no signals are modelled, so never. A host that tests CSTS.CFS
    //    here (SeaBIOS) ends the wait on the value it read before the sleep.
    if (spec.fail_on_cfs && spec.reg == WaitSpec::Register::csts && (r.last & regs::Csts::kCfs)) {
      r.end = WaitResult::End::fatal;
      return r;
    }
    // 6. deadline (for a while loop, the check before the next read)
    if (d.check != Deadline::Check::before_sleep && past_deadline()) return timed_out();
    if (r.polls >= host.params().max_polls_per_wait) too_many_polls(host, spec, r.polls, all_ones);
    // 7. read again
  }
}

}  // namespace nvmesim
