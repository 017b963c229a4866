#include "engine/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/progress.hpp"
#include "core/signals.hpp"
#include "engine/system.hpp"
#include "engine/variant_stats.hpp"
#include "outputs/dmesg.hpp"
#include "outputs/timeline.hpp"
#include "outputs/trace.hpp"
#include "outputs/vcd.hpp"

namespace nvmesim {

namespace {

// "  42% 4200/10000 trials  3500 trials/s  0:01 left  VARIANT".
void show_progress(ProgressBar& bar, uint64_t done, uint64_t total, const std::string& what) {
  if (!bar.due()) return;
  const double elapsed = bar.elapsed_s();
  const double rate = static_cast<double>(done) / elapsed;
  const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  const double fraction = static_cast<double>(done) / static_cast<double>(total);
  char text[160];
  std::snprintf(text, sizeof text, "%3d%% %llu/%llu trials  %.0f trials/s  %d:%02d left  %-24.24s",
                static_cast<int>(100.0 * fraction), static_cast<unsigned long long>(done),
                static_cast<unsigned long long>(total), rate, static_cast<int>(left) / 60, static_cast<int>(left) % 60,
                what.c_str());
  bar.draw(fraction, text);
}

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

  std::vector<VariantStats> acc(sc.variants.size());
  std::unique_ptr<BaselineSpill> baseline;
  if (sc.variants.size() > 1) baseline = std::make_unique<BaselineSpill>();
  std::string buf;
  buf.reserve(1 << 16);
  const uint64_t total = sc.trials * sc.variants.size();
  ProgressBar progress(opt.progress && !opt.quiet, std::chrono::milliseconds(100), std::chrono::seconds(1));
  uint64_t done = 0;

  if (out) out->write(timeline_header(sc, opt.format));

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
    VariantReport r = acc[i].report(sc.variants[i].name);
    if (out && opt.format == OutputFormat::json) out->write(timeline_variant_end(r, i + 1 == sc.variants.size()));
    report.variants.push_back(std::move(r));
  };
  system.trial_done = [&](const TrialRequest& req, const TrialResult& res) {
    VariantStats& a = acc[req.variant_index];
    a.add(req, res);
    if (baseline) pair_with_baseline(*baseline, req, res, a);
    if (out) {
      buf.clear();
      append_timeline_trial(buf, req, res, req.variant->probe_start_s, opt.format, opt.detail_trials);
      out->write(buf);
    }
    if (trace && opt.trace_trials.contains(req.trial)) trace->add_trial(req, res);
    if (dmesg_file && opt.dmesg_trials.contains(req.trial)) {
      buf.clear();
      append_dmesg_trial(buf, req, res, req.variant->probe_start_s);
      dmesg_file->write(buf);
    }
    if (req.trial + 1 == sc.trials) finish_variant(req.variant_index);
    show_progress(progress, ++done, total, req.variant->name);
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
    p.delta_ms = acc[i].delta_ms();
    report.paired.push_back(std::move(p));
  }

  if (vcd) vcd->commit();
  if (trace) {
    trace_file->write(trace->render());
    trace_file->commit();
  }
  if (dmesg_file) dmesg_file->commit();
  if (out) {
    out->write(timeline_footer(report, opt.format));
    out->commit();
  }
  return report;
}

}  // namespace nvmesim
