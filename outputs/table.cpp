#include "outputs/table.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/version.hpp"

namespace nvmesim {

namespace {

// printf into a string of whatever length the values need (no buffer to cut a long name off).
__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
  va_list a, b;
  va_start(a, fmt);
  va_copy(b, a);
  const int n = std::vsnprintf(nullptr, 0, fmt, a);
  va_end(a);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, b);
  va_end(b);
  return out;
}

// Display columns of UTF-8 text: one per code point (continuation bytes take none).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// `s` padded with spaces to `w` columns (never cut).
std::string pad(const std::string& s, size_t w) {
  const size_t c = columns(s);
  return c >= w ? s : s + std::string(w - c, ' ');
}

}  // namespace

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
  size_t driver_w = 8;  // the driver column: 8, or the longest driver name ("qemu-userspace")
  explicit Columns(const RunReport& rep) {
    for (const auto& v : rep.variants) {
      (v.ran.is_linux() ? linux_cols : driver_cols) = true;
      driver_w = std::max(driver_w, terminal_text(v.ran.driver).size());
    }
  }
};

// True for a distribution kernel (a `uname -r`), shown as its mainline part with a star.
bool distribution_kernel(const RanSettings& r) {
  return r.is_linux() && !r.mainline.empty() && r.kernel != r.mainline;
}

// One variant's row: counts, probe over the ok trials, time to failure over the failed ones,
// the waits' means, and what ran (a column the variant's driver does not have: "-").
std::string variant_row(const VariantReport& v, size_t w, const Columns& cols) {
  const Summary& p = v.probe_ms;
  const Summary& f = v.time_to_failure_ms;
  const auto [sleeps, polls] = wait_means(v);
  std::string row =
      pad(terminal_text(v.name), w) +
      format(" %8llu %8llu %10s %10s %10s %10s %10s %10s %8.2f %8.2f",
             static_cast<unsigned long long>(v.status_counts[static_cast<size_t>(ProbeStatus::ok)]),
             static_cast<unsigned long long>(failed_trials(v.status_counts)), ms_or(p, p.p50, "n/a").c_str(),
             ms_or(p, p.p90, "n/a").c_str(), ms_or(p, p.p99, "n/a").c_str(), ms_or(p, p.mean, "n/a").c_str(),
             ms_or(f, f.p50, "-").c_str(), ms_or(f, f.max, "-").c_str(), sleeps, polls);
  if (cols.driver_cols) {  // the release padded only when Linux's columns follow
    const std::string release = v.ran.release.empty() ? "-" : terminal_text(v.ran.release);
    row += "  " + pad(terminal_text(v.ran.driver), cols.driver_w) + " " + (cols.linux_cols ? pad(release, 8) : release);
  }
  if (cols.linux_cols) {
    if (v.ran.is_linux()) {
      const std::string kernel = distribution_kernel(v.ran) ? terminal_text(v.ran.mainline) + "*" : terminal_text(v.ran.kernel);
      row += "  " + pad(kernel, 8) + " " + pad(terminal_text(v.ran.profile), 10) + format(" %5d  ", v.ran.hz) +
             terminal_text(v.ran.poll_sleep);
    } else {
      row += format("  %-8s %-10s %5s  %s", "-", "-", "-", "-");
    }
  }
  return row + "\n";
}

// The header line of `cols`.
std::string header_row(size_t w, const Columns& cols) {
  std::string row = pad("variant", w) + format(" %8s %8s %10s %10s %10s %10s %10s %10s %8s %8s", "ok", "failed",
                                               "probe p50", "p90", "p99", "mean", "fail p50", "fail max", "sleeps", "polls");
  if (cols.driver_cols)
    row += "  " + pad("driver", cols.driver_w) + " " + (cols.linux_cols ? pad("release", 8) : std::string("release"));
  if (cols.linux_cols) row += format("  %-8s %-10s %5s  %s", "kernel", "profile", "HZ", "poll sleep");
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
  const Summary& d = p.delta_ms;
  std::string s = "\npaired probe delta " + terminal_text(p.variant) + " - " + terminal_text(p.baseline) +
                  format(" (%zu of %llu trials whose probes succeeded in both):", d.count,
                         static_cast<unsigned long long>(p.trials));
  if (!d.count) return s + " n/a (no trial's probe succeeded in both)\n";
  return s + format("\n  p50 %+.3f ms, p10 %+.3f, p90 %+.3f, mean %+.3f, min %+.3f, max %+.3f\n", d.p50, d.p10, d.p90,
                    d.mean, d.min, d.max);
}

// One --set of the header, "PTR=VALUE" as typed: a value of thousands of bytes (a whole
// controllers array) is cut at kSetShownBytes, never inside a UTF-8 character or a JSON escape
// (\uXXXX, \" ...), with the count of what is left out; the JSON output holds it whole.
std::string set_line(const std::string& set) {
  constexpr size_t kSetShownBytes = 200;
  if (set.size() <= kSetShownBytes) return terminal_text(set);
  size_t cut = kSetShownBytes;
  while (cut > 0 && (static_cast<unsigned char>(set[cut]) & 0xC0) == 0x80) --cut;
  for (size_t i = 0; i < cut; ++i) {
    if (set[i] != '\\') continue;
    const size_t escape_bytes = i + 1 < set.size() && set[i + 1] == 'u' ? 6 : 2;
    if (i + escape_bytes > cut) {
      cut = i;
      break;
    }
    i += escape_bytes - 1;
  }
  const size_t left_out = set.size() - cut;
  return terminal_text(set.substr(0, cut)) + "... (" + std::to_string(left_out) + " more byte" +
         (left_out == 1 ? "" : "s") + "; the JSON output's \"scenario\" holds the value whole)";
}

}  // namespace

void print_table(std::ostream& os, const Scenario& sc, const RunReport& rep) {
  os << "nvmesim " << kVersion << ": " << terminal_text(sc.name.empty() ? sc.source : sc.name) << ", " << sc.trials
     << " trial" << (sc.trials == 1 ? "" : "s") << " per variant, seed " << sc.seed << "\n";
  for (const std::string& set : sc.sets) os << "  --set " << set_line(set) << "\n";
  os << "\n";
  size_t w = 8;
  for (const auto& v : rep.variants) w = std::max(w, columns(terminal_text(v.name)));
  const Columns cols(rep);
  os << header_row(w, cols);
  for (const auto& v : rep.variants) os << variant_row(v, w, cols);
  os << legend(cols);
  std::vector<std::string> distribution;
  for (const auto& v : rep.variants)
    if (distribution_kernel(v.ran) && std::find(distribution.begin(), distribution.end(), v.ran.kernel) == distribution.end()) {
      distribution.push_back(v.ran.kernel);
      os << "(" << terminal_text(v.ran.mainline) << "*: host.kernel \"" << terminal_text(v.ran.kernel)
         << "\", a distribution kernel run as mainline " << terminal_text(v.ran.mainline)
         << "; its backports are not known, host.overrides describes them)\n";
    }
  for (const auto& v : rep.variants) {
    for (auto [what, sm] : {std::pair{"first usable namespace", &v.namespace_ms},
                            std::pair{"critical path", &v.critical_path_ms}, std::pair{"workload", &v.workload_ms}}) {
      if (sm == &v.critical_path_ms && !sm->count && v.workload_ms.count) {
        // A workload ran but no trial was ok (probe and workload): say so, as docs/output.md does.
        os << pad(terminal_text(v.name), w) << " critical path: n/a (no trial ok: probe and workload)\n";
        continue;
      }
      if (!sm->count || (sm == &v.critical_path_ms && v.critical_path_ms.max == v.probe_ms.max &&
                         v.critical_path_ms.min == v.probe_ms.min))
        continue;
      os << pad(terminal_text(v.name), w)
         << format(" %s: p50 %.3f ms, p90 %.3f, max %.3f\n", what, sm->p50, sm->p90, sm->max);
    }
  }
  // A boot chain: each stage's time (its start to its end) over the trials where it probed well.
  for (const auto& v : rep.variants)
    for (size_t k = 0; k < v.stages.size(); ++k) {
      const StageReport& g = v.stages[k];
      os << pad(terminal_text(v.name), w) << format(" stage %zu %s%s: ", k + 1, terminal_text(g.driver).c_str(),
                                                    g.entry == "probe" ? "" : (" (" + g.entry + ")").c_str());
      if (!g.time_ms.count) os << "n/a (its probe failed in every trial)\n";
      else os << format("p50 %.3f ms, p90 %.3f, max %.3f (%zu ok)\n", g.time_ms.p50, g.time_ms.p90, g.time_ms.max, g.time_ms.count);
    }
  for (const auto& p : rep.paired) os << paired_lines(p);
}

}  // namespace nvmesim
