#pragma once
// One trial as the engine runs it and the outputs write it (DESIGN section 8). Pure C++: the
// engine (SystemC) fills these in; outputs/ reads them without seeing any SystemC.
#include <cstddef>
#include <cstdint>

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
  ProbeStatus status = ProbeStatus::ok;  ///< the first failing controller's status, else ok (probe and workload)
  /// the boot's probe alone (before the workload): ok when every controller reached its queues line
  ProbeStatus probe_status = ProbeStatus::ok;
  int64_t probe_ps = 0;                  ///< controller 0: driver init to its queues line (or failure)
  int64_t critical_path_ps = 0;          ///< the whole workload: the last queues line / shutdown end
  /// controller 0's first usable namespace (ready independent of media), -1 when not reported
  int64_t namespace_ps = -1;
  /// the part after the boot's probe: shutdown (start to last SHST complete), reset (`nvme reset`
  /// to the last queues line), reboot (shutdown start to the next boot's last queues line); -1 for probe
  int64_t workload_ps = -1;
  const Recorder* recorder = nullptr;
};

/// True when the trials of `v` report `namespace_ns` (time to the first usable namespace): some
/// controller supports ready independent of media (CAP.CRIMS).
bool variant_reports_namespace(const Variant& v);

}  // namespace nvmesim
