#pragma once
// Everything the scenario says about the host (DESIGN section 7, `host`), in typed form.
#include <cstdint>
#include <string>

#include "core/distribution.hpp"
#include "host/linux/kernel_profile.hpp"
#include "host/timers/kernel_timers.hpp"

namespace nvmesim {

struct HostParams {
  /// host.driver: the host driver that runs the trials, one of host/registry.hpp's names.
  std::string driver = "linux";
  /// host.release: the driver's release where it has a choice of them (FreeBSD: "13.1+" or
  /// "older"); empty for a driver without (Linux's is host.kernel).
  std::string driver_release;
  /// host.nvme_2x_reset: FreeBSD 13.1+ built with `options NVME_2X_RESET` resets the controller
  /// twice at attach, as releases before 13.1 always did (other-hosts.md, FreeBSD nvme(4)).
  bool nvme_2x_reset = false;
  /// host.sleep_lateness: where FreeBSD 13.1+'s pause_sbt callouts fire in [d, 1.5 d].
  SleepPolicy::Lateness sleep_lateness = SleepPolicy::Lateness::uniform;
  /// host.poll_interval (SPDK): the application's time between two polls of a controller's init
  /// state machine, drawn per poll (SleepPolicy::app_poll); default 2 us fixed (a busy-polling
  /// application, other-hosts.md "More facts per host": "a few microseconds").
  Distribution poll_interval = Distribution::fixed(2'000'000);
  KernelVersion kernel;                  ///< host.kernel
  KernelProfile profile;                 ///< the release's row, with host.overrides applied
  TimerSettings timers;                  ///< HZ, tick mode, highres, background IRQ rate
  Distribution wakeup_latency = Distribution::fixed(0);  ///< scheduler wakeup after a sleep
  Distribution init_to_probe = Distribution::fixed(0);   ///< nvme_init to "pci function", per controller
  uint32_t cpus = 64;                    ///< I/O queues the driver asks for (one per CPU)
  /// Safety limit: CSTS reads in one readiness wait before the trial is stopped as an error
  /// (a busy poll against a never-ready controller with a 128 s timeout would take ~10^8).
  uint64_t max_polls_per_wait = 2'000'000;
  /// nvme_core.shutdown_timeout module parameter, seconds (default 5); with Identify RTD3E the
  /// driver uses clamp(RTD3E in whole seconds, this, 60) (linux-readiness.md section 2).
  uint32_t shutdown_timeout_s = 5;
  /// Shut controllers down in parallel (the proposed asynchronous shutdown) instead of one after
  /// the other (every release so far).
  bool async_shutdown = false;
  /// CC.SHN value the shutdown writes: normal (01b, what Linux writes) or abrupt (10b).
  bool abrupt_shutdown = false;
  /// What-if knobs for a host that programs the controller wrongly (Linux never does): they
  /// provoke the device's bad-configuration behaviour (CSTS.CFS) and the enable-ignored fault.
  struct BadConfig {
    int mps = -1;                  ///< CC.MPS to write instead of 0 (4 KiB); -1: Linux's value
    bool asq_misaligned = false;   ///< ASQ/ACQ off a 4 KiB boundary
    bool aqa_zero = false;         ///< AQA = 0 (one-entry queues)
    bool skip_admin_queue = false; ///< never write AQA/ASQ/ACQ
  } bad_config;
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
