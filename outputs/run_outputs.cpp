#include "outputs/run_outputs.hpp"

#include "outputs/csv.hpp"
#include "outputs/dmesg.hpp"
#include "outputs/trace.hpp"

namespace nvmesim {

SinkSet open_file_sinks(const Scenario& sc, const OutputOptions& opt) {
  SinkSet sinks;
  if (!opt.out_path.empty())
    sinks.add(opt.format == OutputFormat::csv ? open_csv_sink(opt.out_path)
                                              : open_timeline_sink(sc, opt.out_path, opt.format, opt.detail_trials));
  if (!opt.trace_path.empty()) sinks.add(open_trace_sink(sc, opt.trace_path, opt.trace_trials));
  if (!opt.dmesg_path.empty()) sinks.add(open_dmesg_sink(opt.dmesg_path, opt.dmesg_trials));
  return sinks;
}

}  // namespace nvmesim
