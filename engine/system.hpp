#pragma once
// The elaborated system: per controller a linux_probe (host), a pcie_link and an nvme_controller,
// wired host -> link -> BAR0 and controller DMA -> link -> host memory; and one driver thread that
// runs trial after trial inside this single elaboration (DESIGN section 2: one elaboration per
// process, many trials per elaboration). Trials never reset simulated time; every model measures
// time from the start of its trial, so a trial's result does not depend on the trials before it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "host/linux/linux_probe.hpp"
#include "models/nvme_controller.hpp"
#include "models/pcie_link.hpp"
#include "core/recorder.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

/// One trial to run.
struct TrialRequest {
  const Variant* variant = nullptr;
  size_t variant_index = 0;
  uint64_t seed = 0;
  uint64_t trial = 0;
  bool detailed = false;  ///< keep the full event list
};

/// What one trial gave. `recorder` holds its phases and (when detailed) events.
struct TrialResult {
  ProbeStatus status = ProbeStatus::ok;  ///< the first failing controller's status, else ok
  int64_t probe_ps = 0;                  ///< controller 0: driver init to its queues line (or failure)
  int64_t critical_path_ps = 0;          ///< the whole workload: the last queues line / shutdown end
  /// controller 0's first usable namespace (ready independent of media), -1 when not reported
  int64_t namespace_ps = -1;
  /// the part after the boot's probe: shutdown (start to last SHST complete), reset (`nvme reset`
  /// to the last queues line), reboot (shutdown start to the next boot's last queues line); -1 for probe
  int64_t workload_ps = -1;
  const Recorder* recorder = nullptr;
};

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
  void trace_signals(sc_core::sc_trace_file* tf) const;
  /// The running trial's index and variant index (for tracing).
  sc_core::sc_signal<int> trial_sig{"trial"}, variant_sig{"variant"};

  /// Set when a trial hit a safety limit; the simulation stops and the runner reports it.
  const std::string& error() const { return error_; }

 private:
  void drive();  // SC_THREAD
  // Runs `action` on the controllers in `which` in parallel and waits for all of them.
  void run_parallel(const std::vector<size_t>& which, HostAction action);
  std::vector<std::unique_ptr<linux_probe>> probes_;
  std::vector<std::unique_ptr<pcie_link>> links_;
  std::vector<std::unique_ptr<nvme_controller>> controllers_;
  std::vector<uint64_t> h_link_one_way_, h_link_write_stall_;  // fnv1a64("nvmeN/link_..."), hashed once
  Recorder recorder_;
  std::string error_;
};

/// Sets up SystemC for this process: 1 ps resolution, no copyright banner, reports to stderr
/// (stdout stays machine-readable). Call once, before any SystemC object exists.
void init_systemc();

}  // namespace nvmesim
