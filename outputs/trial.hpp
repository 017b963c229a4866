#pragma once
// One trial as the engine runs it and the outputs write it (DESIGN section 8). Pure C++: the
// engine (SystemC) fills these in; outputs/ reads them without seeing any SystemC.
#include <cstddef>
#include <cstdint>
#include <vector>

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

/// One stage of a boot chain in one trial (Variant::chain). Times in ps from the trial's start.
struct StageResult {
  const BootStage* stage = nullptr;
  int64_t release_ps = -1;   ///< entry kexec/unbind: the previous stage's shutdown of its live controllers; -1 none
  /// The release's outcome: not ok when that shutdown failed (SHST never complete: Linux goes on
  /// with "Device shutdown incomplete", and so does the chain); the trial's status then says it.
  ProbeStatus release_status = ProbeStatus::ok;
  int64_t gap_ps = 0;        ///< the gap drawn before the stage
  int64_t start_ps = 0;      ///< the stage's start (after the release and the gap)
  int64_t time_ps = 0;       ///< start to the stage's last action's end (its critical path)
  int64_t probe_ps = 0;      ///< start to controller 0's end (its queues line, its failure)
  ProbeStatus status = ProbeStatus::ok;  ///< the stage's probe: its first non-ok controller, else ok
  /// Index in the trial's Recorder::phases() of this stage's first phase (those before it are
  /// the earlier stages' and its entry's release, the previous OS's shutdown).
  size_t first_phase = 0;
};

/// What one trial gave. `recorder` holds its phases and (when detailed) events. With a boot
/// chain, probe_status, probe_ps and namespace_ps are the last stage's (the OS's; probe_ps and
/// namespace_ps from that stage's start), critical_path_ps runs from the trial's start (the
/// whole chain) and `stages` holds every stage.
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
  std::vector<StageResult> stages;  ///< boot.chain's stages in order; empty without a chain
};

/// True when the trials of `v` report `namespace_ns` (time to the first usable namespace): some
/// controller supports ready independent of media (CAP.CRIMS).
bool variant_reports_namespace(const Variant& v);

}  // namespace nvmesim
