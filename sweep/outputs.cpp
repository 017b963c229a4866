// The outputs a sweep's points write besides their .jsonl (issue 12: sweeps may select any sink a
// run can): the manifest's record of them, their file names, and the worker's options for them.
#include <cstdio>
#include <fstream>

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

namespace {

/// {"bytes": N, "fnv1a64": "<16 hex digits>"} of the file at `path`; null when it cannot be read.
ojson file_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ojson();
  uint64_t hash = 0xcbf29ce484222325ull, bytes = 0;  // FNV-1a 64: offset basis, prime 0x100000001b3
  std::string buf(1 << 16, '\0');
  while (in.read(&buf[0], static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const auto n = static_cast<size_t>(in.gcount());
    for (size_t i = 0; i < n; ++i) hash = (hash ^ static_cast<unsigned char>(buf[i])) * 0x100000001b3ull;
    bytes += n;
  }
  if (in.bad()) return ojson();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return ojson{{"bytes", bytes}, {"fnv1a64", hex}};
}

}  // namespace

ojson output_records(const SweepOutputs& o, const std::string& points_dir, const std::string& id) {
  ojson records;
  for (const auto& n : extra_output_names(o, id)) {
    ojson r = file_record(points_dir + "/" + n);
    if (r.is_null()) return ojson();
    records[n] = std::move(r);
  }
  return records;
}

ojson jsonl_record(const std::string& path) { return file_record(path); }

std::vector<std::string> worker_output_args(const SweepOutputs& o, const std::string& id) {
  std::vector<std::string> args;
  if (o.trace) args.insert(args.end(), {"--trace", "../points/" + id + kTraceExt, "--trace-trials", o.trace_trials});
  if (o.vcd) args.insert(args.end(), {"--vcd", "../points/" + id + kVcdExt});
  if (o.dmesg) args.insert(args.end(), {"--dmesg", "../points/" + id + kDmesgExt, "--dmesg-trials", o.dmesg_trials});
  return args;
}

}  // namespace sweep_detail
}  // namespace nvmesim
