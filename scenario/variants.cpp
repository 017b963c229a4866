#include <algorithm>
#include <string>

#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;
using Node = JsonNode;

namespace {

// Is `ptr` (or a prefix of it) a location inside `patch`? Used to report variant errors at the
// place in the file that caused them.
bool patch_contains(const ojson& patch, const std::string& ptr) {
  std::string p = ptr;
  while (!p.empty()) {
    try {
      if (patch.contains(ojson::json_pointer(p))) return true;
    } catch (const std::exception&) {
    }
    p = p.substr(0, p.rfind('/'));
  }
  return false;
}

// The keys of a patched document that make a variant: host, link, controllers, workload.
Variant read_variant_keys(const Node& root, const std::string& name) {
  Document d;
  apply_defaults(document_section(), d);
  for (const Key<Document>& k : document_section().keys()) {
    if (k.key != "host" && k.key != "link" && k.key != "controllers" && k.key != "workload") continue;
    if (root.has(k.key.c_str())) k.read(root.at(k.key), d);
    else if (k.required) root.fail(k.required);
  }
  d.variant.name = name;
  return d.variant;
}

// Variant `v` of the file: its patch merged over `base`, read; an error inside the patch is
// reported at the patch.
Variant read_patched_variant(const Node& v, const ojson& base, const std::string& name) {
  const std::string& source = v.source();
  ojson merged = base;
  ojson patch = v.has("patch") ? v.at("patch").json() : ojson::object();
  if (!patch.is_object()) v.at("patch").fail("must be an object (a JSON merge patch over the scenario)");
  for (const char* forbidden : {"variants", "schema", "seed", "trials"})
    if (patch.contains(forbidden))
      v.at("patch").at(forbidden).fail(std::string("a variant may not change \"") + forbidden +
                                       "\" (variants share seed and trials to stay paired)");
  merged.merge_patch(patch);
  try {
    return read_variant_keys(Node(merged, source, ""), name);
  } catch (const InputError& e) {
    // Re-anchor the error at the patch when the patch holds the offending location.
    if (!e.has_pointer() || e.source() != source) throw;
    const std::string ptr = e.pointer() == "/" ? "" : e.pointer();  // the key "" reads as the root, as it always did
    if (patch_contains(patch, ptr)) throw InputError(source, v.ptr() + "/patch" + ptr, e.message());
    throw InputError(source, v.ptr() + "/patch",
                     "the patched scenario is invalid at " + pointer_text(e.pointer()) + ": " + e.message());
  }
}

}  // namespace

std::vector<Variant> read_variants(const Node& root, const ojson& base, uint64_t trials) {
  const Node vs = root.at("variants");
  if (vs.json().size() > kMaxVariants)
    vs.fail("has " + std::to_string(vs.json().size()) + " variants; at most " + std::to_string(kMaxVariants) +
            " are allowed");
  if (trials * vs.json().size() > kMaxTotalTrials)
    Node(root.json(), root.source(), "/trials")
        .fail(std::to_string(trials) + " trials x " + std::to_string(vs.json().size()) + " variants is more than " +
              std::to_string(kMaxTotalTrials) + " trials in all (each keeps its result in memory); use fewer trials");
  std::vector<Variant> out;
  std::vector<std::string> names;
  for (size_t i = 0; i < vs.json().size(); ++i) {
    const Node v = vs.at(i);
    v.require_object({"name", "patch"});
    if (!v.has("name")) v.fail("a variant needs a \"name\"");
    const std::string name = v.at("name").str();
    if (std::find(names.begin(), names.end(), name) != names.end()) v.at("name").fail("duplicate variant name \"" + name + "\"");
    names.push_back(name);
    out.push_back(read_patched_variant(v, base, name));
  }
  return out;
}

}  // namespace nvmesim::scenario_detail
