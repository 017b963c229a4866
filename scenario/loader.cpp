#include <limits>
#include <string>
#include <utility>

#include "core/json_text.hpp"
#include "scenario/loader_parts.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;
using scenario_detail::attribute_to_set;
using scenario_detail::check_simulated_time_budget;
using scenario_detail::read_variant;
using scenario_detail::read_variants;

namespace {

const std::vector<std::string> kTopKeys = {"schema", "name", "description", "seed", "trials", "host",
                                           "link", "controllers", "workload", "boot", "variants"};

// The scenario's own keys (schema, name, seed, trials, boot), without the variants.
Scenario read_top_level(const JsonNode& root) {
  root.require_object(kTopKeys);
  if (!root.has("schema")) root.fail("needs \"schema\": \"nvmesim.scenario/1\"");
  if (root.at("schema").str() != "nvmesim.scenario/1") root.at("schema").fail("must be \"nvmesim.scenario/1\"");
  Scenario sc;
  sc.source = root.source();
  if (root.has("name")) sc.name = root.at("name").str();
  if (root.has("description")) sc.description = root.at("description").str();
  if (root.has("seed")) sc.seed = static_cast<uint64_t>(root.at("seed").integer(0, std::numeric_limits<int64_t>::max()));
  if (root.has("trials")) sc.trials = static_cast<uint64_t>(root.at("trials").integer(1, kMaxTrials));
  if (root.has("boot")) {
    const JsonNode boot = root.at("boot");
    boot.require_object({"probe_start_s"});
    if (boot.has("probe_start_s")) sc.probe_start_s = boot.at("probe_start_s").number(0, 1e6);
  }
  return sc;
}

// The scenario from its document with the options applied, errors not yet attributed to --set.
Scenario load_unattributed(ojson doc, const std::string& source, const LoadOptions& options) {
  scenario_detail::apply_set_patches(doc, options.sets, source);
  if (options.trials >= 0) doc["trials"] = options.trials;
  if (options.seed >= 0) doc["seed"] = options.seed;

  const JsonNode root(doc, source, "");
  Scenario sc = read_top_level(root);
  ojson base = doc;
  base.erase("variants");
  const Variant base_variant = read_variant(JsonNode(base, source, ""), sc.name.empty() ? "base" : sc.name);
  if (!root.has("variants") || root.at("variants").array().empty()) sc.variants.push_back(base_variant);
  else sc.variants = read_variants(root, base, sc.trials);
  check_simulated_time_budget(sc, doc);
  sc.resolved = doc;
  return sc;
}

}  // namespace

Scenario load_scenario_file(const std::string& path, const LoadOptions& options) {
  return load_scenario_text(read_text_file(path), path, options);
}

Scenario load_scenario_text(const std::string& text, const std::string& source, const LoadOptions& options) {
  return load_scenario_document(parse_json_text(text, source), source, options);
}

Scenario load_scenario_document(ojson doc, const std::string& source, const LoadOptions& options) {
  try {
    return load_unattributed(std::move(doc), source, options);
  } catch (const InputError& e) {
    attribute_to_set(e, options.sets, source);
    throw;
  }
}

}  // namespace nvmesim
