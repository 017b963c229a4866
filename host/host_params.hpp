#pragma once
// Everything the scenario says about the host (DESIGN section 7, `host`), in typed form.
#include <cstdint>

#include "host/kernel_profile.hpp"
#include "host/kernel_timers.hpp"
#include "models/distribution.hpp"

namespace nvmesim {

struct HostParams {
  KernelVersion kernel;                  ///< host.kernel
  KernelProfile profile;                 ///< the release's row, with host.overrides applied
  TimerSettings timers;                  ///< HZ, tick mode, highres, background IRQ rate
  Distribution wakeup_latency = Distribution::fixed(0);  ///< scheduler wakeup after a sleep
  Distribution init_to_probe = Distribution::fixed(0);   ///< nvme_init to "pci function", per controller
  uint32_t cpus = 64;                    ///< I/O queues the driver asks for (one per CPU)
  /// Safety limit: CSTS reads in one readiness wait before the trial is stopped as an error
  /// (a busy poll against a never-ready controller with a 128 s timeout would take ~10^8).
  uint64_t max_polls_per_wait = 2'000'000;
};

}  // namespace nvmesim
