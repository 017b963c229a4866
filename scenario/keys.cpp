#include "scenario/keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/json_text.hpp"

namespace nvmesim::scenario_detail {

Default dflt(const char* json_text) { return Default{nlohmann::ordered_json::parse(json_text), ""}; }

Default computed(const char* text) { return Default{std::nullopt, text}; }

const KeyInfo* SectionInfo::find(const std::string& key) const {
  for (const KeyInfo* k : infos())
    if (k->key == key) return k;
  return nullptr;
}

namespace {

// The place "/host/kernel" of `key` when it is no row of `s` but a row of one of its object
// tables (a key put one level too high, as `"patch": {"kernel": "6.6"}`), else "".
std::string misplaced(const std::string& key, const SectionInfo& s) {
  for (const KeyInfo* k : s.infos())
    if (k->sub && !k->sub_is_array && k->sub->find(key)) return "/" + k->key + "/" + key;
  return "";
}

}  // namespace

void require_keys(const JsonNode& n, const SectionInfo& s) {
  if (n.json().is_object()) {
    const std::vector<std::string>& allowed = s.names();
    for (const auto& [key, value] : n.json().items()) {
      if (s.find(key)) continue;
      const std::string where = misplaced(key, s);
      if (where.empty()) continue;  // require_object says it, with its own did-you-mean
      // A key of a sub-object put one level too high; a near key of this level (host "poll":
      // spdk's "poll_interval", or Linux's "overrides": {"poll"}) is named beside it.
      const std::string near = did_you_mean(key, allowed);
      std::string msg = "unknown key \"" + key + "\"; did you mean " + (near.empty() ? "" : "\"" + near + "\", or ") + "\"" +
                        where.substr(1, where.rfind('/') - 1) + "\": {\"" + key + "\": ...} (" + n.ptr() + where +
                        ")? Allowed keys: ";
      for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : "") + allowed[i];
      JsonNode(value, n.source(), n.ptr() + "/" + escape_token(key)).fail(msg);
    }
  }
  n.require_object(s.names());
}

void check_used_by(const JsonNode& n, const SectionInfo& s, const std::string& driver) {
  if (!n.json().is_object()) return;
  for (const auto& [key, value] : n.json().items()) {
    const KeyInfo* k = s.find(key);
    if (!k || k->used_by.empty() || std::find(k->used_by.begin(), k->used_by.end(), driver) != k->used_by.end())
      continue;
    std::string users;
    for (size_t i = 0; i < k->used_by.size(); ++i) users += (i ? ", \"" : "\"") + k->used_by[i] + "\"";
    n.at(key).fail("host.driver \"" + driver + "\" does not use this key (used by " + users +
                   "); leave it out for this driver");
  }
}

namespace {

std::string number_text(double v) {
  char buf[40];
  if (std::fabs(v) < 1e15 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string integer_type(int64_t lo, int64_t hi) {
  if (hi == INT64_MAX) return "integer >= " + std::to_string(lo);
  return "integer, " + std::to_string(lo) + " to " + std::to_string(hi);
}

std::string number_type(double lo, double hi) { return "number, " + number_text(lo) + " to " + number_text(hi); }

std::string choice_type(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += "`\"" + names[i] + "\"`";
  }
  return out;
}

}  // namespace nvmesim::scenario_detail
