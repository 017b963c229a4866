#pragma once
// Chrome trace event JSON (`--trace FILE`, DESIGN section 8) for Perfetto UI and chrome://tracing.
// Pure C++.
//
// Layout: one process per variant (pid = variant index + 1, named after the variant); per
// controller N two threads: "host: nvmeN probe" (tid 2N+1: the driver's probe of that controller:
// trial, phases, MMIO accesses, sleeps as complete events `X`; interrupts and dmesg lines as
// instants) and "nvmeN device" (tid 2N+2: admin command processing as `X`, state changes and
// warnings as instants). Linux probes controllers asynchronously, each on its own worker, so one
// host track per probe keeps every track's slices properly nested. Per controller one counter
// "nvmeN CSTS" with RDY, SHST and CFS (Perfetto shows "nvmeN CSTS RDY" etc.). `ts` and `dur` are
// microseconds with nanosecond resolution (three decimals).
//
// Time axis: the selected trials are laid out one after another; trial slot j starts where slot
// j-1 ended (its longest trial over all variants) plus a tenth of that length (at least 10 us), at
// the same time in every variant, so that variants line up vertically trial by trial.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/recorder.hpp"
#include "core/trial_selection.hpp"
#include "outputs/sink.hpp"
#include "outputs/trial.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

class TraceEventList;

/// Collects the selected trials (with their full event lists) and writes the trace at the end.
/// Memory grows with the events of the selected trials only.
class TraceWriter {
 public:
  /// `scenario` must outlive the writer.
  explicit TraceWriter(const Scenario& scenario);
  /// Keeps one detailed trial (its recorder must hold events).
  void add_trial(const TrialRequest& req, const TrialResult& res);
  /// The whole trace JSON document (one event per line), deterministic for a given run.
  std::string render() const;

 private:
  struct StoredTrial {
    size_t variant = 0;
    uint64_t trial = 0;
    ProbeStatus status = ProbeStatus::ok;
    int64_t probe_ps = 0, critical_path_ps = 0, length_ps = 0;
    std::vector<Event> events;
    std::vector<Phase> phases;
    std::vector<StageResult> stages;  // boot.chain's stages (the "boot chain" track)
  };
  // Adds the events of one stored trial laid out from `base_ps` (its slot's start).
  void emit_trial(TraceEventList& list, const StoredTrial& t, int64_t base_ps) const;
  const Scenario& sc_;
  std::vector<StoredTrial> trials_;
};

/// The trace file at `path` as a sink: the trials in `trials` of every variant (they keep their
/// events), rendered by a TraceWriter when the run ends. `sc` must outlive the sink. Throws
/// IoError when `path` cannot be written.
std::unique_ptr<TrialSink> open_trace_sink(const Scenario& sc, const std::string& path, const TrialSelection& trials);

}  // namespace nvmesim
