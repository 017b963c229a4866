#include <cctype>
#include <cstdio>

#include "core/errors.hpp"
#include "core/rng.hpp"
#include "sweep/sweep.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace {

std::string slug_part(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += (std::isalnum(c) || c == '.' || c == '_') ? static_cast<char>(c) : '_';
  return out;
}

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

}  // namespace nvmesim
