#pragma once
// The declarative key tables of the scenario file (DESIGN section 7), as gem5's Params and ns-3's
// attributes: each section of the file is a table of keys, and each key (row) has its name, its
// type, its default, its unit, a doc string and a setter into the typed parameters. The same
// tables check a file (unknown keys with "did you mean", types, ranges, units), give the
// defaults, check the variant patches, and render docs/scenario.md's key tables
// (scenario/docs.cpp). Internal to scenario/.
//
// A table is applied in two passes: apply_defaults() runs every row's default through the row's
// own reader (so the documented default is the one that takes effect), then read_section() reads
// the keys the file gives, in row order, and runs the section's cross-key rule (`finish`).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_reader.hpp"
#include "core/names.hpp"

namespace nvmesim::scenario_detail {

class SectionInfo;

/// A row's default: a JSON value that is applied through the row's reader before the file's
/// keys (`json`), or only a description of a default computed elsewhere (`text`, e.g. "nvmeN").
struct Default {
  std::optional<nlohmann::ordered_json> json;
  std::string text;
};
/// The default `json_text` (JSON), applied through the row's reader.
Default dflt(const char* json_text);
/// A default that the loader computes; `text` says what it is (docs only).
Default computed(const char* text);

/// What the docs and the checks need of one row, whatever the parameters it sets.
struct KeyInfo {
  std::string key;
  std::string type;      ///< for the docs: "integer 1 to 65536", "duration or distribution", ...
  Default def;
  std::string unit;      ///< "Hz", "s", "500 ms"; empty when the type carries it (durations) or none
  std::string doc;       ///< what the key means (Markdown)
  /// The message when the key is missing (at the object), or nullptr when it may be left out.
  const char* required = nullptr;
  /// For a top-level key a variant may not change: why (at the patch), else nullptr.
  const char* fixed_in_variants = nullptr;
  /// The table of an object-valued key (docs, defaults, the patch check), or nullptr.
  const SectionInfo* sub = nullptr;
  /// The sub-table is the table of each element of an array (controllers[]).
  bool sub_is_array = false;
  /// The host drivers (host/registry.hpp names) that read this key; empty: every driver. A key
  /// the file gives for another driver is an error (check_used_by), not a value silently unused.
  std::vector<std::string> used_by;
};

/// One table, seen without its parameter type.
class SectionInfo {
 public:
  SectionInfo(std::string title, std::string doc) : title_(std::move(title)), doc_(std::move(doc)) {}
  virtual ~SectionInfo() = default;
  SectionInfo(const SectionInfo&) = delete;
  SectionInfo& operator=(const SectionInfo&) = delete;
  /// "host.overrides", "controllers[].cap": the section's place in the file.
  const std::string& title() const { return title_; }
  const std::string& doc() const { return doc_; }
  /// The allowed keys, in row order (what require_object lists).
  virtual const std::vector<std::string>& names() const = 0;
  virtual std::vector<const KeyInfo*> infos() const = 0;
  /// The row `key`, or nullptr.
  const KeyInfo* find(const std::string& key) const;

 private:
  std::string title_, doc_;
};

/// A row that reads into parameters P.
template <class P>
struct Key : KeyInfo {
  /// Checks the value (type, range) and stores it into P. Throws InputError at the value.
  std::function<void(const JsonNode&, P&)> read;
  /// For an object-valued key without a default of its own: applies its table's defaults.
  std::function<void(P&)> defaults;
};

template <class P>
class Section final : public SectionInfo {
 public:
  /// `finish` runs after the keys (cross-key rules, e.g. CAP.MPSMIN <= CAP.MPSMAX), `start`
  /// before them (rules that must be checked first).
  Section(std::string title, std::string doc, std::vector<Key<P>> keys,
          std::function<void(const JsonNode&, P&)> finish = {}, std::function<void(const JsonNode&, P&)> start = {})
      : SectionInfo(std::move(title), std::move(doc)),
        keys_(std::move(keys)),
        finish_(std::move(finish)),
        start_(std::move(start)) {
    for (const auto& k : keys_) names_.push_back(k.key);
  }
  const std::vector<Key<P>>& keys() const { return keys_; }
  const std::vector<std::string>& names() const override { return names_; }
  std::vector<const KeyInfo*> infos() const override {
    std::vector<const KeyInfo*> out;
    for (const auto& k : keys_) out.push_back(&k);
    return out;
  }
  const std::function<void(const JsonNode&, P&)>& finish() const { return finish_; }
  const std::function<void(const JsonNode&, P&)>& start() const { return start_; }

 private:
  std::vector<Key<P>> keys_;
  std::vector<std::string> names_;
  std::function<void(const JsonNode&, P&)> finish_, start_;
};

/// Requires `n` to be an object whose keys are rows of `s` (the "unknown key" error with its
/// "did you mean" and the list of allowed keys).
void require_keys(const JsonNode& n, const SectionInfo& s);

/// Runs every row's default through its reader (and the defaults of object-valued rows).
template <class P>
void apply_defaults(const Section<P>& s, P& p) {
  for (const Key<P>& k : s.keys()) {
    if (k.def.json) k.read(JsonNode(*k.def.json, "(default)", "/" + k.key), p);
    else if (k.defaults) k.defaults(p);
  }
}

/// Reads the object `n` by the table `s` into `p`: unknown keys are errors; the keys given are
/// read in row order (after `start`); a missing required key fails at `n` with its message;
/// then `finish`.
template <class P>
void read_section(const JsonNode& n, const Section<P>& s, P& p) {
  require_keys(n, s);
  if (s.start()) s.start()(n, p);
  for (const Key<P>& k : s.keys()) {
    if (n.has(k.key.c_str())) k.read(n.at(k.key), p);
    else if (k.required) n.fail(k.required);
  }
  if (s.finish()) s.finish()(n, p);
}

/// A setter storing a value into the member `m` (converted with static_cast; the row's range
/// check makes the conversion exact).
template <class C, class M>
auto to(M C::*m) {
  return [m](auto& p, auto v) { p.*m = static_cast<M>(v); };
}
/// The same for the member `m2` of the member `m1`.
template <class C, class M1, class M2>
auto to(M1 C::*m1, M2 M1::*m2) {
  return [m1, m2](auto& p, auto v) { (p.*m1).*m2 = static_cast<M2>(v); };
}

/// `k` read only by `drivers` (KeyInfo::used_by).
template <class P>
Key<P> used_by(Key<P> k, std::vector<std::string> drivers) {
  k.used_by = std::move(drivers);
  return k;
}

/// Fails (InputError at the key) at the first key of the object `n` that the table `s` marks as
/// used by other drivers than `driver`, naming the drivers that use it.
void check_used_by(const JsonNode& n, const SectionInfo& s, const std::string& driver);

/// "an integer from 1 to 65536" and the like, for the type column.
std::string integer_type(int64_t lo, int64_t hi);
std::string number_type(double lo, double hi);
/// `"a"`, `"b"` or `"c"`.
std::string choice_type(const std::vector<std::string>& names);

/// `T` in a place where it is not deduced.
template <class T>
struct NotDeduced {
  using type = T;
};

/// The row factories of tables over parameters P: each builds the type text and the reader
/// from the same arguments, so the docs say what the check does.
template <class P>
struct Keys {
  template <class V>
  using Set = std::function<void(P&, V)>;

  static Key<P> row(const char* key, std::string type, Default def, const char* unit, const char* doc,
                    std::function<void(const JsonNode&, P&)> read) {
    Key<P> k;
    k.key = key;
    k.type = std::move(type);
    k.def = std::move(def);
    k.unit = unit;
    k.doc = doc;
    k.read = std::move(read);
    return k;
  }
  static Key<P> boolean(const char* key, Default def, const char* doc, Set<bool> set) {
    return row(key, "true or false", std::move(def), "", doc, [set](const JsonNode& n, P& p) { set(p, n.boolean()); });
  }
  static Key<P> integer(const char* key, int64_t lo, int64_t hi, Default def, const char* unit, const char* doc,
                        Set<int64_t> set) {
    return row(key, integer_type(lo, hi), std::move(def), unit, doc,
               [lo, hi, set](const JsonNode& n, P& p) { set(p, n.integer(lo, hi)); });
  }
  static Key<P> number(const char* key, double lo, double hi, Default def, const char* unit, const char* doc,
                       Set<double> set) {
    return row(key, number_type(lo, hi), std::move(def), unit, doc,
               [lo, hi, set](const JsonNode& n, P& p) { set(p, n.number(lo, hi)); });
  }
  static Key<P> string(const char* key, Default def, const char* doc, Set<std::string> set) {
    return row(key, "string", std::move(def), "", doc, [set](const JsonNode& n, P& p) { set(p, n.str()); });
  }
  static Key<P> duration(const char* key, Default def, const char* doc, Set<int64_t> set) {
    return row(key, "duration", std::move(def), "", doc,
               [set](const JsonNode& n, P& p) { set(p, n.duration_ps()); });
  }
  template <class E, size_t N>
  static Key<P> choice(const char* key, const EnumName<E> (&table)[N], Default def, const char* doc,
                       typename NotDeduced<Set<E>>::type set) {
    std::vector<std::string> names;
    for (const auto& e : table) names.emplace_back(e.key);
    return row(key, choice_type(names), std::move(def), "", doc,
               [&table, set](const JsonNode& n, P& p) { set(p, n.choice(table)); });
  }
  /// An object read by its own table `sub` into the part `part(p)` of the parameters. `pre` runs
  /// first and returns true when it read the value itself (another form, e.g. CAP in hex).
  template <class Q>
  static Key<P> object(const char* key, std::string type, const char* doc, const Section<Q>& sub,
                       Q& (*part)(P&), typename NotDeduced<std::function<bool(const JsonNode&, Q&)>>::type pre = {}) {
    Key<P> k = row(key, std::move(type), Default{}, "", doc, [&sub, part, pre](const JsonNode& n, P& p) {
      if (pre && pre(n, part(p))) return;
      read_section(n, sub, part(p));
    });
    k.sub = &sub;
    k.defaults = [&sub, part](P& p) { apply_defaults(sub, part(p)); };
    return k;
  }
};

}  // namespace nvmesim::scenario_detail
