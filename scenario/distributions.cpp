// Latencies: a duration string, or a distribution object {"dist": KIND, ...} whose keys are the
// table of its kind (scenario/keys.hpp), read into DistArgs and made into a Distribution.
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/duration.hpp"
#include "core/json_text.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using Node = JsonNode;
using ojson = nlohmann::ordered_json;

// What the current load (TableEntryScope) has read: the count of distinct table entries, the
// count of inherited ones, and the tables of the base document by the hash of their JSON.
struct TableEntryScope::State {
  uint64_t entries = 0;    // distinct entries read (kMaxTableEntries)
  uint64_t inherited = 0;  // entries of tables shared instead of read (kMaxInheritedTableEntries)
  const ojson* doc = nullptr;  // share_from's document: its tables are kept
  struct Kept {
    const ojson* json;  // the table's object inside `doc`
    Distribution dist;  // as read from it (its table shared by every copy)
    uint64_t entries;   // the entries its reading counted (nested tables included)
  };
  std::unordered_multimap<size_t, Kept> kept;
};

namespace {

// The current load's state; a load runs on one thread. None outside a load: nothing is counted.
thread_local TableEntryScope::State* t_state = nullptr;

// Counts `n` more entries of the table at `at` (before they are read), failing past kMaxTableEntries.
void count_table_entries(const Node& at, size_t n) {
  if (!t_state) return;
  t_state->entries += n;
  if (t_state->entries > kMaxTableEntries)
    at.fail("the scenario's tables (empirical samples, quantile points, mixture components) come to more than " +
            std::to_string(kMaxTableEntries) + " entries in all, here with " + std::to_string(n) +
            " more; a variant shares a table it inherits unchanged, but each table a variant brings or changes "
            "counts: use fewer samples or fewer variants that change tables");
}

/// The keys of a distribution object, read by its kind's table.
struct DistArgs {
  int64_t value_ps = 0, min_ps = 0, mean_ps = 0, sd_ps = 0, offset_ps = 0;
  std::optional<int64_t> max_ps, median_ps;
  std::optional<double> mu_ln_s;
  double sigma = 0;
  std::vector<int64_t> samples;
  std::vector<std::pair<double, int64_t>> points;
  std::vector<std::pair<double, Distribution>> components;
};

/// One kind of distribution: its name (the value of "dist"), its keys and how it is made.
struct DistKind {
  const char* name;
  const char* meaning;
  const Section<DistArgs>& keys;
  Distribution (*make)(const Node& n, const DistArgs& a);
};

using K = Keys<DistArgs>;

// A missing key of a distribution: an input error at the distribution, naming the kind and the
// key (the final attack of stop 27's fuzzing: it was nlohmann's out_of_range, an internal error,
// exit 4, since the key tables of issue 12).
void need(const Node& n, const char* key) {
  if (!n.has(key)) n.fail("a \"" + n.at("dist").str() + "\" distribution needs \"" + key + "\"");
}

Key<DistArgs> dist_row() {
  return K::row("dist", "string", Default{}, "", "the kind", [](const Node&, DistArgs&) {});
}

Key<DistArgs> duration_row(const char* key, const char* doc, int64_t DistArgs::*m) {
  return K::duration(key, Default{}, doc, [m](DistArgs& a, int64_t v) { a.*m = v; });
}

void read_samples(const Node& s, DistArgs& a) {
  if (s.json().is_array()) count_table_entries(s, s.json().size());
  const ojson& arr = s.array();
  a.samples.reserve(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    // The samples are parsed in place; a JsonNode (whose pointer text costs an allocation per
    // sample: 14% of validating a 16 MiB file, issue 16 item 4) is made only to report an error.
    if (arr[i].is_string()) {
      try {
        a.samples.push_back(parse_duration_ps(arr[i].get_ref<const std::string&>()));
        continue;
      } catch (const ParseError&) {
      }
    }
    a.samples.push_back(s.at(i).duration_ps());  // throws the error at /.../samples/i
  }
  if (a.samples.empty()) s.fail("empirical needs at least one sample");
}

void read_points(const Node& pts, DistArgs& a) {
  if (pts.json().is_array()) count_table_entries(pts, pts.json().size());
  for (size_t i = 0; i < pts.array().size(); ++i) {
    const Node pt = pts.at(i);
    if (!pt.json().is_array() || pt.json().size() != 2) pt.fail("each point is [p, duration]");
    a.points.emplace_back(pt.at(size_t{0}).number(0, 1), pt.at(size_t{1}).duration_ps());
  }
}

// One component of a mixture: {"weight": w, "latency": <dist>}.
struct Component {
  double weight = 0;
  Distribution latency = Distribution::fixed(0);
};

const Section<Component>& component_section() {
  using KM = Keys<Component>;
  static const Section<Component> s(
      "mixture component", "",
      {KM::row("weight", "number, > 0 and at most 1000000000000", Default{}, "", "the component's weight",
               [](const Node& n, Component& c) {
                 c.weight = n.number(0, 1e12);
                 if (c.weight <= 0) n.fail("weights must be > 0");
               }),
       KM::row("latency", "duration or distribution", Default{}, "", "the component",
               [](const Node& n, Component& c) { c.latency = read_distribution(n); })});
  return s;
}

void read_components(const Node& cs, DistArgs& a) {
  if (cs.json().is_array()) count_table_entries(cs, cs.json().size());
  for (size_t i = 0; i < cs.array().size(); ++i) {
    const Node c = cs.at(i);
    require_keys(c, component_section());
    if (!c.has("weight") || !c.has("latency")) c.fail("a component needs \"weight\" and \"latency\"");
    Component comp;
    read_section(c, component_section(), comp);
    a.components.emplace_back(comp.weight, std::move(comp.latency));
  }
}

// Checked before lognormal's keys are read: sigma is there (and valid), and exactly one of
// median and mu_ln_s.
void lognormal_start(const Node& n, DistArgs&) {
  if (!n.has("sigma")) n.fail("lognormal needs \"sigma\" (the sd of ln(value), a number >= 0)");
  (void)n.at("sigma").number(0, 20);
  if (n.has("median") == n.has("mu_ln_s"))
    n.fail("lognormal needs exactly one of \"median\" (a duration) or \"mu_ln_s\" (ln of the median in seconds)");
}

Distribution make_lognormal(const Node&, const DistArgs& a) {
  const double median_ps = a.median_ps ? static_cast<double>(*a.median_ps) : std::exp(*a.mu_ln_s) * 1e12;
  return Distribution::lognormal(median_ps, a.sigma);
}

const std::vector<DistKind>& kinds() {
  static const Section<DistArgs> fixed("fixed", "", {dist_row(), duration_row("value", "the value", &DistArgs::value_ps)});
  static const Section<DistArgs> uniform(
      "uniform", "",
      {dist_row(), duration_row("min", "", &DistArgs::min_ps),
       K::duration("max", Default{}, "", [](DistArgs& a, int64_t v) { a.max_ps = v; })});
  static const Section<DistArgs> normal(
      "normal", "",
      {dist_row(), duration_row("mean", "", &DistArgs::mean_ps), duration_row("sd", "", &DistArgs::sd_ps),
       K::duration("min", dflt("\"0s\""), "", to(&DistArgs::min_ps)),
       K::duration("max", computed("none"), "", [](DistArgs& a, int64_t v) { a.max_ps = v; })});
  static const Section<DistArgs> lognormal(
      "lognormal", "",
      {dist_row(), K::duration("median", Default{}, "", [](DistArgs& a, int64_t v) { a.median_ps = v; }),
       K::number("mu_ln_s", -60, 14, Default{}, "", "ln of the median in seconds",
                 [](DistArgs& a, double v) { a.mu_ln_s = v; }),
       K::number("sigma", 0, 20, Default{}, "", "the sd of ln(value)", to(&DistArgs::sigma))},
      {}, lognormal_start);
  static const Section<DistArgs> exponential(
      "exponential", "",
      {dist_row(), duration_row("mean", "", &DistArgs::mean_ps), K::duration("offset", dflt("\"0s\""), "", to(&DistArgs::offset_ps))});
  static const Section<DistArgs> empirical(
      "empirical", "", {dist_row(), K::row("samples", "array of durations", Default{}, "", "", read_samples)});
  static const Section<DistArgs> quantiles(
      "quantiles", "", {dist_row(), K::row("points", "array of `[p, duration]`", Default{}, "", "", read_points)});
  static const Section<DistArgs> mixture(
      "mixture", "",
      {dist_row(), K::row("components", "array of `{\"weight\": w, \"latency\": <dist>}`", Default{}, "", "",
                          read_components)});
  static const std::vector<DistKind> table = {
      {"fixed", "always `value`", fixed,
       [](const Node& n, const DistArgs& a) {
         need(n, "value");
         return Distribution::fixed(a.value_ps);
       }},
      {"uniform", "uniform on [min, max]", uniform,
       [](const Node& n, const DistArgs& a) {
         need(n, "min");
         need(n, "max");
         if (a.min_ps > *a.max_ps) n.at("min").fail("uniform min must be <= max");
         return Distribution::uniform(a.min_ps, *a.max_ps);
       }},
      {"normal", "normal, truncated to [min, max]", normal,
       [](const Node& n, const DistArgs& a) {
         need(n, "sd");
         need(n, "mean");
         return Distribution::normal(static_cast<double>(a.mean_ps), static_cast<double>(a.sd_ps),
                                     static_cast<double>(a.min_ps), a.max_ps ? static_cast<double>(*a.max_ps) : 1e300);
       }},
      {"lognormal", "exp(mu + sigma z); exactly one of `median` and `mu_ln_s`", lognormal, make_lognormal},
      {"exponential", "offset + Exp(mean)", exponential,
       [](const Node& n, const DistArgs& a) {
         need(n, "mean");
         return Distribution::exponential(static_cast<double>(a.mean_ps), a.offset_ps);
       }},
      {"empirical", "each sample with equal probability", empirical,
       [](const Node& n, const DistArgs& a) {
         if (!n.has("samples")) n.fail("empirical needs \"samples\": a list of durations");
         return Distribution::empirical(a.samples);
       }},
      {"quantiles", "piecewise-linear inverse CDF; p from 0 to 1 strictly increasing, values non-decreasing",
       quantiles,
       [](const Node& n, const DistArgs& a) {
         if (!n.has("points")) n.fail("quantiles needs \"points\": [[p, duration], ...] with p from 0 to 1");
         return Distribution::quantiles(a.points);
       }},
      {"mixture", "weighted mixture; weights > 0", mixture,
       [](const Node& n, const DistArgs& a) {
         if (!n.has("components")) n.fail("mixture needs \"components\": [{\"weight\": w, \"latency\": ...}]");
         return Distribution::mixture(a.components);
       }},
  };
  return table;
}

std::string kind_list() {
  std::string out;
  for (const DistKind& k : kinds()) out += std::string(out.empty() ? "" : ", ") + k.name;
  return out;
}

Distribution read_distribution_kind(const Node& n);

// Does `j` hold a table (the kinds whose reading costs its size)?
bool has_table(const ojson& j) {
  const auto it = j.find("dist");
  if (it == j.end() || !it->is_string()) return false;
  const std::string& k = it->get_ref<const std::string&>();
  return k == "empirical" || k == "quantiles" || k == "mixture";
}

// Is `n` the node of t_state->doc at its own pointer (not a copy elsewhere, such as a variant's
// patched document or a boot stage's host keys)?
bool in_shared_doc(const Node& n) {
  if (!t_state || !t_state->doc) return false;
  try {
    return &t_state->doc->at(ojson::json_pointer(n.ptr())) == &n.json();
  } catch (const std::exception&) {
    return false;
  }
}

Distribution read_distribution_object(const Node& n) {
  if (!t_state || !n.json().is_object() || !has_table(n.json())) return read_distribution_kind(n);
  // A table equal to one of the base document's (a variant's inherited copy) shares its
  // Distribution, whose table is immutable: nothing is read or counted again (issue 16 item 8).
  const size_t h = std::hash<ojson>{}(n.json());
  const auto range = t_state->kept.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    if (*it->second.json != n.json()) continue;
    t_state->inherited += it->second.entries;
    if (t_state->inherited > kMaxInheritedTableEntries)
      n.fail("the tables the variants inherit (empirical samples, quantile points, mixture components) come to "
             "more than " + std::to_string(kMaxInheritedTableEntries) + " entries over all variants, here with " +
             std::to_string(it->second.entries) +
             " more: each variant copies the base document and checks each inherited table against the base's; "
             "use fewer variants or smaller tables");
    return it->second.dist;
  }
  const uint64_t before = t_state->entries;
  Distribution d = read_distribution_kind(n);
  if (in_shared_doc(n)) t_state->kept.emplace(h, TableEntryScope::State::Kept{&n.json(), d, t_state->entries - before});
  return d;
}

Distribution read_distribution_kind(const Node& n) {
  if (!n.json().is_object())
    n.fail(std::string("must be a duration string (\"1ms\") or a distribution object {\"dist\": ...}, not ") +
           type_name(n.json()) +
           (n.json().is_number() ? " (a number has no unit: write e.g. \"" + n.json().dump() + "ms\")" : ""));
  if (!n.has("dist")) n.fail("a distribution object needs \"dist\": one of " + kind_list());
  const std::string name = n.at("dist").str();
  for (const DistKind& kind : kinds()) {
    if (name != kind.name) continue;
    DistArgs a;
    apply_defaults(kind.keys, a);
    read_section(n, kind.keys, a);
    try {
      return kind.make(n, a);
    } catch (const std::invalid_argument& e) {
      n.fail(e.what());
    }
  }
  n.at("dist").fail("\"" + name + "\" is not a distribution; allowed: " + kind_list());
}

}  // namespace

TableEntryScope::TableEntryScope() : state_(std::make_unique<State>()), saved_(t_state) { t_state = state_.get(); }
TableEntryScope::~TableEntryScope() { t_state = saved_; }
void TableEntryScope::share_from(const ojson& doc) { state_->doc = &doc; }

Distribution read_distribution(const Node& n) {
  if (n.json().is_string()) return Distribution::fixed(n.duration_ps());
  return read_distribution_object(n);
}

}  // namespace nvmesim::scenario_detail

namespace nvmesim::scenario_detail {

std::string distributions_markdown() {
  std::string out = "\n| `dist` | keys | meaning |\n|---|---|---|\n";
  for (const DistKind& kind : kinds()) {
    std::string keys;
    for (const KeyInfo* k : kind.keys.infos()) {
      if (k->key == "dist") continue;
      keys += std::string(keys.empty() ? "" : ", ") + "`" + k->key + "` (" + k->type;
      if (k->def.json) keys += ", default `" + k->def.json->dump() + "`";
      else if (!k->def.text.empty()) keys += ", default " + k->def.text;
      keys += ")";
    }
    out += "| `" + std::string(kind.name) + "` | " + keys + " | " + kind.meaning + " |\n";
  }
  return out;
}

}  // namespace nvmesim::scenario_detail
