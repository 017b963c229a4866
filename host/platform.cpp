#include "host/platform.hpp"

#include <algorithm>
#include <cmath>

#include "core/rng.hpp"

namespace nvmesim {

Platform::Platform(std::vector<nvme_host*> hosts, std::vector<HostDriver*> drivers,
                   std::function<void(size_t)> platform_reset)
    : hosts_(std::move(hosts)),
      drivers_(std::move(drivers)),
      platform_reset_(std::move(platform_reset)),
      h_phase_(fnv1a64("host/tick_phase")) {
  if (hosts_.empty() || hosts_.size() != drivers_.size())
    throw std::logic_error("Platform: one driver per function, at least one function");
}

void Platform::begin_trial(const HostParams& host, const std::vector<PciFunction>& functions, Recorder& recorder,
                           uint64_t seed, uint64_t trial, bool new_origin) {
  if (functions.size() > hosts_.size()) throw std::logic_error("Platform: more functions than hosts");
  policy_ = drivers_.front()->platform_policy(host);
  // The trial starts at a random phase of a random tick of the host's clock (linux-readiness.md
  // section 4): Linux's jiffies at HZ, U-Boot's millisecond counter.
  Stream tick(seed, trial, h_phase_);
  const double tick_ps = 1e12 / policy_.timer_hz;
  const auto phase_ps = static_cast<int64_t>(std::floor(tick.next_uniform() * tick_ps));
  const auto jiffies_base = static_cast<uint64_t>(tick.next_uniform() * 4294967296.0);
  clock_.emplace(policy_.timer_hz, phase_ps, jiffies_base);
  boot_.new_boot();
  result_ = PlatformResult{};
  all_.clear();
  for (size_t i = 0; i < functions.size(); ++i) {
    const DriverContext ctx{&host, &functions[i], &*clock_, &recorder, seed, trial, &boot_};
    hosts_[i]->begin_trial(*drivers_[i], ctx, new_origin);
    all_.push_back(i);
  }
}

void Platform::collect(size_t i) {
  const DriverOutcome& o = hosts_[i]->outcome();
  if (!o.error.empty() && result_.error.empty()) result_.error = o.error;
  if (result_.status == ProbeStatus::ok && o.status != ProbeStatus::ok) result_.status = o.status;
  result_.critical_path_ps = std::max(result_.critical_path_ps, o.end_ps);
}

void Platform::run(const std::vector<size_t>& which, HostAction action, PlatformPolicy::Order order) {
  auto wait_for = [&](size_t i) {
    if (!hosts_[i]->done()) sc_core::wait(hosts_[i]->done_event());
  };
  switch (order) {
    case PlatformPolicy::Order::parallel:
      for (size_t i : which) hosts_[i]->start(action);
      for (size_t i : which) wait_for(i);
      break;
    case PlatformPolicy::Order::serial:
      for (size_t i : which) {
        hosts_[i]->start(action);
        wait_for(i);
      }
      break;
    case PlatformPolicy::Order::serial_reverse:
      for (auto it = which.rbegin(); it != which.rend(); ++it) {
        hosts_[*it]->start(action);
        wait_for(*it);
      }
      break;
    case PlatformPolicy::Order::unsupported: throw std::logic_error("Platform::run: unsupported order");
  }
  for (size_t i : which) collect(i);
}

bool Platform::unsupported(PlatformPolicy::Order order, const char* what) {
  if (order != PlatformPolicy::Order::unsupported) return false;
  if (result_.error.empty())
    result_.error = std::string("host.driver \"") + driver_name() + "\" has no " + what +
                    " sequence; use workload \"probe\" with this driver";
  return true;
}

void Platform::boot() {
  run(all_, HostAction::probe, policy_.attach);
  live_.clear();
  for (size_t i : all_)
    if (hosts_[i]->outcome().status == ProbeStatus::ok) live_.push_back(i);
}

void Platform::shutdown() {
  if (unsupported(policy_.shutdown, "shutdown")) return;
  run(live_, HostAction::shutdown, policy_.shutdown);
}

void Platform::reset() {
  if (unsupported(policy_.reset ? PlatformPolicy::Order::parallel : PlatformPolicy::Order::unsupported, "reset"))
    return;
  run(live_, HostAction::reset, PlatformPolicy::Order::parallel);
}

void Platform::reboot() {
  shutdown();
  if (!result_.error.empty()) return;
  // The platform resets every function; firmware hands them over again; a new boot probes.
  boot_.new_boot();
  platform_reset_(all_.size());
  run(all_, HostAction::reboot_probe, policy_.attach);
}

}  // namespace nvmesim
