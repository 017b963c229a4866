#pragma once
// `nvmesim profiles [--json]`: the kernel profile table (tools/profiles.hpp).
#include <iosfwd>
#include <string>
#include <vector>

namespace nvmesim {

/// The subcommand: `nvmesim profiles [--json]`. Returns the exit status.
int cmd_profiles(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
