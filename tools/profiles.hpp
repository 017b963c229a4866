#pragma once
// The kernel profile table (host/linux/kernel_profile.hpp) as text or JSON (`nvmesim profiles`).
// Pure C++.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/linux/kernel_profile.hpp"

namespace nvmesim {

/// The table as JSON (schema "nvmesim.profiles/1"): one object per row with its releases and
/// every field under the name `host.overrides` uses.
nlohmann::ordered_json profiles_json();

/// The table as text: one line per release with its row's behaviour, then a legend
/// (`nvmesim profiles`; docs/profiles.md holds a copy that a test keeps current).
void print_profiles_table(std::ostream& out);

}  // namespace nvmesim
