#pragma once
// The tool's name and version as every output records them (`tool` in nvmesim.timeline/1,
// nvmesim.trials/1, the sweep manifest and summary, nvmesim.dmesg/1). Pure C++.
#include <nlohmann/json.hpp>

namespace nvmesim {

/// {"name": "nvmesim", "version": kVersion} (core/version.hpp).
nlohmann::ordered_json tool_json();

}  // namespace nvmesim
