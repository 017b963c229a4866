// Parsing JSON text (core/json_text.hpp): nlohmann's SAX parser with a document builder of our
// own, which refuses repeated keys in linear time. nlohmann 3.11.2's callback parser, which the
// duplicate-key check used before, rescans the parent container at every end of an object, so that
// a 16 MiB array of objects took about two hours (issue 16 item 4).
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "core/json_text.hpp"

namespace nvmesim {

using ojson = nlohmann::ordered_json;

namespace {

/// Line and column (both from 1, the column in bytes) of byte `offset` of `text`.
std::pair<size_t, size_t> line_column(const std::string& text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

/// The offset of the first byte at or after `j` that is neither white space nor inside a
/// comment (text.size() at the end): what follows a string, to tell a key from a value.
size_t next_token(const std::string& text, size_t j) {
  while (j < text.size()) {
    if (std::strchr(" \t\r\n", text[j])) {
      ++j;
    } else if (text.compare(j, 2, "//") == 0) {
      while (j < text.size() && text[j] != '\n') ++j;
    } else if (text.compare(j, 2, "/*") == 0) {
      const size_t end = text.find("*/", j + 2);
      j = end == std::string::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return j;
}

/// Byte offset of the opening quote of the `n`-th object key (from 0) of `text`, in document
/// order: a string followed, after white space and comments, by ':'. Used only after the parser
/// has read that far, so the text is valid JSON up to there.
size_t offset_of_key(const std::string& text, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
    } else if (c == '"') {
      const size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      // Is the next token a ':'?
      const size_t j = next_token(text, i + 1);
      if (j < text.size() && text[j] == ':' && count++ == n) return start;
    }
  }
  return text.size();
}

/// Byte offset of the first byte of the `n`-th value (from 0) of `text`, in the order nlohmann's
/// SAX parser reports them: '{', '[', a string that is not a key, a number, true, false or null.
/// Used only after the parser has read that far, so the text is valid JSON up to there.
size_t offset_of_value(const std::string& text, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
      continue;
    }
    if (std::strchr(" \t\r\n,:]}", c)) continue;
    const size_t start = i;
    bool value = true;
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      // A key when the next token is ':' (a key is never followed by a comment in our writers, but
      // may be in an input: skip them as offset_of_key does).
      const size_t j = next_token(text, i + 1);
      value = !(j < text.size() && text[j] == ':');
    } else if (c != '{' && c != '[') {
      // A number or a literal: skip to its last byte.
      while (i + 1 < text.size() && !std::strchr(" \t\r\n,:]}/", text[i + 1])) ++i;
    }
    if (value && count++ == n) return start;
  }
  return text.size();
}

/// Builds an ordered_json from nlohmann's SAX events and stops at the first key an object repeats.
/// Keys are appended without ordered_map's linear search (they are known to be new), and a
/// container's pointer stays valid while it is open: only the innermost open container grows.
class DomBuilder {
 public:
  explicit DomBuilder(size_t max_values) : max_values_(max_values) {}
  ~DomBuilder() { release(); }
  DomBuilder(const DomBuilder&) = delete;
  DomBuilder& operator=(const DomBuilder&) = delete;

  ojson root;
  // More values than max_values: the ordinal (from 0) of the first value refused.
  bool too_many = false;
  size_t values_seen = 0;
  // std::bad_alloc while building the document (the ordinal of the value being added).
  bool out_of_memory = false;
  // The first repeated key: its JSON pointer and its ordinal among all keys of the text.
  bool duplicate = false;
  std::string duplicate_key, duplicate_pointer;
  size_t duplicate_ordinal = 0;
  // A syntax error or a number out of range, as nlohmann reports it.
  bool error = false, out_of_range = false;
  size_t error_position = 0;
  std::string error_token, error_what;

  bool null() { return add_value([] { return ojson(nullptr); }); }
  bool boolean(bool v) { return add_value([v] { return ojson(v); }); }
  bool number_integer(ojson::number_integer_t v) { return add_value([v] { return ojson(v); }); }
  bool number_unsigned(ojson::number_unsigned_t v) { return add_value([v] { return ojson(v); }); }
  bool number_float(ojson::number_float_t v, const std::string&) { return add_value([v] { return ojson(v); }); }
  bool string(std::string& v) { return add_value([&v] { return ojson(std::move(v)); }); }
  bool binary(ojson::binary_t& v) { return add_value([&v] { return ojson(std::move(v)); }); }
  bool start_object(size_t) { return open([] { return ojson::object(); }); }
  bool start_array(size_t) { return open([] { return ojson::array(); }); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    try {
      return add_key(k);
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
      return false;
    }
  }

  bool parse_error(size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    error = true;
    out_of_range = ex.id == 406;
    error_position = position;
    error_token = last_token;
    error_what = ex.what();
    return false;
  }

  /// Destroys the document built so far without allocating. nlohmann's destructor moves a
  /// container's children into a vector of their number before freeing them, and is noexcept:
  /// after a std::bad_alloc that allocation terminated the process (SIGABRT). Here the last
  /// child is removed from the innermost non-empty container until none is left; a leaf or an
  /// empty container frees without allocating. The path is at most kMaxNestingDepth + 1 long
  /// (check_nesting_depth ran before the parse).
  void release() noexcept {
    levels_.clear();  // frees the open levels' key sets; their containers belong to root
    ojson* path[kMaxNestingDepth + 2];
    size_t n = 0;
    path[n++] = &root;
    while (n > 0) {
      ojson* v = path[n - 1];
      if (n < kMaxNestingDepth + 2 && v->is_array() && !v->empty()) {
        path[n++] = &v->get_ptr<ojson::array_t*>()->back();
        continue;
      }
      if (n < kMaxNestingDepth + 2 && v->is_object() && !v->empty()) {
        path[n++] = &static_cast<ojson::object_t::Container&>(*v->get_ptr<ojson::object_t*>()).back().second;
        continue;
      }
      if (--n == 0) break;
      ojson* parent = path[n - 1];
      if (parent->is_array())
        parent->get_ptr<ojson::array_t*>()->pop_back();
      else
        static_cast<ojson::object_t::Container&>(*parent->get_ptr<ojson::object_t*>()).pop_back();
    }
    root = nullptr;
  }

 private:
  bool add_key(std::string& k) {
    Level& l = levels_.back();
    const size_t ordinal = keys_seen_++;
    if (!l.keys) {
      // Small objects: a scan of their keys; from 16 keys on, a hash set.
      for (const auto& [name, value] : *l.value->get_ptr<ojson::object_t*>())
        if (name == k) return repeated(k, ordinal);
      if (l.value->size() >= 16) {
        l.keys = std::make_unique<std::unordered_set<std::string>>();
        for (const auto& [name, value] : *l.value->get_ptr<ojson::object_t*>()) l.keys->insert(name);
      }
    }
    if (l.keys && !l.keys->insert(k).second) return repeated(k, ordinal);
    l.key = std::move(k);
    return true;
  }

  struct Level {
    ojson* value;
    std::string key;  // the key of the member being read (objects), until it is added
    std::unique_ptr<std::unordered_set<std::string>> keys;
  };

  ojson* add(ojson&& v) {
    if (levels_.empty()) {
      root = std::move(v);
      return &root;
    }
    Level& l = levels_.back();
    if (l.value->is_array()) {
      l.value->get_ptr<ojson::array_t*>()->push_back(std::move(v));
      return &l.value->get_ptr<ojson::array_t*>()->back();
    }
    auto& members = static_cast<ojson::object_t::Container&>(*l.value->get_ptr<ojson::object_t*>());
    members.emplace_back(std::move(l.key), std::move(v));
    return &members.back().second;
  }
  // Counts the value against the bound before it is made, then makes and adds it.
  template <class Make>
  ojson* count_and_add(Make make) {
    if (values_seen >= max_values_) {
      too_many = true;
      return nullptr;
    }
    ++values_seen;
    try {
      return add(make());
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
      return nullptr;
    }
  }
  template <class Make>
  bool add_value(Make make) {
    return count_and_add(make) != nullptr;
  }
  template <class Make>
  bool open(Make make) {
    ojson* p = count_and_add(make);
    if (!p) return false;
    try {
      levels_.push_back({p, {}, nullptr});
    } catch (const std::bad_alloc&) {
      out_of_memory = true;
      return false;
    }
    return true;
  }
  bool close() {
    levels_.pop_back();
    return true;
  }
  bool repeated(const std::string& k, size_t ordinal) {
    duplicate = true;
    duplicate_key = k;
    duplicate_ordinal = ordinal;
    // The pointer of the object: the keys and indices of the open containers above it.
    for (size_t i = 0; i + 1 < levels_.size(); ++i) {
      const Level& l = levels_[i];
      // The open child is the last element or member of each container above it.
      duplicate_pointer += "/" + (l.value->is_array() ? std::to_string(l.value->size() - 1)
                                                      : escape_token(l.value->get_ptr<ojson::object_t*>()->back().first));
    }
    duplicate_pointer += "/" + escape_token(k);
    return false;
  }
  size_t max_values_;
  std::vector<Level> levels_;
  size_t keys_seen_ = 0;
};

// The messages of a failed parse, each at its place in the text.
[[noreturn]] void throw_parse_failure(const DomBuilder& b, const std::string& text, const std::string& source,
                                      size_t max_values) {
  if (b.too_many) {
    const auto [line, col] = line_column(text, offset_of_value(text, max_values));
    throw InputError::at_line(source, line, col,
                              "the JSON text holds more than " + std::to_string(max_values) +
                                  " values (numbers, strings, arrays and objects), the most one input may hold "
                                  "(README, Limits and guarantees); nvmesim stopped before building the rest. "
                                  "Split the input, or give an empirical distribution fewer samples (or use "
                                  "a \"quantiles\" distribution)");
  }
  if (b.out_of_memory) {
    const auto [line, col] = line_column(text, offset_of_value(text, b.values_seen > 0 ? b.values_seen - 1 : 0));
    throw InputError::at_line(source, line, col,
                              "input too large: memory ran out while reading it (std::bad_alloc at value " +
                                  std::to_string(b.values_seen) +
                                  "); give nvmesim more memory (ulimit -v) or use a smaller input");
  }
  if (b.duplicate) {
    const auto [line, col] = line_column(text, offset_of_key(text, b.duplicate_ordinal));
    throw InputError::at_line_pointer(source, line, col, b.duplicate_pointer,
                                      "the key \"" + b.duplicate_key +
                                          "\" appears twice in one object; JSON objects must not repeat a key "
                                          "(the later value would win)");
  }
  if (b.out_of_range) {
    // nlohmann reports the place just after the number: its first byte is the token's length before.
    const size_t start = b.error_position >= b.error_token.size() ? b.error_position - b.error_token.size() : 0;
    const auto [line, col] = line_column(text, start);
    throw InputError::at_line(source, line, col,
                              "JSON number " + b.error_token +
                                  " is out of range; numbers must be finite (at most about 1.8e308)");
  }
  // The byte nlohmann names is counted from 1.
  const auto [line, col] = line_column(text, b.error_position > 0 ? b.error_position - 1 : 0);
  std::string what = b.error_what;
  const size_t colon = what.find(": ", what.find("parse error"));
  if (colon != std::string::npos) what = what.substr(colon + 2);
  throw InputError::at_line(source, line, col, "JSON syntax error: " + what);
}

}  // namespace

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

ojson parse_json_text(const std::string& text, const std::string& source, size_t max_values) {
  // nlohmann's lexer takes a NUL byte for the end of the input: the rest of the file would be
  // silently ignored.
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    const auto [line, col] = line_column(text, static_cast<size_t>(static_cast<const char*>(nul) - text.data()));
    throw InputError::at_line(source, line, col,
                              "a NUL byte (\\u0000); JSON text cannot hold one (inside a string write \\u0000)");
  }
  // Deeply nested values would exhaust the stack in the recursive copy, merge and dump of the
  // document (100000 levels crashed nvmesim validate): refuse them before parsing.
  check_nesting_depth(text, source);
  if (max_values < 1 || max_values > kMaxJsonValues)
    throw std::invalid_argument("parse_json_text: max_values must be from 1 to kMaxJsonValues");
  DomBuilder b(max_values);
  bool parsed = false;
  try {
    parsed = ojson::sax_parse(text, &b, ojson::input_format_t::json, /*strict=*/true, /*ignore_comments=*/true);
  } catch (const std::bad_alloc&) {
    // In nlohmann's parser itself (its lexer's token buffer, its state stack).
    b.out_of_memory = true;
  }
  if (!parsed) {
    b.release();
    throw_parse_failure(b, text, source, max_values);
  }
  return std::move(b.root);
}

size_t json_depth(const ojson& value, size_t stop_above) {
  // Iterative: a document may be deeper than the stack allows recursion (issue 16 item 3).
  struct Frame {
    const ojson* v;
    size_t depth;
  };
  std::vector<Frame> todo{{&value, 0}};
  size_t deepest = 0;
  while (!todo.empty()) {
    const Frame f = todo.back();
    todo.pop_back();
    if (!f.v->is_structured()) continue;
    const size_t d = f.depth + 1;
    if (d > deepest) deepest = d;
    if (deepest > stop_above) return deepest;
    for (const auto& child : *f.v) todo.push_back({&child, d});
  }
  return deepest;
}

void check_placed_depth(const ojson& value, const std::string& pointer, const std::string& source,
                        const std::string& error_pointer) {
  size_t levels = 0;  // the reference tokens of `pointer`: each is one container above the value
  for (char c : pointer) levels += c == '/';
  const size_t limit = kMaxNestingDepth;
  if (levels > limit || json_depth(value, limit - levels) > limit - levels)
    throw InputError(source, error_pointer,
                     "the value would be nested deeper than " + std::to_string(limit) + " levels once placed at " +
                         (pointer.size() > 200 ? pointer.substr(0, 200) + "..." : pointer_text(pointer)) +
                         " (its pointer counts " + std::to_string(levels) +
                         " levels); a scenario needs fewer than 10");
}

}  // namespace nvmesim
