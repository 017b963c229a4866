#pragma once
// The readable table `nvmesim run` prints on stdout (DESIGN section 9). Pure C++.
#include <iosfwd>
#include <string>

#include "outputs/report.hpp"
#include "scenario/scenario.hpp"

namespace nvmesim {

/// `text` made safe for a terminal: C0 control characters and DEL as `\xNN`, C1 controls
/// (U+0080..U+009F, e.g. CSI) as `\u00NN`, everything else as is (never cut). A scenario's names
/// reach the table this way, so they cannot move the cursor or recolour the terminal (issue 16
/// item 22).
std::string terminal_text(const std::string& text);

/// Prints the table of a report: per variant the status counts, probe percentiles and the mean
/// sleeps and polls of the disable and enable waits; then the namespace, critical-path and
/// workload lines where they differ from the probe; then the paired deltas. Names of any length
/// widen their column; none is cut.
void print_table(std::ostream& os, const Scenario& scenario, const RunReport& report);

}  // namespace nvmesim
