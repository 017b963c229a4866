#include "fit/predict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/errors.hpp"
#include "core/json_reader.hpp"
#include "core/json_text.hpp"
#include "core/terminal_text.hpp"
#include "core/tool.hpp"
#include "fit/observations.hpp"
#include "host/linux/kernel_profile.hpp"
#include "models/nvme_regs.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

using oj = nlohmann::ordered_json;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double percentile(std::vector<double> x, double q) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return std::isnan(v); }), x.end());
  if (x.empty()) return kNaN;
  std::sort(x.begin(), x.end());
  const double pos = q * static_cast<double>(x.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= x.size()) return x.back();
  return x[i] + (x[i + 1] - x[i]) * (pos - static_cast<double>(i));
}

oj sample_summary(const std::vector<double>& x, size_t m, size_t t) {
  std::vector<double> med;
  size_t ok = 0;
  for (size_t i = 0; i < m; ++i) {
    std::vector<double> row(x.begin() + static_cast<long>(i * t), x.begin() + static_cast<long>((i + 1) * t));
    for (double v : row) ok += !std::isnan(v);
    const double md = percentile(row, 0.5);
    if (!std::isnan(md)) med.push_back(md);
  }
  auto r6 = [](double v) { return std::isnan(v) ? oj(nullptr) : oj(std::round(v * 1e6) / 1e6); };
  return {{"p50", r6(percentile(x, 0.5))}, {"p5", r6(percentile(x, 0.05))}, {"p95", r6(percentile(x, 0.95))},
          {"p50_ci90", {r6(percentile(med, 0.05)), r6(percentile(med, 0.95))}},
          {"ok_fraction", static_cast<double>(ok) / static_cast<double>(m * t)}};
}

namespace {

// fit writes a particle as 10^u for u in [log10 lo, log10 hi]: the round trip may leave it this far
// (relative) outside [lo, hi].
constexpr double kPriorSlack = 1e-9;

std::string num_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// A key the posterior must have (fit writes it): an error naming the pointer, not a JSON exception.
JsonNode need(const JsonNode& n, const char* key) {
  if (!n.json().is_object()) n.fail(std::string("must be an object, not ") + n.json().type_name());
  if (!n.has(key)) n.fail(std::string("needs \"") + key + "\" (written by nvmesim fit --out)");
  return n.at(key);
}

// An observed host as fit writes it (Observations::resolved), checked as the observation reader
// checks it (fit/observations.cpp read_host): kernel a known release, CONFIG_HZ allowed, cpus and
// io_queues in range (never wrapped into an int).
SimHost read_posterior_host(const JsonNode& n, const std::string& name) {
  n.require_object({"kernel", "uname_r", "hz", "tick", "highres", "cpus", "io_queues"});
  const JsonNode k = need(n, "kernel");
  try {
    (void)profile_for(KernelVersion::parse(k.str()));
  } catch (const std::invalid_argument& e) {
    k.fail(e.what());
  }
  if (n.has("uname_r")) (void)n.at("uname_r").str();
  const JsonNode hz = need(n, "hz");
  if (!hz.json().is_number_integer() || (hz.json() != 100 && hz.json() != 250 && hz.json() != 300 && hz.json() != 1000))
    hz.fail(hz.json().dump() + " is not a CONFIG_HZ; allowed: 100, 250, 300, 1000");
  using SChoices = std::vector<std::pair<std::string, std::string>>;
  (void)need(n, "tick").choice(SChoices{{"auto", "auto"}, {"nohz_idle", "nohz_idle"}, {"periodic", "periodic"}});
  (void)need(n, "highres").boolean();
  const int64_t cpus = need(n, "cpus").integer(1, 4096);
  SimHost s;
  s.name = name;
  s.io_queues = static_cast<int>(need(n, "io_queues").integer(1, cpus));
  const oj& h = n.json();
  s.host = {{"kernel", h.at("kernel")}, {"hz", h.at("hz")}, {"tick", h.at("tick")}, {"highres", h.at("highres")},
            {"wakeup_latency", {{"dist", "lognormal"}, {"median", "20us"}, {"sigma", 0.5}}}, {"cpus", h.at("cpus")}};
  return s;
}

// The lines present in each run of /observations/runs: which blocks the fit made.
// Each run's "host" must name one of /observations/hosts (a hand edit that names another would
// be read as a run of no host).
std::vector<std::array<bool, kBootLines>> runs_of(const JsonNode& obs, const std::vector<SimHost>& hosts) {
  const JsonNode runs = need(obs, "runs");
  if (runs.array().empty()) runs.fail("must not be empty: a fit has at least one run");
  std::vector<std::array<bool, kBootLines>> out;
  for (size_t i = 0; i < runs.array().size(); ++i) {
    // fit writes these keys; another (a typo, a hand-added field) would be read by nothing.
    runs.at(i).require_object({"host", "kind", "log", "lines", "intervals"});
    const JsonNode host = need(runs.at(i), "host");
    const std::string hname = host.str();
    std::string known;
    bool found = false;
    for (const SimHost& h : hosts) {
      found = found || h.name == hname;
      known += (known.empty() ? "\"" : ", \"") + h.name + "\"";
    }
    if (!found) host.fail("\"" + hname + "\" is not a host in /observations/hosts (known: " + known + ")");
    const JsonNode lines = need(runs.at(i), "lines");
    if (!lines.json().is_object()) lines.fail("must be an object of boot lines");
    std::array<bool, kBootLines> has{};
    for (const auto& [key, v] : lines.json().items()) {
      size_t k = 0;
      while (k < kBootLines && key != boot_line_name(static_cast<BootLine>(k))) ++k;
      if (k == kBootLines) lines.at(key).fail("is not a boot line (init, pci, queues, part, mounted, vfs, run_init)");
      has[k] = true;
    }
    out.push_back(has);
  }
  return out;
}

// One block of /blocks, checked against the spec the fit makes for these runs.
Population read_block(const JsonNode& bn, const BlockSpec& want, BlockSpec& spec) {
  spec.name = want.name;
  const JsonNode ps = need(bn, "parameters");
  if (ps.array().size() != want.params.size())
    ps.fail("block \"" + want.name + "\" has " + std::to_string(want.params.size()) + " parameters, not " +
            std::to_string(ps.array().size()));
  for (size_t i = 0; i < want.params.size(); ++i) {
    const JsonNode q = ps.at(i);
    const std::string name = need(q, "name").str(), unit = need(q, "unit").str();
    if (name != want.params[i].name) q.at("name").fail("\"" + name + "\": parameter " + std::to_string(i) + " of block \"" + want.name + "\" is \"" + want.params[i].name + "\"");
    if (unit != want.params[i].unit) q.at("unit").fail("\"" + unit + "\": the unit of " + name + " is \"" + want.params[i].unit + "\"");
    q.require_object({"name", "unit", "prior"});
    const JsonNode pr = need(q, "prior");
    if (pr.array().size() != 2) pr.fail("must be [lo, hi]");
    const double lo = pr.at(size_t{0}).number(1e-300, 1e300), hi = pr.at(size_t{1}).number(1e-300, 1e300);
    if (!(lo < hi)) pr.fail("must be [lo, hi] with lo < hi");
    // predict draws inside this version's prior (block_specs), never the file's: a prior edited
    // by hand (or written by a version with other ranges) would be silently unused, so it is an
    // error. fit writes the bounds with 17 significant digits: they read back exactly.
    const ParamSpec& w = want.params[i];
    if (std::fabs(lo - w.lo) > 1e-12 * w.lo || std::fabs(hi - w.hi) > 1e-12 * w.hi)
      pr.fail("[" + num_text(lo) + ", " + num_text(hi) + "] is not the prior of " + name + " in this version, [" +
              num_text(w.lo) + ", " + num_text(w.hi) + "]: predict draws only inside this version's prior, so an "
              "edited prior would be ignored; restore it, or fit the logs again with this version");
    spec.params.push_back({name, unit, lo, hi});
  }
  const JsonNode fl = need(bn, "flags");
  if (fl.array().size() != want.flags.size()) fl.fail("block \"" + want.name + "\" has " + std::to_string(want.flags.size()) + " flags");
  for (size_t i = 0; i < want.flags.size(); ++i)
    if (fl.at(i).str() != want.flags[i]) fl.at(i).fail("flag " + std::to_string(i) + " of block \"" + want.name + "\" is \"" + want.flags[i] + "\"");
  spec.flags = want.flags;
  Population pop;
  pop.d = spec.params.size(), pop.f = spec.flags.size();
  const JsonNode parts = need(bn, "particles"), ws = need(bn, "weights");
  pop.n = parts.array().size();
  if (pop.n == 0) parts.fail("must not be empty: a posterior has at least one particle");
  if (ws.array().size() != pop.n) ws.fail("must have one weight per particle (" + std::to_string(pop.n) + ")");
  double sum = 0;
  for (size_t i = 0; i < pop.n; ++i) {
    const JsonNode row = parts.at(i);
    if (row.array().size() != pop.d + pop.f) row.fail("must have one value per parameter and flag (" + std::to_string(pop.d + pop.f) + ")");
    for (size_t a = 0; a < pop.d; ++a) {
      // A particle outside the fit's prior (a hand edit) would reach the simulator as a value it
      // refuses, or one it was never meant to run: the simulator runs only inside this version's
      // prior (block_specs: physically sensible ranges), whatever the file's "prior" says.
      const ParamSpec& q = want.params[a];
      const double v = row.at(a).number(1e-300, 1e300);
      if (v < q.lo * (1 - kPriorSlack) || v > q.hi * (1 + kPriorSlack))
        row.at(a).fail(num_text(v) + " is outside the prior of " + q.name + ", [" + num_text(q.lo) + ", " +
                       num_text(q.hi) + "] (the posterior's particles lie inside it)");
      pop.u.push_back(std::clamp(std::log10(v), std::log10(q.lo), std::log10(q.hi)));
    }
    for (size_t a = 0; a < pop.f; ++a) pop.h.push_back(static_cast<int>(row.at(pop.d + a).integer(0, 1)));
    pop.w.push_back(ws.at(i).number(0, 1));
    sum += pop.w.back();
  }
  if (!(sum > 0)) ws.fail("are all zero: no particle can be drawn");
  return pop;
}

}  // namespace

PosteriorModel parse_posterior(const oj& doc, const std::string& source) {
  const JsonNode root(doc, source, "");
  if (!root.json().is_object() || !root.has("schema") || root.at("schema").json() != "nvmesim.posterior/1")
    root.fail("is not a posterior: \"schema\" must be \"nvmesim.posterior/1\" (written by nvmesim fit --out)");
  // Every key fit writes; an unknown one (a typo such as "block", a field added by hand) would be
  // read by nothing, so it is an error rather than silently unused. docs/fit.md section 6 lists
  // which of them predict reads.
  root.require_object({"schema", "tool", "seed", "settings", "observations", "parameters", "device", "ppc", "blocks", "cost"});
  PosteriorModel p;
  p.source = source;
  const JsonNode obs = need(root, "observations");
  obs.require_object({"name", "link", "hosts", "runs", "device", "device_from"});
  if (obs.has("device")) {
    // The controller keys the machine's dumps fixed: checked here by the scenario loader itself
    // (a hand edit to a value the simulator refuses is exit 2 at this file, not at a chunk).
    const JsonNode dev = obs.at("device");
    dev.require_object({"cap", "vs", "crto", "pci_id", "identify"});
    // The Identify fields an id-ctrl dump fixes (fit/observations.cpp): any other, such as "nn",
    // which the scenario takes but Linux (the only driver predict runs) never reads, would change
    // nothing (attack on fit/predict).
    if (dev.has("identify")) dev.at("identify").require_object({"model", "rtd3e"});
    // fit writes the CAP a show-regs dump gave, in hex; the reader's checks hold for an edit too.
    if (dev.has("cap")) {
      uint64_t raw = 0;
      if (!dev.at("cap").json().is_string() || !regs::parse_hex(dev.at("cap").str(), 64, raw))
        dev.at("cap").fail("must be the 64-bit CAP in hex (\"0x...\"), as fit writes it from show-regs");
      if (const char* why = implausible_cap(raw)) dev.at("cap").fail(why);
    }
    try {
      (void)load_scenario_document(oj{{"schema", "nvmesim.scenario/1"}, {"controllers", oj::array({dev.json()})}}, "device");
    } catch (const InputError& e) {
      dev.fail(std::string("is not a device the simulator takes: ") + e.what());
    }
    p.device = dev.json();
  }
  // Where each fixed key was read ("show-regs FILE line N"): text for the reader, which predict
  // does not read, but its keys must be the device's, one each (a key of nothing is refused).
  if (obs.has("device_from")) {
    const JsonNode from = obs.at("device_from");
    if (!obs.has("device")) from.fail("says where the device's keys were read, but there is no \"device\"");
    std::vector<std::string> keys;
    for (const auto& [k, v] : obs.at("device").json().items()) {
      if (k != "identify") keys.push_back(k);
      else
        for (const auto& [ik, iv] : v.items()) keys.push_back("identify." + ik);
    }
    from.require_object(keys);
    for (const std::string& k : keys) {
      if (!from.has(k.c_str())) from.fail("has no entry for \"" + k + "\", which \"device\" holds: fit writes one per key");
      (void)from.at(k.c_str()).str();
    }
  } else if (obs.has("device")) {
    obs.fail("has \"device\" without \"device_from\" (where each key was read): fit writes both");
  }
  p.link = need(obs, "link").choice(std::vector<std::pair<std::string, std::string>>{{"bare-metal", "bare-metal"}, {"vm-emulated", "vm-emulated"}});
  const JsonNode hosts = need(obs, "hosts");
  if (!hosts.json().is_object() || hosts.json().empty()) hosts.fail("must be a non-empty object of the observed hosts");
  for (const auto& [name, h] : hosts.json().items()) p.hosts.push_back(read_posterior_host(hosts.at(name), name));
  const std::vector<BlockSpec> want = block_specs(runs_of(obs, p.hosts));
  const JsonNode blocks = need(root, "blocks");
  std::vector<bool> seen(want.size(), false);
  // The blocks are kept in the fit's order, whatever the file's: draw_posterior keys each block's
  // draws by its index, so a file with its blocks reordered predicts the same numbers.
  p.pops.resize(want.size());
  p.specs.resize(want.size());
  for (size_t b = 0; b < blocks.array().size(); ++b) {
    const JsonNode bn = blocks.at(b);
    bn.require_object({"name", "parameters", "flags", "scale", "generations", "evaluations", "particles", "weights"});
    const JsonNode nm = need(bn, "name");
    size_t w = 0;
    std::string known;
    for (size_t i = 0; i < want.size(); ++i) {
      if (want[i].name == nm.str()) w = i + 1;
      known += (i ? ", " : "") + want[i].name;
    }
    if (w == 0) nm.fail("\"" + nm.str() + "\" is not a block of this fit's runs (expected: " + known + ")");
    if (seen[w - 1]) nm.fail("block \"" + nm.str() + "\" is given twice");
    seen[w - 1] = true;
    p.pops[w - 1] = read_block(bn, want[w - 1], p.specs[w - 1]);
  }
  for (size_t i = 0; i < want.size(); ++i)
    if (!seen[i]) blocks.fail("has no block \"" + want[i].name + "\": the runs in /observations/runs need it");
  return p;
}

PosteriorModel load_posterior(const std::string& path) {
  const oj doc = parse_json_text(read_text_file(path, 512u << 20), path);
  try {
    return parse_posterior(doc, path);
  } catch (const oj::exception& e) {
    throw InputError(path, "", std::string("is not a complete nvmesim.posterior/1: ") + e.what());
  }
}

std::vector<ParamValues> draw_posterior(const PosteriorModel& p, size_t m, uint64_t seed) {
  std::vector<ParamValues> out(m);
  for (size_t b = 0; b < p.pops.size(); ++b) {
    const Population& pop = p.pops[b];
    std::vector<double> c(pop.n);
    double s = 0;
    for (size_t i = 0; i < pop.n; ++i) c[i] = (s += pop.w[i]);
    const uint64_t k = fit_key(seed, {100, b});
    for (size_t j = 0; j < m; ++j) {
      const double u = key_uniform(k, j) * s;
      const size_t i = std::min<size_t>(static_cast<size_t>(std::lower_bound(c.begin(), c.end(), u) - c.begin()), pop.n - 1);
      values_of(p.specs[b], pop, i, out[j]);
    }
  }
  return out;
}

std::vector<HostSamples> simulate_draws(ForwardModel& fm, const std::vector<ParamValues>& draws,
                                        const std::vector<SimHost>& hosts, size_t trials, uint64_t seed) {
  const size_t m = draws.size(), nh = hosts.size();
  std::vector<SimJob> jobs;
  for (size_t i = 0; i < m; ++i)
    for (size_t h = 0; h < nh; ++h) jobs.push_back({theta_of(draws[i]), &hosts[h]});
  const size_t per = std::max<size_t>(1, kMaxChunkVariants / nh) * nh;
  const size_t group = std::min(per, std::max<size_t>(nh, (m + 7) / 8 * nh));  // several chunks for --jobs
  const uint64_t sim_seed = fit_key(seed, {200}) >> 11;
  const std::vector<uint64_t> seeds((jobs.size() + group - 1) / group, sim_seed);
  const auto res = fm.run(jobs, trials, group, seeds);
  std::vector<HostSamples> out(nh);
  for (size_t h = 0; h < nh; ++h) {
    out[h].probe_ms.assign(m * trials, kNaN);
    out[h].pci_ms.assign(m * trials, kNaN);
  }
  const uint64_t kz = fit_key(seed, {201});
  for (size_t i = 0; i < m; ++i) {
    const BootStages bs = boot_stages_of(draws[i]);
    for (size_t h = 0; h < nh; ++h) {
      if (bs.present && out[h].init_ms.empty()) out[h].init_ms.assign(m * trials, kNaN);
      for (size_t k = 0; k < trials; ++k) {
        const SimTrial& t = res[(i * nh + h) * trials + k];
        if (!t.ok) continue;
        out[h].probe_ms[i * trials + k] = static_cast<double>(t.queues_ns) / 1e6;
        out[h].pci_ms[i * trials + k] = static_cast<double>(t.pci_ns) / 1e6;
        if (bs.present) {
          double z[5];
          for (uint64_t s = 0; s < 5; ++s) z[s] = key_normal(kz, (i * trials + k) * 5 + s);
          const double ri = bs.run_init_s(static_cast<double>(t.queues_ns) * 1e-9, z);
          out[h].init_ms[i * trials + k] = std::floor(ri * 1e6) / 1e3;
        }
      }
    }
  }
  return out;
}

namespace {

std::string fmt_ms(const oj& v) {
  if (v.is_null()) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v.get<double>());
  return b;
}

/// `text` padded with spaces on the right to `width` bytes (never cut).
std::string pad_right(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

/// One row of the table. The what-if's name is the user's (a --whatif file, --set text): it is
/// made safe for a terminal (terminal_text) and never cut; the row is built without a fixed
/// buffer (issue 16's last findings, items 3 and 10: a 256-byte snprintf cut long names, and ESC
/// in a name went to the terminal raw).
std::string row(const std::string& name, const std::string& what, const oj& s, bool delta) {
  std::string p50 = fmt_ms(s["p50"]);
  if (delta && !s["p50"].is_null() && s["p50"].get<double>() >= 0) p50 = "+" + p50;
  char ok[32];
  std::snprintf(ok, sizeof ok, "%.3f", s["ok_fraction"].get<double>());
  const std::string p50_col = std::string(p50.size() < 10 ? 10 - p50.size() : 0, ' ') + p50;
  return pad_right(terminal_text(name), 22) + " " + pad_right(what, 14) + " " + p50_col + "  [" +
         fmt_ms(s["p50_ci90"][0]) + ", " + fmt_ms(s["p50_ci90"][1]) + "]  [" + fmt_ms(s["p5"]) + ", " + fmt_ms(s["p95"]) +
         "]  " + ok + "\n";
}

// Paired per-trial differences a - b (NaN when either failed).
std::vector<double> paired(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

}  // namespace

oj run_predict(const PosteriorModel& p, const std::vector<WhatIf>& whatifs, const PredictOptions& o, std::string& table) {
  ForwardModel fm(o.exe, o.jobs, p.link, "predict");
  fm.set_device(p.device);
  const auto draws = draw_posterior(p, o.draws, o.seed);
  std::vector<SimHost> hosts;
  for (const auto& w : whatifs) hosts.push_back(w.host);
  const auto res = simulate_draws(fm, draws, hosts, o.trials, o.seed);
  oj doc = {{"schema", "nvmesim.prediction/1"}, {"tool", tool_json()}, {"posterior", p.source}, {"seed", o.seed},
            {"draws", o.draws}, {"trials", o.trials}, {"reference", whatifs[0].name}};
  oj ws = oj::array();
  table = "what-if                quantity              p50  p50_ci90 (90% CI of the median)  p5-p95 (one run)  ok\n";
  for (size_t h = 0; h < whatifs.size(); ++h) {
    oj w = {{"name", whatifs[h].name}, {"host", whatifs[h].host.host}};
    w["probe_ms"] = sample_summary(res[h].probe_ms, o.draws, o.trials);
    table += row(whatifs[h].name, "probe_ms", w["probe_ms"], false);
    if (!res[h].init_ms.empty()) {
      w["init_ms"] = sample_summary(res[h].init_ms, o.draws, o.trials);
      table += row("", "init_ms", w["init_ms"], false);
    }
    if (h > 0) {
      const auto d = paired(res[h].probe_ms, res[0].probe_ms);
      w["delta_ms"] = sample_summary(d, o.draws, o.trials);
      table += row("", "delta_ms", w["delta_ms"], true);
      size_t zero = 0, n = 0;
      for (double v : d)
        if (!std::isnan(v)) ++n, zero += v == 0.0;
      w["delta_exactly_zero_fraction"] = n ? static_cast<double>(zero) / static_cast<double>(n) : 0.0;
      if (n && zero == n) table += "                       (every paired trial is identical to the nanosecond: nothing this what-if changes reached these trials)\n";
      if (!res[h].init_ms.empty() && !res[0].init_ms.empty()) {
        w["delta_init_ms"] = sample_summary(paired(res[h].init_ms, res[0].init_ms), o.draws, o.trials);
        table += row("", "delta_init_ms", w["delta_init_ms"], true);
      }
    }
    ws.push_back(w);
  }
  doc["whatifs"] = ws;
  doc["cost"] = {{"trials", fm.trials_run()}, {"processes", fm.processes_run()}};
  return doc;
}

}  // namespace nvmesim
