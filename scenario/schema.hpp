#pragma once
// docs/scenario.md's key tables, rendered from the scenario's key tables (scenario/keys.hpp), so
// that the documentation lists exactly the keys the loader accepts, with their types, defaults
// and units. tests/test_scenario_docs.cpp compares it with the marked section of the doc.
#include <string>

namespace nvmesim {

/// The first and last line of the generated section of docs/scenario.md.
inline constexpr const char* kKeysDocBegin =
    "<!-- BEGIN generated: the key tables of scenario/ (tests/test_scenario_docs.cpp checks them) -->";
inline constexpr const char* kKeysDocEnd = "<!-- END generated -->";

/// The Markdown between those lines: the distributions table, then one table per section of the
/// file (top level, host, host.overrides, ..., boot), each row a key with its type, default, unit
/// and meaning.
std::string scenario_keys_markdown();

}  // namespace nvmesim
