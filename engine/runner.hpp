#pragma once
// The trial runner: runs every variant of a scenario for its trials in one SystemC elaboration,
// hands each trial to the outputs' sinks, and summarises (DESIGN sections 6 and 8).
#include "outputs/report.hpp"
#include "outputs/run_outputs.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

/// The outputs to write (outputs/run_outputs.hpp) and how the run shows itself.
struct RunOptions : OutputOptions {
  bool quiet = false;              ///< no table on stdout
  bool progress = true;            ///< progress bar on stderr when it is a terminal
};

/// Runs the scenario: each trial goes to every output's sink (outputs/sink.hpp), and the outputs
/// are committed together at the end. Throws IoError when an output cannot be written (no output
/// of the run is left behind) and InputError when a trial exceeds a safety limit; Interrupted
/// (core/signals.hpp) when SIGINT or SIGTERM arrived under a StopSignals guard (checked between
/// trials). Call at most once per process (SystemC allows one elaboration).
RunReport run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace nvmesim
