#pragma once
// The `sweep` and `merge` commands of the nvmesim CLI (DESIGN sections 9 and 10).
#include <iosfwd>
#include <string>
#include <vector>

namespace nvmesim {

/// `nvmesim sweep SWEEP.json --out DIR [--jobs N] [--shard K/N] [--resume] [--list] [-q]`.
/// Returns the exit status (sim/sweep_run.hpp: 0, 1 when points failed, 128 + signal when
/// stopped); throws InputError / IoError / boost::program_options errors for the CLI to report.
int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// `nvmesim merge DIR... --out FILE.json`: the summary of the points of sweep folders (and
/// FILE.csv beside it). Returns 0, or 1 when points are failed or missing.
int cmd_merge(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
