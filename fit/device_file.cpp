// The device scenario that `nvmesim fit --scenario-out` writes: the best-fitting posterior
// particle, with a comment per parameter saying how the logs constrain it.
#include <cmath>
#include <cstdio>

#include "fit/fit.hpp"
#include "fit/forward.hpp"

namespace nvmesim {

using oj = nlohmann::ordered_json;

namespace {

std::string dur(double s) {
  char b[32];
  if (s < 1e-3) std::snprintf(b, sizeof b, "%.3g us", s * 1e6);
  else if (s < 1) std::snprintf(b, sizeof b, "%.4g ms", s * 1e3);
  else std::snprintf(b, sizeof b, "%.4g s", s);
  return b;
}

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

std::string value_text(const ParamSummary& s, double v) { return s.unit == "s" ? dur(v) : num(v); }

// "fitted from N runs: median X, 90% interval [a, b]; this file: V" or "not identified: ...".
std::string comment(const ParamSummary& s, double v, size_t runs) {
  if (s.flag) {
    char b[160];
    std::snprintf(b, sizeof b, "%s from %zu runs: P(%s) = %.2f; this file: %s", s.status == "fitted" ? "fitted" : "not identified",
                  runs, s.name.c_str(), s.p_one, v != 0 ? "yes" : "no");
    return b;
  }
  if (s.status == "fitted")
    return "fitted from " + std::to_string(runs) + " runs: median " + value_text(s, s.median) + ", 90% interval [" +
           value_text(s, s.q05) + ", " + value_text(s, s.q95) + "]; this file: " + value_text(s, v);
  return "not identified: the logs only bound it to (" + value_text(s, s.q005) + ", " + value_text(s, s.q995) +
         "); this file: " + value_text(s, v);
}

std::string lognormal_text(double median_s, double sigma) {
  return oj({{"dist", "lognormal"}, {"mu_ln_s", std::log(median_s)}, {"sigma", sigma}}).dump();
}

}  // namespace

std::string device_scenario_text(const FitResult& r) {
  const auto sums = summarise(r.blocks, r.obs.runs.empty() ? 0 : r.obs.runs[0].lines.io_queues);
  const ParamValues& v = r.device_values;
  const size_t runs = r.obs.runs.size();
  auto c = [&](const std::string& name) {
    for (const auto& s : sums)
      if (s.name == name) return comment(s, v.count(name) ? v.at(name) : s.median, runs);
    return std::string("not fitted: the default");
  };
  auto both = [&](const std::string& p) { return c(p + ".median") + "; sigma " + c(p + ".sigma"); };
  const Theta t = theta_of(v);
  std::string o;
  o += "// The device fitted by `nvmesim fit` from " + r.obs.source + " (seed " + std::to_string(r.posterior["seed"].get<uint64_t>()) +
       "): the best-fitting posterior particle\n// (the componentwise medians need not reproduce the logs; docs/fit.md). "
       "Lognormals by mu_ln_s = ln(median in s).\n";
  const BootStages bs = boot_stages_of(v);
  if (bs.present) {
    o += "// Boot stages after the queues line (fitted; not simulated by `nvmesim run` yet, used by `nvmesim predict`):\n";
    for (const char* st : {"namespace_scan", "other_initcalls", "root_mount", "vfs_root", "init_exec"})
      o += "//   " + std::string(st) + ": " + c(std::string("boot.") + st + ".median") + "\n";
  }
  const SimHost h0 = sim_host_of(r.obs, 0);
  oj host = host_json(h0, t);
  host.erase("init_to_probe");
  o += "{\n  \"schema\": \"nvmesim.scenario/1\",\n  \"name\": " + oj(r.obs.name + "-fitted").dump() +
       ",\n  \"seed\": 1,\n  \"trials\": 200,\n  \"host\": {\n";
  for (const auto& [k, val] : host.items())
    o += "    " + oj(k).dump() + ": " + val.dump() + "," + (k == "wakeup_latency" ? "  // fixed: the logs cannot tell it from the admin costs" : "") + "\n";
  o += "    \"init_to_probe\": " + lognormal_text(t.init_to_probe_median_s, t.init_to_probe_sigma) + "\n      // " +
       both("host.init_to_probe") + "\n  },\n";
  o += "  \"link\": {\"preset\": " + oj(r.obs.link).dump() + "},  // machine.link of the observations\n";
  o += "  \"controllers\": [\n    {\n      \"name\": \"nvme0\",\n";
  // The keys the machine's dumps fix exactly (machine.show_regs, id_ctrl, lspci).
  for (const auto& [k, val] : r.obs.device.items()) {
    std::string from;
    for (const auto& [fk, fv] : r.obs.device_from.items())
      if (fk == k || fk.rfind(k + ".", 0) == 0) from += (from.empty() ? "" : "; ") + fk + " fixed by " + fv.get<std::string>();
    o += "      " + oj(k).dump() + ": " + val.dump() + ",  // " + from + "\n";
  }
  o += "      \"handoff\": " + oj(t.handoff_enabled ? "enabled" : "disabled").dump() + ",  // " + c("handoff_enabled") + "\n";
  auto lat = [&](const char* key, bool imm, double med, double sig, const std::string& flag, const std::string& p) {
    o += std::string("      \"") + key + "\": " + (imm ? std::string("\"0ns\"") : lognormal_text(med, sig)) + ",\n        // immediate: " +
         c(flag) + "\n        // median " + c(p + ".median") + "\n        // sigma " + c(p + ".sigma") + "\n";
  };
  lat("disable_latency", t.disable_immediate, t.disable_median_s, t.disable_sigma, "disable_immediate", "disable_latency");
  lat("enable_latency", t.enable_immediate, t.enable_median_s, t.enable_sigma, "enable_immediate", "enable_latency");
  o += "      \"admin\": {\n        // only the sum of the admin costs is identified by a probe interval (docs/fit.md):\n";
  for (const auto& s : sums)
    if (s.name == "admin.sum")
      o += "        // Identify + Set Features + " + std::to_string(2 * h0.io_queues) + " x Create queue medians " +
           comment(s, t.identify_median_s + t.set_features_median_s + 2.0 * h0.io_queues * t.create_queue_median_s, runs) + "\n";
  o += "        \"identify\": " + lognormal_text(t.identify_median_s, t.admin_sigma) + ",  // " + c("admin.identify.median") + "\n";
  o += "        \"set_features\": " + lognormal_text(t.set_features_median_s, t.admin_sigma) + ",  // " +
       c("admin.set_features.median") + "; sigma shared with identify: " + c("admin.sigma") + "\n";
  o += "        \"create_queue\": " + lognormal_text(t.create_queue_median_s, t.create_queue_sigma) + "  // " +
       both("admin.create_queue") + "\n      },\n";
  o += "      \"io_queues\": " + std::to_string(h0.io_queues) + "  // the queues line of the logs\n    }\n  ],\n";
  o += "  \"workload\": \"probe\",\n  \"variants\": [\n";
  for (size_t h = 0; h < r.obs.hosts.size(); ++h) {
    const SimHost sh = sim_host_of(r.obs, h);
    oj patch = {{"host", {{"kernel", sh.host["kernel"]}, {"hz", sh.host["hz"]}, {"tick", sh.host["tick"]},
                          {"highres", sh.host["highres"]}, {"cpus", sh.host["cpus"]}}}};
    if (sh.io_queues != h0.io_queues) patch["controllers"] = oj::array({controller_json(t, sh.io_queues, r.obs.device)});
    o += "    " + oj({{"name", sh.name}, {"patch", patch}}).dump() + (h + 1 < r.obs.hosts.size() ? "," : "") + "\n";
  }
  o += "  ]\n}\n";
  return o;
}

}  // namespace nvmesim
