#pragma once
// What one run writes besides the table (`nvmesim run --out/--trace/--vcd/--dmesg`, DESIGN
// section 8), and the sinks that write it. Pure C++: the VCD sink, which goes through SystemC's
// sc_trace, is opened by the engine (outputs/vcd.hpp).
#include <cstdint>
#include <string>

#include "core/trial_selection.hpp"
#include "outputs/sink.hpp"
#include "outputs/timeline.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

/// The output files of a run; an empty path writes nothing.
struct OutputOptions {
  std::string out_path;            ///< timeline (json, jsonl) or trials CSV file; empty for none
  OutputFormat format = OutputFormat::json;
  uint64_t detail_trials = 10;     ///< trials per variant that keep their full event list (json)
  std::string trace_path;          ///< Chrome trace event JSON (--trace); empty for none
  std::string vcd_path;            ///< VCD through sc_trace (--vcd), every trial; empty for none
  std::string dmesg_path;          ///< dmesg text (--dmesg); empty for none
  TrialSelection trace_trials = TrialSelection::parse("0", "--trace-trials");  ///< trials in --trace
  TrialSelection dmesg_trials = TrialSelection::parse("all", "--dmesg-trials"); ///< trials in --dmesg
};

/// Opens the sinks of every output of `opt` but the VCD, in this order: the timeline (or CSV), the
/// trace, dmesg (so a bad path fails before the run, and the first bad one is reported). `sc`
/// must outlive them. Throws IoError.
SinkSet open_file_sinks(const Scenario& sc, const OutputOptions& opt);

}  // namespace nvmesim
