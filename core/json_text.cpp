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

void check_nesting_depth(const std::string& text, const std::string& source) {
  size_t depth = 0, line = 1, col = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      col = 0;
    } else {
      ++col;
    }
    if (in_string) {
      if (c == '\\') {
        ++i;  // an escaped character (a newline cannot be escaped in JSON)
        ++col;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      for (i += 2; i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/'); ++i) {
        if (text[i] == '\n') {
          ++line;
          col = 0;
        } else {
          ++col;
        }
      }
      ++i;
      col += 2;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth)
        throw InputError::at_line(source, line, col,
                                  "JSON nested deeper than " + std::to_string(kMaxNestingDepth) +
                                      " levels; a scenario needs fewer than 10");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

ojson parse_json_text(const std::string& text, const std::string& source) {
  // Deeply nested values would exhaust the stack in the recursive copy, merge and dump of the
  // document (100000 levels crashed nvmesim validate): refuse them before parsing.
  check_nesting_depth(text, source);
  try {
    // A repeated key would silently keep its last value ({"min": ..., "min": ...}): an error.
    std::vector<std::vector<std::string>> keys;
    std::string duplicate;
    const ojson::parser_callback_t check_keys = [&](int depth, ojson::parse_event_t event, ojson& parsed) {
      (void)depth;
      if (event == ojson::parse_event_t::object_start) keys.emplace_back();
      else if (event == ojson::parse_event_t::object_end && !keys.empty()) keys.pop_back();
      else if (event == ojson::parse_event_t::key && !keys.empty() && duplicate.empty()) {
        const std::string k = parsed.get<std::string>();
        auto& seen = keys.back();
        if (std::find(seen.begin(), seen.end(), k) != seen.end()) duplicate = k;
        else seen.push_back(k);
      }
      return true;
    };
    ojson doc = ojson::parse(text, check_keys, true, /*ignore_comments=*/true);
    if (!duplicate.empty())
      throw InputError::in_source(source, "the key \"" + duplicate +
                                              "\" appears twice in one object; JSON objects must not repeat a key (the later value would win)");
    return doc;
  } catch (const ojson::parse_error& e) {
    // Turn the byte offset into line and column.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    const size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError::at_line(source, line, col, "JSON syntax error: " + what);
  } catch (const ojson::out_of_range& e) {
    // A number beyond the range of a double (1e400): nlohmann names the token, not its place.
    std::string what = e.what();
    const size_t q1 = what.find('\''), q2 = what.rfind('\'');
    const std::string token = q1 != std::string::npos && q2 > q1 ? what.substr(q1 + 1, q2 - q1 - 1) : "";
    size_t line = 1, col = 1;
    const size_t at = token.empty() ? std::string::npos : text.find(token);
    for (size_t i = 0; at != std::string::npos && i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError::at_line(source, line, col,
                              "JSON number " + token + " is out of range; numbers must be finite (at most about 1.8e308)");
  }
}

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
