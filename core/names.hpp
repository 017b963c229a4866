#pragma once
// One constexpr name table per enum: the single place an enum's spellings are written. The same
// table gives to_string (the `text`, for tables and traces), the spelling in files and on the
// command line (the `key`, parsed by JsonNode::choice) and the list of allowed values in error
// messages and docs. Pure C++.
#include <cstddef>
#include <string_view>

namespace nvmesim {

/// One value of an enum and its names: `key` as files and outputs spell it, `text` a description
/// for readable tables (nullptr: the key is the description too).
template <class E>
struct EnumName {
  E value;
  const char* key;
  const char* text = nullptr;
};

/// The key of `value` in `table` ("?" for a value missing from the table).
template <class E, size_t N>
constexpr const char* key_in(const EnumName<E> (&table)[N], E value) {
  for (const auto& n : table)
    if (n.value == value) return n.key;
  return "?";
}

/// The text of `value` in `table` (its key when it has no text).
template <class E, size_t N>
constexpr const char* text_in(const EnumName<E> (&table)[N], E value) {
  for (const auto& n : table)
    if (n.value == value) return n.text ? n.text : n.key;
  return "?";
}

/// The entry spelled `key`, or nullptr.
template <class E, size_t N>
constexpr const EnumName<E>* find_key(const EnumName<E> (&table)[N], std::string_view key) {
  for (const auto& n : table)
    if (key == n.key) return &n;
  return nullptr;
}

/// True when entry i of `table` holds the enum value i: the table then also sizes arrays indexed
/// by the enum (static_assert it where that is done).
template <class E, size_t N>
constexpr bool in_value_order(const EnumName<E> (&table)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(table[i].value) != i) return false;
  return true;
}

}  // namespace nvmesim
