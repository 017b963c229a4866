#pragma once
// `nvmesim dmesg LOG... [--from REGEX] [--to REGEX] [--out FILE] [--empirical]` (DESIGN section 9).
#include <iosfwd>
#include <string>
#include <vector>

namespace nvmesim {

/// Runs the dmesg command with its arguments (after the command name). Returns the exit status;
/// throws InputError (exit 2) for bad options, unreadable logs and bad regular expressions, and
/// IoError (exit 3) when --out cannot be written.
int cmd_dmesg(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
