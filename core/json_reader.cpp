#include "core/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/duration.hpp"
#include "core/json_text.hpp"

namespace nvmesim {

void JsonNode::fail(const std::string& msg) const { throw InputError(source_, ptr_, msg); }

JsonNode JsonNode::at(const std::string& key) const {
  return JsonNode(j_.at(key), source_, ptr_ + "/" + escape_token(key));
}

JsonNode JsonNode::at(size_t i) const { return JsonNode(j_.at(i), source_, ptr_ + "/" + std::to_string(i)); }

void JsonNode::require_object(const std::vector<std::string>& allowed) const {
  if (!j_.is_object()) fail(std::string("must be an object, not ") + type_name(j_));
  for (const auto& [key, value] : j_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key \"" + key + "\"";
    const std::string near = did_you_mean(key, allowed);
    if (!near.empty()) msg += "; did you mean \"" + near + "\"?";
    msg += " Allowed keys: ";
    for (size_t i = 0; i < allowed.size(); ++i) msg += (i ? ", " : "") + allowed[i];
    JsonNode(value, source_, ptr_ + "/" + escape_token(key)).fail(msg);
  }
}

const nlohmann::ordered_json& JsonNode::array() const {
  if (!j_.is_array()) fail(std::string("must be an array, not ") + type_name(j_));
  return j_;
}

std::string JsonNode::str() const {
  if (!j_.is_string()) fail(std::string("must be a string, not ") + type_name(j_));
  return j_.get<std::string>();
}

bool JsonNode::boolean() const {
  if (!j_.is_boolean()) fail(std::string("must be true or false, not ") + type_name(j_));
  return j_.get<bool>();
}

int64_t JsonNode::integer(int64_t lo, int64_t hi) const {
  if (!j_.is_number_integer())
    fail(std::string("must be an integer from ") + std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
         type_name(j_));
  if (j_.is_number_unsigned() && j_.get<uint64_t>() > static_cast<uint64_t>(hi))
    fail("must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
         std::to_string(j_.get<uint64_t>()));
  const int64_t v = j_.get<int64_t>();
  if (v < lo || v > hi) fail("must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " + std::to_string(v));
  return v;
}

int64_t JsonNode::integer_in(int64_t lo, int64_t hi) const {
  if (!j_.is_number_integer() || (j_.is_number_unsigned() && j_.get<uint64_t>() > static_cast<uint64_t>(hi)) ||
      j_.get<int64_t>() < lo || j_.get<int64_t>() > hi)
    fail("must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
         (j_.is_number_integer() ? j_.dump() : std::string(type_name(j_))));
  return j_.get<int64_t>();
}

double JsonNode::number(double lo, double hi) const {
  if (!j_.is_number()) fail(std::string("must be a number, not ") + type_name(j_));
  const double v = j_.get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    std::ostringstream o;
    o << "must be a number from " << lo << " to " << hi;
    fail(o.str());
  }
  return v;
}

int64_t JsonNode::duration_ps() const {
  if (!j_.is_string())
    fail(std::string("must be a duration string with a unit such as \"100ms\", not ") + type_name(j_) +
         (j_.is_number() ? " (a number has no unit: write e.g. \"" + j_.dump() + "ms\" or \"" + j_.dump() + "us\")"
                         : ""));
  try {
    return parse_duration_ps(j_.get<std::string>());
  } catch (const ParseError& e) {
    fail(e.what());
  }
}

void JsonNode::fail_choice(const std::string& given, const std::vector<std::string>& names) const {
  std::string msg = "\"" + given + "\" is not allowed; allowed: ";
  for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", " : "") + ("\"" + names[i] + "\"");
  fail(msg);
}

}  // namespace nvmesim
