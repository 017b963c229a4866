#pragma once
// Adaptive ABC-SMC with Metropolis-Hastings moves (Del Moral, Doucet and Jasra 2012, "An adaptive
// sequential Monte Carlo method for approximate Bayesian computation"), with a Gaussian ABC
// kernel on observed intervals whose likelihood is estimated from K simulated trials per particle
// (pseudo-marginal). Used per independent block of parameters (docs/fit.md). Pure C++.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nvmesim {

/// A counter-based key: every random choice of the fit is a pure function of the fit's seed and
/// the path of integers that names its purpose (block, generation, step, particle, ...).
uint64_t fit_key(uint64_t seed, std::initializer_list<uint64_t> path);
/// The uniform in (0, 1) of draw `i` under `key`; the standard normal of the same draw.
double key_uniform(uint64_t key, uint64_t i);
double key_normal(uint64_t key, uint64_t i);

/// A continuous unknown: log-uniform prior on [lo, hi] (stored and moved in log10 units).
struct ParamSpec {
  std::string name;     ///< e.g. "enable_latency.median"
  std::string unit;     ///< "s" for durations, "" for a lognormal sigma
  double lo = 0, hi = 0;  ///< prior bounds in the parameter's unit (lo > 0)
};

/// A block of unknowns: continuous parameters and binary indicators (prior 1/2 each).
struct BlockSpec {
  std::string name;
  std::vector<ParamSpec> params;
  std::vector<std::string> flags;
};

/// The log-likelihood of every particle, made of terms: a term is, per particle, K squared
/// normalised distances d2 (infinity for a failed trial) over `dims` intervals with
/// sum(log bandwidth) `hlog`; loglik(s) = sum over terms of
/// log((1/K) sum_k exp(-d2/(2 s^2))) - dims log s - hlog.
class Terms {
 public:
  explicit Terms(size_t particles = 0) : n_(particles) {}
  size_t particles() const { return n_; }
  /// Adds a term; `d2` has particles() x k values, row-major.
  void add(std::vector<double> d2, size_t k, size_t dims, double hlog);
  std::vector<double> loglik(double s) const;
  /// Per particle, the estimated squared coefficient of variation of its likelihood estimate at
  /// scale s, averaged over the terms: mean_t (sum_k w_k^2 / (sum_k w_k)^2 - 1/K), w_k the kernel
  /// value of trial k (the delta method; about var(log L) per term when small). 1/(this + 1/K) is
  /// about the number of trials a term's estimate rests on. Infinity for a particle whose every
  /// trial of a term failed.
  std::vector<double> noise(double s) const;
  /// The rows `idx` (in that order).
  Terms take(const std::vector<size_t>& idx) const;
  /// Row i of this takes row i of `other` where accept[i].
  void put(const std::vector<char>& accept, const Terms& other);
  bool empty() const { return terms_.empty(); }

 private:
  struct Term {
    std::vector<double> d2;
    size_t k = 0, dims = 0;
    double hlog = 0;
  };
  size_t n_ = 0;
  std::vector<Term> terms_;
};

/// What one generation of run_smc did (a measurement hook: `nvmesim fit` prints it per
/// generation, tests read it).
struct GenerationStats {
  double scale = 0;              ///< the bandwidth scale s of the generation
  double ess = 0;                ///< effective sample size after reweighting, before resampling
  bool resampled = false;
  size_t distinct_before = 0;    ///< distinct particles (values and flags) after resampling, before the moves
  size_t distinct_after = 0;     ///< distinct particles after the generation's MH moves
  size_t steps = 0;              ///< MH steps run
  double accept = 0;             ///< accepted proposals / (particles x steps)
};

/// A population: per particle the continuous values (log10, row-major N x D), the flags (N x F)
/// and the normalised weights.
struct Population {
  size_t n = 0, d = 0, f = 0;
  std::vector<double> u;
  std::vector<int> h;
  std::vector<double> w;
  double scale = 0;        ///< the final bandwidth scale s (1 when the algorithm reached it)
  size_t evaluations = 0;  ///< evaluations of the whole population (each a simulation round)
  size_t generations = 0;
  std::vector<GenerationStats> stats;  ///< per generation
};

/// The number of distinct rows (continuous values and flags) of `p`.
size_t distinct_particles(const Population& p);

/// Evaluates the likelihood terms of the particles (u: n x D log10, h: n x F) with the random
/// stream `key` (fresh trials per call); `s_prev` is the current scale. `floor` is empty (every
/// row wanted exactly) or has n values: row j's Metropolis-Hastings threshold at s_prev, below
/// which the proposal is rejected whatever its exact value. An evaluator may then stop
/// simulating row j (early rejection) once rows_below_floor says it cannot reach floor[j]; its
/// terms are then infinite (log-likelihood -inf), which rejects it as the full value would.
using Evaluate = std::function<Terms(const std::vector<double>& u, const std::vector<int>& h, size_t n, uint64_t key,
                                     double s_prev, const std::vector<double>& floor)>;

/// The most a term of `dims` intervals with sum(log bandwidth) `hlog` can add to a particle's
/// log-likelihood at scale s: -dims log s - hlog (every trial exactly on the observation).
double term_bound(size_t dims, double hlog, double s);
/// Per row, true when `ll_partial[j] + rest` (rest: the sum of term_bound of the terms still to
/// be added) is below floor[j]: the row cannot be accepted. All false when floor is empty.
std::vector<char> rows_below_floor(const std::vector<double>& ll_partial, double rest, const std::vector<double>& floor);

struct SmcSettings {
  size_t particles = 500;
  double alpha = 0.5;        ///< each generation keeps alpha of the ESS
  size_t max_generations = 25;
  size_t final_sweeps = 3;   ///< generations at s = 1 before stopping
  size_t steps = 2;          ///< MH steps per generation
  double flip = 0.1;         ///< probability of flipping each binary in a proposal
  /// The noise floor of the bandwidth scale: the tempering stops at the smallest s >= 1 at which
  /// the weighted median of Terms::noise over the population is at most this (0: no floor, down
  /// to s = 1). A likelihood estimate that rests on one or two of the K trials makes the
  /// pseudo-marginal MH moves stick to lucky particles and the intervals too narrow; a wider
  /// kernel is a wider (conservative) ABC posterior instead.
  double max_noise = 0;
};

/// Runs the algorithm on `block` from its prior; `log` gets one line per generation (may be
/// empty). Deterministic from `seed`.
Population run_smc(const BlockSpec& block, const Evaluate& evaluate, const SmcSettings& settings, uint64_t seed,
                   const std::function<void(const std::string&)>& log);

/// Weighted quantile (midpoint rule) of x with weights w.
double weighted_quantile(const std::vector<double>& x, const std::vector<double>& w, double q);
/// Effective sample size of log weights.
double ess(const std::vector<double>& logw);

}  // namespace nvmesim
