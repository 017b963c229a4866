#pragma once
// `nvmesim profiles`: the kernel profile table (host/linux/kernel_profile.hpp) as text or JSON.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvmesim {

/// The table as JSON (schema "nvmesim.profiles/1"): one object per row with its releases and
/// every field under the name `host.overrides` uses.
nlohmann::ordered_json profiles_json();

/// Every mainline release the table covers, oldest first ("4.8", ..., "4.20", "5.0", ..., "6.19").
std::vector<std::string> supported_releases();

/// The subcommand: `nvmesim profiles [--json]`. Returns the exit status.
int cmd_profiles(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
