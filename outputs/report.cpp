#include "outputs/report.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

ojson summary_json(const VariantReport& r) {
  ojson s;
  ojson st;
  for (size_t i = 0; i < r.status_counts.size(); ++i) st[to_string(static_cast<ProbeStatus>(i))] = r.status_counts[i];
  s["trials"] = r.trials;
  if (r.ran.is_linux()) {
    s["ran"] = {{"kernel", r.ran.kernel}, {"profile", r.ran.profile}, {"poll_sleep", r.ran.poll_sleep}, {"hz", r.ran.hz}};
    // A distribution kernel: the mainline release that ran (its backports are not modelled).
    if (!r.ran.mainline.empty() && r.ran.mainline != r.ran.kernel) s["ran"]["mainline"] = r.ran.mainline;
  } else {
    s["ran"] = {{"driver", r.ran.driver}};  // none of Linux's settings: the driver did not read them
    if (!r.ran.release.empty()) s["ran"]["release"] = r.ran.release;
  }
  s["status"] = st;
  s["probe_ms"] = summary_or_null(r.probe_ms);
  s["critical_path_ms"] = summary_or_null(r.critical_path_ms);
  s["time_to_failure_ms"] = summary_or_null(r.time_to_failure_ms);
  if (r.namespace_ms.count) s["namespace_ms"] = to_json(r.namespace_ms);
  if (r.workload_ms.count) s["workload_ms"] = to_json(r.workload_ms);
  s["phases"] = r.phases;
  if (!r.stages.empty()) {
    ojson stages = ojson::array();
    for (const StageReport& g : r.stages) {
      ojson j;
      j["driver"] = g.driver;
      j["entry"] = g.entry;
      ojson gs;
      for (size_t i = 0; i < g.status_counts.size(); ++i) gs[to_string(static_cast<ProbeStatus>(i))] = g.status_counts[i];
      j["status"] = gs;
      j["time_ms"] = summary_or_null(g.time_ms);
      j["probe_ms"] = summary_or_null(g.probe_ms);
      if (g.gap_ms.count && g.gap_ms.max > 0) j["gap_ms"] = to_json(g.gap_ms);
      if (g.release_ms.count) j["release_ms"] = to_json(g.release_ms);
      stages.push_back(std::move(j));
    }
    s["stages"] = std::move(stages);
  }
  return s;
}

ojson paired_json(const PairedReport& p) {
  ojson j;
  j["variant"] = p.variant;
  j["baseline"] = p.baseline;
  j["pairs"] = p.delta_ms.count;
  j["delta_ms"] = summary_or_null(p.delta_ms);
  return j;
}

ojson summary_or_null(const Summary& s) { return s.count ? to_json(s) : ojson(nullptr); }

}  // namespace nvmesim
