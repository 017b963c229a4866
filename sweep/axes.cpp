#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

#include "core/duration.hpp"
#include "core/json_text.hpp"
#include "sweep/sweep_parts.hpp"

namespace nvmesim::sweep_detail {

using ojson = nlohmann::ordered_json;
using SNode = JsonNode;  // a value of the sweep file with its place
__extension__ typedef __int128 i128;

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

namespace {

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

// Position i of `count` evenly spaced values, from 0 to 1.
long double fraction(int64_t i, int64_t count) {
  return count == 1 ? 0.0L : static_cast<long double>(i) / static_cast<long double>(count - 1);
}

// `count` durations from the string `a` to `b` (the ends exact; linear steps exact to the
// picosecond, logarithmic ones rounded to 6 significant digits).
std::vector<ojson> duration_range(const SNode& ends, const SNode& a, const SNode& b, bool log, int64_t count) {
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
  std::vector<ojson> out;
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
                            fraction(i, count) *
                                (std::log(static_cast<long double>(to)) - std::log(static_cast<long double>(from)));
      ps = static_cast<int64_t>(std::llround(round_significant(static_cast<double>(std::exp(l)), 6)));
      if (ps < 1) ps = 1;
    }
    out.emplace_back(format_duration_decimal(ps));
  }
  return out;
}

// `count` numbers from `a` to `b` (integers when both ends are; linear steps rounded to 12
// significant digits, logarithmic ones to 6).
std::vector<ojson> number_range(const SNode& ends, const SNode& a, const SNode& b, bool log, int64_t count) {
  const bool integral = a.json().is_number_integer() && b.json().is_number_integer();
  const double from = a.json().get<double>(), to = b.json().get<double>();
  if (!std::isfinite(from) || !std::isfinite(to)) ends.fail("the ends must be finite numbers");
  if (log && (from <= 0 || to <= 0)) ends.fail("logspace needs numbers above 0");
  if (integral && (std::fabs(from) > 9e15 || std::fabs(to) > 9e15)) ends.fail("integer ends must be within +-9e15");
  std::vector<ojson> out;
  for (int64_t i = 0; i < count; ++i) {
    const long double f = fraction(i, count);
    double v;
    if (i == 0) v = from;
    else if (i == count - 1) v = to;
    else if (!log) v = round_significant(static_cast<double>(static_cast<long double>(from) + f * (static_cast<long double>(to) - from)), 12);
    else v = round_significant(static_cast<double>(std::exp(std::log(static_cast<long double>(from)) +
                                                            f * (std::log(static_cast<long double>(to)) -
                                                                 std::log(static_cast<long double>(from))))), 6);
    out.push_back(number_value(v, integral));
  }
  return out;
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
  if (a.json().is_string() && b.json().is_string()) return duration_range(ends, a, b, log, count);
  if (a.json().is_number() && b.json().is_number()) return number_range(ends, a, b, log, count);
  ends.fail(std::string("the ends must be two durations (\"100us\", \"1s\") or two numbers, not ") + type_name(a.json()) +
            " and " + type_name(b.json()));
}

}  // namespace

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
    // 1 and 1.0 are the same value; integers are compared exactly, not as doubles (issue 16 item
    // 20: the seeds 2^53 and 2^53 + 1 were called repeats).
    std::string key = v.dump();
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::floor(d) == d && d >= -9.2e18 && d <= 9.2e18) key = std::to_string(static_cast<int64_t>(d));
    }
    if (!seen.insert(key).second) {
      if (ax.listed) n.at(i).fail("the value " + v.dump() + " repeats an earlier value of this axis");
      n.fail("the range gives the value " + v.dump() + " twice after rounding; use fewer values or a wider range");
    }
  }
  return ax;
}

}  // namespace nvmesim::sweep_detail
