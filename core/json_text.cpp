#include "core/json_text.hpp"

#include <algorithm>
#include <cstdio>

#include "core/file_input.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

std::string escape_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

const char* type_name(const ojson& j) {
  switch (j.type()) {
    case ojson::value_t::null: return "null";
    case ojson::value_t::object: return "an object";
    case ojson::value_t::array: return "an array";
    case ojson::value_t::string: return "a string";
    case ojson::value_t::boolean: return "a boolean";
    case ojson::value_t::number_integer:
    case ojson::value_t::number_unsigned: return "an integer";
    case ojson::value_t::number_float: return "a number";
    default: return "a value";
  }
}


std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = 3;
  for (const auto& c : candidates) {
    // Levenshtein distance
    std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= c.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (word[i - 1] == c[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    size_t d = prev[c.size()];
    if (d > 0 && word.size() >= 3 && c.rfind(word, 0) == 0) d = std::min<size_t>(d, 1);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string read_text_file(const std::string& path, size_t max_bytes) { return read_input_file(path, max_bytes); }

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

}  // namespace nvmesim
