#include "fit/smc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/distribution.hpp"
#include "core/errors.hpp"
#include "core/rng.hpp"
#include "core/signals.hpp"

namespace nvmesim {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

uint64_t fit_key(uint64_t seed, std::initializer_list<uint64_t> path) {
  uint64_t k = splitmix64(seed ^ 0x6669742D6B657921ull);  // "fit-key!"
  for (uint64_t p : path) k = splitmix64(k ^ splitmix64(p + 0x9E3779B97F4A7C15ull));
  return k;
}

double key_uniform(uint64_t key, uint64_t i) {
  const uint64_t h = splitmix64(key ^ splitmix64(i));
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

double key_normal(uint64_t key, uint64_t i) { return normal_quantile(key_uniform(key, i)); }

void Terms::add(std::vector<double> d2, size_t k, size_t dims, double hlog) {
  if (d2.size() != n_ * k) throw std::logic_error("Terms::add: size mismatch");
  terms_.push_back({std::move(d2), k, dims, hlog});
}

std::vector<double> Terms::loglik(double s) const {
  std::vector<double> ll(n_, 0.0);
  const double inv = 1.0 / (2.0 * s * s), ls = std::log(s);
  for (const auto& t : terms_) {
    const double lk = std::log(static_cast<double>(t.k));
    for (size_t i = 0; i < n_; ++i) {
      const double* d = &t.d2[i * t.k];
      double m = kInf;
      for (size_t k = 0; k < t.k; ++k) m = std::min(m, d[k]);
      if (m == kInf) {
        ll[i] = -kInf;
        continue;
      }
      double sum = 0;
      for (size_t k = 0; k < t.k; ++k) sum += std::exp(-(d[k] - m) * inv);
      ll[i] += -m * inv + std::log(sum) - lk - static_cast<double>(t.dims) * ls - t.hlog;
    }
  }
  return ll;
}

std::vector<double> Terms::noise(double s) const {
  std::vector<double> out(n_, 0.0);
  const double inv = 1.0 / (2.0 * s * s);
  for (const auto& t : terms_) {
    for (size_t i = 0; i < n_; ++i) {
      const double* d = &t.d2[i * t.k];
      double m = kInf;
      for (size_t k = 0; k < t.k; ++k) m = std::min(m, d[k]);
      if (m == kInf) {
        out[i] = kInf;
        continue;
      }
      double a = 0, b = 0;
      for (size_t k = 0; k < t.k; ++k) {
        const double w = std::exp(-(d[k] - m) * inv);
        a += w, b += w * w;
      }
      out[i] += b / (a * a) - 1.0 / static_cast<double>(t.k);
    }
  }
  if (!terms_.empty())
    for (double& x : out) x /= static_cast<double>(terms_.size());
  return out;
}

Terms Terms::take(const std::vector<size_t>& idx) const {
  Terms out(idx.size());
  for (const auto& t : terms_) {
    std::vector<double> d2(idx.size() * t.k);
    for (size_t i = 0; i < idx.size(); ++i) std::copy_n(&t.d2[idx[i] * t.k], t.k, &d2[i * t.k]);
    out.terms_.push_back({std::move(d2), t.k, t.dims, t.hlog});
  }
  return out;
}

void Terms::put(const std::vector<char>& accept, const Terms& other) {
  for (size_t j = 0; j < terms_.size(); ++j)
    for (size_t i = 0; i < n_; ++i)
      if (accept[i]) std::copy_n(&other.terms_[j].d2[i * terms_[j].k], terms_[j].k, &terms_[j].d2[i * terms_[j].k]);
}

double term_bound(size_t dims, double hlog, double s) { return -static_cast<double>(dims) * std::log(s) - hlog; }

std::vector<char> rows_below_floor(const std::vector<double>& ll_partial, double rest, const std::vector<double>& floor) {
  std::vector<char> out(ll_partial.size(), 0);
  if (floor.empty()) return out;
  if (floor.size() != ll_partial.size()) throw std::logic_error("rows_below_floor: size mismatch");
  // A margin of 1e-9 nats keeps rounding in the partial sums from pruning a row at its threshold.
  for (size_t j = 0; j < out.size(); ++j) out[j] = ll_partial[j] + rest < floor[j] - 1e-9;
  return out;
}

double ess(const std::vector<double>& logw) {
  double m = -kInf;
  for (double x : logw) m = std::max(m, x);
  if (m == -kInf) return 0;
  double a = 0, b = 0;
  for (double x : logw) {
    const double w = std::exp(x - m);
    a += w;
    b += w * w;
  }
  return a * a / b;
}

double weighted_quantile(const std::vector<double>& x, const std::vector<double>& w, double q) {
  std::vector<size_t> i(x.size());
  std::iota(i.begin(), i.end(), size_t{0});
  std::sort(i.begin(), i.end(), [&](size_t a, size_t b) { return x[a] < x[b] || (x[a] == x[b] && a < b); });
  double tot = 0;
  for (double v : w) tot += v;
  double c = 0, px = x[i[0]], pc = -1;
  for (size_t j = 0; j < i.size(); ++j) {
    const double mid = (c + 0.5 * w[i[j]]) / tot;
    if (mid >= q) {
      if (pc < 0) return x[i[j]];
      return px + (x[i[j]] - px) * (q - pc) / (mid - pc);
    }
    c += w[i[j]];
    px = x[i[j]];
    pc = mid;
  }
  return x[i.back()];
}

size_t distinct_particles(const Population& p) {
  std::vector<size_t> idx(p.n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  auto less = [&](size_t a, size_t b) {
    for (size_t k = 0; k < p.d; ++k)
      if (p.u[a * p.d + k] != p.u[b * p.d + k]) return p.u[a * p.d + k] < p.u[b * p.d + k];
    for (size_t k = 0; k < p.f; ++k)
      if (p.h[a * p.f + k] != p.h[b * p.f + k]) return p.h[a * p.f + k] < p.h[b * p.f + k];
    return false;
  };
  std::sort(idx.begin(), idx.end(), less);
  size_t out = p.n ? 1 : 0;
  for (size_t i = 1; i < idx.size(); ++i) out += less(idx[i - 1], idx[i]);
  return out;
}

namespace {

std::vector<double> normalise(const std::vector<double>& logw) {
  double m = -kInf;
  for (double x : logw) m = std::max(m, x);
  std::vector<double> w(logw.size());
  double s = 0;
  for (size_t i = 0; i < w.size(); ++i) s += (w[i] = std::exp(logw[i] - m));
  for (double& x : w) x /= s;
  return w;
}

// The s in [s_min, s_prev) with ESS(logw + ll(s) - ll(s_prev)) = alpha ESS(logw): bisection in log s.
double next_scale(const Terms& t, const std::vector<double>& logw, double s_prev, double alpha, double s_min) {
  const auto base = t.loglik(s_prev);
  const double target = alpha * ess(logw);
  auto f = [&](double s) {
    const auto ll = t.loglik(s);
    std::vector<double> x(logw.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = (logw[i] == -kInf || base[i] == -kInf) ? -kInf : logw[i] + ll[i] - base[i];
    return ess(x);
  };
  if (f(s_min) >= target) return s_min;
  double lo = std::log(s_min), hi = std::log(s_prev);
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi);
    (f(std::exp(mid)) >= target ? hi : lo) = mid;
  }
  return std::exp(hi);
}

// The smallest s in [1, s_prev] at which the weighted median of t.noise(s) is at most `tau`
// (s_prev when even s_prev is noisier): bisection in log s (the noise falls as s grows).
double noise_floor(const Terms& t, const std::vector<double>& w, double s_prev, double tau) {
  auto med = [&](double s) {
    const auto z = t.noise(s);
    std::vector<double> x, ww;
    for (size_t i = 0; i < z.size(); ++i)
      if (w[i] > 0) x.push_back(std::isinf(z[i]) ? 1e300 : z[i]), ww.push_back(w[i]);
    return x.empty() ? 0.0 : weighted_quantile(x, ww, 0.5);
  };
  if (med(1.0) <= tau) return 1.0;
  if (med(s_prev) > tau) return s_prev;
  double lo = 0, hi = std::log(s_prev);
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi);
    (med(std::exp(mid)) <= tau ? hi : lo) = mid;
  }
  return std::exp(hi);
}

std::vector<size_t> systematic(const std::vector<double>& w, double u) {
  const size_t n = w.size();
  std::vector<size_t> idx(n);
  double c = w[0];
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    const double t = (u + static_cast<double>(i)) / static_cast<double>(n);
    while (c < t && j + 1 < n) c += w[++j];
    idx[i] = j;
  }
  return idx;
}

// Lower Cholesky factor of the weighted covariance of u (n x d), scaled by 2.38^2/d.
std::vector<double> proposal_factor(const std::vector<double>& u, const std::vector<double>& w, size_t n, size_t d) {
  std::vector<double> mean(d, 0), c(d * d, 0), l(d * d, 0);
  double sw2 = 0;
  for (size_t i = 0; i < n; ++i) {
    sw2 += w[i] * w[i];
    for (size_t a = 0; a < d; ++a) mean[a] += w[i] * u[i * d + a];
  }
  const double norm = 1.0 / std::max(1e-12, 1.0 - sw2);
  for (size_t i = 0; i < n; ++i)
    for (size_t a = 0; a < d; ++a)
      for (size_t b = 0; b <= a; ++b) c[a * d + b] += w[i] * (u[i * d + a] - mean[a]) * (u[i * d + b] - mean[b]);
  const double f = 2.38 * 2.38 / static_cast<double>(d);
  for (size_t a = 0; a < d; ++a) {
    for (size_t b = 0; b <= a; ++b) {
      double s = c[a * d + b] * norm * f + (a == b ? 1e-10 : 0.0);
      for (size_t k = 0; k < b; ++k) s -= l[a * d + k] * l[b * d + k];
      l[a * d + b] = a == b ? std::sqrt(std::max(s, 1e-12)) : s / l[b * d + b];
    }
  }
  return l;
}

}  // namespace

Population run_smc(const BlockSpec& block, const Evaluate& evaluate, const SmcSettings& st, uint64_t seed,
                   const std::function<void(const std::string&)>& log) {
  const size_t n = st.particles, d = block.params.size(), nf = block.flags.size();
  std::vector<double> lo(d), hi(d);
  for (size_t a = 0; a < d; ++a) {
    lo[a] = std::log10(block.params[a].lo);
    hi[a] = std::log10(block.params[a].hi);
  }
  Population p;
  p.n = n, p.d = d, p.f = nf;
  p.u.resize(n * d);
  p.h.resize(n * nf);
  const uint64_t kp = fit_key(seed, {0});
  for (size_t i = 0; i < n; ++i) {
    for (size_t a = 0; a < d; ++a) p.u[i * d + a] = lo[a] + (hi[a] - lo[a]) * key_uniform(kp, i * (d + nf) + a);
    for (size_t b = 0; b < nf; ++b) p.h[i * nf + b] = key_uniform(kp, i * (d + nf) + d + b) < 0.5 ? 0 : 1;
  }
  Terms t = evaluate(p.u, p.h, n, fit_key(seed, {1}), 1e6, {});
  p.evaluations = 1;
  double s = 1e6, lam = 1.0;
  std::vector<double> logw(n, 0.0);
  size_t g = 0, at_floor = 0;
  while (g < st.max_generations) {
    if (stop_requested()) throw Interrupted(stop_signal());  // SIGINT/SIGTERM: between generations
    ++g;
    const double s_min = st.max_noise > 0 ? noise_floor(t, normalise(logw), s, st.max_noise) : 1.0;
    const double s_new = s > s_min ? next_scale(t, logw, s, st.alpha, s_min) : s;
    {
      const auto a = t.loglik(s_new), b = t.loglik(s);
      for (size_t i = 0; i < n; ++i) logw[i] = (logw[i] == -kInf || a[i] == -kInf) ? -kInf : logw[i] + a[i] - b[i];
    }
    s = s_new;
    // No parameter set in the prior explains the logs: a problem of the input (the hosts' facts,
    // the device keys a dump fixed, a log of another machine), not of the program: exit 2.
    if (ess(logw) == 0)
      throw InputError("fit: block " + block.name + ": no particle can reproduce the logs: every simulated run failed "
                       "or ended far from the observed lines. Check the hosts' kernel, hz and tick, and the device keys "
                       "the machine's dumps fix (a CAP without the NVM command set fails every probe); docs/fit.md");
    std::vector<double> w = normalise(logw);
    GenerationStats gs;
    gs.scale = s, gs.ess = ess(logw);
    if (ess(logw) < static_cast<double>(n) / 2) {
      gs.resampled = true;
      const auto idx = systematic(w, key_uniform(fit_key(seed, {2, g}), 0));
      std::vector<double> u2(n * d);
      std::vector<int> h2(n * nf);
      for (size_t i = 0; i < n; ++i) {
        std::copy_n(&p.u[idx[i] * d], d, &u2[i * d]);
        if (nf) std::copy_n(&p.h[idx[i] * nf], nf, &h2[i * nf]);
      }
      p.u.swap(u2), p.h.swap(h2);
      t = t.take(idx);
      std::fill(logw.begin(), logw.end(), 0.0);
      std::fill(w.begin(), w.end(), 1.0 / static_cast<double>(n));
    }
    gs.distinct_before = distinct_particles(p);
    const auto l = proposal_factor(p.u, w, n, d);
    double acc_rate = 0, acc_all = 0;
    size_t moved = 0;
    std::vector<char> ever(n, 0);
    for (size_t r = 0; r < st.steps; ++r) {
      const uint64_t kz = fit_key(seed, {3, g, r}), kf = fit_key(seed, {4, g, r}), ka = fit_key(seed, {6, g, r});
      std::vector<double> up(n * d);
      std::vector<int> hp(n * nf);
      std::vector<size_t> inside;
      for (size_t i = 0; i < n; ++i) {
        bool ok = w[i] > 0;
        for (size_t a = 0; a < d; ++a) {
          double x = p.u[i * d + a];
          for (size_t b = 0; b <= a; ++b) x += lam * l[a * d + b] * key_normal(kz, i * d + b);
          up[i * d + a] = x;
          ok = ok && x >= lo[a] && x <= hi[a];
        }
        for (size_t b = 0; b < nf; ++b) {
          const int cur = p.h[i * nf + b];
          hp[i * nf + b] = key_uniform(kf, i * nf + b) < st.flip ? 1 - cur : cur;
        }
        if (ok) inside.push_back(i);
      }
      std::vector<double> ui(inside.size() * d);
      std::vector<int> hi2(inside.size() * nf);
      for (size_t j = 0; j < inside.size(); ++j) {
        std::copy_n(&up[inside[j] * d], d, &ui[j * d]);
        if (nf) std::copy_n(&hp[inside[j] * nf], nf, &hi2[j * nf]);
      }
      // Proposal j of particle i is accepted when llp > ll[i] + log(u_i): that is its floor, so
      // early rejection in the evaluator never changes a decision (each particle's own current
      // value, not the batch's or the population's best).
      const auto ll = t.loglik(s);
      std::vector<double> floor(inside.size());
      for (size_t j = 0; j < inside.size(); ++j)
        floor[j] = ll[inside[j]] == -kInf ? -kInf : ll[inside[j]] + std::log(key_uniform(ka, inside[j]));
      const Terms tp = evaluate(ui, hi2, inside.size(), fit_key(seed, {5, g, r}), s, floor);
      ++p.evaluations;
      const auto llp = tp.loglik(s);
      std::vector<char> accept(n, 0), accept_in(inside.size(), 0);
      std::vector<size_t> rows(n, 0);
      size_t acc = 0;
      for (size_t j = 0; j < inside.size(); ++j) {
        const size_t i = inside[j];
        rows[i] = j;
        const double diff = llp[j] - ll[i];
        if (llp[j] != -kInf && (ll[i] == -kInf || std::log(key_uniform(ka, i)) < diff)) {
          accept[i] = 1;
          ++acc;
          std::copy_n(&up[i * d], d, &p.u[i * d]);
          if (nf) std::copy_n(&hp[i * nf], nf, &p.h[i * nf]);
          if (!ever[i]) ever[i] = 1, ++moved;
        }
      }
      std::vector<size_t> take(n);
      for (size_t i = 0; i < n; ++i) take[i] = accept[i] ? rows[i] : 0;
      if (!inside.empty()) t.put(accept, tp.take(take));
      acc_rate = static_cast<double>(acc) / static_cast<double>(n);
      acc_all += acc_rate;
      lam *= std::exp(acc_rate - 0.25);
    }
    gs.steps = st.steps;
    gs.accept = st.steps ? acc_all / static_cast<double>(st.steps) : 0;
    gs.distinct_after = distinct_particles(p);
    p.stats.push_back(gs);
    if (log) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s gen %zu: scale %.3g, ESS %.0f, accept %.2f, moved %.2f, distinct %zu -> %zu of %zu",
                    block.name.c_str(), g, s, gs.ess, gs.accept, static_cast<double>(moved) / static_cast<double>(n),
                    gs.distinct_before, gs.distinct_after, n);
      std::string line = buf;
      for (size_t b = 0; b < nf; ++b) {
        double pb = 0;
        for (size_t i = 0; i < n; ++i) pb += w[i] * p.h[i * nf + b];
        std::snprintf(buf, sizeof buf, ", P(%s) %.2f", block.flags[b].c_str(), pb);
        line += buf;
      }
      log(line);
    }
    if (s <= s_min && ++at_floor >= st.final_sweeps) break;
  }
  p.w = normalise(logw);
  p.scale = s;
  p.generations = g;
  return p;
}

}  // namespace nvmesim
