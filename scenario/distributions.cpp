#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;
using Node = JsonNode;

namespace {

Distribution read_distribution_object(const Node& n) {
  if (!n.json().is_object())
    n.fail(std::string("must be a duration string (\"1ms\") or a distribution object {\"dist\": ...}, not ") +
           type_name(n.json()) +
           (n.json().is_number() ? " (a number has no unit: write e.g. \"" + n.json().dump() + "ms\")" : ""));
  if (!n.has("dist"))
    n.fail("a distribution object needs \"dist\": one of fixed, uniform, normal, lognormal, exponential, "
           "empirical, quantiles, mixture");
  const std::string kind = n.at("dist").str();
  try {
    if (kind == "fixed") {
      n.require_object({"dist", "value"});
      return Distribution::fixed(n.at("value").duration_ps());
    }
    if (kind == "uniform") {
      n.require_object({"dist", "min", "max"});
      const int64_t lo = n.at("min").duration_ps(), hi = n.at("max").duration_ps();
      if (lo > hi) n.at("min").fail("uniform min must be <= max");
      return Distribution::uniform(lo, hi);
    }
    if (kind == "normal") {
      n.require_object({"dist", "mean", "sd", "min", "max"});
      const double lo = n.has("min") ? static_cast<double>(n.at("min").duration_ps()) : 0.0;
      const double hi = n.has("max") ? static_cast<double>(n.at("max").duration_ps()) : 1e300;
      return Distribution::normal(static_cast<double>(n.at("mean").duration_ps()),
                                  static_cast<double>(n.at("sd").duration_ps()), lo, hi);
    }
    if (kind == "lognormal") {
      n.require_object({"dist", "median", "mu_ln_s", "sigma"});
      if (!n.has("sigma")) n.fail("lognormal needs \"sigma\" (the sd of ln(value), a number >= 0)");
      const double sigma = n.at("sigma").number(0, 20);
      if (n.has("median") == n.has("mu_ln_s"))
        n.fail("lognormal needs exactly one of \"median\" (a duration) or \"mu_ln_s\" (ln of the median in seconds)");
      double median_ps;
      if (n.has("median")) {
        median_ps = static_cast<double>(n.at("median").duration_ps());
      } else {
        median_ps = std::exp(n.at("mu_ln_s").number(-60, 14)) * 1e12;
      }
      return Distribution::lognormal(median_ps, sigma);
    }
    if (kind == "exponential") {
      n.require_object({"dist", "mean", "offset"});
      return Distribution::exponential(static_cast<double>(n.at("mean").duration_ps()),
                                       n.has("offset") ? n.at("offset").duration_ps() : 0);
    }
    if (kind == "empirical") {
      n.require_object({"dist", "samples"});
      if (!n.has("samples")) n.fail("empirical needs \"samples\": a list of durations");
      const Node s = n.at("samples");
      std::vector<int64_t> v;
      for (size_t i = 0; i < s.array().size(); ++i) v.push_back(s.at(i).duration_ps());
      if (v.empty()) s.fail("empirical needs at least one sample");
      return Distribution::empirical(std::move(v));
    }
    if (kind == "quantiles") {
      n.require_object({"dist", "points"});
      if (!n.has("points")) n.fail("quantiles needs \"points\": [[p, duration], ...] with p from 0 to 1");
      const Node pts = n.at("points");
      std::vector<std::pair<double, int64_t>> v;
      for (size_t i = 0; i < pts.array().size(); ++i) {
        const Node pt = pts.at(i);
        if (!pt.json().is_array() || pt.json().size() != 2) pt.fail("each point is [p, duration]");
        v.emplace_back(pt.at(size_t{0}).number(0, 1), pt.at(size_t{1}).duration_ps());
      }
      return Distribution::quantiles(std::move(v));
    }
    if (kind == "mixture") {
      n.require_object({"dist", "components"});
      if (!n.has("components")) n.fail("mixture needs \"components\": [{\"weight\": w, \"latency\": ...}]");
      const Node cs = n.at("components");
      std::vector<std::pair<double, Distribution>> v;
      for (size_t i = 0; i < cs.array().size(); ++i) {
        const Node c = cs.at(i);
        c.require_object({"weight", "latency"});
        if (!c.has("weight") || !c.has("latency")) c.fail("a component needs \"weight\" and \"latency\"");
        const double w = c.at("weight").number(0, 1e12);
        if (w <= 0) c.at("weight").fail("weights must be > 0");
        v.emplace_back(w, read_distribution(c.at("latency")));
      }
      return Distribution::mixture(std::move(v));
    }
  } catch (const std::invalid_argument& e) {
    n.fail(e.what());
  }
  n.at("dist").fail("\"" + kind + "\" is not a distribution; allowed: fixed, uniform, normal, lognormal, "
                    "exponential, empirical, quantiles, mixture");
}

}  // namespace

Distribution read_distribution(const Node& n) {
  if (n.json().is_string()) return Distribution::fixed(n.duration_ps());
  return read_distribution_object(n);
}

}  // namespace nvmesim::scenario_detail
