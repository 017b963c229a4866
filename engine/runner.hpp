#pragma once
// The trial runner: runs every variant of a scenario for its trials in one SystemC elaboration,
// streams the records to the output, and summarises (DESIGN sections 6 and 8).
#include <cstdint>
#include <string>

#include "core/trial_selection.hpp"
#include "outputs/report.hpp"
#include "outputs/timeline.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

struct RunOptions {
  std::string out_path;            ///< timeline file; empty for none
  OutputFormat format = OutputFormat::json;
  uint64_t detail_trials = 10;     ///< trials per variant that keep their full event list (json)
  std::string trace_path;          ///< Chrome trace event JSON (--trace); empty for none
  std::string vcd_path;            ///< VCD through sc_trace (--vcd), every trial; empty for none
  std::string dmesg_path;          ///< dmesg text (--dmesg); empty for none
  TrialSelection trace_trials = TrialSelection::parse("0", "--trace-trials");  ///< trials in --trace
  TrialSelection dmesg_trials = TrialSelection::parse("all", "--dmesg-trials"); ///< trials in --dmesg
  bool quiet = false;              ///< no table on stdout
  bool progress = true;            ///< progress bar on stderr when it is a terminal
};

/// Runs the scenario. Throws IoError when an output cannot be written (nothing is left behind)
/// and InputError when a trial exceeds a safety limit; Interrupted (core/signals.hpp) when SIGINT or
/// SIGTERM arrived under a StopSignals guard (checked between trials). Call at most once per process (SystemC
/// allows one elaboration).
RunReport run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace nvmesim
