#include "fit/problems.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "host/linux/kernel_profile.hpp"

namespace nvmesim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double floor_us_s(double s) { return std::floor(s * 1e6) / 1e6; }
double ns_s(int64_t ns) { return static_cast<double>(ns) * 1e-9; }

// The device block's parameters (priors: docs/fit.md, "priors"; log-uniform).
std::vector<ParamSpec> device_params(bool with_itp) {
  std::vector<ParamSpec> p = {
      {"disable_latency.median", "s", 1e-6, 10.0}, {"disable_latency.sigma", "", 0.05, 1.5},
      {"enable_latency.median", "s", 1e-6, 10.0},  {"enable_latency.sigma", "", 0.05, 1.5},
      {"admin.identify.median", "s", 1e-5, 0.02},  {"admin.sigma", "", 0.05, 1.5},
      {"admin.set_features.median", "s", 1e-6, 0.01}, {"admin.create_queue.median", "s", 1e-6, 0.01},
      {"admin.create_queue.sigma", "", 0.05, 1.5}};
  if (with_itp) {
    p.push_back({"host.init_to_probe.median", "s", 1e-5, 0.1});
    p.push_back({"host.init_to_probe.sigma", "", 0.05, 1.5});
  }
  return p;
}

// The interval kinds of a run that the device block explains (init, pci, queues present; without
// init -> pci when init_to_probe is a block of its own).
std::vector<BootLine> device_kinds(const ObsRun& r, bool split) {
  std::vector<BootLine> k;
  for (BootLine b : {BootLine::init, BootLine::pci, BootLine::queues})
    if (r.lines.present(b) && !(split && b == BootLine::init)) k.push_back(b);
  return k;
}

double sim_time_s(const SimTrial& t, BootLine b) {
  return b == BootLine::init ? 0.0 : b == BootLine::pci ? ns_s(t.pci_ns) : ns_s(t.queues_ns);
}

bool msleep_era(const ObsHost& h) {
  return profile_for(KernelVersion::parse(h.kernel)).poll.kind() == SleepPolicy::Kind::msleep;
}

Evaluate device_evaluate(const Observations& obs, ForwardModel& fm, const BlockSpec& spec, bool split, size_t trials,
                         size_t group) {
  std::vector<size_t> order;
  for (size_t h = 0; h < obs.hosts.size(); ++h)
    for (const auto& r : obs.runs)
      if (r.host == h) {
        order.push_back(h);
        break;
      }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return msleep_era(obs.hosts[a]) > msleep_era(obs.hosts[b]); });
  auto hosts = std::make_shared<std::vector<SimHost>>();
  for (size_t h = 0; h < obs.hosts.size(); ++h) hosts->push_back(sim_host_of(obs, h));
  // Per host (in `order`): the intervals count and sum(log bandwidth) of each of its runs, for the
  // bound of the terms still to come (early rejection, smc.hpp rows_below_floor).
  std::vector<std::vector<std::pair<size_t, double>>> run_dims(obs.hosts.size());
  for (const auto& r : obs.runs) {
    const auto kinds = device_kinds(r, split);
    if (kinds.size() < 2) continue;
    double hlog = 0;
    for (size_t j = 1; j < kinds.size(); ++j) hlog += std::log(fit_bandwidth_s(ns_s(r.lines.at(kinds[j]) - r.lines.at(kinds[j - 1]))));
    run_dims[r.host].push_back({kinds.size() - 1, hlog});
  }
  return [&obs, &fm, spec, split, trials, group, order, hosts, run_dims](
             const std::vector<double>& u, const std::vector<int>& hf, size_t n, uint64_t key, double s_prev,
             const std::vector<double>& floor) {
    Terms t(n);
    std::vector<char> alive(n, 1);
    for (size_t oi = 0; oi < order.size(); ++oi) {
      const size_t h = order[oi];
      std::vector<size_t> idx;
      std::vector<SimJob> jobs;
      Population all;
      all.n = n, all.d = spec.params.size(), all.f = spec.flags.size(), all.u = u, all.h = hf;
      for (size_t i = 0; i < n; ++i) {
        if (!alive[i]) continue;
        ParamValues v;
        values_of(spec, all, i, v);
        idx.push_back(i);
        jobs.push_back({theta_of(v), &(*hosts)[h]});
      }
      std::vector<uint64_t> seeds;
      for (size_t g = 0; g * group < jobs.size(); ++g) seeds.push_back(fit_key(key, {h, g}) >> 11);
      const auto res = jobs.empty() ? std::vector<SimTrial>() : fm.run(jobs, trials, group, seeds);
      for (const auto& r : obs.runs) {
        if (r.host != h) continue;
        const auto kinds = device_kinds(r, split);
        if (kinds.size() < 2) continue;
        std::vector<double> y, bw;
        double hlog = 0;
        for (size_t j = 1; j < kinds.size(); ++j) {
          y.push_back(ns_s(r.lines.at(kinds[j]) - r.lines.at(kinds[j - 1])));
          bw.push_back(fit_bandwidth_s(y.back()));
          hlog += std::log(bw.back());
        }
        std::vector<double> d2(n * trials, kInf);
        for (size_t a = 0; a < idx.size(); ++a)
          for (size_t k = 0; k < trials; ++k) {
            const SimTrial& st = res[a * trials + k];
            if (!st.ok) continue;
            double s = 0;
            for (size_t j = 1; j < kinds.size(); ++j) {
              const double x = sim_time_s(st, kinds[j]) - sim_time_s(st, kinds[j - 1]);
              const double z = (x - y[j - 1]) / bw[j - 1];
              s += z * z;
            }
            d2[idx[a] * trials + k] = s;
          }
        t.add(std::move(d2), trials, y.size(), hlog);
      }
      if (oi + 1 < order.size() && !floor.empty()) {
        double rest = 0;
        for (size_t oj = oi + 1; oj < order.size(); ++oj)
          for (const auto& [dims, hlog] : run_dims[order[oj]]) rest += term_bound(dims, hlog, s_prev);
        const auto below = rows_below_floor(t.loglik(s_prev), rest, floor);
        for (size_t i = 0; i < n; ++i) alive[i] = alive[i] && !below[i];
      }
    }
    return t;
  };
}

// One cheap block: stage values x = stage(params, normals) per run, against observed y.
struct CheapRun {
  double y = 0;        ///< observed interval, s
  double part_s = 0;   ///< for the mount: the partition line's time from driver init
};

Evaluate cheap_evaluate(const BlockSpec& spec, std::vector<CheapRun> runs, bool mount, size_t trials) {
  return [spec, runs, mount, trials](const std::vector<double>& u, const std::vector<int>&, size_t n, uint64_t key, double,
                                      const std::vector<double>&) {
    Terms t(n);
    const size_t d = spec.params.size();
    // The stage draws of each particle and trial, shared by the runs (drawn once, not per run).
    std::vector<double> stage(n * trials), mnt(mount ? n * trials : 0);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t kp = fit_key(key, {i});
      const double m0 = std::pow(10.0, u[i * d]), s0 = std::pow(10.0, u[i * d + 1]);
      for (size_t k = 0; k < trials; ++k) {
        stage[i * trials + k] = m0 * std::exp(s0 * key_normal(kp, 2 * k));
        if (mount)
          mnt[i * trials + k] = std::pow(10.0, u[i * d + 2]) * std::exp(std::pow(10.0, u[i * d + 3]) * key_normal(kp, 2 * k + 1));
      }
    }
    for (const auto& r : runs) {
      const double bw = fit_bandwidth_s(r.y);
      std::vector<double> d2(n * trials);
      for (size_t j = 0; j < n * trials; ++j) {
        const double x = mount ? std::max(stage[j] - r.part_s, 0.0) + mnt[j] : stage[j];
        const double z = (floor_us_s(x) - r.y) / bw;
        d2[j] = z * z;
      }
      t.add(std::move(d2), trials, 1, std::log(bw));
    }
    return t;
  };
}

BlockSpec stage_spec(const std::string& block, const std::string& stage, double lo, double hi, double sig_lo) {
  return {block, {{stage + ".median", "s", lo, hi}, {stage + ".sigma", "", sig_lo, 1.5}}, {}};
}

BlockSpec mount_spec() {
  return {"mount", {{"boot.other_initcalls.median", "s", 1e-4, 10.0}, {"boot.other_initcalls.sigma", "", 0.01, 1.5},
                    {"boot.root_mount.median", "s", 1e-5, 10.0}, {"boot.root_mount.sigma", "", 0.01, 1.5}}, {}};
}

BlockSpec device_spec(bool split) {
  return {"device", device_params(!split), {"handoff_enabled", "disable_immediate", "enable_immediate"}};
}

}  // namespace

double fit_bandwidth_s(double y_s) { return std::max(5e-6, 0.01 * std::fabs(y_s)); }

void values_of(const BlockSpec& block, const Population& p, size_t i, ParamValues& out) {
  for (size_t a = 0; a < p.d; ++a) out[block.params[a].name] = std::pow(10.0, p.u[i * p.d + a]);
  for (size_t b = 0; b < p.f; ++b) out[block.flags[b]] = p.h[i * p.f + b];
}

Theta theta_of(const ParamValues& v) {
  Theta t;
  auto get = [&](const char* k, double& x) {
    const auto it = v.find(k);
    if (it != v.end()) x = it->second;
  };
  double he = 1, di = 0, ei = 0;
  get("handoff_enabled", he), get("disable_immediate", di), get("enable_immediate", ei);
  t.handoff_enabled = he != 0, t.disable_immediate = di != 0, t.enable_immediate = ei != 0;
  get("disable_latency.median", t.disable_median_s), get("disable_latency.sigma", t.disable_sigma);
  get("enable_latency.median", t.enable_median_s), get("enable_latency.sigma", t.enable_sigma);
  get("admin.identify.median", t.identify_median_s), get("admin.sigma", t.admin_sigma);
  get("admin.set_features.median", t.set_features_median_s);
  get("admin.create_queue.median", t.create_queue_median_s), get("admin.create_queue.sigma", t.create_queue_sigma);
  get("host.init_to_probe.median", t.init_to_probe_median_s), get("host.init_to_probe.sigma", t.init_to_probe_sigma);
  return t;
}

bool splits_init_to_probe(const Observations& obs) {
  for (const auto& r : obs.runs)
    if (!r.lines.present(BootLine::init) || !r.lines.present(BootLine::pci)) return false;
  return true;
}

std::vector<FitBlock> make_blocks(const Observations& obs, ForwardModel& fm, const BlockSettings& s) {
  const bool split = splits_init_to_probe(obs);
  std::vector<FitBlock> out;
  BlockSpec dev = device_spec(split);
  out.push_back({dev, device_evaluate(obs, fm, dev, split, s.device_trials, s.group), s.device_particles});
  if (split) {
    std::vector<CheapRun> rs;
    for (const auto& r : obs.runs) rs.push_back({ns_s(r.lines.at(BootLine::pci) - r.lines.at(BootLine::init)), 0});
    BlockSpec b = stage_spec("init_to_probe", "host.init_to_probe", 1e-5, 0.1, 0.05);
    out.push_back({b, cheap_evaluate(b, rs, false, s.cheap_trials), s.cheap_particles});
  }
  std::vector<CheapRun> ns, mount, vfs, ini;
  for (const auto& r : obs.runs) {
    const auto& l = r.lines;
    const BootLine chain[] = {BootLine::queues, BootLine::part, BootLine::mounted, BootLine::vfs, BootLine::run_init};
    for (size_t j = 2; j < 5; ++j)
      if (l.present(chain[j]) && !l.present(chain[j - 1]))
        throw InputError::in_source(r.source, "line " + std::to_string(l.line[static_cast<size_t>(chain[j])]) + ": a \"" +
                                                  boot_line_name(chain[j]) + "\" line without the \"" + boot_line_name(chain[j - 1]) +
                                                  "\" line before it: the boot stages are fitted in the chain's order");
    if (l.present(BootLine::mounted) && !l.present(BootLine::init))
      throw InputError::in_source(r.source, "line " + std::to_string(l.line[static_cast<size_t>(BootLine::mounted)]) +
                                                ": a root mount line in a run without the driver-init line (the mount waits for initcalls timed from it)");
    auto iv = [&](BootLine a, BootLine b) { return ns_s(l.at(b) - l.at(a)); };
    if (l.present(BootLine::part)) ns.push_back({iv(BootLine::queues, BootLine::part), 0});
    if (l.present(BootLine::mounted)) mount.push_back({iv(BootLine::part, BootLine::mounted), iv(BootLine::init, BootLine::part)});
    if (l.present(BootLine::vfs)) vfs.push_back({iv(BootLine::mounted, BootLine::vfs), 0});
    if (l.present(BootLine::run_init)) ini.push_back({iv(BootLine::vfs, BootLine::run_init), 0});
  }
  auto add = [&](BlockSpec b, std::vector<CheapRun> rs, bool m) {
    if (!rs.empty()) out.push_back({b, cheap_evaluate(b, std::move(rs), m, s.cheap_trials), s.cheap_particles});
  };
  add(stage_spec("namespace_scan", "boot.namespace_scan", 1e-5, 1.0, 0.01), ns, false);
  add(mount_spec(), mount, true);
  add(stage_spec("vfs_root", "boot.vfs_root", 1e-6, 0.01, 0.01), vfs, false);
  add(stage_spec("init_exec", "boot.init_exec", 1e-5, 10.0, 0.01), ini, false);
  return out;
}

std::vector<BlockSpec> block_specs(const std::vector<std::array<bool, kBootLines>>& runs) {
  bool split = !runs.empty(), any[kBootLines] = {};
  for (const auto& h : runs) {
    split = split && h[static_cast<size_t>(BootLine::init)] && h[static_cast<size_t>(BootLine::pci)];
    for (size_t k = 0; k < kBootLines; ++k) any[k] = any[k] || h[k];
  }
  std::vector<BlockSpec> out{device_spec(split)};
  if (split) out.push_back(stage_spec("init_to_probe", "host.init_to_probe", 1e-5, 0.1, 0.05));
  if (any[static_cast<size_t>(BootLine::part)]) out.push_back(stage_spec("namespace_scan", "boot.namespace_scan", 1e-5, 1.0, 0.01));
  if (any[static_cast<size_t>(BootLine::mounted)]) out.push_back(mount_spec());
  if (any[static_cast<size_t>(BootLine::vfs)]) out.push_back(stage_spec("vfs_root", "boot.vfs_root", 1e-6, 0.01, 0.01));
  if (any[static_cast<size_t>(BootLine::run_init)]) out.push_back(stage_spec("init_exec", "boot.init_exec", 1e-5, 10.0, 0.01));
  return out;
}

BootStages boot_stages_of(const ParamValues& v) {
  BootStages b;
  const char* keys[10] = {"boot.namespace_scan.median", "boot.namespace_scan.sigma", "boot.other_initcalls.median",
                          "boot.other_initcalls.sigma", "boot.root_mount.median", "boot.root_mount.sigma",
                          "boot.vfs_root.median", "boot.vfs_root.sigma", "boot.init_exec.median", "boot.init_exec.sigma"};
  double* dst[10] = {&b.ns_med, &b.ns_sig, &b.rest_med, &b.rest_sig, &b.mnt_med, &b.mnt_sig, &b.vfs_med, &b.vfs_sig, &b.ini_med, &b.ini_sig};
  for (size_t i = 0; i < 10; ++i) {
    const auto it = v.find(keys[i]);
    if (it == v.end()) return BootStages{};
    *dst[i] = it->second;
  }
  b.present = true;
  return b;
}

double BootStages::run_init_s(double queues_s, const double z[5]) const {
  const double part = queues_s + ns_med * std::exp(ns_sig * z[0]);
  const double mounted = std::max(part, rest_med * std::exp(rest_sig * z[1])) + mnt_med * std::exp(mnt_sig * z[2]);
  return mounted + vfs_med * std::exp(vfs_sig * z[3]) + ini_med * std::exp(ini_sig * z[4]);
}

}  // namespace nvmesim
