#pragma once
// The trial runner: runs every variant of a scenario for its trials in one SystemC elaboration,
// streams the records to the output, and summarises (DESIGN sections 6 and 8).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"
#include "core/stats.hpp"
#include "outputs/trace.hpp"

namespace nvmesim {

enum class OutputFormat { json, jsonl };

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

/// Per-variant results, for the table and for tests.
struct VariantReport {
  std::string name;
  StatusCounts status_counts{};              ///< trials by ProbeStatus
  Summary probe_ms, critical_path_ms;
  Summary namespace_ms;  ///< first usable namespace (count 0 unless reported)
  Summary workload_ms;   ///< shutdown / reset / reboot part (count 0 for the probe workload)
  nlohmann::ordered_json phases;             ///< per phase: polls and sleeps min/max/mean
};
struct PairedReport {
  std::string variant, baseline;
  Summary delta_ms;                          ///< over trials where both probes succeeded
};
struct RunReport {
  std::vector<VariantReport> variants;
  std::vector<PairedReport> paired;
};

/// Runs the scenario. Throws IoError when an output cannot be written (nothing is left behind)
/// and InputError when a trial exceeds a safety limit; Interrupted (core/signals.hpp) when SIGINT or
/// SIGTERM arrived under a StopSignals guard (checked between trials). Call at most once per process (SystemC
/// allows one elaboration).
RunReport run_scenario(const Scenario& scenario, const RunOptions& options);

/// Prints the readable table of a report.
void print_table(std::ostream& os, const Scenario& scenario, const RunReport& report);

}  // namespace nvmesim
