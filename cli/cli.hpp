#pragma once
// The nvmesim command line (DESIGN section 9).
#include <iosfwd>

namespace nvmesim {

/// Exit statuses: 0 done (a simulated probe failure is a result, not an error), 2 bad usage or
/// input, 3 I/O failure, 4 internal error.
enum ExitStatus { kExitOk = 0, kExitUsage = 2, kExitIo = 3, kExitInternal = 4 };

/// Runs `nvmesim ARGS...`: results on `out`, errors and progress on `err`.
int cli_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// The process around cli_main, as main() runs it: results on std::cout, errors on std::cerr,
/// and stdout flushed and checked (results that cannot be written are exit 3). Returns the exit
/// status. A sweep worker forked from the sweep calls it too (cmd_sweep.cpp), so that a forked
/// point ends as an executed `nvmesim run` does.
int cli_process_main(int argc, const char* const* argv);

}  // namespace nvmesim
