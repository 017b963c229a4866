#pragma once
// Per-variant statistics of a run in constant memory (issue 7: memory must stay flat in the trial
// count): sketches of the trial times, status counts, per-phase poll and sleep counts, and the
// baseline's trials spilled to a temporary file for the paired deltas. Pure C++; the runner
// (engine/runner.cpp) feeds it.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/recorder.hpp"
#include "core/sketch.hpp"
#include "outputs/report.hpp"
#include "outputs/trial.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

/// min, max and mean of a count (polls or sleeps of a phase) over trials.
struct CountStats {
  uint64_t min = UINT64_MAX, max = 0, sum = 0, n = 0;
  void add(uint64_t v);
  /// {"min", "max", "mean"} (mean rounded to 6 decimals; zeros without values).
  nlohmann::ordered_json json() const;
};

/// One variant's trials so far.
class VariantStats {
 public:
  /// Adds trial `res` of `req`'s variant: times, status, and every phase the trial recorded.
  void add(const TrialRequest& req, const TrialResult& res);
  /// Adds a paired delta to the baseline, in picoseconds (trials where both probes succeeded).
  void add_delta_ps(int64_t delta_ps) { delta_ps_.add(delta_ps); }
  /// The report of variant `v` (summaries in ms, its resolved settings); phases in the order
  /// their recorder declared (PhaseId::order, then name).
  VariantReport report(const Variant& v) const;
  /// The paired deltas in ms.
  Summary delta_ms() const;

 private:
  struct PhaseStats {
    PhaseId id;
    CountStats polls, sleeps;
  };
  PhaseStats& phase(const PhaseId& id);
  // The sketches hold picoseconds.
  // probe_ps_, critical_ps_: trials that ended ok; failure_ps_: the others' probe_ps (time to failure)
  QuantileSketch probe_ps_, critical_ps_, failure_ps_, namespace_ps_, workload_ps_, delta_ps_;
  StatusCounts counts_{};
  // boot.chain: per stage, its time and controller 0's probe (ok stages), gap and release (all)
  struct StageStats {
    StatusCounts counts{};
    QuantileSketch time_ps, probe_ps, gap_ps, release_ps;
  };
  std::vector<StageStats> stages_;
  std::vector<PhaseStats> phases_;  // every phase recorded; a handful, found by name without building a std::string
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

/// What variant `v` ran: its kernel, profile row, poll sleep and HZ (issue 10 item 5).
RanSettings ran_settings(const Variant& v);

/// Pairs trial `res` with the baseline: trial k of variant 0 goes into `spill` before trial k of
/// any other variant runs, which reads it back and adds the delta to `stats`.
void pair_with_baseline(BaselineSpill& spill, const TrialRequest& req, const TrialResult& res, VariantStats& stats);

/// The statistics of a whole run: every variant's, and each later variant's pairs with the
/// baseline (variant 0).
class RunStats {
 public:
  explicit RunStats(size_t variants);
  /// Adds a trial to its variant and pairs it with the baseline.
  void add(const TrialRequest& req, const TrialResult& res);
  /// The report of variant `index`, `v`.
  VariantReport report(size_t index, const Variant& v) const { return stats_[index].report(v); }
  /// The paired deltas of every variant after the first against the first. Throws IoError when
  /// the baseline's spill file failed.
  std::vector<PairedReport> paired(const Scenario& sc) const;

 private:
  std::vector<VariantStats> stats_;
  std::unique_ptr<BaselineSpill> baseline_;  // only with more than one variant
};

}  // namespace nvmesim
