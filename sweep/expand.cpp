#include "sweep/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <unordered_set>

#include "core/rng.hpp"
#include "core/duration.hpp"
#include "core/json_reader.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;
__extension__ typedef __int128 i128;

namespace {


using SNode = JsonNode;  // a value of the sweep file with its place

std::vector<std::string> tokens_of(const std::string& ptr) {
  std::vector<std::string> out;
  const ojson::json_pointer p(ptr);
  ojson::json_pointer q = p;
  while (!q.empty()) {
    out.push_back(q.back());
    q.pop_back();
  }
  std::reverse(out.begin(), out.end());
  return out;
}

/// Whether pointer `inner` is `outer` or lies below it (by tokens, not by characters).
bool under(const std::string& inner, const std::string& outer) {
  if (outer.empty()) return true;
  return inner == outer || (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
                            inner[outer.size()] == '/');
}

/// Reads a JSON pointer written as an object key of the sweep file and checks that it can be set
/// in `doc`: its parent exists (and, in an array, the element itself).
std::string read_pointer(const SNode& key_node, const std::string& key, const ojson& doc, const char* what) {
  if (key.empty() || key[0] != '/')
    key_node.fail("\"" + key + "\" is not a JSON pointer; the keys of \"grid\", \"zip\" and \"set\" are JSON "
                  "pointers into the scenario, such as \"/host/hz\" or \"/controllers/0/enable_latency\"");
  ojson::json_pointer ptr;
  try {
    ptr = ojson::json_pointer(key);
  } catch (const std::exception&) {
    key_node.fail("\"" + key + "\" is not a JSON pointer (\"~\" must be written ~0 and \"/\" in a key ~1)");
  }
  if (key == "/schema") key_node.fail("the schema of the scenario cannot be changed");
  const ojson::json_pointer parent = ptr.parent_pointer();
  bool parent_ok = false;
  try {
    parent_ok = doc.contains(parent);
  } catch (const std::exception&) {
  }
  if (!parent_ok)
    key_node.fail("the parent " + pointer_text(parent.to_string()) + " does not exist in the base scenario; " +
                  what + " can change an existing value or add a key to an existing object");
  const ojson& p = doc.at(parent);
  if (p.is_array()) {
    bool ok = false;
    try {
      ok = doc.contains(ptr);
    } catch (const std::exception&) {
    }
    if (!ok)
      key_node.fail("the base scenario's array " + pointer_text(parent.to_string()) + " has " +
                    std::to_string(p.size()) + " element" + (p.size() == 1 ? "" : "s") + "; \"" + ptr.back() +
                    "\" is not one of them");
  } else if (!p.is_object()) {
    key_node.fail(pointer_text(parent.to_string()) + " is " + type_name(p) +
                  " in the base scenario, so it has no member \"" + ptr.back() + "\"");
  }
  return key;
}

// ---- value ranges --------------------------------------------------------------------------

/// Rounds `v` to `digits` significant decimal digits (exactly as printf's %.*g does).
double round_significant(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return std::strtod(buf, nullptr);
}

ojson number_value(double v, bool integral) {
  if (integral) return ojson(static_cast<int64_t>(std::llround(v)));
  return ojson(v);
}

std::vector<ojson> expand_range(const SNode& n) {
  n.require_object({"linspace", "logspace", "count"});
  if (n.has("linspace") == n.has("logspace"))
    n.fail("a range needs exactly one of \"linspace\": [from, to] or \"logspace\": [from, to], and \"count\"");
  const bool log = n.has("logspace");
  const SNode ends = n.at(log ? "logspace" : "linspace");
  if (!ends.json().is_array() || ends.json().size() != 2)
    ends.fail("must be [from, to]: two durations (\"100us\") or two numbers");
  if (!n.has("count")) n.fail("a range needs \"count\": the number of values, from 1 to " + std::to_string(kMaxAxisValues));
  const int64_t count = n.at("count").integer_in(1, static_cast<int64_t>(kMaxAxisValues));
  const SNode a = ends.at(size_t{0}), b = ends.at(size_t{1});
  std::vector<ojson> out;
  const auto frac = [&](int64_t i) { return count == 1 ? 0.0L : static_cast<long double>(i) / static_cast<long double>(count - 1); };
  if (a.json().is_string() && b.json().is_string()) {
    int64_t from = 0, to = 0;
    try {
      from = parse_duration_ps(a.str());
    } catch (const ParseError& e) {
      a.fail(e.what());
    }
    try {
      to = parse_duration_ps(b.str());
    } catch (const ParseError& e) {
      b.fail(e.what());
    }
    if (log && (from <= 0 || to <= 0)) ends.fail("logspace needs durations above 0");
    for (int64_t i = 0; i < count; ++i) {
      int64_t ps;
      if (i == 0) {
        ps = from;
      } else if (i == count - 1) {
        ps = to;
      } else if (!log) {
        // Exact integer arithmetic: from + round((to - from) * i / (count - 1)).
        const i128 num = static_cast<i128>(to - from) * i;
        const i128 den = count - 1;
        const i128 q = (num >= 0 ? num + den / 2 : num - den / 2) / den;
        ps = from + static_cast<int64_t>(q);
      } else {
        const long double l = std::log(static_cast<long double>(from)) +
                              frac(i) * (std::log(static_cast<long double>(to)) - std::log(static_cast<long double>(from)));
        ps = static_cast<int64_t>(std::llround(round_significant(static_cast<double>(std::exp(l)), 6)));
        if (ps < 1) ps = 1;
      }
      out.emplace_back(format_duration_decimal(ps));
    }
    return out;
  }
  if (a.json().is_number() && b.json().is_number()) {
    const bool integral = a.json().is_number_integer() && b.json().is_number_integer();
    const double from = a.json().get<double>(), to = b.json().get<double>();
    if (!std::isfinite(from) || !std::isfinite(to)) ends.fail("the ends must be finite numbers");
    if (log && (from <= 0 || to <= 0)) ends.fail("logspace needs numbers above 0");
    if (integral && (std::fabs(from) > 9e15 || std::fabs(to) > 9e15)) ends.fail("integer ends must be within +-9e15");
    for (int64_t i = 0; i < count; ++i) {
      double v;
      if (i == 0) v = from;
      else if (i == count - 1) v = to;
      else if (!log) v = round_significant(static_cast<double>(static_cast<long double>(from) + frac(i) * (static_cast<long double>(to) - from)), 12);
      else v = round_significant(static_cast<double>(std::exp(std::log(static_cast<long double>(from)) +
                                                              frac(i) * (std::log(static_cast<long double>(to)) -
                                                                         std::log(static_cast<long double>(from))))), 6);
      out.push_back(number_value(v, integral));
    }
    return out;
  }
  ends.fail(std::string("the ends must be two durations (\"100us\", \"1s\") or two numbers, not ") + type_name(a.json()) +
            " and " + type_name(b.json()));
}

SweepAxis read_axis(const SNode& n, const std::string& pointer, bool zip) {
  SweepAxis ax;
  ax.pointer = pointer;
  ax.zip = zip;
  ax.file_pointer = n.ptr();
  if (n.json().is_array()) {
    if (n.json().empty()) n.fail("an axis needs at least one value");
    if (n.json().size() > kMaxAxisValues) n.fail("an axis may have at most " + std::to_string(kMaxAxisValues) + " values");
    for (const auto& v : n.json()) ax.values.push_back(v);
  } else if (n.json().is_object()) {
    ax.listed = false;
    ax.values = expand_range(n);
  } else {
    n.fail(std::string("an axis is a list of values, or {\"linspace\": [from, to], \"count\": N}, or "
                       "{\"logspace\": [from, to], \"count\": N}; not ") + type_name(n.json()));
  }
  // Repeated values would give two points with the same id.
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < ax.values.size(); ++i) {
    const ojson& v = ax.values[i];
    std::string key = v.dump();
    if (v.is_number()) key = ojson(v.get<double>()).dump();  // 1 and 1.0 are the same value
    if (!seen.insert(key).second) {
      if (ax.listed) n.at(i).fail("the value " + v.dump() + " repeats an earlier value of this axis");
      n.fail("the range gives the value " + v.dump() + " twice after rounding; use fewer values or a wider range");
    }
  }
  return ax;
}

// ---- validation of resolved scenarios ------------------------------------------------------

const char* const kMark = "\x01sweep-point";

/// Validates `doc` with the scenario loader. On an error, `translate(ptr, message)` turns the
/// location inside `doc` into the InputError that names the place in the files the user wrote.
template <class F>
void validate_scenario(const ojson& doc, const F& translate) {
  try {
    (void)load_scenario_text(doc.dump(), kMark);
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

std::string slug_part(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += (std::isalnum(c) || c == '.' || c == '_') ? static_cast<char>(c) : '_';
  return out;
}

const std::vector<std::string> kSweepKeys = {"schema", "name", "description", "base", "scenario",
                                             "trials", "set", "grid", "zip"};

}  // namespace

std::string format_duration_decimal(int64_t ps) {
  if (ps == 0) return "0ns";
  static const struct { int64_t scale; int digits; const char* unit; } units[] = {
      {1000000000000, 12, "s"}, {1000000000, 9, "ms"}, {1000000, 6, "us"}, {1000, 3, "ns"}, {1, 0, "ps"}};
  for (const auto& u : units) {
    if (ps < u.scale && u.scale != 1) continue;
    std::string s = std::to_string(ps / u.scale);
    int64_t rem = ps % u.scale;
    if (rem) {
      std::string f = std::to_string(rem);
      f = std::string(static_cast<size_t>(u.digits) - f.size(), '0') + f;
      while (!f.empty() && f.back() == '0') f.pop_back();
      s += "." + f;
    }
    return s + u.unit;
  }
  return std::to_string(ps) + "ps";
}

std::string point_id(const ojson& parameters) {
  const nlohmann::json sorted = nlohmann::json::parse(parameters.dump());  // std::map: keys sorted
  std::string slug;
  for (const auto& [ptr, value] : sorted.items()) {
    std::string part = slug_part(ptr.substr(ptr.rfind('/') + 1));
    if (value.is_string()) part += "_" + slug_part(value.get<std::string>());
    else if (value.is_primitive()) part += "_" + slug_part(value.dump());
    slug += (slug.empty() ? "" : "-") + part;
  }
  if (slug.empty()) slug = "base";
  if (slug.size() > 60) slug.resize(60);
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(sorted.dump())));
  return slug + "-" + hex;
}

ojson point_parameters(const std::vector<SweepAxis>& axes, size_t index) {
  // Sizes of the dimensions: each grid axis, then the zip axes as one dimension.
  std::vector<size_t> dims;
  for (const auto& a : axes)
    if (!a.zip) dims.push_back(a.values.size());
  size_t zip_len = 0;
  for (const auto& a : axes)
    if (a.zip) zip_len = a.values.size();
  if (zip_len) dims.push_back(zip_len);
  std::vector<size_t> pos(dims.size());
  size_t rest = index;
  for (size_t d = dims.size(); d-- > 0;) {
    pos[d] = rest % dims[d];
    rest /= dims[d];
  }
  ojson params = ojson::object();
  size_t d = 0;
  for (const auto& a : axes)
    if (!a.zip) params[a.pointer] = a.values[pos[d++]];
  for (const auto& a : axes)
    if (a.zip) params[a.pointer] = a.values[pos[d]];
  return params;
}

ojson point_scenario(const Sweep& sweep, const SweepPoint& p) {
  ojson doc = sweep.base;
  for (const auto& [ptr, value] : p.parameters.items()) doc[ojson::json_pointer(ptr)] = value;
  return doc;
}

Shard parse_shard(const std::string& text) {
  const std::string usage = "--shard " + text + ": expected K/N with 0 <= K < N <= 1000000, e.g. --shard 0/4";
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) throw InputError(usage);
  auto num = [&](const std::string& s) {
    if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos) throw InputError(usage);
    return std::stoull(s);
  };
  Shard sh;
  sh.index = num(text.substr(0, slash));
  sh.count = num(text.substr(slash + 1));
  if (sh.count < 1 || sh.count > 1000000 || sh.index >= sh.count) throw InputError(usage);
  return sh;
}

Sweep load_sweep_file(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return load_sweep_text(read_text_file(path), path, dir);
}

Sweep load_sweep_text(const std::string& text, const std::string& source, const std::string& base_dir,
                      size_t max_points) {
  max_points = std::min(std::max<size_t>(max_points, 1), kMaxSweepPoints);
  const ojson doc = parse_json_text(text, source);
  const SNode root(doc, source, "");
  root.require_object(kSweepKeys);
  if (!root.has("schema")) root.fail("needs \"schema\": \"nvmesim.sweep/1\"");
  if (root.at("schema").str() != "nvmesim.sweep/1") {
    if (root.at("schema").str() == "nvmesim.scenario/1")
      root.at("schema").fail("this is a scenario, not a sweep; run it with 'nvmesim run', or write a sweep "
                             "(\"schema\": \"nvmesim.sweep/1\") whose \"base\" is this file");
    root.at("schema").fail("must be \"nvmesim.sweep/1\"");
  }
  Sweep sw;
  sw.source = source;
  if (root.has("name")) sw.name = root.at("name").str();
  if (root.has("description")) sw.description = root.at("description").str();

  // The base scenario: a file relative to the sweep file, or inline.
  if (root.has("base") == root.has("scenario"))
    root.fail("needs exactly one of \"base\" (a scenario file, relative to this file) or \"scenario\" (a scenario "
              "object)");
  std::string base_source;  // where errors in the base point to
  bool inline_base = root.has("scenario");
  if (inline_base) {
    const SNode s = root.at("scenario");
    if (!s.json().is_object()) s.fail(std::string("must be a scenario object, not ") + type_name(s.json()));
    sw.base = s.json();
  } else {
    const std::string rel = root.at("base").str();
    if (rel.empty()) root.at("base").fail("must be a scenario file name");
    base_source = (rel[0] == '/' || base_dir.empty() || base_dir == ".") ? rel : base_dir + "/" + rel;
    std::string base_text;
    try {
      base_text = read_text_file(base_source);
    } catch (const InputError& e) {
      root.at("base").fail(std::string("cannot read the base scenario: ") + e.what());
    }
    sw.base = parse_json_text(base_text, base_source);
    if (!sw.base.is_object()) throw InputError(base_source, "", "a scenario must be an object");
  }
  if (root.has("trials")) sw.base["trials"] = root.at("trials").integer_in(1, static_cast<int64_t>(kMaxTrials));

  // Fixed changes to every point, applied before the axes.
  std::vector<std::string> set_ptrs;
  if (root.has("set")) {
    const SNode set = root.at("set");
    if (!set.json().is_object()) set.fail("must be an object {\"/json/pointer\": value, ...}");
    for (const auto& [key, value] : set.json().items()) {
      const SNode k = set.at(key);
      const std::string p = read_pointer(k, key, sw.base, "a \"set\" entry");
      sw.base[ojson::json_pointer(p)] = value;
      set_ptrs.push_back(p);
    }
  }
  // The base itself must be a valid scenario; errors name the base file or the "set" entry.
  validate_scenario(sw.base, [&](const std::string& ptr, const std::string& msg) {
    for (const auto& s : set_ptrs)
      if (under(ptr, s)) return InputError(source, "/set/" + escape_token(s) + ptr.substr(s.size()), msg);
    if (inline_base) return InputError(source, "/scenario" + ptr, msg);
    return InputError(base_source, ptr, msg);
  });
  if (sw.base.contains("trials")) sw.trials = sw.base["trials"].get<uint64_t>();

  // Axes.
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
    }
  }
  size_t zip_len = 0;
  const SweepAxis* zip_first = nullptr;
  for (const auto& a : sw.axes) {
    if (!a.zip) continue;
    if (!zip_first) {
      zip_first = &a;
      zip_len = a.values.size();
    } else if (a.values.size() != zip_len) {
      SNode(doc, source, a.file_pointer).fail("has " + std::to_string(a.values.size()) + " values but " +
                                              zip_first->pointer + " has " + std::to_string(zip_len) +
                                              "; the axes of \"zip\" advance together and need equal lengths");
    }
  }
  if (root.has("zip") && !zip_first) root.at("zip").fail("needs at least one axis (or leave \"zip\" out)");

  // An axis that every variant of the base patches would change nothing.
  if (sw.base.contains("variants") && sw.base["variants"].is_array() && !sw.base["variants"].empty()) {
    const ojson& vs = sw.base["variants"];
    for (const auto& a : sw.axes) {
      if (under(a.pointer, "/variants")) continue;
      const auto toks = tokens_of(a.pointer);
      bool all = true;
      for (const auto& v : vs) all = all && v.contains("patch") && patch_covers(v["patch"], toks);
      if (all)
        SNode(doc, source, a.file_pointer)
            .fail("every variant of the base scenario patches " + a.pointer +
                  " (see /variants/0/patch), so this axis would change nothing; drop the variants with "
                  "\"set\": {\"/variants\": []}, or sweep a location the variants leave alone");
    }
  }

  // Points.
  size_t total = 1;
  for (const auto& a : sw.axes) {
    if (a.zip && &a != zip_first) continue;
    if (a.values.size() > max_points / total)
      root.fail("the axes give more than " + std::to_string(max_points) + " points; split the sweep");
    total *= a.values.size();
  }
  std::set<std::string> ids;
  sw.points.reserve(total);
  for (size_t i = 0; i < total; ++i) {
    SweepPoint p;
    p.index = i;
    p.parameters = point_parameters(sw.axes, i);
    p.id = point_id(p.parameters);
    if (!ids.insert(p.id).second) root.fail("two points share the id " + p.id + " (a hash collision); change a value");
    const ojson sc = point_scenario(sw, p);
    validate_scenario(sc, [&](const std::string& ptr, const std::string& msg) {
      const std::string where = " (point " + std::to_string(i) + ", " + p.parameters.dump() + ")";
      for (const auto& a : sw.axes) {
        if (!under(ptr, a.pointer)) continue;
        const ojson& v = p.parameters[a.pointer];
        if (a.listed) {
          const size_t vi = static_cast<size_t>(std::find(a.values.begin(), a.values.end(), v) - a.values.begin());
          return InputError(source, a.file_pointer + "/" + std::to_string(vi) + ptr.substr(a.pointer.size()), msg + where);
        }
        return InputError(source, a.file_pointer,
                          "the value " + v.dump() + " at " + pointer_text(ptr) + ": " + msg + where);
      }
      return InputError::in_source(source, "the scenario of point " + std::to_string(i) + " " + p.parameters.dump() +
                                               " is invalid at " + pointer_text(ptr) + ": " + msg);
    });
    sw.points.push_back(std::move(p));
  }

  // The definition's id: the base after "set" and "trials", and the axes with their values.
  ojson def;
  def["scenario"] = sw.base;
  ojson axes = ojson::array();
  for (const auto& a : sw.axes) axes.push_back(ojson::array({a.pointer, a.zip ? "zip" : "grid", a.values}));
  def["axes"] = axes;
  char hex[20];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(def.dump())));
  sw.id = hex;
  return sw;
}

}  // namespace nvmesim
