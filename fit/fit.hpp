#pragma once
// `nvmesim fit`: the posterior of a machine's device and boot stages from its observations, by
// adaptive ABC-SMC per block (docs/fit.md), as nvmesim.posterior/1; the best-fitting posterior
// particle as a ready scenario file; the posterior predictive check. Pure C++ (the simulator runs
// in child processes, fit/forward.hpp).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fit/observations.hpp"
#include "fit/problems.hpp"
#include "fit/smc.hpp"

namespace nvmesim {

struct FitOptions {
  uint64_t seed = 1;
  unsigned jobs = 1;             ///< simulator processes at a time; the result does not depend on it
  std::string exe;               ///< the nvmesim binary
  BlockSettings blocks;          ///< particles and trials per block
  size_t ppc_draws = 100, ppc_trials = 50;
  size_t device_candidates = 100, device_trials = 256;
  bool quiet = false;            ///< no per-generation lines on the log stream
  /// SmcSettings::max_noise of every block: the tempering stops where the median particle's
  /// likelihood estimate has a squared coefficient of variation of at most this (0: down to s = 1).
  double max_noise = 0.25;
};

/// One fitted block.
struct FittedBlock {
  BlockSpec spec;
  Population pop;
};

/// The result of a fit.
struct FitResult {
  Observations obs;
  std::vector<FittedBlock> blocks;
  ParamValues device_values;     ///< the scenario file's values (best particle + block medians)
  nlohmann::ordered_json posterior;  ///< nvmesim.posterior/1
  std::string ppc_text;          ///< the posterior predictive check as printed
  uint64_t trials = 0, processes = 0;
};

/// Runs the fit. Throws what ForwardModel::run throws.
FitResult run_fit(const Observations& obs, const FitOptions& opt, std::ostream& log);

/// The device scenario text (`--scenario-out`): the best particle, one variant per observed host,
/// each parameter with its comment (fitted / not identified / fixed).
std::string device_scenario_text(const FitResult& r);

/// The status of a parameter from its posterior (docs/fit.md, "Reading the output"): "fitted"
/// when the logs inform it, else "not_identified". A binary is fitted when P < 0.05 or > 0.95. A
/// continuous parameter is fitted when its 90 % interval is at most half the prior's log10 width
/// and the structure of the logs lets them tell it: a latency only where its wait happens (P >
/// 0.95 that the hand-off and the immediate flags make the device go through it, quantiles over
/// those particles) and the other wait does not (P < 0.05 of both: the logs see their total, not
/// which was slow); the admin costs never one by one (no line separates the commands), only the
/// derived sums.
struct ParamSummary {
  std::string name, unit, block, status;
  std::string why;                  ///< for not_identified: "width", "no_wait", "exchangeable" or "sum_only"
  std::string derived;              ///< for a derived sum: what it adds up (empty for a parameter)
  double p_relevant = 1;            ///< posterior probability that the device goes through this wait
  double lo = 0, hi = 0;            ///< prior
  double median = 0, q05 = 0, q95 = 0, q005 = 0, q995 = 0;
  bool flag = false;
  double p_one = 0;                 ///< flags: posterior probability of 1
};
/// `io_queues`: the I/O queue count of the queues line (for the derived admin sum; 0: no sum).
/// After the device block's parameters come two derived sums (per particle, summarised as the
/// parameters are): "admin.sum", Identify + Set Features + 2 x io_queues x Create queue medians
/// (s), and "ready_latency.sum", the disable and enable latency medians of the waits the particle
/// goes through (s; over the particles with at least one).
std::vector<ParamSummary> summarise(const std::vector<FittedBlock>& blocks, int io_queues = 0);

}  // namespace nvmesim
