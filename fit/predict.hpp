#pragma once
// `nvmesim predict`: probe and boot-to-init times under what-if hosts, as distributions over the
// posterior (M parameter draws x T trials), with paired deltas against the reference host
// (docs/fit.md, "predict"). Pure C++.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fit/forward.hpp"
#include "fit/problems.hpp"
#include "fit/smc.hpp"

namespace nvmesim {

/// A posterior read back from nvmesim.posterior/1 (or straight from a fit).
struct PosteriorModel {
  std::vector<BlockSpec> specs;
  std::vector<Population> pops;
  std::vector<SimHost> hosts;       ///< the observed hosts
  std::string link = "bare-metal";
  /// The controller keys the machine's dumps fixed (Observations::device), as fit wrote them.
  nlohmann::ordered_json device = nlohmann::ordered_json::object();
  std::string source;
};

/// Reads a posterior file. Throws InputError naming the file and pointer.
PosteriorModel load_posterior(const std::string& path);
PosteriorModel parse_posterior(const nlohmann::ordered_json& doc, const std::string& source);

/// M draws: one particle of every block each, by weight, deterministic from `seed`.
std::vector<ParamValues> draw_posterior(const PosteriorModel& p, size_t m, uint64_t seed);

/// Per host, M x T samples (row-major by draw), ms; NaN for a failed trial.
struct HostSamples {
  std::vector<double> probe_ms, pci_ms, init_ms;   ///< init_ms empty without boot stages
};
/// Simulates every draw under every host with one scenario seed (common random numbers: trial k
/// of draw m has the same device and boot-stage draws under every host).
std::vector<HostSamples> simulate_draws(ForwardModel& fm, const std::vector<ParamValues>& draws,
                                        const std::vector<SimHost>& hosts, size_t trials, uint64_t seed);

/// {p50, p5, p95, p50_ci90: [lo, hi], ok_fraction} of M x T samples (NaN = failed).
nlohmann::ordered_json sample_summary(const std::vector<double>& x, size_t m, size_t t);
/// Linear-interpolation percentile (q in [0, 1]) of finite values; NaN when none.
double percentile(std::vector<double> x, double q);

struct WhatIf {
  std::string name;
  SimHost host;
  /// The host keys this what-if gives and where each was given ("--set /host/hz=1000",
  /// "W.json: /whatifs/0/host/hz"), for errors the simulator reports about them.
  std::vector<std::pair<std::string, std::string>> given;
};

struct PredictOptions {
  size_t draws = 200, trials = 200;
  uint64_t seed = 1;
  unsigned jobs = 1;
  std::string exe;
};

/// The prediction document (nvmesim.prediction/1) and its table. whatifs[0] is the reference.
nlohmann::ordered_json run_predict(const PosteriorModel& p, const std::vector<WhatIf>& whatifs, const PredictOptions& o,
                                   std::string& table);

}  // namespace nvmesim
