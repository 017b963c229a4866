#include "fit/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <ostream>

#include "core/terminal_text.hpp"
#include "core/tool.hpp"
#include "fit/predict.hpp"

namespace nvmesim {

using oj = nlohmann::ordered_json;

namespace {

std::string ms3(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", ms);
  return b;
}

// The posterior predictive check: per run and observed interval, the simulated p5-p95.
std::string predictive_check(const Observations& obs, const PosteriorModel& pm, ForwardModel& fm, const FitOptions& opt,
                             oj& out) {
  const auto draws = draw_posterior(pm, opt.ppc_draws, fit_key(opt.seed, {400}));
  const auto res = simulate_draws(fm, draws, pm.hosts, opt.ppc_trials, fit_key(opt.seed, {401}));
  std::string text = "posterior predictive check (" + std::to_string(opt.ppc_draws) + " posterior draws x " +
                     std::to_string(opt.ppc_trials) + " trials per observed host):\n";
  size_t outside = 0, total = 0;
  out = oj::array();
  for (size_t ri = 0; ri < obs.runs.size(); ++ri) {
    const ObsRun& r = obs.runs[ri];
    const HostSamples& s = res[r.host];
    struct Iv { BootLine a, b; };
    std::vector<Iv> ivs;
    std::vector<BootLine> ks;
    for (BootLine b : {BootLine::init, BootLine::pci, BootLine::queues})
      if (r.lines.present(b)) ks.push_back(b);
    for (size_t j = 1; j < ks.size(); ++j) ivs.push_back({ks[j - 1], ks[j]});
    if (r.lines.present(BootLine::init) && r.lines.present(BootLine::run_init) && !s.init_ms.empty())
      ivs.push_back({BootLine::init, BootLine::run_init});
    for (const auto& iv : ivs) {
      std::vector<double> x(s.probe_ms.size());
      for (size_t i = 0; i < x.size(); ++i) {
        auto at = [&](BootLine b) {
          return b == BootLine::init ? 0.0 : b == BootLine::pci ? s.pci_ms[i] : b == BootLine::queues ? s.probe_ms[i] : s.init_ms[i];
        };
        x[i] = at(iv.b) - at(iv.a);
      }
      const double y = static_cast<double>(r.lines.at(iv.b) - r.lines.at(iv.a)) / 1e6;
      const double lo = percentile(x, 0.05), hi = percentile(x, 0.95);
      const bool in = y >= lo && y <= hi;
      outside += !in, ++total;
      const std::string name = std::string(boot_line_name(iv.a)) + "->" + boot_line_name(iv.b);
      text += "  " + terminal_text(r.source) + " line " + std::to_string(r.lines.line[static_cast<size_t>(iv.a)]) + " " + name + ": observed " +
              ms3(y) + " ms, simulated p5-p95 [" + ms3(lo) + ", " + ms3(hi) + "] " + (in ? "ok" : "OUTSIDE") + "\n";
      out.push_back({{"log", r.source}, {"line", r.lines.line[static_cast<size_t>(iv.a)]}, {"interval", name},
                     {"observed_ms", y}, {"p5_ms", std::round(lo * 1e6) / 1e6}, {"p95_ms", std::round(hi * 1e6) / 1e6},
                     {"outside", !in}});
    }
  }
  text += "  " + std::to_string(outside) + " of " + std::to_string(total) + " intervals outside (about 10 % expected)\n";
  return text;
}

PosteriorModel model_of(const FitResult& r) {
  PosteriorModel pm;
  for (const auto& b : r.blocks) pm.specs.push_back(b.spec), pm.pops.push_back(b.pop);
  for (size_t h = 0; h < r.obs.hosts.size(); ++h) pm.hosts.push_back(sim_host_of(r.obs, h));
  pm.link = r.obs.link;
  return pm;
}

// The device block's particle with the best likelihood re-estimated with fresh trials, among the
// distinct particles of highest weight; the other blocks' componentwise medians.
ParamValues best_values(const FitResult& r, ForwardModel& fm, const FitOptions& opt) {
  const FittedBlock& dev = r.blocks[0];
  const Population& p = dev.pop;
  std::vector<size_t> order(p.n);
  for (size_t i = 0; i < p.n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p.w[a] > p.w[b]; });
  std::vector<size_t> cand;
  for (size_t i : order) {
    bool dup = false;
    for (size_t c : cand)
      dup = dup || (std::equal(&p.u[c * p.d], &p.u[c * p.d] + p.d, &p.u[i * p.d]) &&
                    std::equal(&p.h[c * p.f], &p.h[c * p.f] + p.f, &p.h[i * p.f]));
    if (!dup) cand.push_back(i);
    if (cand.size() >= opt.device_candidates) break;
  }
  std::vector<double> u;
  std::vector<int> h;
  for (size_t c : cand) {
    u.insert(u.end(), &p.u[c * p.d], &p.u[c * p.d] + p.d);
    h.insert(h.end(), &p.h[c * p.f], &p.h[c * p.f] + p.f);
  }
  BlockSettings bs = opt.blocks;
  bs.device_trials = opt.device_trials;
  const auto blocks = make_blocks(r.obs, fm, bs);
  const auto ll = blocks[0].evaluate(u, h, cand.size(), fit_key(opt.seed, {300}), 1.0, {}).loglik(1.0);
  const size_t best = cand[static_cast<size_t>(std::max_element(ll.begin(), ll.end()) - ll.begin())];
  ParamValues v;
  values_of(dev.spec, p, best, v);
  for (size_t b = 1; b < r.blocks.size(); ++b) {
    const auto& fb = r.blocks[b];
    for (size_t a = 0; a < fb.pop.d; ++a) {
      std::vector<double> x(fb.pop.n);
      for (size_t i = 0; i < fb.pop.n; ++i) x[i] = fb.pop.u[i * fb.pop.d + a];
      v[fb.spec.params[a].name] = std::pow(10.0, weighted_quantile(x, fb.pop.w, 0.5));
    }
  }
  return v;
}

}  // namespace

namespace {

// Weighted quantiles of x (log10 values) over the rows `sel` (all rows when empty) into s; the
// status by the width rule against the prior [lo, hi].
void quantiles_into(ParamSummary& s, const std::vector<double>& x, const std::vector<double>& w, const std::vector<char>& sel) {
  std::vector<double> xs, ws;
  for (size_t i = 0; i < x.size(); ++i)
    if (sel.empty() || sel[i]) xs.push_back(x[i]), ws.push_back(w[i]);
  if (xs.empty() || std::accumulate(ws.begin(), ws.end(), 0.0) <= 0) xs = x, ws = w;
  auto q = [&](double v) { return std::pow(10.0, weighted_quantile(xs, ws, v)); };
  s.median = q(0.5), s.q05 = q(0.05), s.q95 = q(0.95), s.q005 = q(0.005), s.q995 = q(0.995);
  const double width = std::log10(s.hi) - std::log10(s.lo);
  const bool narrow = std::log10(s.q95) - std::log10(s.q05) <= 0.5 * width;
  s.status = narrow ? "fitted" : "not_identified";
  if (!narrow) s.why = "width";
  // Bounds within 5 % of the prior's log10 width of a prior bound are reported as that bound.
  if (std::log10(s.q005) - std::log10(s.lo) < 0.05 * width) s.q005 = s.lo;
  if (std::log10(s.hi) - std::log10(s.q995) < 0.05 * width) s.q995 = s.hi;
}

}  // namespace

std::vector<ParamSummary> summarise(const std::vector<FittedBlock>& blocks, int io_queues) {
  std::vector<ParamSummary> out;
  for (const auto& b : blocks) {
    const Population& p = b.pop;
    auto flag_col = [&](const char* name) -> int {
      for (size_t f = 0; f < p.f; ++f)
        if (b.spec.flags[f] == name) return static_cast<int>(f);
      return -1;
    };
    auto col = [&](const char* name) -> int {
      for (size_t a = 0; a < p.d; ++a)
        if (b.spec.params[a].name == name) return static_cast<int>(a);
      return -1;
    };
    // Which particles go through the disable and the enable wait (all when the block has no flags).
    const int fh = flag_col("handoff_enabled"), fd = flag_col("disable_immediate"), fe = flag_col("enable_immediate");
    std::vector<char> dis(p.n, 1), ena(p.n, 1);
    for (size_t i = 0; i < p.n; ++i) {
      if (fh >= 0 && fd >= 0) dis[i] = p.h[i * p.f + fh] == 1 && p.h[i * p.f + fd] == 0;
      if (fe >= 0) ena[i] = p.h[i * p.f + fe] == 0;
    }
    auto prob = [&](auto pred) {
      double s = 0;
      for (size_t i = 0; i < p.n; ++i) s += pred(i) ? p.w[i] : 0.0;
      return s;
    };
    const bool device = fh >= 0 && fe >= 0;
    const double p_dis = prob([&](size_t i) { return dis[i] != 0; }), p_ena = prob([&](size_t i) { return ena[i] != 0; });
    const double p_both = prob([&](size_t i) { return dis[i] && ena[i]; });
    for (size_t a = 0; a < p.d; ++a) {
      const ParamSpec& ps = b.spec.params[a];
      std::vector<double> x(p.n);
      for (size_t i = 0; i < p.n; ++i) x[i] = p.u[i * p.d + a];
      ParamSummary s;
      s.name = ps.name, s.unit = ps.unit, s.block = b.spec.name, s.lo = ps.lo, s.hi = ps.hi;
      const bool is_dis = device && ps.name.rfind("disable_latency.", 0) == 0;
      const bool is_ena = device && ps.name.rfind("enable_latency.", 0) == 0;
      const bool is_admin = device && ps.name.rfind("admin.", 0) == 0;
      if (is_dis || is_ena) s.p_relevant = is_dis ? p_dis : p_ena;
      quantiles_into(s, x, p.w, is_dis ? dis : is_ena ? ena : std::vector<char>());
      if (s.status == "fitted") {
        if ((is_dis || is_ena) && s.p_relevant <= 0.95) s.status = "not_identified", s.why = "no_wait";
        else if ((is_dis || is_ena) && p_both >= 0.05) s.status = "not_identified", s.why = "exchangeable";
        else if (is_admin) s.status = "not_identified", s.why = "sum_only";
      }
      out.push_back(s);
    }
    for (size_t f = 0; f < p.f; ++f) {
      ParamSummary s;
      s.name = b.spec.flags[f], s.block = b.spec.name, s.flag = true;
      for (size_t i = 0; i < p.n; ++i) s.p_one += p.w[i] * p.h[i * p.f + f];
      s.status = (s.p_one < 0.05 || s.p_one > 0.95) ? "fitted" : "not_identified";
      if (s.status != "fitted") s.why = "width";
      out.push_back(s);
    }
    if (!device) continue;
    // The derived sums: what a probe interval sees of the admin commands and of the two waits.
    const int ci = col("admin.identify.median"), cs = col("admin.set_features.median"), cq = col("admin.create_queue.median");
    const int cdm = col("disable_latency.median"), cem = col("enable_latency.median");
    if (io_queues > 0 && ci >= 0 && cs >= 0 && cq >= 0) {
      const double k = 2.0 * io_queues;
      ParamSummary s;
      s.name = "admin.sum", s.unit = "s", s.block = b.spec.name;
      s.derived = "admin.identify.median + admin.set_features.median + " + std::to_string(2 * io_queues) + " x admin.create_queue.median";
      s.lo = b.spec.params[ci].lo + b.spec.params[cs].lo + k * b.spec.params[cq].lo;
      s.hi = b.spec.params[ci].hi + b.spec.params[cs].hi + k * b.spec.params[cq].hi;
      std::vector<double> x(p.n);
      for (size_t i = 0; i < p.n; ++i)
        x[i] = std::log10(std::pow(10.0, p.u[i * p.d + ci]) + std::pow(10.0, p.u[i * p.d + cs]) + k * std::pow(10.0, p.u[i * p.d + cq]));
      quantiles_into(s, x, p.w, {});
      out.push_back(s);
    }
    if (cdm >= 0 && cem >= 0) {
      ParamSummary s;
      s.name = "ready_latency.sum", s.unit = "s", s.block = b.spec.name;
      s.derived = "disable_latency.median (when the disable wait happens) + enable_latency.median (when the enable wait happens)";
      s.lo = b.spec.params[cdm].lo, s.hi = b.spec.params[cdm].hi + b.spec.params[cem].hi;
      std::vector<double> x(p.n, 0.0);
      std::vector<char> any(p.n, 0);
      for (size_t i = 0; i < p.n; ++i) {
        const double v = (dis[i] ? std::pow(10.0, p.u[i * p.d + cdm]) : 0.0) + (ena[i] ? std::pow(10.0, p.u[i * p.d + cem]) : 0.0);
        any[i] = v > 0;
        x[i] = v > 0 ? std::log10(v) : 0.0;
      }
      s.p_relevant = prob([&](size_t i) { return any[i] != 0; });
      quantiles_into(s, x, p.w, any);
      if (s.status == "fitted" && s.p_relevant <= 0.95) s.status = "not_identified", s.why = "no_wait";
      out.push_back(s);
    }
  }
  return out;
}

FitResult run_fit(const Observations& obs, const FitOptions& opt, std::ostream& log) {
  FitResult r;
  r.obs = obs;
  ForwardModel fm(opt.exe, opt.jobs, obs.link);
  fm.set_device(obs.device);
  BlockSettings bs = opt.blocks;
  if (obs.fit.particles) bs.device_particles = static_cast<size_t>(obs.fit.particles);
  if (obs.fit.trials_per_particle) bs.device_trials = static_cast<size_t>(obs.fit.trials_per_particle);
  const auto blocks = make_blocks(obs, fm, bs);
  for (size_t b = 0; b < blocks.size(); ++b) {
    SmcSettings st;
    st.particles = blocks[b].particles;
    st.max_noise = opt.max_noise;
    auto line = [&](const std::string& s) {
      if (!opt.quiet) log << "nvmesim fit: " << s << "\n" << std::flush;
    };
    r.blocks.push_back({blocks[b].spec, run_smc(blocks[b].spec, blocks[b].evaluate, st, fit_key(opt.seed, {b + 1}), line)});
  }
  const PosteriorModel pm = model_of(r);
  oj ppc;
  r.ppc_text = predictive_check(obs, pm, fm, opt, ppc);
  r.device_values = best_values(r, fm, opt);
  oj params = oj::array(), blocks_j = oj::array();
  for (const auto& s : summarise(r.blocks, r.obs.runs.empty() ? 0 : r.obs.runs[0].lines.io_queues)) {
    oj j = {{"name", s.name}, {"block", s.block}, {"status", s.status}};
    if (!s.why.empty()) j["why"] = s.why;
    if (s.flag) {
      j["probability"] = s.p_one;
    } else {
      j["unit"] = s.unit;
      if (!s.derived.empty()) j["derived"] = s.derived;
      if (s.p_relevant < 1) j["p_wait"] = s.p_relevant;
      j["prior"] = {{"family", s.derived.empty() ? "log-uniform" : "derived"}, {"range", {s.lo, s.hi}}};
      j["median"] = s.median;
      j["ci90"] = {s.q05, s.q95};
      if (s.status != "fitted") j["bounds"] = {s.q005, s.q995};
    }
    params.push_back(j);
  }
  for (const auto& b : r.blocks) {
    oj ps = oj::array(), rows = oj::array();
    for (const auto& q : b.spec.params) ps.push_back({{"name", q.name}, {"unit", q.unit}, {"prior", {q.lo, q.hi}}});
    for (size_t i = 0; i < b.pop.n; ++i) {
      oj row = oj::array();
      for (size_t a = 0; a < b.pop.d; ++a) row.push_back(std::pow(10.0, b.pop.u[i * b.pop.d + a]));
      for (size_t f = 0; f < b.pop.f; ++f) row.push_back(b.pop.h[i * b.pop.f + f]);
      rows.push_back(row);
    }
    blocks_j.push_back({{"name", b.spec.name}, {"parameters", ps}, {"flags", b.spec.flags}, {"scale", b.pop.scale},
                        {"generations", b.pop.generations}, {"evaluations", b.pop.evaluations}, {"particles", rows},
                        {"weights", b.pop.w}});
  }
  oj dev = oj::object();
  for (const auto& [k, v] : r.device_values) dev[k] = v;
  r.trials = fm.trials_run(), r.processes = fm.processes_run();
  r.posterior = {{"schema", "nvmesim.posterior/1"}, {"tool", tool_json()}, {"seed", opt.seed},
                 {"settings", {{"device_particles", bs.device_particles}, {"trials_per_particle", bs.device_trials},
                               {"cheap_particles", bs.cheap_particles}, {"cheap_trials", bs.cheap_trials},
                               {"particles_per_seed", bs.group}, {"alpha", 0.5}, {"mh_steps", 2}, {"max_noise", opt.max_noise},
                               {"bandwidth", "max(5 us, 1 % of the interval)"}}},
                 {"observations", obs.resolved()}, {"parameters", params}, {"device", dev}, {"ppc", ppc},
                 {"blocks", blocks_j}, {"cost", {{"trials", r.trials}, {"processes", r.processes}}}};
  return r;
}

}  // namespace nvmesim
