// `nvmesim fit` and `nvmesim predict` end to end on the seed logs (fit/fit.hpp, fit/predict.hpp),
// with small particle counts and fixed seeds so that each case takes seconds. The simulator runs
// as NVMESIM_BINARY child processes.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "core/errors.hpp"
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
  WhatIf w{kernel, h, {}};
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
  const auto doc = run_predict(pm, {{"5.6", pm.hosts[0], {}}, whatif(pm.hosts[0], "5.7")}, po, table);
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

TEST_CASE("fit: the keys the machine's dumps fix go into every run, the posterior and DEVICE.json with their source",
          "[fit][slow]") {
  Observations o = load_observations(kDir + "aws-c5.12xlarge-5.6.json");
  // As read from show-regs (CAP 0x2028033fff: TO = bits 31:24 = 0x28, 20 s; CSS bit 37, the NVM command set: a CAP without it fails every probe), id-ctrl and lspci.
  o.device = {{"cap", "0x2028033fff"}, {"pci_id", "1d0f:8061"}, {"identify", {{"model", "Amazon Elastic Block Store"}}}};
  o.device_from = {{"cap", "show-regs regs.txt line 1"}, {"pci_id", "lspci lspci.txt line 2"},
                   {"identify.model", "id-ctrl id.txt line 5"}};
  std::ostringstream log;
  const FitResult r = run_fit(o, small_fit(40, 8, 2), log);
  CHECK(r.posterior["observations"]["device"] == o.device);
  CHECK(parse_posterior(r.posterior, "post").device == o.device);
  const std::string text = device_scenario_text(r);
  CHECK_THAT(text, Catch::Contains("\"cap\": \"0x2028033fff\",  // cap fixed by show-regs regs.txt line 1"));
  CHECK_THAT(text, Catch::Contains("\"pci_id\": \"1d0f:8061\",  // pci_id fixed by lspci lspci.txt line 2"));
  const Scenario dev = load_scenario_text(text, "dev.json");
  REQUIRE(dev.variants.size() == 1);
  const auto& c = dev.variants[0].controllers.at(0);
  CHECK(c.cap.to == 0x28);
  CHECK(c.cap.mqes == 0x3fff);
  CHECK(c.model == "Amazon Elastic Block Store");
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

// ---- predict validates the posterior file (parse_posterior) ----
namespace {

// A tiny hand-made posterior: one host "h" (5.6, HZ 250, 4 cpus, 2 I/O queues), one run with the
// init and queues lines only, so the fit makes the device block alone (11 parameters with
// init_to_probe, 3 flags); two particles of weight 0.5.
nlohmann::ordered_json tiny_posterior() {
  using oj = nlohmann::ordered_json;
  const std::vector<std::string> names = {"disable_latency.median", "disable_latency.sigma", "enable_latency.median",
                                          "enable_latency.sigma", "admin.identify.median", "admin.sigma",
                                          "admin.set_features.median", "admin.create_queue.median",
                                          "admin.create_queue.sigma", "host.init_to_probe.median", "host.init_to_probe.sigma"};
  // The device block's priors (fit/problems.cpp block_specs, as docs/fit.md section 5 lists them):
  // predict refuses a posterior whose priors are not this version's.
  const std::vector<std::pair<double, double>> priors = {{1e-6, 10}, {0.05, 1.5}, {1e-6, 10},  {0.05, 1.5},
                                                         {1e-5, 0.02}, {0.05, 1.5}, {1e-6, 0.01}, {1e-6, 0.01},
                                                         {0.05, 1.5}, {1e-5, 0.1}, {0.05, 1.5}};
  oj ps = oj::array(), row = oj::array();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const bool sigma = n.find("sigma") != std::string::npos;
    ps.push_back({{"name", n}, {"unit", sigma ? "" : "s"}, {"prior", {priors[i].first, priors[i].second}}});
    row.push_back(sigma ? 0.5 : 1e-3);
  }
  for (int f = 0; f < 3; ++f) row.push_back(f == 0 ? 1 : 0);
  oj dev = {{"name", "device"}, {"parameters", ps}, {"flags", {"handoff_enabled", "disable_immediate", "enable_immediate"}},
            {"particles", {row, row}}, {"weights", {0.5, 0.5}}};
  oj host = {{"kernel", "5.6"}, {"hz", 250}, {"tick", "nohz_idle"}, {"highres", true}, {"cpus", 4}, {"io_queues", 2}};
  oj run = {{"host", "h"}, {"lines", {{"init", {{"line", 1}, {"ns", 0}}}, {"queues", {{"line", 2}, {"ns", 6369000}}}}}};
  return {{"schema", "nvmesim.posterior/1"},
          {"observations", {{"link", "bare-metal"}, {"hosts", {{"h", host}}}, {"runs", {run}}}},
          {"blocks", {dev}}};
}

std::string posterior_error(const nlohmann::ordered_json& doc) {
  try {
    (void)parse_posterior(doc, "post.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("fit predict: a well-formed tiny posterior is read and drawn from", "[fit][posterior]") {
  const PosteriorModel p = parse_posterior(tiny_posterior(), "post.json");
  REQUIRE(p.pops.size() == 1);
  CHECK(p.pops[0].n == 2);
  CHECK(p.hosts.size() == 1);
  CHECK(p.hosts[0].io_queues == 2);
  const auto d = draw_posterior(p, 3, 1);
  REQUIRE(d.size() == 3);
  CHECK(d[0].at("enable_latency.median") == Approx(1e-3));
}

TEST_CASE("fit predict: a posterior with a block missing, repeated or unknown is refused at /blocks", "[fit][posterior]") {
  auto doc = tiny_posterior();
  doc["blocks"] = nlohmann::ordered_json::array();
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks: has no block \"device\""));
  doc = tiny_posterior();
  doc["blocks"].push_back(doc["blocks"][0]);
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/1/name: block \"device\" is given twice"));
  doc = tiny_posterior();
  doc["blocks"].push_back(doc["blocks"][0]);
  doc["blocks"][1]["name"] = "mount";   // no run has a mount line
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/1/name: \"mount\" is not a block"));
  doc = tiny_posterior();
  doc.erase("blocks");
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /: needs \"blocks\""));
}

TEST_CASE("fit predict: posterior parameters must have the fit's names and units", "[fit][posterior]") {
  auto doc = tiny_posterior();
  doc["blocks"][0]["parameters"][2]["name"] = "enable_latency.mean";
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/parameters/2/name:"));
  doc = tiny_posterior();
  doc["blocks"][0]["parameters"][0]["unit"] = "ms";
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/parameters/0/unit:"));
  doc = tiny_posterior();
  doc["blocks"][0]["parameters"].erase(10);
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/parameters:"));
  doc = tiny_posterior();
  doc["blocks"][0]["flags"][1] = "enable_immediate";
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/flags/1:"));
}

TEST_CASE("fit predict: posterior particles non-empty, rows full, weights >= 0 and not all zero", "[fit][posterior]") {
  auto doc = tiny_posterior();
  doc["blocks"][0]["particles"] = nlohmann::ordered_json::array();
  doc["blocks"][0]["weights"] = nlohmann::ordered_json::array();
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/particles: must not be empty"));
  doc = tiny_posterior();
  doc["blocks"][0]["particles"][1].erase(13);
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/particles/1: must have one value per parameter"));
  doc = tiny_posterior();
  doc["blocks"][0]["weights"] = {0.0, 0.0};
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/weights: are all zero"));
  doc = tiny_posterior();
  doc["blocks"][0]["weights"] = {-0.5, 1.5};
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/weights/0:"));
  doc = tiny_posterior();
  doc["blocks"][0]["weights"] = {0.5};
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /blocks/0/weights: must have one weight per particle"));
}

TEST_CASE("fit predict: posterior hosts are checked as the observation reader checks them", "[fit][posterior]") {
  auto doc = tiny_posterior();
  doc["observations"]["hosts"] = nlohmann::ordered_json::object();
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /observations/hosts: must be a non-empty object"));
  doc = tiny_posterior();
  doc["observations"]["hosts"]["h"]["kernel"] = "1.2";
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /observations/hosts/h/kernel:"));
  doc = tiny_posterior();
  doc["observations"]["hosts"]["h"]["hz"] = 123;
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /observations/hosts/h/hz: 123 is not a CONFIG_HZ"));
  // 2^32 + 2 = 4294967298 would wrap to 2 in an int: refused, not read as 2 queues.
  doc = tiny_posterior();
  doc["observations"]["hosts"]["h"]["io_queues"] = 4294967298LL;
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /observations/hosts/h/io_queues: must be from 1 to 4"));
  doc = tiny_posterior();
  doc["observations"]["hosts"]["h"]["io_queues"] = 5;   // more than its 4 cpus
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /observations/hosts/h/io_queues: must be from 1 to 4"));
  doc = tiny_posterior();
  doc["observations"]["hosts"]["h"].erase("cpus");
  CHECK_THAT(posterior_error(doc), Catch::Contains("post.json: /observations/hosts/h: needs \"cpus\""));
}

TEST_CASE("fit predict CLI: a posterior with an empty particle list exits 2 naming the pointer", "[fit][posterior]") {
  auto doc = tiny_posterior();
  doc["blocks"][0]["particles"] = nlohmann::ordered_json::array();
  doc["blocks"][0]["weights"] = nlohmann::ordered_json::array();
  const std::string path = "/tmp/nvmesim-test-post-empty.json";
  nvmesim::test::spit(path, doc.dump());
  const auto r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ": /blocks/0/particles: must not be empty"));
}

TEST_CASE("predict CLI: conflicting --hz/--tick/--set and what-if names given twice are exit 2 before any run", "[fit][posterior]") {
  const std::string path = "/tmp/nvmesim-test-post-conflict.json";
  nvmesim::test::spit(path, tiny_posterior().dump());
  auto r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --hz 1000 --set /host/hz=100");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /host/hz=100: /host/hz is already given by --hz 1000"));
  r = nvmesim::test::run_capture("predict " + path + " --tick periodic --set /host/tick=nohz_idle");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("/host/tick is already given by --tick periodic"));
  r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --set /host/hz=100 --set /host/hz=1000");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--set /host/hz=1000: /host/hz is already given by --set /host/hz=100"));
  r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --set '/host/kernel=\"6.6\"'");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("/host/kernel is already given by --kernel"));
  r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --kernel 5.7");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--kernel 5.7: what-if \"5.7\" is named like the one of --kernel 5.7"));
  const std::string wf = "/tmp/nvmesim-test-whatifs-dup.json";
  nvmesim::test::spit(wf, R"({"whatifs": [{"name": "a", "host": {"kernel": "5.7"}}, {"name": "a", "host": {"kernel": "6.6"}}]})");
  r = nvmesim::test::run_capture("predict " + path + " --whatif " + wf);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(wf + ": /whatifs/1/name: what-if \"a\" is named like the one of " + wf + ": /whatifs/0/name"));
  nvmesim::test::spit(wf, R"({"whatifs": [{"name": "5.7", "host": {"kernel": "5.7"}}]})");
  r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --whatif " + wf);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("what-if \"5.7\" is named like the one of --kernel 5.7"));
  nvmesim::test::spit(wf, R"J({"whatifs": [{"name": "h (observed)", "host": {"kernel": "5.7"}}]})J");
  r = nvmesim::test::run_capture("predict " + path + " --whatif " + wf);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("is named like the reference host"));
  // A posterior host with 0 I/O queues (the simulator refuses it: exit 4 at a temporary file before).
  auto doc = tiny_posterior();
  doc["observations"]["hosts"]["h"]["io_queues"] = 0;
  nvmesim::test::spit(path, doc.dump());
  r = nvmesim::test::run_capture("predict " + path + " --kernel 5.7 --draws 10 --trials 1");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ": /observations/hosts/h/io_queues: must be from 1 to 4"));
  std::remove(path.c_str());
  std::remove(wf.c_str());
}
