#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "host/registry.hpp"
#include "scenario/loader_parts.hpp"

namespace nvmesim::scenario_detail {

using ojson = nlohmann::ordered_json;
using Node = JsonNode;

namespace {

// Where the merged document's location `ptr` came from in `patch`: the pointer inside the patch
// to report an error at, or nullopt when the base gave it. A merge patch merges objects key by
// key and replaces anything else whole (RFC 7386): `ptr` is the patch's when the patch holds it,
// or when it lies under a value the patch gives whole (an array, e.g. "controllers", or a scalar:
// then the deepest location the patch has). Under an object the patch only merged into, a key
// the patch does not hold is the base's (or a default).
std::optional<std::string> patch_location(const ojson& patch, const std::string& ptr) {
  if (ptr.empty()) return std::nullopt;  // the document's root: the base's
  const ojson* cur = &patch;
  std::string at;
  bool whole = false;  // `at` lies inside an array the patch gives whole
  for (size_t i = 0; i < ptr.size();) {
    const size_t j = std::min(ptr.find('/', i + 1), ptr.size());
    const std::string token = ptr.substr(i, j - i);  // "/key", escaped as in the pointer
    if (!cur->is_object() && !cur->is_array()) return at;
    const ojson* next = nullptr;
    try {
      next = &cur->at(ojson::json_pointer(token));
    } catch (const std::exception&) {
    }
    whole = whole || cur->is_array();
    if (!next) return whole ? std::optional<std::string>(at) : std::nullopt;
    cur = next;
    at += token;
    i = j;
  }
  return at;
}

constexpr const char* kFixed[] = {"variants", "schema", "seed", "trials"};

// Is `ptr` the pointer `at` or a place inside it?
bool under(const std::string& ptr, const std::string& at) {
  return ptr == at || (ptr.size() > at.size() && ptr.compare(0, at.size(), at) == 0 && ptr[at.size()] == '/');
}

// The variant's "set": {"/json/pointer": value, ...}, applied to `doc` after the patch, in order.
void apply_variant_set(const Node& v, ojson& doc) {
  if (!v.has("set")) return;
  const Node set = v.at("set");
  if (!set.json().is_object())
    set.fail("must be an object {\"/json/pointer\": value, ...}, e.g. {\"/controllers/0/pci_id\": \"1c58:9999\"}, "
             "applied after \"patch\"");
  for (const auto& item : set.json().items()) {
    const std::string& ptr = item.key();
    const Node at = set.at(ptr);
    if (ptr.empty() || ptr[0] != '/')
      at.fail("\"" + ptr + "\" is not a JSON pointer: it starts with /, e.g. /controllers/0/pci_id");
    for (const char* fixed : kFixed)
      if (under(ptr, std::string("/") + fixed))
        at.fail(std::string("a variant may not change \"") + fixed + "\" (variants share seed and trials to stay paired)");
    try {
      apply_set_patches(doc, {SetPatch{ptr, item.value()}}, "the patched scenario");
    } catch (const InputError& e) {
      const std::string prefix = "--set " + ptr + ": ";
      const std::string& m = e.message();
      at.fail(m.compare(0, prefix.size(), prefix) == 0 ? m.substr(prefix.size()) : m);
    }
  }
}

// Is `row`'s value `v` what the row gives anyway (its default, or an object of defaults)?
bool is_default(const KeyInfo& row, const ojson& v) {
  if (row.def.json) return v == *row.def.json;
  if (!row.sub || row.sub_is_array || !v.is_object()) return false;
  for (const auto& item : v.items()) {
    const KeyInfo* k = row.sub->find(item.key());
    if (!k || !is_default(*k, item.value())) return false;
  }
  return true;
}

// RFC 7386 replaces arrays whole: a patch's controllers[i] that leaves out keys the base's
// controllers[i] sets (to other than their defaults) gives a device without them. A warning.
void warn_dropped_controller_keys(const Node& v, const ojson& base, const ojson& patch,
                                  std::vector<std::string>& warnings) {
  if (!patch.contains("controllers") || !patch["controllers"].is_array() || !base.contains("controllers") ||
      !base["controllers"].is_array())
    return;
  const ojson &was = base["controllers"], &now = patch["controllers"];
  for (size_t i = 0; i < was.size() && i < now.size(); ++i) {
    if (!was[i].is_object() || !now[i].is_object()) continue;
    std::string dropped;
    for (const auto& item : was[i].items()) {
      const KeyInfo* row = controller_section().find(item.key());
      if (now[i].contains(item.key()) || !row || is_default(*row, item.value())) continue;
      dropped += (dropped.empty() ? "" : ", ") + item.key();
    }
    if (dropped.empty()) continue;
    const std::string at = v.ptr() + "/patch/controllers/" + std::to_string(i);
    warnings.push_back(v.source() + ": " + at + ": replaces controllers[" + std::to_string(i) +
                       "] whole (a merge patch replaces arrays) and leaves out " + dropped +
                       ", which the base sets: this variant's controller has the defaults there. Restate them, "
                       "or change single keys with \"set\": {\"/controllers/" + std::to_string(i) + "/KEY\": VALUE}");
  }
}

// An error of the patched document at `e`, reported at the variant's "set" or "patch" entry that
// holds the offending location, else at the patch.
[[noreturn]] void reanchor(const InputError& e, const Node& v, const ojson& patch) {
  const std::string& source = v.source();
  if (!e.has_pointer() || e.source() != source) throw e;
  const std::string ptr = e.pointer() == "/" ? "" : e.pointer();  // the key "" reads as the root, as it always did
  if (v.has("set") && v.at("set").json().is_object()) {
    // The last entry that wrote the location wins, as it was applied last.
    const ojson& set = v.at("set").json();
    std::string hit;
    for (const auto& item : set.items())
      if (!item.key().empty() && under(ptr, item.key())) hit = item.key();
    if (!hit.empty())
      throw InputError(source, v.ptr() + "/set/" + escape_token(hit) + ptr.substr(hit.size()), e.message());
    // An entry that wrote inside the location (one sample of a table whose copy is then refused,
    // issue 16 item 8): the value there is the base's changed by that entry, the last one.
    for (const auto& item : set.items())
      if (!ptr.empty() && !item.key().empty() && under(item.key(), ptr)) hit = item.key();
    if (!hit.empty())
      throw InputError(source, v.ptr() + "/set/" + escape_token(hit),
                       "the patched scenario is invalid at " + pointer_text(e.pointer()) +
                           " (the base's value as this entry changes it): " + e.message());
  }
  if (const std::optional<std::string> at = patch_location(patch, ptr))
    throw InputError(source, v.ptr() + "/patch" + *at,
                     *at == ptr ? e.message() : "at " + ptr + " of the patched scenario: " + e.message());
  // The location is the base's: the error is the base's value meeting this variant's patch, or
  // its "set" when it has no patch (issue 16: a set-only variant was sent to a /patch it lacks);
  // a single set entry is named.
  std::string at = v.ptr();
  const char* why = " (the base's value; this variant does not set it)";
  if (v.has("patch")) at += "/patch", why = " (the base's value; this patch does not set it)";
  else if (v.has("set") && v.at("set").json().is_object()) {
    const ojson& set = v.at("set").json();
    at += "/set" + (set.size() == 1 ? "/" + escape_token(set.begin().key()) : std::string());
    why = " (the base's value; this variant's \"set\" does not write it)";
  }
  throw InputError(source, at,
                   "the patched scenario is invalid at " + pointer_text(e.pointer()) + (ptr.empty() ? "" : why) + ": " +
                       e.message());
}

// Does a stage of the resolved document `doc`'s boot.chain take `host`'s value of the host key
// `key` (docs/hosts.md, "Boot chain": a key a stage leaves out has host's value)? True without a
// chain. A stage takes it when it leaves the key out and its driver reads the key (the row's
// used_by), with the table's own exceptions (scenario/sections.cpp, read_chain; host_keys.cpp):
// `release` and FreeBSD's `hz` are host's only for a stage of host's driver; a stage that sets
// `kernel` selects its row afresh and so drops host's `overrides`; host's `driver` reaches a stage
// that names none, decides which stages inherit `release` and FreeBSD's `hz`, and, when `host`
// gives no hz, host's hz itself (FreeBSD's default is 1000, Linux's 250: a Linux stage without
// hz meets host's), when it is or was (`before_driver`, the value before the change judged)
// "freebsd". `doc` has been read by the tables (every stage is an object, every driver known).
bool chain_takes_host_key(const ojson& doc, const std::string& key, const std::string& before_driver) {
  const ojson::json_pointer chain_at("/boot/chain");
  if (!doc.contains(chain_at) || !doc.at(chain_at).is_array()) return true;
  const ojson* host = doc.contains("host") && doc["host"].is_object() ? &doc["host"] : nullptr;
  const std::string host_driver = host_driver_of(doc);
  const KeyInfo* row = host_section().find(key);
  for (const ojson& st : doc.at(chain_at)) {
    if (!st.is_object()) return true;
    const std::string driver = st.contains("driver") && st["driver"].is_string() ? st["driver"].get<std::string>() : host_driver;
    const bool has_releases = *driver_traits(driver).releases != '\0';
    if (key == "driver") {
      if (!st.contains("driver") || (has_releases && !st.contains("release")) || (driver == "freebsd" && !st.contains("hz")))
        return true;
      const bool host_hz = host && host->contains("hz");
      if (driver == "linux" && !st.contains("hz") && !host_hz && (host_driver == "freebsd" || before_driver == "freebsd"))
        return true;
      continue;
    }
    if (st.contains(key)) continue;
    if (key == "release") {
      if (has_releases && driver == host_driver) return true;
    } else if (key == "hz") {
      if (driver == "linux" || (driver == "freebsd" && host_driver == "freebsd")) return true;
    } else if (key == "overrides") {
      if (driver == "linux" && !st.contains("kernel")) return true;
    } else if (!row || row->used_by.empty() ||
               std::find(row->used_by.begin(), row->used_by.end(), driver) != row->used_by.end()) {
      return true;
    }
  }
  return false;
}

// The host keys that variant `v` writes: (key, where the variant writes it), from its patch's
// "host" object and its "set" entries at /host/KEY[/...] or /host itself.
std::vector<std::pair<std::string, std::string>> variant_host_keys(const Node& v) {
  std::vector<std::pair<std::string, std::string>> out;
  if (v.has("patch") && v.at("patch").json().is_object() && v.at("patch").json().contains("host") &&
      v.at("patch").json()["host"].is_object())
    for (const auto& item : v.at("patch").json()["host"].items())
      out.emplace_back(item.key(), v.ptr() + "/patch/host/" + escape_token(item.key()));
  if (v.has("set") && v.at("set").json().is_object())
    for (const auto& item : v.at("set").json().items()) {
      const std::string& ptr = item.key();
      const std::string at = v.ptr() + "/set/" + escape_token(ptr);
      if (ptr == "/host" && item.value().is_object()) {
        for (const auto& k : item.value().items()) out.emplace_back(k.key(), at + "/" + escape_token(k.key()));
      } else if (under(ptr, "/host") && ptr != "/host") {
        ojson::json_pointer jp(ptr);
        while (jp.parent_pointer().parent_pointer().to_string() != "") jp = jp.parent_pointer();
        out.emplace_back(jp.back(), at);
      }
    }
  return out;
}

// Why no stage of `doc`'s boot.chain reads host's `key`: the message of a change of it that no
// stage sees, naming the stages that set it themselves ("/boot/chain/N/KEY").
std::string ignored_by_chain(const ojson& doc, const std::string& key, const char* what = "this change") {
  const ojson& chain = doc.at(ojson::json_pointer("/boot/chain"));
  std::string set_by;
  size_t setting = 0;
  for (size_t i = 0; i < chain.size(); ++i)
    if (chain[i].is_object() && chain[i].contains(key)) {
      set_by += (set_by.empty() ? "" : ", ") + std::string("/boot/chain/") + std::to_string(i) + "/" + escape_token(key);
      ++setting;
    }
  const std::string why = setting == chain.size() ? "every stage sets it itself (" + set_by + ")"
                          : setting == 0          ? std::string("no stage's driver reads it")
                                                  : "the stages that read it set it themselves (" + set_by + ")";
  return "the boot.chain's stages override host." + key + ": " + why +
         ", so " + what + " would be ignored; change the stages instead (docs/hosts.md, \"Boot chain\")";
}

// Variant `v` of the file: its patch merged over `base`, then its "set" applied, read by the
// same tables as the file; an error inside the patch or the set is reported there.
Variant read_patched_variant(const Node& v, const ojson& base, const std::string& name,
                             std::vector<std::string>& warnings) {
  ojson merged = base;
  ojson patch = v.has("patch") ? v.at("patch").json() : ojson::object();
  if (!patch.is_object()) v.at("patch").fail("must be an object (a JSON merge patch over the scenario)");
  for (const char* forbidden : kFixed)
    if (patch.contains(forbidden))
      v.at("patch").at(forbidden).fail(std::string("a variant may not change \"") + forbidden +
                                       "\" (variants share seed and trials to stay paired)");
  merged.merge_patch(patch);
  apply_variant_set(v, merged);
  Variant out;
  try {
    // The whole patched document by the same tables as the file: an unknown or misplaced key
    // at any depth of the patch is an error, and every key the patch sets (boot too) counts.
    out = read_document(Node(merged, v.source(), "")).variant;
  } catch (const InputError& e) {
    reanchor(e, v, patch);
  }
  // A host key the variant writes that no stage of its chain reads would run as if never
  // written (issue 13): refused at the variant's own entry. Judged on the variant's patch and
  // set, not on the resolved document, whose host keys may serve other variants.
  const std::string before_driver = host_driver_of(base);
  for (const auto& [key, at] : variant_host_keys(v))
    if (!chain_takes_host_key(merged, key, before_driver))
      throw InputError(v.source(), at, ignored_by_chain(merged, key));
  out.name = name;
  warn_dropped_controller_keys(v, base, patch, warnings);
  return out;
}

}  // namespace

std::vector<Variant> read_variants(const Node& root, const ojson& base, uint64_t trials,
                                   std::vector<std::string>& warnings) {
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
  uint64_t controllers = 0;  // over the variants read so far
  for (size_t i = 0; i < vs.json().size(); ++i) {
    const Node v = vs.at(i);
    v.require_object({"name", "patch", "set"});
    if (!v.has("name")) v.fail("a variant needs a \"name\"");
    const std::string name = read_label(v.at("name"));
    // "" reads as "no variant" in --dmesg's boot markers, tables and --variant (review of stop 25).
    if (name.empty()) v.at("name").fail("is empty; a variant needs a name (tables, outputs and --variant name it)");
    if (std::find(names.begin(), names.end(), name) != names.end()) v.at("name").fail("duplicate variant name \"" + name + "\"");
    names.push_back(name);
    out.push_back(read_patched_variant(v, base, name, warnings));
    controllers += out.back().controllers.size();
    if (controllers > kMaxControllersOverVariants)
      v.fail("brings the controllers over all variants to " + std::to_string(controllers) + "; at most " +
             std::to_string(kMaxControllersOverVariants) +
             " are allowed (each variant keeps every controller's parameters): use fewer variants, or split them "
             "over runs");
  }
  return out;
}

namespace {

// Does variant `v` (an element of "variants") override the location `ptr` whatever the value
// there: its patch reaches `ptr` (or replaces a value above it whole), or a "set" entry writes
// `ptr` or a place above it? `value` is what --set puts at `ptr` (an object is merged into).
bool overrides(const ojson& v, const std::string& ptr, const ojson& value) {
  if (v.contains("set") && v["set"].is_object())
    for (const auto& item : v["set"].items())
      if (!item.key().empty() && under(ptr, item.key())) return true;
  if (!v.contains("patch")) return false;
  const ojson* cur = &v["patch"];
  const ojson::json_pointer jp(ptr);
  std::vector<std::string> tokens;
  for (ojson::json_pointer p = jp; !p.empty(); p = p.parent_pointer()) tokens.insert(tokens.begin(), p.back());
  for (const std::string& t : tokens) {
    if (!cur->is_object()) return true;  // replaced whole (or removed: null)
    if (!cur->contains(t)) return false;
    cur = &(*cur)[t];
  }
  return !cur->is_object() || !value.is_object();
}

// Could variant `v` of `root` (an element of "variants") have a boot.chain? Its patch or set
// writes under /boot, or the base has one.
bool may_have_chain(const ojson& root, const ojson& v) {
  if (root.contains(ojson::json_pointer("/boot/chain"))) return true;
  if (v.contains("patch") && v["patch"].is_object() && v["patch"].contains("boot")) return true;
  if (v.contains("set") && v["set"].is_object())
    for (const auto& item : v["set"].items())
      if (under(item.key(), "/boot") || item.key().empty()) return true;
  return false;
}

// Variant `i` of `root` resolved for the chain checks: `base` (the document without "variants")
// with the variant's patch merged over it and its "set" applied.
ojson resolved_variant(const Node& root, const ojson& base, size_t i) {
  const ojson& v = root.json()["variants"][i];
  ojson merged = base;
  if (v.contains("patch") && v["patch"].is_object()) merged.merge_patch(v["patch"]);
  apply_variant_set(root.at("variants").at(i), merged);
  return merged;
}

// The document without its "variants": what each variant is resolved from.
ojson without_variants(const ojson& doc) {
  ojson base = doc;
  base.erase("variants");
  return base;
}

}  // namespace

std::string host_driver_of(const ojson& doc) {
  const ojson::json_pointer at("/host/driver");
  return doc.is_object() && doc.contains(at) && doc.at(at).is_string() ? doc.at(at).get<std::string>() : std::string("linux");
}

void check_sets_reach_a_stage(const Node& root, const std::vector<SetPatch>& sets, const std::string& file_driver,
                              const std::string& label) {
  // The host keys the --set options write: the key, the option, and the location and value the
  // option puts there (one per key of an object set at /host).
  struct HostSet {
    std::string key;
    const SetPatch* set;
    std::string ptr;
    ojson value;
  };
  std::vector<HostSet> keys;
  for (const SetPatch& s : sets) {
    if (s.pointer == "/host" && s.value.is_object()) {
      for (const auto& k : s.value.items()) keys.push_back({k.key(), &s, "/host/" + escape_token(k.key()), k.value()});
    } else if (under(s.pointer, "/host") && s.pointer != "/host") {
      ojson::json_pointer jp(s.pointer);
      while (jp.parent_pointer().parent_pointer().to_string() != "") jp = jp.parent_pointer();
      keys.push_back({jp.back(), &s, s.pointer, s.value});
    }
  }
  if (keys.empty()) return;
  const ojson& doc = root.json();
  const bool variants = root.has("variants") && doc["variants"].is_array() && !doc["variants"].empty();
  if (!variants) {
    for (const HostSet& k : keys)
      if (!chain_takes_host_key(doc, k.key, file_driver))
        throw InputError::in_source(root.source(), label + k.set->pointer + ": " + ignored_by_chain(doc, k.key));
    return;
  }
  // With variants: the option changes nothing when, in every variant, the variant writes the
  // location itself or its resolved chain does not read the key (check_sets_reach_a_variant
  // refuses the case where every variant writes it).
  std::vector<bool> reached(keys.size(), false);
  std::optional<ojson> base, last_merged;
  for (size_t i = 0; i < doc["variants"].size(); ++i) {
    const ojson& v = doc["variants"][i];
    if (!may_have_chain(doc, v)) {
      for (size_t k = 0; k < keys.size(); ++k)
        if (!overrides(v, keys[k].ptr, keys[k].value)) reached[k] = true;
      continue;
    }
    if (!base) base = without_variants(doc);
    ojson merged = resolved_variant(root, *base, i);
    for (size_t k = 0; k < keys.size(); ++k)
      if (!overrides(v, keys[k].ptr, keys[k].value) && chain_takes_host_key(merged, keys[k].key, file_driver))
        reached[k] = true;
    last_merged = std::move(merged);
  }
  for (size_t k = 0; k < keys.size(); ++k)
    if (!reached[k] && last_merged)
      throw InputError::in_source(root.source(), label + keys[k].set->pointer + ": in every variant " +
                                                     ignored_by_chain(*last_merged, keys[k].key));
}

void check_host_keys_reach_a_stage(const Node& root, const std::string& file_driver) {
  const ojson& doc = root.json();
  if (!root.has("host") || !doc["host"].is_object()) return;
  const bool variants = root.has("variants") && doc["variants"].is_array() && !doc["variants"].empty();
  if (!variants) {
    if (!doc.contains(ojson::json_pointer("/boot/chain"))) return;
    for (const auto& item : doc["host"].items())
      if (!chain_takes_host_key(doc, item.key(), file_driver))
        root.at("host").at(item.key()).fail(ignored_by_chain(doc, item.key(), "this value") + " or remove host." + item.key());
    return;
  }
  // With variants: a key that every variant overrides is the usual base value (a kernel each
  // variant names), not an error; but a key that some variant leaves to the base while that
  // variant's chain does not read it, and that no variant reads, runs as if never written
  // (attack of stop 25). One resolved document per variant that may have a chain, for all keys.
  std::vector<std::string> keys;
  for (const auto& item : doc["host"].items()) keys.push_back(item.key());
  std::vector<bool> read(keys.size(), false);
  std::vector<std::optional<size_t>> unread_in(keys.size());  // the first variant whose chain leaves it unread
  std::optional<ojson> base;
  for (size_t i = 0; i < doc["variants"].size(); ++i) {
    const ojson& v = doc["variants"][i];
    if (!v.is_object()) continue;
    std::optional<ojson> merged;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (read[k] || overrides(v, "/host/" + escape_token(keys[k]), doc["host"][keys[k]])) continue;
      if (!may_have_chain(doc, v)) {
        read[k] = true;
        continue;
      }
      if (!base) base = without_variants(doc);
      if (!merged) merged = resolved_variant(root, *base, i);
      if (chain_takes_host_key(*merged, keys[k], file_driver))
        read[k] = true;
      else if (!unread_in[k])
        unread_in[k] = i;
    }
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    if (read[k] || !unread_in[k]) continue;
    const size_t i = *unread_in[k];  // resolved again for the message only (the error path)
    const std::string name = doc["variants"][i].value("name", std::string());
    root.at("host").at(keys[k]).fail("no variant reads it (each sets it itself or runs a chain that does not); in variant \"" + name +
                                     "\" (/variants/" + std::to_string(i) + "; its chain resolved) " +
                                     ignored_by_chain(resolved_variant(root, *base, i), keys[k], "this value") +
                                     " or remove host." + keys[k]);
  }
}

void check_sets_reach_a_variant(const Node& root, const std::vector<SetPatch>& sets) {
  if (!root.has("variants") || !root.at("variants").json().is_array() || root.at("variants").json().empty()) return;
  const ojson& vs = root.at("variants").json();
  for (const SetPatch& s : sets) {
    if (s.pointer.empty() || under(s.pointer, "/variants")) continue;
    std::string names;
    bool all = true;
    for (size_t i = 0; i < vs.size() && all; ++i) {
      all = vs[i].is_object() && overrides(vs[i], s.pointer, s.value);
      if (all) names += std::string(names.empty() ? "" : ", ") + "\"" + vs[i].value("name", "") + "\" (/variants/" +
                        std::to_string(i) + ")";
    }
    if (all)
      throw InputError::in_source(root.source(),
                                  "--set " + s.pointer + ": every variant sets " + s.pointer + " (" + names +
                                      "), so this --set would change nothing; drop the variants with --set "
                                      "/variants=[], or set a location the variants leave alone");
  }
}

}  // namespace nvmesim::scenario_detail

namespace nvmesim {

void check_placed_host_keys(const nlohmann::ordered_json& doc, const std::vector<SetPatch>& placed,
                            const std::string& source, const std::string& file_driver) {
  scenario_detail::check_sets_reach_a_stage(JsonNode(doc, source, ""), placed, file_driver, "the value at ");
}

}  // namespace nvmesim
