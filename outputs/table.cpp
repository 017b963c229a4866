#include "outputs/table.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <utility>

#include "core/version.hpp"

namespace nvmesim {

void print_table(std::ostream& os, const Scenario& sc, const RunReport& rep) {
  os << "nvmesim " << kVersion << ": " << (sc.name.empty() ? sc.source : sc.name) << ", " << sc.trials
     << " trial" << (sc.trials == 1 ? "" : "s") << " per variant, seed " << sc.seed << "\n\n";
  size_t w = 8;
  for (const auto& v : rep.variants) w = std::max(w, v.name.size());
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %8s %8s %10s %10s %10s %10s %8s %8s\n", static_cast<int>(w), "variant", "ok",
                "failed", "probe p50", "p90", "p99", "mean", "sleeps", "polls");
  os << line;
  for (const auto& v : rep.variants) {
    const uint64_t failed = failed_trials(v.status_counts);
    double sleeps = 0, polls = 0;
    for (const char* ph : {"disable", "enable"}) {
      if (v.phases.contains(ph)) {
        sleeps += v.phases[ph]["sleeps"]["mean"].get<double>();
        polls += v.phases[ph]["polls"]["mean"].get<double>();
      }
    }
    std::snprintf(line, sizeof line, "%-*s %8llu %8llu %10.3f %10.3f %10.3f %10.3f %8.2f %8.2f\n", static_cast<int>(w),
                  v.name.c_str(), static_cast<unsigned long long>(v.status_counts[static_cast<size_t>(ProbeStatus::ok)]),
                  static_cast<unsigned long long>(failed), v.probe_ms.p50, v.probe_ms.p90, v.probe_ms.p99,
                  v.probe_ms.mean, sleeps, polls);
    os << line;
  }
  os << "(probe: driver init to the first controller's queues line, ms; sleeps and polls: mean per trial in\n"
        " the disable and enable waits)\n";
  for (const auto& v : rep.variants) {
    for (auto [what, sm] : {std::pair{"first usable namespace", &v.namespace_ms},
                            std::pair{"critical path", &v.critical_path_ms}, std::pair{"workload", &v.workload_ms}}) {
      if (!sm->count || (sm == &v.critical_path_ms && v.critical_path_ms.max == v.probe_ms.max &&
                         v.critical_path_ms.min == v.probe_ms.min))
        continue;
      std::snprintf(line, sizeof line, "%-*s %s: p50 %.3f ms, p90 %.3f, max %.3f\n", static_cast<int>(w),
                    v.name.c_str(), what, sm->p50, sm->p90, sm->max);
      os << line;
    }
  }
  for (const auto& p : rep.paired) {
    std::snprintf(line, sizeof line,
                  "\npaired delta %s - %s (%zu trials):\n  p50 %+.3f ms, p10 %+.3f, p90 %+.3f, mean %+.3f, min %+.3f, max %+.3f\n",
                  p.variant.c_str(), p.baseline.c_str(), p.delta_ms.count, p.delta_ms.p50, p.delta_ms.p10,
                  p.delta_ms.p90, p.delta_ms.mean, p.delta_ms.min, p.delta_ms.max);
    os << line;
  }
}

}  // namespace nvmesim
