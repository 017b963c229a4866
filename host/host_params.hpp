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
  /// Safety limit: host operations (MMIO accesses and sleeps, over all controllers) in one trial
  /// before it is stopped as an error. Bounds time and memory (a detailed trial keeps ~100 bytes
  /// per event) when many controllers poll without sleeping: 1024 busy pollers reach it in ~4000
  /// polls each. A sleeping poll of 128 s, usleep_range(1000, 2000), needs ~2 x 128000.
  uint64_t max_events_per_trial = 4'000'000;
};

/// Safety limit: simulated time of one trial (10^6 s, the largest duration a file may hold). A
/// trial that runs longer is stopped as an error, so that simulated time, a 64-bit count of
/// picoseconds shared by all trials of a process, cannot overflow.
inline constexpr int64_t kMaxTrialPs = 1'000'000'000'000'000'000;

}  // namespace nvmesim
