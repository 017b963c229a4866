#pragma once
// The pieces of the sweep loader (sweep/expand.cpp) in files of their own: JSON pointers as axis
// keys and the axes' values (sweep/axes.cpp). Internal to sweep/; the interface is sweep/sweep.hpp.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_reader.hpp"
#include "sweep/sweep.hpp"

namespace nvmesim::sweep_detail {

/// The reference tokens of the JSON pointer `ptr` ("/a/b~1c" -> {"a", "b/c"}).
std::vector<std::string> tokens_of(const std::string& ptr);

/// Whether pointer `inner` is `outer` or lies below it (by tokens, not by characters).
bool under(const std::string& inner, const std::string& outer);

/// Reads a JSON pointer written as an object key of the sweep file (`key_node` is its value) and
/// checks that it can be set in `doc`: its parent exists (and, in an array, the element itself).
/// `what` names the entry in messages ("an axis"). Throws InputError at the key.
std::string read_pointer(const JsonNode& key_node, const std::string& key, const nlohmann::ordered_json& doc,
                         const char* what);

/// The axis at `n` (a list of values, or {"linspace"|"logspace": [from, to], "count": N}) over
/// the scenario pointer `pointer`; `zip` for an axis of "zip". Throws InputError for an empty or
/// too long axis, a bad range, or a repeated value.
SweepAxis read_axis(const JsonNode& n, const std::string& pointer, bool zip);

}  // namespace nvmesim::sweep_detail
