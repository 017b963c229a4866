#include "outputs/report.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

ojson summary_json(const VariantReport& r) {
  ojson s;
  ojson st;
  for (size_t i = 0; i < r.status_counts.size(); ++i) st[to_string(static_cast<ProbeStatus>(i))] = r.status_counts[i];
  s["trials"] = r.probe_ms.count;
  s["status"] = st;
  s["probe_ms"] = to_json(r.probe_ms);
  s["critical_path_ms"] = to_json(r.critical_path_ms);
  if (r.namespace_ms.count) s["namespace_ms"] = to_json(r.namespace_ms);
  if (r.workload_ms.count) s["workload_ms"] = to_json(r.workload_ms);
  s["phases"] = r.phases;
  return s;
}

ojson paired_json(const PairedReport& p) {
  ojson j;
  j["variant"] = p.variant;
  j["baseline"] = p.baseline;
  j["delta_ms"] = to_json(p.delta_ms);
  return j;
}

}  // namespace nvmesim
