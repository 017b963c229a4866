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
#include "models/sim_time.hpp"
#include "outputs/run_outputs.hpp"
#include "outputs/sink.hpp"
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

// The trials of a run in their order: variant-major, trial 0 first (the pairing relies on it).
class TrialOrder {
 public:
  explicit TrialOrder(const Scenario& sc) : sc_(sc) {}
  uint64_t total() const { return sc_.trials * sc_.variants.size(); }
  // Fills the next trial's variant, seed and index; false after the last.
  bool next(TrialRequest& req) {
    if (k_ >= sc_.trials) {
      ++v_;
      k_ = 0;
    }
    if (v_ >= sc_.variants.size()) return false;
    req.variant = &sc_.variants[v_];
    req.variant_index = v_;
    req.seed = sc_.seed;
    req.trial = k_++;
    return true;
  }

 private:
  const Scenario& sc_;
  size_t v_ = 0;
  uint64_t k_ = 0;
};

size_t max_controllers(const Scenario& sc) {
  size_t n = 0;
  for (const auto& v : sc.variants) n = std::max(n, v.controllers.size());
  return n;
}

// The error for a trial that needed simulated time past the limit of one run (models/sim_time.hpp).
InputError time_limit(const Scenario& sc, const nvme_system& system, const std::string& what) {
  const TrialRequest& t = system.current_trial();
  return InputError(sc.source + ": trial " + std::to_string(t.trial) + " of variant \"" +
                    (t.variant ? t.variant->name : std::string("?")) + "\" stopped: " + what +
                    ", past the limit of one run (2^63 ps, about 106 days of simulated time over all its "
                    "trials); no result was reported for it. Run fewer trials per run (split the rest over "
                    "runs with other seeds) or shorten the latencies");
}

// After sc_start: every trial must have run, unless a safety limit or a signal stopped the run.
void check_run_ended(const Scenario& sc, const nvme_system& system, uint64_t done, uint64_t total) {
  if (!system.error().empty()) throw InputError(sc.source + ": trial stopped: " + system.error());
  if (!time_limit_error().empty()) throw time_limit(sc, system, time_limit_error());
  // Unwinding removes the uncommitted outputs' temporary files; the CLI exits 128 + signal. (A
  // signal after the last trial leaves complete outputs, committed next; the CLI then exits the same.)
  if (stop_requested() && done < total) throw Interrupted(stop_signal());
  // The simulation ran out of events with a trial unfinished because what it waited for fell
  // past the limit of simulated time (the notification was skipped): the limit, not a model bug.
  if (done != total && !time_limit_skipped().empty()) throw time_limit(sc, system, time_limit_skipped());
  if (done != total)  // the simulation ran out of events with a trial unfinished: a model bug
    throw std::logic_error("the simulation stopped after " + std::to_string(done) + " of " +
                           std::to_string(total) + " trials (a model waited for an event that never came)");
}

// One scenario of a batch while it runs: its outputs, statistics, report and trial order.
struct ActiveRun {
  ActiveRun(const Scenario& scenario, const RunOptions& opt)
      : sc(scenario), sinks(open_file_sinks(scenario, opt)), stats(scenario.variants.size()), order(scenario) {}
  const Scenario& sc;
  SinkSet sinks;
  RunStats stats;
  RunReport report;
  TrialOrder order;
  uint64_t done = 0;  // trials handed to the sinks
  // The paired deltas, then every output (IoError: none appears). Returns the report.
  RunReport commit() {
    report.paired = stats.paired(sc);
    sinks.commit(report);
    return std::move(report);
  }
};

}  // namespace

RunReport run_scenario(const Scenario& sc, const RunOptions& opt) {
  BatchOutcome out = run_scenarios({BatchRun{&sc, opt}});
  if (out.failure) std::rethrow_exception(out.failure);
  return std::move(out.reports.front());
}

BatchOutcome run_scenarios(const std::vector<BatchRun>& runs, const std::function<void(size_t)>& committed) {
  BatchOutcome out;
  if (runs.empty()) return out;
  if (runs.size() > 1)
    for (const BatchRun& r : runs)
      if (!r.options.vcd_path.empty())
        throw std::logic_error("run_scenarios: a VCD records a whole elaboration; it is allowed in a batch of one only");
  const RunOptions& opt0 = runs[0].options;
  std::unique_ptr<ActiveRun> active;
  try {
    active = std::make_unique<ActiveRun>(*runs[0].scenario, opt0);  // before elaboration: a bad path fails before the run
  } catch (...) {
    out.failure = std::current_exception();
    return out;
  }
  clear_time_limit_error();
  init_systemc();
  size_t controllers = 0;
  uint64_t total = 0;
  for (const BatchRun& r : runs) {
    controllers = std::max(controllers, max_controllers(*r.scenario));
    total += TrialOrder(*r.scenario).total();
  }
  nvme_system system("system", controllers);
  if (!opt0.vcd_path.empty()) {
    auto vcd = std::make_unique<VcdSink>(opt0.vcd_path);
    system.trace_signals(vcd->file());
    active->sinks.add(std::move(vcd));
  }
  ProgressBar progress(opt0.progress && !opt0.quiet, std::chrono::milliseconds(100), std::chrono::seconds(1));
  size_t k = 0;       // the scenario running
  uint64_t done = 0;  // trials of the batch
  // A batch's earlier scenarios are committed inside the simulation, as soon as the next one is
  // asked for its first trial; a failure there (IoError) or in opening the next one's outputs
  // ends the batch. (Inside a SystemC thread nothing may throw: the kernel would turn the
  // exception into an sc_report.) The last scenario is committed after sc_start, as a run of one
  // is, so that a VCD is complete.
  system.next_trial = [&](TrialRequest& req) {
    while (true) {
      if (stop_requested()) return false;  // SIGINT/SIGTERM: stop between trials
      if (active->order.next(req)) {
        req.detailed = active->sinks.wants_events(req.variant_index, req.trial);
        return true;
      }
      if (k + 1 == runs.size()) return false;
      try {
        out.reports.push_back(active->commit());
        active.reset();
        if (committed) committed(k);
        ++k;
        AtomicFile::restart_temp_numbering();
        active = std::make_unique<ActiveRun>(*runs[k].scenario, runs[k].options);
      } catch (...) {
        out.failure = std::current_exception();
        active.reset();  // its outputs are removed
        return false;
      }
    }
  };
  system.trial_done = [&](const TrialRequest& req, const TrialResult& res) {
    ActiveRun& a = *active;
    a.stats.add(req, res);
    a.sinks.on_trial(req, res);
    if (req.trial + 1 == a.sc.trials) {  // the variant's last trial: its summary
      a.report.variants.push_back(a.stats.report(req.variant_index, *req.variant));
      a.sinks.on_variant(req.variant_index, a.report.variants.back());
    }
    ++a.done;
    show_progress(progress, ++done, total, req.variant->name);
  };
  run_systemc();
  if (out.failure) return out;
  try {
    const ActiveRun& a = *active;
    check_run_ended(a.sc, system, a.done, a.order.total());
    out.reports.push_back(active->commit());
    active.reset();
    if (committed) committed(k);
    // A signal between two scenarios of a batch: the next did not start.
    if (k + 1 < runs.size()) {
      if (stop_requested()) throw Interrupted(stop_signal());
      throw std::logic_error("the batch stopped after " + std::to_string(k + 1) + " of " +
                             std::to_string(runs.size()) + " scenarios");
    }
  } catch (...) {
    out.failure = std::current_exception();
  }
  return out;
}

}  // namespace nvmesim
