#pragma once
// The outputs of a run as sinks (DESIGN section 8; docs/architecture.md, "a new output: 1 sink"):
// the trial loop (engine/runner.cpp) hands every finished trial and every finished variant to each
// sink, and at the end commits all of them together: every output of a run appears, or (an
// IoError) none does. Pure C++.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "outputs/report.hpp"
#include "outputs/trial.hpp"

namespace nvmesim {

/// One output of a run. The engine calls, in this order: wants_events and on_trial for every
/// trial (variant-major, trial 0 first), on_variant after each variant's last trial, then
/// prepare for every sink and commit for every sink. A sink destroyed uncommitted (an error, a
/// signal) leaves nothing behind: its target files stay as they were.
class TrialSink {
 public:
  virtual ~TrialSink() = default;
  /// Whether trial `trial` of variant `variant` (its index in the scenario) must keep its full
  /// event list for this sink; asked before the trial runs. Events cost memory and time: only
  /// outputs that show the trials event by event ask for them.
  virtual bool wants_events(size_t variant, uint64_t trial) const {
    (void)variant;
    (void)trial;
    return false;
  }
  /// Trial `req` ended with `res` (its recorder holds the events when any sink wanted them).
  /// Runs inside the simulation: must not throw; write errors are remembered and thrown by
  /// prepare().
  virtual void on_trial(const TrialRequest& req, const TrialResult& res) = 0;
  /// The last trial of variant `index` was handed over; `report` summarises the variant.
  virtual void on_variant(size_t index, const VariantReport& report) {
    (void)index;
    (void)report;
  }
  /// After the last trial: writes what is left (`report`: every variant's summary and the paired
  /// deltas), flushes and syncs, so that only renames are left. Throws IoError (disk full, ...);
  /// nothing is visible then.
  virtual void prepare(const RunReport& report) = 0;
  /// Renames the prepared files into place. Throws IoError.
  virtual void commit() = 0;
  /// Drops the output and removes its temporary files (what destruction does uncommitted).
  virtual void abort() noexcept = 0;
};

/// A sink that writes one file through an AtomicFile (core/atomic_file.hpp): prepare, commit and
/// abort for it; the sink adds what it writes per trial and at the end.
class FileSink : public TrialSink {
 public:
  /// Opens the temporary file beside `path`. Throws IoError (see AtomicFile).
  explicit FileSink(const std::string& path) : file_(std::make_unique<AtomicFile>(path)) {}
  void prepare(const RunReport& report) final;
  void commit() final { file_->publish(); }
  void abort() noexcept final { file_.reset(); }

 protected:
  /// What comes after the last trial (nothing by default); called by prepare.
  virtual void write_end(const RunReport& report) { (void)report; }
  void write(const std::string& s) { file_->write(s); }

 private:
  std::unique_ptr<AtomicFile> file_;
};

/// The sinks of one run, in the order they were added.
class SinkSet {
 public:
  void add(std::unique_ptr<TrialSink> sink) { sinks_.push_back(std::move(sink)); }
  bool empty() const { return sinks_.empty(); }
  /// True when any sink wants the trial's events.
  bool wants_events(size_t variant, uint64_t trial) const;
  void on_trial(const TrialRequest& req, const TrialResult& res);
  void on_variant(size_t index, const VariantReport& report);
  /// Prepares every sink, then commits every one: when preparing any of them fails (IoError),
  /// every sink is aborted and no output of the run appears. (A rename that fails after others
  /// succeeded, which needs the folder itself to change during the run, cannot be undone.)
  void commit(const RunReport& report);

 private:
  std::vector<std::unique_ptr<TrialSink>> sinks_;
};

}  // namespace nvmesim
