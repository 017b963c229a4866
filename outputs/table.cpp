#include "outputs/table.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/version.hpp"

namespace nvmesim {

namespace {

// Mean sleeps and polls per trial in the disable and enable waits (every trial of the variant).
std::pair<double, double> wait_means(const VariantReport& v) {
  double sleeps = 0, polls = 0;
  for (const char* ph : {"disable", "enable"}) {
    if (v.phases.contains(ph)) {
      sleeps += v.phases[ph]["sleeps"]["mean"].get<double>();
      polls += v.phases[ph]["polls"]["mean"].get<double>();
    }
  }
  return {sleeps, polls};
}

// A statistic in ms, or `none` when no trial gave one.
std::string ms_or(const Summary& s, double v, const char* none) {
  if (!s.count) return none;
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

// Which "what ran" columns the table has: Linux's (kernel, profile, HZ, poll sleep) when some
// variant runs Linux, the driver and its release when some variant runs another driver. A
// table of Linux variants alone is the table as it always was.
struct Columns {
  bool linux_cols = false, driver_cols = false;
  explicit Columns(const RunReport& rep) {
    for (const auto& v : rep.variants) (v.ran.is_linux() ? linux_cols : driver_cols) = true;
  }
};

// One variant's row: counts, probe over the ok trials, time to failure over the failed ones,
// the waits' means, and what ran (a column the variant's driver does not have: "-").
std::string variant_row(const VariantReport& v, int w, const Columns& cols) {
  const Summary& p = v.probe_ms;
  const Summary& f = v.time_to_failure_ms;
  const auto [sleeps, polls] = wait_means(v);
  // A distribution kernel shows its mainline part, starred; the footnote under the table names it.
  const bool distribution = !v.ran.mainline.empty() && v.ran.kernel != v.ran.mainline;
  const std::string kernel = distribution ? v.ran.mainline + "*" : v.ran.kernel;
  char line[640];
  int n = std::snprintf(line, sizeof line, "%-*s %8llu %8llu %10s %10s %10s %10s %10s %10s %8.2f %8.2f", w,
                        v.name.c_str(),
                        static_cast<unsigned long long>(v.status_counts[static_cast<size_t>(ProbeStatus::ok)]),
                        static_cast<unsigned long long>(failed_trials(v.status_counts)), ms_or(p, p.p50, "n/a").c_str(),
                        ms_or(p, p.p90, "n/a").c_str(), ms_or(p, p.p99, "n/a").c_str(), ms_or(p, p.mean, "n/a").c_str(),
                        ms_or(f, f.p50, "-").c_str(), ms_or(f, f.max, "-").c_str(), sleeps, polls);
  std::string row(line, static_cast<size_t>(n));
  if (cols.driver_cols) {  // the release padded only when Linux's columns follow
    std::snprintf(line, sizeof line, cols.linux_cols ? "  %-8s %-8s" : "  %-8s %s", v.ran.driver.c_str(),
                  v.ran.release.empty() ? "-" : v.ran.release.c_str());
    row += line;
  }
  if (cols.linux_cols) {
    if (v.ran.is_linux())
      std::snprintf(line, sizeof line, "  %-8s %-10s %5d  %s", kernel.c_str(), v.ran.profile.c_str(), v.ran.hz,
                    v.ran.poll_sleep.c_str());
    else
      std::snprintf(line, sizeof line, "  %-8s %-10s %5s  %s", "-", "-", "-", "-");
    row += line;
  }
  return row + "\n";
}

// The header line of `cols`.
std::string header_row(int w, const Columns& cols) {
  char line[640];
  std::snprintf(line, sizeof line, "%-*s %8s %8s %10s %10s %10s %10s %10s %10s %8s %8s", w, "variant", "ok", "failed",
                "probe p50", "p90", "p99", "mean", "fail p50", "fail max", "sleeps", "polls");
  std::string row = line;
  if (cols.driver_cols) {
    std::snprintf(line, sizeof line, cols.linux_cols ? "  %-8s %-8s" : "  %-8s %s", "driver", "release");
    row += line;
  }
  if (cols.linux_cols) {
    std::snprintf(line, sizeof line, "  %-8s %-10s %5s  %s", "kernel", "profile", "HZ", "poll sleep");
    row += line;
  }
  return row + "\n";
}

// The legend under the rows: what each column covers, for the columns the table has.
std::string legend(const Columns& cols) {
  if (!cols.driver_cols)
    return "(ok, failed: whole trials, probe and workload; probe: driver init to the first controller's\n"
           " queues line, ms, over the trials whose probe succeeded (n/a: none); fail: driver init to the\n"
           " failure of the probe or the workload, ms, over the failed trials (-: none); paired probe\n"
           " delta: the probe, over the trials whose probes succeeded in both; sleeps and polls: mean\n"
           " per trial over every trial in the disable and enable waits; kernel, profile (its row of\n"
           " `nvmesim profiles`), HZ and poll sleep: what the variant ran, after host.overrides)\n";
  std::string s =
      "(ok, failed: whole trials, probe and workload; probe: driver init to the end of the first\n"
      " controller's probe (Linux: its queues line), ms, over the trials whose probe succeeded (n/a:\n"
      " none); fail: driver init to the failure of the probe or the workload, ms, over the failed\n"
      " trials (-: none); paired probe delta: the probe, over the trials whose probes succeeded in\n"
      " both; sleeps and polls: mean per trial over every trial in the disable and enable waits;\n"
      " driver, release: host.driver and host.release (-: the driver has none)";
  if (cols.linux_cols)
    s += ";\n kernel, profile (its row of `nvmesim profiles`), HZ and poll sleep: what a Linux variant\n"
         " ran, after host.overrides (-: another driver, which has none of them)";
  return s + ")\n";
}

// The paired delta of one variant against the baseline, with its pair count; n/a over no pair.
std::string paired_lines(const PairedReport& p) {
  char line[512];
  const Summary& d = p.delta_ms;
  std::snprintf(line, sizeof line, "\npaired probe delta %s - %s (%zu of %llu trials whose probes succeeded in both):", p.variant.c_str(),
                p.baseline.c_str(), d.count, static_cast<unsigned long long>(p.trials));
  std::string s = line;
  if (!d.count) return s + " n/a (no trial's probe succeeded in both)\n";
  std::snprintf(line, sizeof line, "\n  p50 %+.3f ms, p10 %+.3f, p90 %+.3f, mean %+.3f, min %+.3f, max %+.3f\n", d.p50,
                d.p10, d.p90, d.mean, d.min, d.max);
  return s + line;
}

}  // namespace

void print_table(std::ostream& os, const Scenario& sc, const RunReport& rep) {
  os << "nvmesim " << kVersion << ": " << (sc.name.empty() ? sc.source : sc.name) << ", " << sc.trials
     << " trial" << (sc.trials == 1 ? "" : "s") << " per variant, seed " << sc.seed << "\n\n";
  size_t wn = 8;
  for (const auto& v : rep.variants) wn = std::max(wn, v.name.size());
  const int w = static_cast<int>(wn);
  char line[640];
  const Columns cols(rep);
  os << header_row(w, cols);
  for (const auto& v : rep.variants) os << variant_row(v, w, cols);
  os << legend(cols);
  std::vector<std::string> distribution;
  for (const auto& v : rep.variants)
    if (v.ran.is_linux() && !v.ran.mainline.empty() && v.ran.kernel != v.ran.mainline &&
        std::find(distribution.begin(), distribution.end(), v.ran.kernel) == distribution.end()) {
      distribution.push_back(v.ran.kernel);
      os << "(" << v.ran.mainline << "*: host.kernel \"" << v.ran.kernel << "\", a distribution kernel run as mainline "
         << v.ran.mainline << "; its backports are not known, host.overrides describes them)\n";
    }
  for (const auto& v : rep.variants) {
    for (auto [what, sm] : {std::pair{"first usable namespace", &v.namespace_ms},
                            std::pair{"critical path", &v.critical_path_ms}, std::pair{"workload", &v.workload_ms}}) {
      if (!sm->count || (sm == &v.critical_path_ms && v.critical_path_ms.max == v.probe_ms.max &&
                         v.critical_path_ms.min == v.probe_ms.min))
        continue;
      std::snprintf(line, sizeof line, "%-*s %s: p50 %.3f ms, p90 %.3f, max %.3f\n", w, v.name.c_str(), what, sm->p50,
                    sm->p90, sm->max);
      os << line;
    }
  }
  for (const auto& p : rep.paired) os << paired_lines(p);
}

}  // namespace nvmesim
