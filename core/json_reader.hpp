#pragma once
// The one JSON reader of nvmesim's input files (scenarios, sweeps): a value with its place (file
// and JSON pointer), whose accessors check the type and range and throw an InputError that names
// both the place and what is allowed. Pure C++.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/names.hpp"

namespace nvmesim {

/// A JSON value of the file `source` at the JSON pointer `ptr`. Holds a reference to the value:
/// the document must outlive the node.
class JsonNode {
 public:
  JsonNode(const nlohmann::ordered_json& j, std::string source, std::string ptr)
      : j_(j), source_(std::move(source)), ptr_(std::move(ptr)) {}

  /// Throws InputError(source, ptr, msg): "SOURCE: /json/pointer: MSG".
  [[noreturn]] void fail(const std::string& msg) const;
  const nlohmann::ordered_json& json() const { return j_; }
  const std::string& ptr() const { return ptr_; }
  const std::string& source() const { return source_; }

  /// True when this is an object holding `key`.
  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }
  /// The member `key` (which must exist: check has() first) or element `i`.
  JsonNode at(const std::string& key) const;
  JsonNode at(const char* key) const { return at(std::string(key)); }
  JsonNode at(size_t i) const;

  /// Requires an object whose keys are all in `allowed`; an unknown key fails at that key, with
  /// the closest allowed key ("did you mean") and the list.
  void require_object(const std::vector<std::string>& allowed) const;
  const nlohmann::ordered_json& array() const;
  std::string str() const;
  bool boolean() const;
  /// An integer in [lo, hi]; a wrong type and a value out of range have messages of their own
  /// ("must be an integer from LO to HI, not a string", "must be from LO to HI, not 7").
  int64_t integer(int64_t lo, int64_t hi) const;
  /// The same check with one message for both: "must be an integer from LO to HI, not X" (the
  /// sweep file's wording).
  int64_t integer_in(int64_t lo, int64_t hi) const;
  /// A finite number in [lo, hi].
  double number(double lo, double hi) const;
  /// A duration string with a unit ("100ms"), in picoseconds (core/duration.hpp).
  int64_t duration_ps() const;

  /// A string that must be one of the names of `options`; the message lists them in order.
  template <class T>
  T choice(const std::vector<std::pair<std::string, T>>& options) const {
    const std::string s = str();
    std::vector<std::string> names;
    for (const auto& [name, value] : options) {
      if (name == s) return value;
      names.push_back(name);
    }
    fail_choice(s, names);
  }
  /// A string that must be the key of an entry of `table` (core/names.hpp).
  template <class E, size_t N>
  E choice(const EnumName<E> (&table)[N]) const {
    const std::string s = str();
    if (const EnumName<E>* n = find_key(table, s)) return n->value;
    std::vector<std::string> names;
    for (const auto& n : table) names.emplace_back(n.key);
    fail_choice(s, names);
  }

 private:
  [[noreturn]] void fail_choice(const std::string& given, const std::vector<std::string>& names) const;
  const nlohmann::ordered_json& j_;
  std::string source_;
  std::string ptr_;
};

}  // namespace nvmesim
