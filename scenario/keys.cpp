#include "scenario/keys.hpp"

#include <cmath>
#include <cstdio>

namespace nvmesim::scenario_detail {

Default dflt(const char* json_text) { return Default{nlohmann::ordered_json::parse(json_text), ""}; }

Default computed(const char* text) { return Default{std::nullopt, text}; }

const KeyInfo* SectionInfo::find(const std::string& key) const {
  for (const KeyInfo* k : infos())
    if (k->key == key) return k;
  return nullptr;
}

void require_keys(const JsonNode& n, const SectionInfo& s) { n.require_object(s.names()); }

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
