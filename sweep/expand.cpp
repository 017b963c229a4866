#include <algorithm>
#include <cstdio>
#include <set>

#include "core/duration.hpp"
#include "core/json_text.hpp"
#include "core/rng.hpp"
#include "scenario/scenario.hpp"
#include "sweep/sweep.hpp"
#include "sweep/folder.hpp"
#include "sweep/sweep_parts.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;
using SNode = JsonNode;  // a value of the sweep file with its place
using sweep_detail::read_axis;
using sweep_detail::read_pointer;
using sweep_detail::tokens_of;
using sweep_detail::under;

namespace {

// ---- validation of resolved scenarios ------------------------------------------------------

const char* const kMark = "\x01sweep-point";

/// Validates `doc` with the scenario loader. On an error, `translate(ptr, message)` turns the
/// location inside `doc` into the InputError that names the place in the files the user wrote.
/// The document goes to the loader as it is, never dumped and parsed again (issue 16 item 7: a
/// 1000-point sweep over a 1 MB base took 35 s to load); its depth was checked as each value was
/// placed (check_placed_depth), so the loader's copies cannot overflow the stack.
template <class F>
Scenario validate_scenario(const ojson& doc, const F& translate) {
  try {
    return load_scenario_document(doc, kMark);
  } catch (const InputError& e) {
    if (e.source() != kMark || e.line() != 0) throw;
    // The key "" ("/") reads as the root, as it did when this read the message text.
    const std::string ptr = !e.has_pointer() || e.pointer() == "/" ? "" : e.pointer();
    throw translate(ptr, e.message());
  }
}

/// Does merge patch `patch` replace the location `tokens` (or a place above it)?
bool patch_covers(const ojson& patch, const std::vector<std::string>& tokens) {
  const ojson* cur = &patch;
  for (const auto& t : tokens) {
    if (!cur->is_object()) return true;
    if (!cur->contains(t)) return false;
    cur = &(*cur)[t];
  }
  return true;
}

const std::vector<std::string> kSweepKeys = {"schema", "name", "description", "base", "scenario",
                                             "trials", "set", "grid", "zip"};

// Where the base scenario's errors are reported: the base file, or the sweep's "scenario".
struct BaseOrigin {
  std::string source;  // the base file (empty for an inline base)
  bool inline_base = false;
  std::vector<std::string> set_ptrs;  // the sweep's "set" entries, applied over the base
};

// The schema, name and description.
void read_header(const SNode& root, Sweep& sw) {
  root.require_object(kSweepKeys);
  if (!root.has("schema")) root.fail("needs \"schema\": \"nvmesim.sweep/1\"");
  if (root.at("schema").str() != "nvmesim.sweep/1") {
    if (root.at("schema").str() == "nvmesim.scenario/1")
      root.at("schema").fail("this is a scenario, not a sweep; run it with 'nvmesim run', or write a sweep "
                             "(\"schema\": \"nvmesim.sweep/1\") whose \"base\" is this file");
    root.at("schema").fail("must be \"nvmesim.sweep/1\"");
  }
  sw.source = root.source();
  if (root.has("name")) sw.name = root.at("name").str();
  if (root.has("description")) sw.description = root.at("description").str();
}

// The base scenario (a file relative to the sweep file, or inline) into sw.base, with "trials".
BaseOrigin read_base(const SNode& root, const std::string& base_dir, Sweep& sw) {
  if (root.has("base") == root.has("scenario"))
    root.fail("needs exactly one of \"base\" (a scenario file, relative to this file) or \"scenario\" (a scenario "
              "object)");
  BaseOrigin origin;
  origin.inline_base = root.has("scenario");
  if (origin.inline_base) {
    const SNode s = root.at("scenario");
    if (!s.json().is_object()) s.fail(std::string("must be a scenario object, not ") + type_name(s.json()));
    sw.base = s.json();
  } else {
    const std::string rel = root.at("base").str();
    if (rel.empty()) root.at("base").fail("must be a scenario file name");
    origin.source = (rel[0] == '/' || base_dir.empty() || base_dir == ".") ? rel : base_dir + "/" + rel;
    std::string base_text;
    try {
      base_text = read_text_file(origin.source);
    } catch (const InputError& e) {
      root.at("base").fail(std::string("cannot read the base scenario: ") + e.what());
    }
    sw.base = parse_json_text(base_text, origin.source);
    if (!sw.base.is_object()) throw InputError(origin.source, "", "a scenario must be an object");
  }
  if (root.has("trials")) sw.base["trials"] = root.at("trials").integer_in(1, static_cast<int64_t>(kMaxTrials));
  return origin;
}

// "set": fixed changes to every point, applied to the base before the axes. Returns their pointers.
std::vector<std::string> apply_set(const SNode& root, Sweep& sw) {
  std::vector<std::string> set_ptrs;
  if (!root.has("set")) return set_ptrs;
  const SNode set = root.at("set");
  if (!set.json().is_object()) set.fail("must be an object {\"/json/pointer\": value, ...}");
  for (const auto& [key, value] : set.json().items()) {
    const SNode k = set.at(key);
    const std::string p = read_pointer(k, key, sw.base, "a \"set\" entry");
    // An entry may point inside the previous one: the depth of the result is checked before the
    // value is placed (515 chained entries built a document 31931 deep; issue 16 item 3).
    check_placed_depth(value, p, sw.source, k.ptr());
    sw.base[ojson::json_pointer(p)] = value;
    set_ptrs.push_back(p);
  }
  return set_ptrs;
}

// The base itself must be a valid scenario; errors name the base file or the "set" entry.
void validate_base(const Sweep& sw, const BaseOrigin& origin, const std::vector<std::string>& set_ptrs) {
  (void)validate_scenario(sw.base, [&](const std::string& ptr, const std::string& msg) {
    for (const auto& s : set_ptrs)
      if (under(ptr, s)) return InputError(sw.source, "/set/" + escape_token(s) + ptr.substr(s.size()), msg);
    if (origin.inline_base) return InputError(sw.source, "/scenario" + ptr, msg);
    return InputError(origin.source, ptr, msg);
  });
}

// The axes of "grid" and "zip", in file order: they may neither overlap nor overwrite a "set" entry.
void read_axes(const SNode& root, const std::vector<std::string>& set_ptrs, Sweep& sw) {
  for (const char* section : {"grid", "zip"}) {
    if (!root.has(section)) continue;
    const SNode sec = root.at(section);
    if (!sec.json().is_object())
      sec.fail(std::string("must be an object {\"/json/pointer\": [values] or a range, ...}, not ") + type_name(sec.json()));
    for (const auto& [key, value] : sec.json().items()) {
      (void)value;
      const SNode k = sec.at(key);
      const std::string p = read_pointer(k, key, sw.base, "an axis");
      for (const auto& other : sw.axes)
        if (under(p, other.pointer) || under(other.pointer, p))
          k.fail("overlaps the axis " + other.pointer + " (" + other.file_pointer +
                 "); an axis may not lie inside another");
      for (const auto& s : set_ptrs)
        if (under(s, p)) k.fail("would overwrite the \"set\" entry " + s + "; remove one of them");
      sw.axes.push_back(read_axis(k, p, std::string(section) == "zip"));
      // A value nested 64 deep in the file may be too deep once placed at the axis pointer.
      const SweepAxis& a = sw.axes.back();
      for (size_t i = 0; i < a.values.size(); ++i)
        check_placed_depth(a.values[i], p, sw.source, a.listed ? a.file_pointer + "/" + std::to_string(i) : a.file_pointer);
    }
  }
}

// The first zip axis (nullptr without any); every zip axis must have its length.
const SweepAxis* check_zip(const SNode& root, const Sweep& sw) {
  size_t zip_len = 0;
  const SweepAxis* zip_first = nullptr;
  for (const auto& a : sw.axes) {
    if (!a.zip) continue;
    if (!zip_first) {
      zip_first = &a;
      zip_len = a.values.size();
    } else if (a.values.size() != zip_len) {
      SNode(root.json(), sw.source, a.file_pointer).fail("has " + std::to_string(a.values.size()) + " values but " +
                                                         zip_first->pointer + " has " + std::to_string(zip_len) +
                                                         "; the axes of \"zip\" advance together and need equal lengths");
    }
  }
  if (root.has("zip") && !zip_first) root.at("zip").fail("needs at least one axis (or leave \"zip\" out)");
  return zip_first;
}

// Does a variant's "set" write `ptr` or a place above it (applied after the patch and the axes)?
bool set_covers(const ojson& v, const std::string& ptr) {
  if (!v.contains("set") || !v["set"].is_object()) return false;
  for (const auto& item : v["set"].items())
    if (!item.key().empty() && under(ptr, item.key())) return true;
  return false;
}

// An axis that every variant of the base patches or sets would change nothing: an error.
void check_axes_outside_variants(const SNode& root, const Sweep& sw) {
  if (!sw.base.contains("variants") || !sw.base["variants"].is_array() || sw.base["variants"].empty()) return;
  const ojson& vs = sw.base["variants"];
  for (const auto& a : sw.axes) {
    if (under(a.pointer, "/variants")) continue;
    const auto toks = tokens_of(a.pointer);
    bool all = true;
    for (const auto& v : vs)
      all = all && v.is_object() && (set_covers(v, a.pointer) || (v.contains("patch") && patch_covers(v["patch"], toks)));
    if (all)
      SNode(root.json(), sw.source, a.file_pointer)
          .fail("every variant of the base scenario patches or sets " + a.pointer +
                " (see /variants/0), so this axis would change nothing; drop the variants with "
                "\"set\": {\"/variants\": []}, or sweep a location the variants leave alone");
  }
}

// An error at `ptr` in point p's scenario, reported at the axis value that caused it.
InputError point_error(const Sweep& sw, const BaseOrigin& origin, const SweepPoint& p, const std::string& ptr,
                       const std::string& msg) {
  const std::string where = " (point " + std::to_string(p.index) + ", " + p.parameters.dump() + ")";
  for (const auto& a : sw.axes) {
    if (!under(ptr, a.pointer)) continue;
    const ojson& v = p.parameters.at(a.pointer);
    if (a.listed) {
      const size_t vi = static_cast<size_t>(std::find(a.values.begin(), a.values.end(), v) - a.values.begin());
      return InputError(sw.source, a.file_pointer + "/" + std::to_string(vi) + ptr.substr(a.pointer.size()), msg + where);
    }
    return InputError(sw.source, a.file_pointer, "the value " + v.dump() + " at " + pointer_text(ptr) + ": " + msg + where);
  }
  // No axis value holds the place: the base's value there meets the point's values. Named where
  // the base's errors are (validate_base): a "set" entry, the inline scenario or the base file, at
  // the pointer (issue 16: this named only the sweep file).
  const std::string what = "the scenario of point " + std::to_string(p.index) + " " + p.parameters.dump() +
                           " is invalid here (a value of the base the axes do not set): " + msg;
  for (const auto& s : origin.set_ptrs)
    if (under(ptr, s)) return InputError(sw.source, "/set/" + escape_token(s) + ptr.substr(s.size()), what);
  if (origin.inline_base) return InputError(sw.source, "/scenario" + ptr, what);
  return InputError(origin.source, ptr, what);
}

// Replaces, in `node` at pointer `ptr`, the "samples" of each empirical distribution that no axis
// touches (neither lies inside it nor holds it) by its smallest and its largest sample.
void shrink_samples(ojson& node, const std::string& ptr, const std::vector<SweepAxis>& axes) {
  bool axis_inside = false;
  for (const auto& a : axes) {
    if (under(ptr, a.pointer)) return;  // an axis sets this whole value
    axis_inside = axis_inside || under(a.pointer, ptr);
  }
  if (!axis_inside && node.is_object() && node.value("dist", ojson()) == "empirical" && node.contains("samples") &&
      node["samples"].is_array() && node["samples"].size() > 2) {
    const ojson& samples = node["samples"];
    size_t lo = 0, hi = 0;
    int64_t lo_ps = 0, hi_ps = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      if (!samples[i].is_string()) return;
      int64_t ps;
      try {
        ps = parse_duration_ps(samples[i].get_ref<const std::string&>());
      } catch (const std::exception&) {
        return;
      }
      if (i == 0 || ps < lo_ps) lo = i, lo_ps = ps;
      if (i == 0 || ps > hi_ps) hi = i, hi_ps = ps;
    }
    node["samples"] = ojson::array({samples[lo], samples[hi]});
    return;
  }
  if (node.is_object())
    for (auto& [k, v] : node.items()) shrink_samples(v, ptr + "/" + escape_token(k), axes);
  else if (node.is_array())
    for (size_t i = 0; i < node.size(); ++i) shrink_samples(node[i], ptr + "/" + std::to_string(i), axes);
}

// The document the points are validated on (issue 16 item 7: a 1000-point sweep over a 1 MB base of
// 110000 empirical samples took > 120 s to load, copying and checking the samples per point): the
// base, already validated in full, with the samples of every empirical distribution that no axis
// touches cut to their smallest and largest. The checks across keys use only those two (the time
// budget uses the smallest latency, scenario/budget.cpp), so a point is refused as with all its
// samples; the worker loads the full scenario again, so an error that showed only there would still
// be an error, never a result. Variants that mention "samples" (a "set" into the list) keep the base.
ojson validation_base(const Sweep& sw) {
  ojson doc = sw.base;
  if (doc.contains("variants") && doc["variants"].dump().find("samples") != std::string::npos) return doc;
  shrink_samples(doc, "", sw.axes);
  return doc;
}

// Every point, in index order, each with its id and its validated scenario.
void expand_points(const SNode& root, const SweepAxis* zip_first, size_t max_points, const BaseOrigin& origin, Sweep& sw) {
  size_t total = 1;
  for (const auto& a : sw.axes) {
    if (a.zip && &a != zip_first) continue;
    if (a.values.size() > max_points / total)
      root.fail("the axes give more than " + std::to_string(max_points) + " points; split the sweep");
    total *= a.values.size();
  }
  std::set<std::string> ids;
  const ojson vbase = validation_base(sw);
  const ojson::json_pointer driver_at("/host/driver");
  const std::string base_driver = vbase.contains(driver_at) && vbase.at(driver_at).is_string()
                                      ? vbase.at(driver_at).get<std::string>()
                                      : std::string("linux");
  sw.points.reserve(total);
  for (size_t i = 0; i < total; ++i) {
    SweepPoint p;
    p.index = i;
    p.parameters = point_parameters(sw.axes, i);
    p.id = point_id(p.parameters);
    if (!ids.insert(p.id).second) root.fail("two points share the id " + p.id + " (a hash collision); change a value");
    ojson doc = vbase;
    for (const auto& [ptr, value] : p.parameters.items()) doc[ojson::json_pointer(ptr)] = value;
    // A host value that no boot.chain stage reads would label a point that runs as the others
    // do (as `run --set` refuses it): refused at its axis value.
    for (const auto& [ptr, value] : p.parameters.items()) {
      if (ptr.rfind("/host/", 0) != 0) continue;
      try {
        check_placed_host_keys(doc, {SetPatch{ptr, value}}, kMark, base_driver);
      } catch (const InputError& e) {
        throw point_error(sw, origin, p, ptr, e.message());
      }
    }
    const Scenario sc =
        validate_scenario(doc, [&](const std::string& ptr, const std::string& msg) { return point_error(sw, origin, p, ptr, msg); });
    // From the validation document: an empirical distribution no axis touches has only its
    // smallest and largest samples there, which is enough for an estimate that only orders work.
    p.cost_estimate = point_cost_estimate(sc);
    for (const Variant& v : sc.variants) p.controllers = std::max(p.controllers, v.controllers.size());
    sw.points.push_back(std::move(p));
  }
}

// The definition's id: the base after "set" and "trials", and the axes with their values, in
// the manifest's form (check_manifest recomputes it from there).
std::string definition_id(const Sweep& sw) {
  ojson axes = ojson::array();
  for (const auto& a : sw.axes) axes.push_back(ojson{{"pointer", a.pointer}, {"kind", a.zip ? "zip" : "grid"}, {"values", a.values}});
  return sweep_detail::definition_id_of(sw.base, axes);
}

}  // namespace

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

Sweep load_sweep_file(const std::string& path) { return load_sweep_text(read_text_file(path), path, folder_of(path)); }

Sweep load_sweep_text(const std::string& text, const std::string& source, const std::string& base_dir,
                      size_t max_points) {
  return load_sweep_document(parse_json_text(text, source), source, base_dir, max_points);
}

Sweep load_sweep_document(const ojson& doc, const std::string& source, const std::string& base_dir, size_t max_points) {
  max_points = std::min(std::max<size_t>(max_points, 1), kMaxSweepPoints);
  const SNode root(doc, source, "");
  Sweep sw;
  read_header(root, sw);
  BaseOrigin origin = read_base(root, base_dir, sw);
  const std::vector<std::string> set_ptrs = apply_set(root, sw);
  origin.set_ptrs = set_ptrs;
  validate_base(sw, origin, set_ptrs);
  if (sw.base.contains("trials")) sw.trials = sw.base["trials"].get<uint64_t>();
  read_axes(root, set_ptrs, sw);
  const SweepAxis* zip_first = check_zip(root, sw);
  check_axes_outside_variants(root, sw);
  expand_points(root, zip_first, max_points, origin, sw);
  sw.id = definition_id(sw);
  return sw;
}

}  // namespace nvmesim
