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
};

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
