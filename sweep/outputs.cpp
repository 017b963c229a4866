// The outputs a sweep's points write besides their .jsonl (issue 12: sweeps may select any sink a
// run can): the manifest's record of them, their file names, and the worker's options for them.
#include "sweep/folder.hpp"
#include "sweep/run.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

ojson SweepOutputs::to_json() const {
  if (!any()) return ojson();
  ojson j = ojson::object();
  if (trace) j["trace"] = {{"trials", trace_trials}};
  if (vcd) j["vcd"] = ojson::object();
  if (dmesg) j["dmesg"] = {{"trials", dmesg_trials}};
  return j;
}

namespace sweep_detail {

std::vector<std::string> extra_output_names(const SweepOutputs& o, const std::string& id) {
  std::vector<std::string> names;
  if (o.trace) names.push_back(id + kTraceExt);
  if (o.vcd) names.push_back(id + kVcdExt);
  if (o.dmesg) names.push_back(id + kDmesgExt);
  return names;
}

std::vector<std::string> worker_output_args(const SweepOutputs& o, const std::string& id) {
  std::vector<std::string> args;
  if (o.trace) args.insert(args.end(), {"--trace", "../points/" + id + kTraceExt, "--trace-trials", o.trace_trials});
  if (o.vcd) args.insert(args.end(), {"--vcd", "../points/" + id + kVcdExt});
  if (o.dmesg) args.insert(args.end(), {"--dmesg", "../points/" + id + kDmesgExt, "--dmesg-trials", o.dmesg_trials});
  return args;
}

}  // namespace sweep_detail
}  // namespace nvmesim
