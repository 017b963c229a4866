#pragma once
// The nvmesim command line (DESIGN section 9).
#include <iosfwd>

namespace nvmesim {

/// Exit statuses: 0 done (a simulated probe failure is a result, not an error), 2 bad usage or
/// input, 3 I/O failure, 4 internal error.
enum ExitStatus { kExitOk = 0, kExitUsage = 2, kExitIo = 3, kExitInternal = 4 };

/// Runs `nvmesim ARGS...`: results on `out`, errors and progress on `err`.
int cli_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace nvmesim
