#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "scenario/loader_parts.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;
using scenario_detail::attribute_to_set;
using scenario_detail::check_operation_budget;
using scenario_detail::check_simulated_time_budget;
using scenario_detail::read_document;
using scenario_detail::read_variants;

namespace {

// One warning per distinct distribution kernel (issue 10 item 6): its mainline part selected the
// row, and what the distribution backported is not modelled unless host.overrides says so.
void warn_distribution_kernels(Scenario& sc) {
  std::vector<std::string> seen;
  for (const Variant& v : sc.variants) {
    const KernelVersion& k = v.host.kernel;
    const bool stable = !k.distribution() && k.patch > 0;
    if ((!k.distribution() && !stable) || std::find(seen.begin(), seen.end(), k.to_string()) != seen.end()) continue;
    seen.push_back(k.to_string());
    const KernelProfile& p = v.host.profile;
    const std::string row = "(profile " + (p.first == p.last ? p.first : p.first + "-" + p.last) + ")";
    if (stable)
      sc.warnings.push_back(sc.source + ": host.kernel \"" + k.to_string() + "\": the patch level does not select a row, it runs as " +
                            std::to_string(k.major) + "." + std::to_string(k.minor) + " " + row + "; what the " +
                            std::to_string(k.major) + "." + std::to_string(k.minor) +
                            ".y stable branch backported (docs/linux-readiness.md names some) is modelled only where "
                            "host.overrides describes it");
    else
      sc.warnings.push_back(sc.source + ": host.kernel \"" + k.uname_r + "\" is a distribution kernel: it runs as mainline " +
                            k.mainline() + " " + row + "; the distribution's backports are not known, describe them with host.overrides");
  }
}

// The scenario from its document with the options applied, errors not yet attributed to --set.
// `written` receives the pointer each --set wrote (apply_set_patches), for attribute_to_set.
Scenario load_unattributed(ojson doc, const std::string& source, const LoadOptions& options,
                           std::vector<std::string>& written) {
  // The file's host.driver before the options (check_sets_reach_a_stage).
  const std::string file_driver = scenario_detail::host_driver_of(doc);
  written = scenario_detail::apply_set_patches(doc, options.sets, source);
  // --trials and --seed replace the document's value after the --set patches, so a --set of the
  // same key would be listed in the table header and do nothing: refuse the pair.
  for (const SetPatch& p : options.sets) {
    if (options.trials >= 0 && p.pointer == "/trials")
      throw InputError("--trials " + std::to_string(options.trials) + " and --set " + set_text(p) +
                       " both give the trial count: pass one of them");
    if (options.seed >= 0 && p.pointer == "/seed")
      throw InputError("--seed " + std::to_string(options.seed) + " and --set " + set_text(p) +
                       " both give the seed: pass one of them");
  }
  {
    // --trials and --seed replace the document's values, which are still checked with the same
    // bounds as the key table's (validate checks them; an option must not hide "trials": "abc").
    const JsonNode given(doc, source, "");
    if (options.trials >= 0 && given.has("trials")) (void)given.at("trials").integer(1, static_cast<int64_t>(kMaxTrials));
    if (options.seed >= 0 && given.has("seed")) (void)given.at("seed").integer(0, std::numeric_limits<int64_t>::max());
  }
  if (options.trials >= 0) doc["trials"] = options.trials;
  if (options.seed >= 0) doc["seed"] = options.seed;

  const JsonNode root(doc, source, "");
  // kMaxTableEntries over the variants too; the base's tables are kept (doc does not change
  // until the last line) for the variants that inherit them to share (issue 16 item 8).
  scenario_detail::TableEntryScope table_entries;
  table_entries.share_from(doc);
  scenario_detail::Document d = read_document(root);
  Scenario sc;
  sc.source = root.source();
  sc.name = d.name;
  sc.description = d.description;
  sc.seed = d.seed;
  sc.trials = d.trials;
  sc.probe_start_s = d.variant.probe_start_s;
  d.variant.name = sc.name.empty() ? "base" : sc.name;
  if (!root.has("variants") || root.at("variants").json().empty()) sc.variants.push_back(std::move(d.variant));
  else {
    // The base of the variants: copied only when there are variants (a copy of a 16 MiB
    // document's DOM took 7% of validating it; issue 16 item 4).
    ojson base = doc;
    base.erase("variants");
    sc.variants = read_variants(root, base, sc.trials, sc.warnings);
    scenario_detail::check_sets_reach_a_variant(root, options.sets);
  }
  scenario_detail::check_sets_reach_a_stage(root, options.sets, file_driver);
  scenario_detail::check_host_keys_reach_a_stage(root, file_driver);
  check_simulated_time_budget(sc, doc);
  check_operation_budget(sc, doc);
  warn_distribution_kernels(sc);
  sc.resolved = std::move(doc);  // the last use of doc (root refers to it no more)
  for (const SetPatch& p : options.sets) sc.sets.push_back(set_text(p));
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
  std::vector<std::string> written;
  try {
    return load_unattributed(std::move(doc), source, options, written);
  } catch (const InputError& e) {
    attribute_to_set(e, options.sets, written, source);
    throw;
  }
}

}  // namespace nvmesim
