// `nvmesim fit` and `nvmesim predict` end to end on the seed logs (fit/fit.hpp, fit/predict.hpp),
// with small particle counts and fixed seeds so that each case takes seconds. The simulator runs
// as NVMESIM_BINARY child processes.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "core/rng.hpp"
#include "fit/fit.hpp"
#include "fit/predict.hpp"
#include "support.hpp"

using namespace nvmesim;

namespace {

const std::string kDir = std::string(NVMESIM_SOURCE_DIR) + "/scenarios/observations/";

FitOptions small_fit(size_t particles, size_t trials, unsigned jobs) {
  FitOptions o;
  o.seed = 1;
  o.jobs = jobs;
  o.exe = NVMESIM_BINARY;
  o.blocks.device_particles = particles;
  o.blocks.device_trials = trials;
  o.blocks.cheap_particles = 300;
  o.blocks.cheap_trials = 64;
  o.ppc_draws = 30, o.ppc_trials = 20;
  o.device_candidates = 20, o.device_trials = 64;
  o.quiet = true;
  return o;
}

WhatIf whatif(const SimHost& h, const std::string& kernel) {
  WhatIf w{kernel, h};
  w.host.host["kernel"] = kernel;
  return w;
}

bool contains(const nlohmann::ordered_json& ci, double x) { return ci[0].get<double>() <= x && x <= ci[1].get<double>(); }

}  // namespace

TEST_CASE("fit: the ABC kernel log-likelihood of a term, by hand", "[fit]") {
  Terms t(2);
  // Particle 0: K = 2 trials at distances 0 and infinity (a failed trial); particle 1: both failed.
  t.add({0.0, INFINITY, INFINITY, INFINITY}, 2, 1, std::log(5e-6));
  const auto ll = t.loglik(1.0);
  // log((1/2)(e^0 + 0)) - 1 log 1 - log(5e-6) = -0.693147 + 12.206073.
  CHECK(ll[0] == Approx(std::log(0.5) - std::log(5e-6)).epsilon(1e-12));
  CHECK(ll[1] == -INFINITY);
  // At scale 2 and d2 = 4 for both trials: log(e^(-4/8)) - log 2 - hlog.
  Terms u(1);
  u.add({4.0, 4.0}, 2, 1, 0.0);
  CHECK(u.loglik(2.0)[0] == Approx(-0.5 - std::log(2.0)).epsilon(1e-12));
  CHECK(fit_bandwidth_s(217.242e-3) == Approx(2.17242e-3));  // 1 % of the interval
  CHECK(fit_bandwidth_s(14e-6) == Approx(5e-6));             // the 5 us floor
  CHECK(weighted_quantile({1, 2, 3}, {1, 1, 1}, 0.5) == Approx(2.0));
}

TEST_CASE("fit on the AWS 5.6 boot alone, predict 5.7: the 90% interval of the median contains 6.37 ms", "[fit][slow]") {
  const Observations o = load_observations(kDir + "aws-c5.12xlarge-5.6.json");
  std::ostringstream log;
  const FitResult r = run_fit(o, small_fit(150, 16, 2), log);
  const PosteriorModel pm = parse_posterior(r.posterior, "post");
  REQUIRE(pm.hosts.size() == 1);
  PredictOptions po;
  po.draws = 60, po.trials = 60, po.jobs = 2, po.exe = NVMESIM_BINARY;
  std::string table;
  const auto doc = run_predict(pm, {{"5.6", pm.hosts[0]}, whatif(pm.hosts[0], "5.7")}, po, table);
  INFO(table << r.ppc_text);
  const auto& ref = doc["whatifs"][0];
  const auto& w57 = doc["whatifs"][1];
  // The observed 5.6 interval (0.764178 - 0.546936 = 217.242 ms) and the 5.7 boot's 6.369 ms
  // (shared/cases section 1), which the fit never saw.
  CHECK(contains(ref["probe_ms"]["p50_ci90"], 217.242));
  CHECK(contains(w57["probe_ms"]["p50_ci90"], 6.37));
  // 5.7 is faster: a wait that slept 104-108 ms under msleep(100) sleeps 2 ms under usleep_range.
  CHECK(w57["delta_ms"]["p50"].get<double>() < -100.0);
  // nvme_init -> Run /sbin/init of the 5.6 boot: 0.788141 - 0.546936 = 241.205 ms.
  CHECK(contains(ref["init_ms"]["p50_ci90"], 241.205));
  // The device file is a scenario the loader accepts, one variant per observed host.
  const Scenario dev = load_scenario_text(device_scenario_text(r), "dev.json");
  CHECK(dev.variants.size() == 1);
}

TEST_CASE("fit: the same seed gives a byte-identical posterior, whatever --jobs", "[fit][slow]") {
  const Observations o = load_observations(kDir + "aws-c5.12xlarge-5.6.json");
  std::ostringstream log;
  const std::string a = run_fit(o, small_fit(40, 8, 1), log).posterior.dump();
  const std::string b = run_fit(o, small_fit(40, 8, 2), log).posterior.dump();
  CHECK(a == b);
  FitOptions other = small_fit(40, 8, 2);
  other.seed = 2;
  CHECK(run_fit(o, other, log).posterior.dump() != a);
}

TEST_CASE("fit: simulation-based calibration of a boot-stage block (20 devices from the prior)", "[fit]") {
  // Each device: namespace_scan ~ lognormal(median m, sigma s) with (m, s) drawn from the fit's
  // prior (log-uniform 10 us..1 s, 0.01..1.5), five boots whose partition line follows the queues
  // line by one draw each (floored to 1 us as printk). The fit's 90 % interval of the median must
  // contain the true median in about 90 % of the devices where the fit calls it identified.
  size_t covered = 0, counted = 0;
  for (uint64_t dev = 0; dev < 20; ++dev) {
    const uint64_t k = fit_key(77, {dev});
    const double m = std::pow(10.0, -5 + 5 * key_uniform(k, 0));
    const double s = std::pow(10.0, std::log10(0.01) + (std::log10(1.5) - std::log10(0.01)) * key_uniform(k, 1));
    Observations o;
    o.hosts.push_back(ObsHost{"h", "5.6", "", 250, "nohz_idle", true, 4});
    for (uint64_t run = 0; run < 5; ++run) {
      ObsRun r;
      r.kind = "boot";
      r.source = "sbc";
      const int64_t queues_ns = 1'000'000'000;
      const double x = m * std::exp(s * key_normal(k, 10 + run));
      r.lines.has[static_cast<size_t>(BootLine::init)] = r.lines.has[static_cast<size_t>(BootLine::queues)] = true;
      r.lines.has[static_cast<size_t>(BootLine::part)] = true;
      r.lines.ns[static_cast<size_t>(BootLine::init)] = queues_ns - 5'000'000;
      r.lines.ns[static_cast<size_t>(BootLine::queues)] = queues_ns;
      r.lines.ns[static_cast<size_t>(BootLine::part)] = queues_ns + static_cast<int64_t>(std::floor(x * 1e6)) * 1000;
      r.lines.io_queues = 2;
      o.runs.push_back(r);
    }
    ForwardModel fm(NVMESIM_BINARY, 1, "bare-metal");
    BlockSettings bs;
    bs.cheap_particles = 200, bs.cheap_trials = 32;
    const auto blocks = make_blocks(o, fm, bs);
    REQUIRE(blocks.size() == 2);
    REQUIRE(blocks[1].spec.name == "namespace_scan");
    SmcSettings st;
    st.particles = bs.cheap_particles;
    const FittedBlock fb{blocks[1].spec, run_smc(blocks[1].spec, blocks[1].evaluate, st, fit_key(5, {dev}), nullptr)};
    const auto sum = summarise({fb});
    if (sum[0].status != "fitted") continue;
    ++counted;
    covered += sum[0].q05 <= m && m <= sum[0].q95;
  }
  INFO(covered << " of " << counted << " identified medians covered");
  CHECK(counted >= 14);
  CHECK(covered >= counted * 7 / 10);
}
