#pragma once
// The fit's forward model: nvmesim itself. Parameter sets x hosts become the variants of
// scenarios (at most kMaxChunkVariants each), each scenario runs as `nvmesim run CHUNK.json
// --format jsonl -q --out CHUNK.jsonl` in a process of its own (one SystemC elaboration per
// process), --jobs at a time, and the trial lines are scanned for the times the fit compares.
// Pure C++ (no SystemC here: the simulator runs in the child processes).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "fit/observations.hpp"

namespace nvmesim {

/// The device and host values one simulated run needs (durations in seconds).
struct Theta {
  bool handoff_enabled = true;
  bool disable_immediate = false, enable_immediate = false;  ///< RDY follows the CC write ("0ns")
  double disable_median_s = 1e-3, disable_sigma = 0.5;
  double enable_median_s = 1e-3, enable_sigma = 0.5;
  double identify_median_s = 1e-4, admin_sigma = 0.1;        ///< sigma shared by identify and set_features
  double set_features_median_s = 1e-5;
  double create_queue_median_s = 1e-4, create_queue_sigma = 0.1;
  double init_to_probe_median_s = 1e-3, init_to_probe_sigma = 0.05;
};

/// The host of a run (an observed host, or a what-if).
struct SimHost {
  std::string name;
  nlohmann::ordered_json host;  ///< the scenario's host fields but init_to_probe (kernel, hz, tick, highres, cpus, ...)
  int io_queues = 1;
};

/// The SimHost of observed host `h`.
SimHost sim_host_of(const Observations& obs, size_t h);

/// The scenario `host` object of a host under theta, and the `controllers/0` object.
nlohmann::ordered_json host_json(const SimHost& host, const Theta& t);
/// `fixed`: the keys register dumps fix (Observations::device), written over theta's.
nlohmann::ordered_json controller_json(const Theta& t, int io_queues,
                                       const nlohmann::ordered_json& fixed = nlohmann::ordered_json::object());

/// The simulated times of one trial (ns from driver init), floored to whole microseconds as
/// printk's timestamps are.
struct SimTrial {
  bool ok = false;
  int64_t pci_ns = 0;     ///< phases[pre_probe].end_ns
  int64_t queues_ns = 0;  ///< probe_ns
};

/// One (theta, host) to simulate.
struct SimJob {
  Theta theta;
  const SimHost* host = nullptr;
};

inline constexpr size_t kMaxChunkVariants = 1000;

/// Runs the scenario processes. Counts what it ran (trials, processes) for the cost report.
class ForwardModel {
 public:
  /// `exe`: the nvmesim binary (/proc/self/exe from the CLI); `jobs` >= 1 processes at a time;
  /// `link`: bare-metal or vm-emulated; `tool`: the command whose messages these are ("fit",
  /// "predict"), the first word of every error.
  ForwardModel(std::string exe, unsigned jobs, std::string link, std::string tool = "fit");
  /// The controller keys every simulated run takes as they are (Observations::device: CAP, VS,
  /// CRTO, PCI id, Identify MN and RTD3E from the machine's dumps); none by default.
  void set_device(nlohmann::ordered_json fixed) { device_ = std::move(fixed); }
  ~ForwardModel();
  ForwardModel(const ForwardModel&) = delete;
  ForwardModel& operator=(const ForwardModel&) = delete;

  /// Simulates every job for `trials` trials. Jobs are split into groups of at most `group`
  /// consecutive jobs; group g runs with scenario seed seeds[g] (so groups with different seeds
  /// do not share trial randomness; jobs of one group do). Returns jobs x trials results, row-major.
  /// Throws SimulatorRefused when a child exits 2 (an input error of its chunk), std::runtime_error
  /// (exit 4) when a child fails otherwise, with its message; IoError when the
  /// temporary folder cannot be used. When SIGINT or SIGTERM arrives under a StopSignals guard
  /// (core/signals.hpp), sends SIGTERM to the running children, waits for them and throws
  /// Interrupted; the destructor then removes the temporary folder with everything in it.
  std::vector<SimTrial> run(const std::vector<SimJob>& jobs, size_t trials, size_t group,
                            const std::vector<uint64_t>& seeds);

  uint64_t trials_run() const { return trials_; }
  uint64_t processes_run() const { return processes_; }
  double child_cpu_s() const;

 private:
  static void stop_children(std::vector<pid_t>& live);
  std::string exe_, link_, tool_, dir_;
  unsigned jobs_;
  uint64_t trials_ = 0, processes_ = 0, counter_ = 0;
  nlohmann::ordered_json device_ = nlohmann::ordered_json::object();
};

/// The scenario document of some jobs (one variant each, named v0, v1, ...).
nlohmann::ordered_json chunk_scenario(const std::vector<SimJob>& jobs, size_t first, size_t count, size_t trials,
                                      uint64_t seed, const std::string& link,
                                      const nlohmann::ordered_json& fixed = nlohmann::ordered_json::object());

/// Scans the JSON Lines trial records of `text` into out[variant * trials + trial].
/// Throws std::runtime_error for a record it cannot read, its message starting with `tool`.
void scan_trials(const std::string& text, size_t variants, size_t trials, std::vector<SimTrial>& out, size_t offset,
                 const std::string& tool = "fit");

/// A simulator child that refused its chunk or stopped a trial with an input error (exit 2: a
/// value outside what the scenario allows, or a safety limit such as host.max_events_per_trial).
/// what(): "TOOL: the simulator failed on a chunk (EXE): " and the child's message; `detail`: the
/// child's message alone, without "nvmesim: error: CHUNK.json: ". A caller that knows which of
/// its inputs reach the child (predict's what-ifs) reports it as an input error; otherwise it is
/// an internal error (exit 4) like any other child failure.
struct SimulatorRefused : std::runtime_error {
  SimulatorRefused(const std::string& what, std::string child_detail)
      : std::runtime_error(what), detail(std::move(child_detail)) {}
  std::string detail;
};

}  // namespace nvmesim
