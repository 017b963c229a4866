#pragma once
// The elaborated system: per controller an nvme_host (the host side of the PCI function), a
// pcie_link and an nvme_controller, wired host -> link -> BAR0 and controller DMA -> link -> host
// memory; and one thread that runs trial after trial inside this single elaboration (DESIGN
// section 2: one elaboration per process, many trials per elaboration). Each trial runs the
// variant's host driver (host.driver, host/registry.hpp) on the hosts; its platform
// (host/platform.hpp) holds the attach and shutdown order, the boot's state, the clock and the
// reboot. Trials never reset simulated time; every model measures time from the start of its
// trial, so a trial's result does not depend on the trials before it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "core/recorder.hpp"
#include "host/nvme_host.hpp"
#include "host/platform.hpp"
#include "models/nvme_controller.hpp"
#include "models/pcie_link.hpp"
#include "outputs/trial.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

class nvme_system : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(nvme_system);
  /// Builds `n_controllers` host/link/controller triples (the most any variant uses).
  nvme_system(sc_core::sc_module_name name, size_t n_controllers);

  /// Called by the driver thread for the next trial; returns false when there is none.
  std::function<bool(TrialRequest&)> next_trial;
  /// Called with each finished trial.
  std::function<void(const TrialRequest&, const TrialResult&)> trial_done;

  /// Adds to `tf` (before sc_start), per controller N: nvmeN.CC_EN, nvmeN.CSTS_RDY, nvmeN.CSTS_CFS,
  /// nvmeN.CSTS_SHST and nvmeN.host_state (HostState of the thread probing it); and the running
  /// trial's index and variant index as `trial` and `variant`.
  void trace_signals(sc_core::sc_trace_file* tf);
  /// The running trial's index and variant index (for tracing).
  sc_core::sc_signal<int> trial_sig{"trial"}, variant_sig{"variant"};

  /// Set when a trial hit a safety limit; the simulation stops and the runner reports it.
  const std::string& error() const { return error_; }
  /// The trial running or last run (variant null before the first).
  const TrialRequest& current_trial() const { return current_; }

 private:
  // One host driver on every function, and the platform that runs them.
  struct DriverSet {
    std::string name;
    std::vector<std::unique_ptr<HostDriver>> drivers;
    std::unique_ptr<Platform> platform;
  };
  void drive();  // SC_THREAD
  // Runs trial `req` from now to its end; returns false when it hit a limit (error_ is set).
  bool run_trial(const TrialRequest& req, TrialResult& r);
  // The stages of the variant's boot.chain, in order, from now: each stage's release, gap and
  // boot; fills r.stages and the probe fields; returns the last stage's platform, or nullptr
  // when a stage hit a limit (error_ is set).
  Platform* run_chain(const TrialRequest& req, TrialResult& r);
  std::vector<uint64_t> h_stage_, h_gap_;  // fnv1a64("boot/chain/K/seed"), ".../gap", hashed once
  // The drivers and platform of `name`, made on first use.
  Platform& platform_for(const std::string& name);
  // The PCI functions of variant `index` as its driver sees them (built once per variant).
  const std::vector<PciFunction>& functions_of(const TrialRequest& req);
  std::vector<std::unique_ptr<nvme_host>> hosts_;
  std::vector<DriverSet> driver_sets_;
  // By variant index, with the variant they were built for (a batch's scenarios share indices).
  std::vector<std::pair<const Variant*, std::vector<PciFunction>>> functions_;
  std::vector<std::unique_ptr<pcie_link>> links_;
  std::vector<std::unique_ptr<nvme_controller>> controllers_;
  std::vector<uint64_t> h_link_one_way_, h_link_write_stall_;  // fnv1a64("nvmeN/link_..."), hashed once
  Recorder recorder_;
  std::string error_;
  bool waveform_ = false;  // trace_signals was called: every trial runs coupled
  TrialRequest current_;
};

/// Sets up SystemC for this process: 1 ps resolution, no copyright banner, reports to stderr
/// (stdout stays machine-readable). Call once, before any SystemC object exists.
void init_systemc();

/// Runs sc_core::sc_start() to the end of the simulation, then, in AddressSanitizer builds, tells
/// ASan again which stack the calling thread is on. Debian's SystemC 2.3.4 annotates its
/// QuickThreads coroutine switches (__sanitizer_start/finish_switch_fiber) but leaves the main
/// thread's recorded stack bounds pointing into a coroutine stack after the last switch back, so
/// the next exception thrown on the main stack (an Interrupted on SIGINT, an InputError on a
/// trial limit) skipped __asan_handle_no_return's unpoisoning and later frames reported a false
/// stack-buffer-overflow. A no-op fiber switch onto this thread's own stack (pthread_getattr_np)
/// restores the bounds. Without ASan this is just sc_start().
void run_systemc();

}  // namespace nvmesim
