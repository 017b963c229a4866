#pragma once
// The trial runner: runs every variant of a scenario for its trials in one SystemC elaboration,
// hands each trial to the outputs' sinks, and summarises (DESIGN sections 6 and 8).
#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

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

/// One scenario of a batch (run_scenarios) and its outputs. `scenario` must outlive the call.
struct BatchRun {
  const Scenario* scenario = nullptr;
  RunOptions options;
};

/// What run_scenarios did: `reports` holds the reports of the leading scenarios whose outputs were
/// committed, in order; `failure` is the exception of the first that failed (what run_scenario
/// would have thrown for it alone), null when all were. The scenarios after a failure did not run.
struct BatchOutcome {
  std::vector<RunReport> reports;
  std::exception_ptr failure;
};

/// Runs several scenarios one after the other in one SystemC elaboration (issue 15 item 5: a
/// sweep worker runs several points of the same controller count without a process and an
/// elaboration per point). The elaboration has as many controllers as the largest scenario
/// needs. Each scenario's trials, outputs and report are exactly those of run_scenario for it
/// alone: trials do not depend on the simulated time they start at (engine/system.hpp), and each
/// scenario's outputs are opened, committed and numbered (AtomicFile temporaries from 0) on their
/// own. A failure (a limit, an output that cannot be written, SIGINT/SIGTERM) ends the batch; the
/// simulated-time limit counts over the whole batch, so a scenario that hits it here may fit in a
/// run of its own. A VCD (options.vcd_path) is allowed only in a batch of one, since it records
/// the elaboration's whole time axis (std::logic_error otherwise). `committed`, when set, is called
/// with each scenario's index as soon as its outputs are committed (inside the simulation for all
/// but the last: it must not throw), so that a caller can act on a scenario before a later one
/// fails or crashes. Never throws for a scenario's failure; call at most once per process.
BatchOutcome run_scenarios(const std::vector<BatchRun>& runs, const std::function<void(size_t)>& committed = {});

}  // namespace nvmesim
