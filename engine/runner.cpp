#include "engine/runner.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <unistd.h>

#include "outputs/dmesg.hpp"
#include "outputs/timeline.hpp"
#include "core/sketch.hpp"
#include "outputs/vcd.hpp"
#include "core/signals.hpp"
#include "core/version.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace {

struct CountStats {
  uint64_t min = UINT64_MAX, max = 0, sum = 0, n = 0;
  void add(uint64_t v) {
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    ++n;
  }
  ojson json() const {
    ojson j;
    j["min"] = n ? min : 0;
    j["max"] = max;
    j["mean"] = n ? round6(static_cast<double>(sum) / static_cast<double>(n)) : 0.0;
    return j;
  }
};

// Constant memory in the trial count (issue 7): sketches, not per-trial vectors.
struct VariantAccumulator {
  QuantileSketch probe_ps, critical_ps, namespace_ps, workload_ps;
  QuantileSketch delta_ps;  // paired delta to the baseline, trials where both probes succeeded
  StatusCounts counts{};
  struct PhaseStats {
    PhaseId id;
    CountStats polls, sleeps;
  };
  std::vector<PhaseStats> phases;  // every phase recorded; a handful, found by name without building a std::string
  PhaseStats& phase(const PhaseId& id) {
    for (auto& p : phases)
      if (p.id.name == id.name || std::strcmp(p.id.name, id.name) == 0) return p;
    phases.push_back(PhaseStats{id, {}, {}});
    return phases.back();
  }
  /// The phases in the order their recorder declared (PhaseId::order, then name).
  std::vector<const PhaseStats*> in_order() const {
    std::vector<const PhaseStats*> out;
    for (const auto& p : phases) out.push_back(&p);
    std::sort(out.begin(), out.end(), [](const PhaseStats* a, const PhaseStats* b) {
      return a->id.order != b->id.order ? a->id.order < b->id.order : std::strcmp(a->id.name, b->id.name) < 0;
    });
    return out;
  }
};

// The baseline's per-trial probe time and status, spilled to an anonymous temporary file (removed
// by the system whatever happens) and read back in trial order by every other variant: paired
// deltas without keeping a per-trial vector in memory. Trials run variant-major, trial 0 first.
class BaselineSpill {
 public:
  BaselineSpill() : f_(std::tmpfile()) {
    if (!f_) throw IoError(std::string("temporary file for paired deltas: cannot create (") + std::strerror(errno) + ")");
  }
  ~BaselineSpill() { std::fclose(f_); }
  BaselineSpill(const BaselineSpill&) = delete;
  BaselineSpill& operator=(const BaselineSpill&) = delete;
  // No exceptions inside the simulation thread: a failure is noted and reported by check().
  void put(int64_t probe_ps, ProbeStatus status) {
    const int64_t rec[2] = {probe_ps, static_cast<int64_t>(status)};
    if (!failed_ && std::fwrite(rec, sizeof rec, 1, f_) != 1) fail();
  }
  /// Starts reading from trial 0 again.
  void rewind() {
    if (!failed_ && (std::fflush(f_) != 0 || std::fseek(f_, 0, SEEK_SET) != 0)) fail();
  }
  /// The next baseline trial; false (and no delta) after a failure.
  bool get(int64_t& probe_ps, ProbeStatus& status) {
    int64_t rec[2];
    if (failed_ || std::fread(rec, sizeof rec, 1, f_) != 1) {
      fail();
      return false;
    }
    probe_ps = rec[0];
    status = static_cast<ProbeStatus>(rec[1]);
    return true;
  }
  /// Throws IoError when a write or read failed (disk full...).
  void check() const {
    if (failed_) throw IoError("temporary file for paired deltas: I/O error (" + std::string(std::strerror(errno_)) + ")");
  }

 private:
  void fail() {
    if (!failed_) errno_ = errno ? errno : EIO;
    failed_ = true;
  }
  std::FILE* f_;
  bool failed_ = false;
  int errno_ = 0;
};

ojson tool_json() {
  ojson t;
  t["name"] = "nvmesim";
  t["version"] = kVersion;
  return t;
}

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

class Progress {
 public:
  Progress(bool enabled, uint64_t total) : enabled_(enabled && ::isatty(2)), total_(total) {
    start_ = std::chrono::steady_clock::now();
  }
  void update(uint64_t done, const std::string& what) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0 || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    const double rate = static_cast<double>(done) / elapsed;
    const double left = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    const int width = 30;
    const int filled = static_cast<int>(width * static_cast<double>(done) / static_cast<double>(total_));
    std::fprintf(stderr, "\r[%-*s] %3d%% %llu/%llu trials  %.0f trials/s  %d:%02d left  %-24.24s", width,
                 std::string(static_cast<size_t>(filled), '#').c_str(),
                 static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total_)),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), rate,
                 static_cast<int>(left) / 60, static_cast<int>(left) % 60, what.c_str());
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r%*s\r", 110, "");
  }

 private:
  bool enabled_;
  uint64_t total_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace

RunReport run_scenario(const Scenario& sc, const RunOptions& opt) {
  std::unique_ptr<AtomicFile> out;
  if (!opt.out_path.empty()) out = std::make_unique<AtomicFile>(opt.out_path);
  // Trace and dmesg files are opened first so that a bad path fails before the run.
  std::unique_ptr<AtomicFile> trace_file, dmesg_file;
  std::unique_ptr<TraceWriter> trace;
  if (!opt.trace_path.empty()) {
    trace_file = std::make_unique<AtomicFile>(opt.trace_path);
    trace = std::make_unique<TraceWriter>(sc);
  }
  if (!opt.dmesg_path.empty()) dmesg_file = std::make_unique<AtomicFile>(opt.dmesg_path);

  size_t n_ctrl = 0;
  for (const auto& v : sc.variants) n_ctrl = std::max(n_ctrl, v.controllers.size());
  init_systemc();
  nvme_system system("system", n_ctrl);
  std::unique_ptr<VcdOutput> vcd;
  if (!opt.vcd_path.empty()) {
    vcd = std::make_unique<VcdOutput>(opt.vcd_path);
    system.trace_signals(vcd->file());
  }

  std::vector<VariantAccumulator> acc(sc.variants.size());
  std::unique_ptr<BaselineSpill> baseline;
  if (sc.variants.size() > 1) baseline = std::make_unique<BaselineSpill>();
  std::string buf;
  buf.reserve(1 << 16);
  const uint64_t total = sc.trials * sc.variants.size();
  Progress progress(opt.progress && !opt.quiet, total);
  uint64_t done = 0;

  if (out) {
    ojson header;
    if (opt.format == OutputFormat::jsonl) {
      header["record"] = "header";
      header["schema"] = "nvmesim.trials/1";
      header["tool"] = tool_json();
      header["scenario"] = sc.resolved;
      out->write(header.dump() + "\n");
    } else {
      header["schema"] = "nvmesim.timeline/1";
      header["tool"] = tool_json();
      header["scenario"] = sc.resolved;
      std::string h = header.dump();
      h.pop_back();  // reopen the object
      out->write(h + ",\"variants\":[");
    }
  }

  size_t v_index = 0;
  uint64_t k = 0;
  system.next_trial = [&](TrialRequest& req) {
    if (stop_requested()) return false;  // SIGINT/SIGTERM: stop between trials (core/signals.hpp)
    if (v_index >= sc.variants.size()) return false;
    if (k >= sc.trials) {
      ++v_index;
      k = 0;
      if (v_index >= sc.variants.size()) return false;
    }
    req.variant = &sc.variants[v_index];
    req.variant_index = v_index;
    req.seed = sc.seed;
    req.trial = k;
    req.detailed = (out && opt.format == OutputFormat::json && k < opt.detail_trials) ||
                   (trace && opt.trace_trials.contains(k)) || (dmesg_file && opt.dmesg_trials.contains(k));
    ++k;
    return true;
  };
  RunReport report;
  // Summarises variant i once its last trial is in (and closes its object in the JSON timeline).
  auto finish_variant = [&](size_t i) {
    VariantAccumulator& a = acc[i];
    VariantReport r;
    r.name = sc.variants[i].name;
    r.status_counts = a.counts;
    // Sketches hold picoseconds: 1e9 of them make a millisecond.
    r.probe_ms = a.probe_ps.summary(1e9);
    r.critical_path_ms = a.critical_ps.summary(1e9);
    r.namespace_ms = a.namespace_ps.summary(1e9);
    r.workload_ms = a.workload_ps.summary(1e9);
    r.phases = ojson::object();
    for (const auto* ph : a.in_order()) {
      r.phases[ph->id.name]["polls"] = ph->polls.json();
      r.phases[ph->id.name]["sleeps"] = ph->sleeps.json();
    }
    if (out && opt.format == OutputFormat::json)
      out->write("],\"summary\":" + summary_json(r).dump() + "}" + (i + 1 < sc.variants.size() ? "," : ""));
    report.variants.push_back(std::move(r));
  };
  system.trial_done = [&](const TrialRequest& req, const TrialResult& res) {
    VariantAccumulator& a = acc[req.variant_index];
    a.probe_ps.add(res.probe_ps);
    a.critical_ps.add(res.critical_path_ps);
    if (res.namespace_ps >= 0 && variant_reports_namespace(*req.variant)) a.namespace_ps.add(res.namespace_ps);
    if (res.workload_ps >= 0) a.workload_ps.add(res.workload_ps);
    ++a.counts[static_cast<size_t>(res.status)];
    if (baseline) {
      // Trial k of variant 0 is in the spill file before trial k of any other variant runs.
      if (req.variant_index == 0) {
        baseline->put(res.probe_ps, res.status);
      } else {
        if (req.trial == 0) baseline->rewind();
        int64_t base_ps = 0;
        ProbeStatus base_status = ProbeStatus::ok;
        if (baseline->get(base_ps, base_status) && res.status == ProbeStatus::ok && base_status == ProbeStatus::ok)
          a.delta_ps.add(res.probe_ps - base_ps);
      }
    }
    for (const Phase& p : res.recorder->phases()) {
      auto& ps = a.phase(p.id);
      ps.polls.add(p.polls);
      ps.sleeps.add(p.sleeps);
    }
    if (out) {
      buf.clear();
      if (opt.format == OutputFormat::jsonl) {
        append_trial_json(buf, req, res, sc.probe_start_s, false, &req.variant->name);
        buf += '\n';
      } else {
        if (req.trial == 0) {
          buf += "{\"name\":";
          append_json_string(buf, req.variant->name);
          buf += ",\"trials\":[";
        } else {
          buf += ',';
        }
        append_trial_json(buf, req, res, sc.probe_start_s, req.trial < opt.detail_trials, nullptr);
      }
      out->write(buf);
    }
    if (trace && opt.trace_trials.contains(req.trial)) trace->add_trial(req, res);
    if (dmesg_file && opt.dmesg_trials.contains(req.trial)) {
      buf.clear();
      append_dmesg_trial(buf, res, sc.probe_start_s);
      dmesg_file->write(buf);
    }
    if (req.trial + 1 == sc.trials) finish_variant(req.variant_index);
    progress.update(++done, req.variant->name);
  };

  sc_core::sc_start();
  if (!system.error().empty()) throw InputError(sc.source + ": trial stopped: " + system.error());
  // Unwinding removes the uncommitted output's temporary file; the CLI exits 128 + signal. (A
  // signal after the last trial leaves a complete output, written below; the CLI then exits the same.)
  if (stop_requested() && done < total) throw Interrupted(stop_signal());
  if (done != total)  // the simulation ran out of events with a trial unfinished: a model bug
    throw std::logic_error("the simulation stopped after " + std::to_string(done) + " of " +
                           std::to_string(total) + " trials (a model waited for an event that never came)");
  if (baseline) baseline->check();

  for (size_t i = 1; i < sc.variants.size(); ++i) {
    PairedReport p;
    p.variant = sc.variants[i].name;
    p.baseline = sc.variants[0].name;
    p.delta_ms = acc[i].delta_ps.summary(1e9);
    report.paired.push_back(std::move(p));
  }

  if (vcd) vcd->commit();
  if (trace) {
    trace_file->write(trace->render());
    trace_file->commit();
  }
  if (dmesg_file) dmesg_file->commit();
  if (out) {
    ojson paired = ojson::array();
    for (const auto& p : report.paired) paired.push_back(paired_json(p));
    if (opt.format == OutputFormat::jsonl) {
      ojson s;
      s["record"] = "summary";
      ojson variants = ojson::array();
      for (const auto& r : report.variants) {
        ojson v;
        v["name"] = r.name;
        v["summary"] = summary_json(r);
        variants.push_back(v);
      }
      s["variants"] = variants;
      s["paired"] = paired;
      out->write(s.dump() + "\n");
    } else {
      out->write("],\"paired\":" + paired.dump() + "}\n");
    }
    out->commit();
  }
  return report;
}

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
