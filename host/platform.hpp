#pragma once
// The platform around the host drivers of one boot (DESIGN section 5): the order in which the
// functions are attached and shut down (HostDriver::platform_policy), the state one boot shares
// (BootState, e.g. Linux's dev_warn_once), the host's clock (created per trial at a random phase
// of a random tick, linux-readiness.md section 4), and the reboot's platform reset. The engine
// wires the modules and asks the platform to run a workload; it knows none of this policy.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/driver.hpp"
#include "host/nvme_host.hpp"

namespace nvmesim {

/// What the trial's steps so far did, over all functions.
struct PlatformResult {
  ProbeStatus status = ProbeStatus::ok;  ///< the first non-ok outcome, in the order they were collected
  int64_t critical_path_ps = 0;          ///< the latest end of any action
  std::string error;                     ///< the first safety-limit error, or a workload the driver cannot run
};

class Platform {
 public:
  /// `drivers[i]` runs on `hosts[i]` (same sizes); `platform_reset(n)` resets the first n
  /// functions of the board (the device side, supplied by the engine).
  Platform(std::vector<nvme_host*> hosts, std::vector<HostDriver*> drivers,
           std::function<void(size_t)> platform_reset);

  /// Begins a trial now on the first `functions.size()` functions: a new boot, the host's clock
  /// (seeded by `seed`, `trial`), and each function's DriverContext. Call before boot(). With
  /// `new_origin` false (a later stage of a boot chain, engine/system.cpp) the hosts keep the
  /// trial's time origin and the controllers keep their state: nothing is reset.
  void begin_trial(const HostParams& host, const std::vector<PciFunction>& functions, Recorder& recorder,
                   uint64_t seed, uint64_t trial, bool new_origin = true);
  /// The boot's probe of every function, in the driver's attach order; returns when boot would
  /// go on (every probe ended). Call from an SC_THREAD.
  void boot();
  /// Shuts the live functions down (those whose probe ended well), in the driver's order.
  void shutdown();
  /// `nvme reset` of every live function, all at once.
  void reset();
  /// Shutdown, the platform reset of every function, then a new boot probes every function.
  void reboot();

  const PlatformResult& result() const { return result_; }
  /// The driver's name, for messages.
  const char* driver_name() const { return drivers_.front()->name(); }

 private:
  // Runs `action` on the functions in `which` in `order` and collects their outcomes.
  void run(const std::vector<size_t>& which, HostAction action, PlatformPolicy::Order order);
  void collect(size_t i);
  bool unsupported(PlatformPolicy::Order order, const char* what);

  std::vector<nvme_host*> hosts_;
  std::vector<HostDriver*> drivers_;
  std::function<void(size_t)> platform_reset_;
  PlatformPolicy policy_;
  std::optional<TickClock> clock_;
  BootState boot_;
  std::vector<size_t> live_, all_;  // reused: no allocation per trial
  PlatformResult result_;
  uint64_t h_phase_;
};

}  // namespace nvmesim
